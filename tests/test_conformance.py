"""The legal-options menu conforms to the engine, over random fights.

Random fights on a small map with walls, water and pillars, between creatures
of every size from Tiny to Huge (a reach weapon, natural weapons, a firearm
that misfires, bows, Acrobatics and Stealth ranks), some with a surprise round
and a disabled combatant, and some with creatures under timed conditions
(helpless ones to finish with a coup de grâce, nauseated, staggered, unable to
move, at half speed, unable to run or charge, unable to act, fleeing in fear).
Every combatant picks a random option of its menu. At every decision:

* each option fits the action budget (the conditions' limits included) and
  passes the conditions' gate (:func:`engine.rules.status.gate`), and the first
  action of each is accepted by the engine's own ``verify`` (its row of
  :data:`engine.rules.table.ACTIONS`) on the live fight, with the path the option
  shows;
* random candidates of every implemented kind (targets, weapons, squares,
  triggers…, sensible or not) are judged alike by ``verify`` on the
  Observation and on the live fight (the same plan or the same reason), and
  one the engine refuses (by the gate or by ``verify``) is never offered.

And no action of a chosen option is ever refused when the engine plays it.
"""

from __future__ import annotations

import random
from dataclasses import fields, is_dataclass
from typing import Any

from builders import make_map, make_profile, melee, ranged

from engine.content.actions import Action, EscapeAction, Option, Reason, TurnPlan
from engine.content.creatures import AttackProfile, load_combatant
from engine.content.space import footprint
from engine.content.spellbook import KnownSpell
from engine.core.rng import SeededRng
from engine.geometry.grid import Path
from engine.rules.economy import filter_plan
from engine.rules.endings import add_ending, source_of
from engine.rules.status import gate, give_condition
from engine.rules.table import ACTIONS, IMPLEMENTED_KINDS, accept
from engine.state.casting import Ending
from engine.state.conditions import ONE_MOVE, TABLE_BITS, names_of
from engine.state.effects import Cond
from engine.state.encounter import Encounter, build_encounter
from engine.state.state import CombatantState
from engine.turn.battle import Battle
from engine.view.observation import Observation
from engine.view.snapshot import CombatantView

#: not refusals: the actor or the target fell mid-plan (an attack of
#: opportunity, an ally's readied action set off by the move)
FELL = {Reason.ACTOR_DOWN, Reason.TARGET_DOWN}
PRONE = Cond.PRONE.value

MAP = make_map(
    [
        "................",
        "..~~....#.......",
        "..~~....#.C.....",
        "......C.........",
        "................",
        "....#......~~...",
        "....#......~~...",
        "........C.......",
        "................",
        "................",
    ],
    zones=["AAAA........BBBB"] * 10,
    deployment={"west": "A", "east": "B"},
)

ACRO = {"Acrobatics": {"rank": 3}, "Stealth": {"rank": 2, "class_skill": True}}
#: the caster's spells: a missile, a point area (a burst at long range, a one-round
#: burst with a pool of Hit Dice) and a touch that heals the living
SPELL_NAMES = ["magic missile", "fireball", "sleep", "cure light wounds"]


def _creatures(*, unaware: bool, caster: bool) -> tuple[list[Any], list[Any]]:
    rat = make_profile(
        name="Rat", size="Tiny", hp_max=6, skills=ACRO,
        attacks=[melee("bite", dmg="1d3", natural=True)],
    )  # fmt: skip
    gunner = make_profile(
        name="Gunner", hp_max=14, bab=6, skills=ACRO, speed_land_ft=20,
        attacks=[ranged("pistol", bonus=6, inc=20, firearm=True), melee("dagger", bonus=5)],
    )  # fmt: skip
    ogre = make_profile(
        name="Ogre", size="Large", hp_max=30, bab=3, skills=ACRO,
        attacks=[melee("glaive", bonus=5, dmg="1d10+4", reach_weapon=True)],
    )  # fmt: skip
    giant = make_profile(
        name="Giant", size="Huge", hp_max=40, bab=4, speed_land_ft=40,
        attacks=[
            melee("slam", bonus=6, dmg="1d8+5", natural=True, count=2),
            melee("bite", bonus=4, dmg="1d6+2", natural=True),
            ranged("rock", bonus=3, dmg="1d8+5", inc=30),
        ],
    )  # fmt: skip
    goblin = load_combatant("data/monsters/goblin.json")
    orc = make_profile(name="Sleepy", hp_max=12, aware=not unaware, attacks=[melee("axe", bonus=3)])
    mage = make_profile(
        name="Mage", level=5, hp_max=16, bab=2, casting_ability="int",
        abilities={"str_score": 8, "dex_score": 14, "con_score": 10, "int_score": 16},
        spell_slots={"1": 3, "3": 1}, spells=SPELL_NAMES,
        attacks=[melee("dagger", bonus=1, dmg="1d4")],
    )  # fmt: skip
    return [rat, gunner, ogre, *([mage] if caster else [])], [goblin, giant, orc]


def _encounter(*, unaware: bool, caster: bool = False) -> Encounter:
    west, east = _creatures(unaware=unaware, caster=caster)
    return build_encounter(MAP, [("west", west), ("east", east)])


def norm(x: object) -> object:
    """A plan or a reason as comparable values (creatures and weapons by id)."""
    if isinstance(x, Reason):
        return ("refused", x.value)
    if isinstance(x, Path):
        return ("path", x.cells, x.cost)
    if isinstance(x, AttackProfile):
        return ("weapon", x.id)
    if isinstance(x, KnownSpell):
        return ("spell", x.spell.id, x.level)
    if isinstance(x, CombatantState | CombatantView):
        return ("creature", x.id)
    if isinstance(x, list | tuple):
        return tuple(norm(i) for i in x)
    if is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__, *(norm(getattr(x, f.name)) for f in fields(x)))
    return x


def plan_path(plan: object) -> tuple[int, ...]:
    """The squares a movement plan walks (what its option's ``path`` must be)."""
    if isinstance(plan, Path):
        return plan.cells
    if isinstance(plan, int):  # a 5-foot step's square
        return (plan,)
    path = getattr(plan, "path", None)
    assert isinstance(path, Path), plan
    return path.cells


class Fuzzer:
    """Checks every menu against the engine, then plays a random option."""

    def __init__(self, seed: int, candidates: int = 3) -> None:
        self.rng = random.Random(seed)
        self.candidates = candidates
        self.battle: Battle | None = None
        self.refused: list[tuple[str, str, str | None]] = []
        #: the kinds of every action of an offered option, and the options' id prefixes
        self.offered: set[str] = set()
        self.menus: set[str] = set()
        #: per kind: how the random candidates were judged ("plan" / "refused")
        self.judged: dict[str, set[str]] = {k: set() for k in IMPLEMENTED_KINDS}
        self.sizes: set[str] = set()
        self.rounds: set[int] = set()
        #: the condition bits of the actors whose menus were checked
        self.conditions = 0

    def decide(self, obs: Observation) -> TurnPlan:
        assert self.battle is not None
        fight = self.battle.fight
        me = fight.by_id[obs.acting_id]
        self.sizes.add(me.profile.spec.size)
        self.rounds.add(min(obs.round, 1))
        for r in obs.last_turn_results:
            if not r.ok and r.reason not in FELL:
                self.refused.append((obs.acting_id, r.kind, r.reason))
        options = obs.legal_options
        for option in options:
            self._check_option(obs, me, option)
        self._check_candidates(obs, me, {o.actions[0] for o in options})
        choice = self.rng.choice(options)
        return TurnPlan(choice.actions, choice.id)

    def _check_option(self, obs: Observation, me: CombatantState, option: Option) -> None:
        fight = obs_fight(self)
        cond = me.effects.cond
        kept, _ = filter_plan(
            option.actions,
            staggered=me.staggered,
            surprise=fight.round == 0,
            swift_available=not me.immediate_used,
            nauseated=bool(cond & ONE_MOVE),
            cast_slot=me.casting.slot_of if me.casting is not None else None,
        )
        assert all(kept), option
        for a in option.actions:
            assert gate(cond, a.kind, ACTIONS[a.kind].moves) is None, option
            if ACTIONS[a.kind].moves:
                assert not cond & PRONE, option
        self.conditions |= cond & TABLE_BITS
        self.offered.update(a.kind for a in option.actions)
        self.menus.add(option.id.split(":")[0])
        first = option.actions[0]
        row = ACTIONS[first.kind]
        assert row.verify is not None, option
        plan = row.verify(fight.gmap, fight, me, first)
        assert not isinstance(plan, Reason), (option, plan)
        if row.moves:
            assert plan_path(plan) == option.path, option
        # the Observation gives the very same plan
        assert norm(row.verify(fight.gmap, obs, obs.actor, first)) == norm(plan), option

    def _check_candidates(self, obs: Observation, me: CombatantState, offered: set[Action]) -> None:
        fight = obs_fight(self)
        for action in candidates(self.rng, obs, self.candidates):
            row = ACTIONS[action.kind]
            assert row.verify is not None
            engine = row.verify(fight.gmap, fight, me, action)
            menu = row.verify(fight.gmap, obs, obs.actor, action)
            assert norm(menu) == norm(engine), action
            refused = isinstance(engine, Reason)
            self.judged[action.kind].add("refused" if refused else "plan")
            if refused or gate(me.effects.cond, action.kind, row.moves) is not None:
                assert action not in offered, action


def obs_fight(fuzzer: Fuzzer) -> Any:
    assert fuzzer.battle is not None
    return fuzzer.battle.fight


#: every kind of entry of the menu (engine.view.options)
MENU_ENTRIES = {
    "full_attack", "defensive_full_attack", "attack", "charge", "step_full_attack",
    "move_attack", "move", "run", "withdraw", "tumble", "hide", "drop_prone", "aid_another",
    "ready", "repair_weapon", "total_defense", "delay", "wait", "stand_up", "stand_attack",
    "coup_de_grace", "cast_spell", "defensive_cast_spell", "escape",
}  # fmt: skip

#: the conditions the fights with conditions give (a few rounds, or until the end)
AFFLICTIONS = [
    "paralyzed", "asleep", "helpless", "unconscious", "nauseated", "staggered", "entangled",
    "exhausted", "fatigued", "grappled", "stunned", "dazed", "frightened", "panicked",
]  # fmt: skip
#: the menus of actors under these conditions were checked (those that cannot
#: act never get one: the loop plays their turn)
CHECKED = {"nauseated", "staggered", "entangled", "exhausted", "fatigued", "grappled"}

TRIGGERS = [None, "enemy_enters_reach", "enemy_casts", "enemy_attacks", "enemy_hits_ally"]


def candidates(rng: random.Random, obs: Observation, per_kind: int) -> list[Action]:
    """Random actions of every implemented kind for the actor of ``obs``."""
    me = obs.actor
    gmap = obs.map
    ids = [None, "zz", *(c.id for c in obs.combatants)]
    weapons = [None, "nope", *(a.id for a in me.all_attacks)]
    r0, c0 = me.pos

    def square() -> tuple[int, int] | None:
        if rng.random() < 0.2:
            return None
        if rng.random() < 0.1:
            return (-1, rng.randrange(gmap.width))
        return (
            min(gmap.height, max(-1, r0 + rng.randint(-6, 6))),
            min(gmap.width, max(-1, c0 + rng.randint(-6, 6))),
        )

    # several targets draw from their own generator: the other fields' draws stay as they were
    several = random.Random(f"targets:{obs.acting_id}:{obs.round}")

    def target_ids() -> tuple[str, ...]:
        if several.random() < 0.7:
            return ()
        return tuple(str(several.choice(ids[1:])) for _ in range(several.randint(1, 3)))

    pools: dict[str, Any] = {
        "target_id": lambda: rng.choice(ids),
        "opponent_id": lambda: rng.choice(ids),
        "weapon_id": lambda: rng.choice(weapons),
        "destination": square,
        "tumble": lambda: rng.random() < 0.3,
        "ready_trigger": lambda: rng.choice(TRIGGERS),
        "maneuver": lambda: "trip" if rng.random() < 0.1 else None,
        "spell_name": lambda: rng.choice([None, "wish", *SPELL_NAMES]),
        "target_pos": square,
        "metamagic": lambda: ("Empower Spell",) if rng.random() < 0.1 else (),
        "cast_defensively": lambda: rng.random() < 0.3,
        "target_ids": target_ids,
        "aid_mode": lambda: rng.choice(["attack", "ac"]),
    }
    out: list[Action] = []
    for kind in sorted(IMPLEMENTED_KINDS):
        if kind == "escape":  # its own generator: the other kinds' draws stay as they were
            own = random.Random(f"{obs.acting_id}:{obs.round}")
            names = [None, "web", "entangle", "wish"]
            out += [EscapeAction(spell_name=own.choice(names)) for _ in range(per_kind)]
            continue
        cls = ACTIONS[kind].cls
        for _ in range(per_kind):
            # a field with no pool fails here: a new field needs one
            kwargs = {f.name: pools[f.name]() for f in fields(cls) if f.name != "kind"}
            out.append(cls(**kwargs))
    return out


#: the spells whose conditions these are, when they are held by one (an escape)
_HOLDS = {"grappled": "web", "entangled": "entangle"}

#: fights without conditions, then fights with them
PLAIN, AFFLICTED = 6, 8
#: then one fight whose conditions are spells' holds its holders may escape
HELD = PLAIN + AFFLICTED


def _fight(seed: int) -> Fuzzer:
    enc = _encounter(unaware=seed % 2 == 0, caster=seed % 3 == 0)
    fuzzer = Fuzzer(seed)
    states = enc.fresh_states()
    gunner = next(c for c in states if c.profile.spec.name == "Gunner")
    if seed % 3 == 1:  # disabled: one action, restricted withdraw
        gunner.hp = 0
        gunner.refresh()
    elif seed % 3 == 2:  # its pistol misfired before the fight
        gunner.weapon_broken = frozenset({"pistol"})
    battle = Battle(
        enc.gmap, states, enc.sides, SeededRng(seed), dict.fromkeys(enc.sides, fuzzer),
        round_cap=8,
    )  # fmt: skip
    fuzzer.battle = battle
    if seed == PLAIN:  # a helpless goblin next to the gunner: coups de grâce are offered
        _helpless_next_to(battle, states, "Goblin", "Gunner")
    if seed >= PLAIN:  # timed conditions on about half the combatants
        pick = random.Random(seed)
        for c in states:
            if pick.random() < 0.6:
                name = pick.choice(AFFLICTIONS)
                rounds = pick.choice([None, 2, 3, 5])
                origin = pick.choice([o for o in states if o.side != c.side])
                source = None
                if seed == HELD:  # a web's grappled or an entangle's entangled: escapes
                    name = "grappled" if c.index % 2 else "entangled"
                    source = source_of("escape", _HOLDS[name], name)
                give_condition(
                    battle.fight, c, name, rounds, effect="test", origin=origin, source=source
                )
                if source is not None:
                    add_ending(c, Ending("escape", source, name, "test", "ref", 15, (), origin.id))
    result = battle.run()
    for c in result.combatants:
        for r in c.last_results:
            if not r.ok and r.reason not in FELL:
                fuzzer.refused.append((c.id, r.kind, r.reason))
    return fuzzer


def _helpless_next_to(battle: Battle, states: list[CombatantState], who: str, near: str) -> None:
    """Paralyze ``who`` for the fight on a free square next to ``near``."""
    victim = next(c for c in states if c.profile.spec.name == who)
    other = next(c for c in states if c.profile.spec.name == near)
    taken = {cell for c in states if c is not victim for cell in footprint(MAP, c.pos, c.space)}
    r0, c0 = MAP.rc(other.pos)
    victim.pos = next(
        MAP.cell(r, c)
        for r in range(r0 - 1, r0 + 2)
        for c in range(c0 - 1, c0 + 2)
        if MAP.in_bounds(r, c) and MAP.move_cost[MAP.cell(r, c)] and MAP.cell(r, c) not in taken
    )
    give_condition(battle.fight, victim, "paralyzed", None, effect="test")


def test_every_option_is_what_the_engine_verifies_and_is_never_refused():
    offered: set[str] = set()
    menus: set[str] = set()
    judged: dict[str, set[str]] = {k: set() for k in IMPLEMENTED_KINDS}
    sizes: set[str] = set()
    rounds: set[int] = set()
    conditions = 0
    for seed in range(HELD + 1):
        fuzzer = _fight(seed)
        assert fuzzer.refused == [], (seed, fuzzer.refused)
        offered |= fuzzer.offered
        menus |= fuzzer.menus
        sizes |= fuzzer.sizes
        rounds |= fuzzer.rounds
        conditions |= fuzzer.conditions
        for kind, seen in fuzzer.judged.items():
            judged[kind] |= seen
    # actors under every condition that changes the menu had their menus checked
    assert set(names_of(conditions)) >= CHECKED, CHECKED - set(names_of(conditions))
    assert sizes == {"Tiny", "Small", "Medium", "Large", "Huge"}
    assert rounds == {0, 1}  # surprise rounds were played
    # every kind the engine resolves was offered, but the immediate action
    # (only a reaction policy takes one off-turn)
    assert offered == IMPLEMENTED_KINDS - {"immediate"}, IMPLEMENTED_KINDS - offered
    assert menus == MENU_ENTRIES, MENU_ENTRIES ^ menus
    # every candidate kind was judged; those with a rule to judge were both
    # accepted and refused (a withdraw is never refused: it may walk nowhere)
    always = {k for k, row in ACTIONS.items() if row.verify is accept} | {"withdraw"}
    for kind, seen in judged.items():
        assert seen == ({"plan"} if kind in always else {"plan", "refused"}), kind
