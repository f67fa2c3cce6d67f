"""Varied report objects for the narrator's faithfulness bench and tests.

Each sample is a ``pf1e-sim/report@1`` object aggregated by the engine's own
``build_report`` from synthetic fight summaries drawn with a seeded RNG: balanced,
lopsided, slightly unbalanced, many draws, one-sided attrition, a combatant that
never hits, a side that (almost) never reaches melee, short and long fights,
few runs, three and four sides. Same seed,
same objects.

    uv run python bench/report_samples.py --write tests/reports   # a few as JSON files
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.run.stats import CombatantInfo, FightSummary, build_report  # noqa: E402


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    #: per side: (side name, [(combatant id, display name, hp, damage per fight, hit chance)])
    sides: tuple[tuple[str, tuple[tuple[str, str, int, float, float], ...]], ...]
    #: probability of each side winning a fight (the rest are draws)
    wins: tuple[float, ...]
    #: share of draws that are round-cap draws (the others: mutual knockouts)
    cap_share: float = 1.0
    runs: int = 1000
    rounds: tuple[int, int] = (3, 8)
    round_cap: int = 100
    map_name: str = "Arène d'essai"
    #: per side: probability that each of its combatants makes a melee attack in
    #: a fight (None: 0.9 for every side)
    melee: tuple[float, ...] | None = None


def _team(name: str, kind: str, n: int, hp: int, dmg: float, hit: float) -> tuple[Any, ...]:
    ids = [kind if i == 0 else f"{kind}-{i + 1}" for i in range(n)]
    return (name, tuple((i, kind.capitalize(), hp, dmg, hit) for i in ids))


GOBLINS = _team("players", "goblin", 3, 6, 5.0, 0.5)
ORCS = _team("monsters", "orc", 2, 15, 5.0, 0.4)
BANDITS = _team("bandits", "bandit", 2, 11, 4, 0.5)
WOLVES = _team("loups", "wolf", 3, 13, 4, 0.5)
FIGHTER_A = _team("a", "fighter", 1, 20, 6, 0.6)
ROGUE_B = _team("b", "rogue", 1, 18, 6, 0.6)
STRONG_A = _team("a", "fighter", 1, 20, 8, 0.7)
WEAK_B = _team("b", "rogue", 1, 18, 5, 0.5)
ZOMBIES = _team("monsters", "zombie", 2, 12, 0.3, 0.05)
HARMLESS_ORCS = _team("monsters", "orc", 2, 15, 0.0, 0.0)
#: goblins whose second member deals more than twice the others' damage: a carrier
#: beyond noise (identical members never carry the fight: their gap is noise)
STAR_GOBLINS = (
    "players",
    (
        ("goblin", "Goblin", 6, 5.0, 0.5),
        ("goblin-2", "Goblin", 6, 12.0, 0.6),
        ("goblin-3", "Goblin", 6, 5.0, 0.5),
    ),
)
HEROES = _team("heros", "fighter", 4, 30, 9, 0.7)
HORDE = _team("horde", "kobold", 8, 5, 2, 0.3)
CLERICS = _team("heros", "cleric", 4, 25, 5, 0.5)
OGRE = _team("boss", "ogre", 1, 80, 16, 0.6)

SAMPLES: tuple[Sample, ...] = (
    Sample("equilibre_1000", (GOBLINS, ORCS), (0.49, 0.49)),
    Sample("equilibre_duel", (FIGHTER_A, ROGUE_B), (0.5, 0.48)),
    Sample("ecrasant", (GOBLINS, ORCS), (0.92, 0.075)),
    Sample("net_58_38", (GOBLINS, ORCS), (0.58, 0.38)),
    Sample("leger", (GOBLINS, ORCS), (0.54, 0.44), runs=5000),
    Sample("monstres_dominent", (GOBLINS, ORCS), (0.15, 0.84)),
    Sample("nuls_plafond", (GOBLINS, ORCS), (0.35, 0.35), rounds=(15, 20), round_cap=20),
    Sample("nuls_ko_mutuel", (GOBLINS, ORCS), (0.42, 0.42), cap_share=0.1),
    Sample("sens_unique", (GOBLINS, ZOMBIES), (0.97, 0.02)),
    Sample("inactif", (GOBLINS, HARMLESS_ORCS), (0.99, 0.0)),
    Sample("courts", (GOBLINS, ORCS), (0.7, 0.29), rounds=(1, 3)),
    Sample("longs", (GOBLINS, ORCS), (0.6, 0.37), rounds=(9, 16)),
    Sample("peu_de_runs", (GOBLINS, ORCS), (0.6, 0.4), runs=30),
    Sample("peu_de_runs_desequilibre", (GOBLINS, ORCS), (0.9, 0.1), runs=40),
    Sample("trois_camps", (GOBLINS, ORCS, BANDITS), (0.5, 0.3, 0.18)),
    Sample("trois_camps_equilibre", (GOBLINS, ORCS, BANDITS), (0.33, 0.33, 0.32)),
    Sample("trois_camps_outsider", (GOBLINS, ORCS, BANDITS), (0.46, 0.46, 0.06)),
    Sample("quatre_camps", (GOBLINS, ORCS, BANDITS, WOLVES), (0.4, 0.25, 0.2, 0.13)),
    Sample("grand_groupe", (HEROES, HORDE), (0.81, 0.17)),
    Sample("solo_boss", (CLERICS, OGRE), (0.45, 0.53)),
    Sample(
        "nuls_frequents_desequilibre", (GOBLINS, ORCS), (0.6, 0.1), rounds=(10, 12), round_cap=12
    ),
    Sample("un_contre_un_net", (STRONG_A, WEAK_B), (0.75, 0.24)),
    Sample("jamais_au_contact", (GOBLINS, ORCS), (0.7, 0.28), melee=(0.9, 0.0)),
    Sample("contact_rare", (GOBLINS, ORCS), (0.5, 0.47), melee=(0.03, 0.8)),
    Sample("ecrasant_porteur", (STAR_GOBLINS, ORCS), (0.92, 0.075)),
    Sample("porteur_perdant", (STAR_GOBLINS, ORCS), (0.15, 0.84)),
    # many facts at once: three sides, few runs, heavy draws, an inactive side that
    # never reaches melee, a carrier
    Sample(
        "beaucoup_de_faits",
        (STAR_GOBLINS, HARMLESS_ORCS, BANDITS),
        (0.5, 0.0, 0.2),
        runs=40,
        rounds=(8, 12),
        round_cap=12,
        melee=(0.9, 0.0, 0.03),
    ),
    Sample("trois_camps_nuls_ko", (GOBLINS, ORCS, BANDITS), (0.3, 0.25, 0.15), cap_share=0.1),
    Sample("trois_camps_peu_de_runs", (GOBLINS, ORCS, BANDITS), (0.5, 0.3, 0.2), runs=12),
    Sample("nuls_massifs", (GOBLINS, ORCS), (0.1, 0.1), runs=60, rounds=(3, 5), round_cap=5),
    Sample(
        "quatre_camps_peu_de_runs_nuls",
        (GOBLINS, ORCS, BANDITS, WOLVES),
        (0.3, 0.2, 0.1, 0.1),
        runs=25,
        round_cap=8,
    ),
    Sample(
        "trois_camps_ecrasant_ko",
        (STAR_GOBLINS, ZOMBIES, BANDITS),
        (0.7, 0.0, 0.05),
        cap_share=0.0,
        runs=300,
    ),
)


def build(sample: Sample, seed: int = 7) -> dict[str, Any]:
    """The report object of ``sample`` (deterministic)."""
    rng = random.Random(f"{sample.name}:{seed}")
    # a stream of its own: the other counters stay those drawn before it existed
    melee_rng = random.Random(f"{sample.name}:{seed}:melee")
    melee = sample.melee or (0.9,) * len(sample.sides)
    infos = tuple(
        CombatantInfo(cid, side, name, hp)
        for side, members in sample.sides
        for cid, name, hp, _dmg, _hit in members
    )
    members = [m for _side, ms in sample.sides for m in ms]
    sides = tuple(side for side, _ in sample.sides)
    summaries: list[FightSummary] = []
    for _ in range(sample.runs):
        r = rng.random()
        acc, winner = 0.0, -1
        for i, w in enumerate(sample.wins):
            acc += w
            if r < acc:
                winner = i
                break
        if winner < 0:
            cap = rng.random() < sample.cap_share
            winner = -1 if cap else -2
            rounds = sample.round_cap if cap else rng.randint(*sample.rounds)
        else:
            rounds = rng.randint(*sample.rounds)
        counters: list[tuple[int, ...]] = []
        for cid, _name, hp, dmg, hit in members:
            side = next(
                i for i, (_s, ms) in enumerate(sample.sides) if any(m[0] == cid for m in ms)
            )
            hits = sum(rng.random() < hit for _ in range(rounds))
            dealt = round(hits * dmg * rng.uniform(0.6, 1.4)) if dmg else 0
            lost = side != winner
            down = int(lost and rng.random() < 0.9) or int(rng.random() < 0.15)
            taken = round(hp * (1.1 if down else rng.uniform(0.0, 0.8)))
            dead = int(down and rng.random() < 0.2)
            contact = int(melee_rng.random() < melee[side])
            counters.append(
                (hits, int(hits and rng.random() < 0.05), dealt, taken, 0, down, dead, contact)
            )
        summaries.append(FightSummary(winner, rounds, tuple(counters)))
    return build_report(
        map_name=sample.map_name,
        sides=sides,
        combatants=infos,
        runs=sample.runs,
        seed=seed,
        round_cap=sample.round_cap,
        summaries=summaries,
    )


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        out = Path(sys.argv[2])
        out.mkdir(parents=True, exist_ok=True)
        for name in (
            "ecrasant",
            "equilibre_1000",
            "trois_camps_outsider",
            "nuls_plafond",
            "monstres_dominent",
            "quatre_camps",
        ):
            sample = next(s for s in SAMPLES if s.name == name)
            path = out / f"{name}.json"
            path.write_text(
                json.dumps(build(sample), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
            )
            print(path)
        return
    for sample in SAMPLES:
        r = build(sample)
        rates = " / ".join(f"{s['name']} {s['rate']:.2f}" for s in r["sides"])
        print(f"{sample.name:30} {rates}  nuls {r['draws']['rate']:.2f}")


if __name__ == "__main__":
    main()
