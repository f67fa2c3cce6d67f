"""Scenario suite: small maps where a rule is visible in the transcript.

Each ``tests/scenarios/*.yaml`` is an ordinary encounter file (map, sides,
policies, seed). Its first fight's transcript is kept next to it as
``<name>.txt`` and compared byte for byte; regenerate with
``PF1E_UPDATE_GOLDEN=1 uv run pytest tests/test_scenarios.py`` and explain the
change in the commit message. Each test also states the rule it shows.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli.main import main

SCENARIOS = Path(__file__).parent / "scenarios"


def transcript(capsys, name: str) -> list[str]:
    """The first fight's transcript of a scenario, checked against its golden file."""
    assert main(["--encounter", str(SCENARIOS / f"{name}.yaml"), "--transcript"]) == 0
    out = capsys.readouterr().out
    text = out[out.index("=== Déroulé") : out.index("=== Rapport")].rstrip() + "\n"
    golden = SCENARIOS / f"{name}.txt"
    if os.environ.get("PF1E_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")
    return [" ".join(line.split()) for line in text.splitlines()]


def test_reach_weapon_dead_zone(capsys):
    lines = transcript(capsys, "dead_zone")
    # adjacent to the brute, the pikeman cannot strike: it steps back first, every turn
    pike = [line for line in lines if line.split(" ")[1:2] == ["piquier"]]
    assert pike[0] == "1 piquier pas de placement (2,4)->(1,3)"
    assert pike[1].startswith("1 piquier longspear vs brute")
    assert all("longspear" in line or "pas de placement" in line for line in pike)
    # 5-foot steps never provoke, although both step out of threatened squares
    assert not any("opportunité" in line for line in lines)


def test_leaving_a_threatened_square_provokes_once(capsys):
    lines = transcript(capsys, "aoo_leaving")
    assert lines[6:10] == [
        "1 coureur déplacement (1,1)->(1,2)",
        "1 garde attaque d'opportunité contre coureur (quitte une case menacée)",
        "1 garde sword vs coureur d20=9+4=13 CA 12 -> TOUCHÉ : 4 dégâts (coureur 16/20 pv)",
        "1 coureur déplacement (1,2)->(1,3)->(1,4)->(1,5)->(1,6)->(1,7)",
    ]
    # (1,3) and (1,4) are threatened by the same guard: no second attack
    assert sum("opportunité" in line for line in lines) == 1


@pytest.mark.parametrize(("name", "charges"), [("charge_corner", False), ("charge_open", True)])
def test_charge_blocked_by_a_wall_corner(capsys, name, charges):
    lines = transcript(capsys, name)
    runner = [line for line in lines if line.startswith("1 coureur ")]
    if charges:
        assert runner[0] == "1 coureur charge (3,2)->(3,3)->(3,4)->(2,5)->(2,6)"
        assert "d20=3+6=9" in runner[1]  # +2 for charging
    else:  # the diagonal (3,4)->(2,5) would cut the wall's corner: it walks instead
        assert runner[0].startswith("1 coureur déplacement")
        assert "d20=3+4=7" in runner[1]


def test_surprise_round(capsys):
    lines = transcript(capsys, "surprise")
    assert "round de surprise" in lines
    assert "0 sentinelle surpris : ne peut pas agir" in lines
    assert any(line.startswith("0 pillard sword vs sentinelle") for line in lines)
    # the sentry acts normally from round 1
    assert any(line.startswith("1 sentinelle sword vs pillard") for line in lines)


def test_large_creature_kept_out_of_a_narrow_corridor(capsys):
    lines = transcript(capsys, "squeezed_out")
    moves = [line for line in lines if line.startswith(("1 ogre", "2 ogre", "3 ogre", "4 ogre"))]
    # the ogre's 2×2 space cannot enter the corridor (column 5, rows 3–5): it
    # walks to the mouth, its anchor on row 1 (squares on rows 1 and 2), and stays
    assert moves == ["1 ogre déplacement (1,1)->(1,2)->(1,3)"]
    # the archer shoots it every round from inside the corridor, never reached
    assert sum(line.split(" ")[1] == "archere" and "longbow vs ogre" in line for line in lines) == 3
    assert not any("ogre greatclub" in line for line in lines)


def test_splash_weapon(capsys):
    lines = transcript(capsys, "splash")
    # a hit splashes the raider standing next to the target
    assert "1 alchimiste éclaboussure sur pillard-2 : 1 dégât (pillard-2 19/20 pv)" in lines
    # a miss scatters two squares (second range increment) and splashes where it lands
    i = lines.index(
        "2 alchimiste Alchemist's Fire dévie : d8=2, 2 cases -> tombe en (0,4) "
        "(arrêtée par un mur ou le bord)"
    )
    assert lines[i + 1] == "2 alchimiste éclaboussure sur pillard : 1 dégât (pillard 15/20 pv)"


def test_lich_fear_aura(capsys):
    lines = transcript(capsys, "lich_aura")
    aura = [line for line in lines if "aura de terreur de lich" in line]
    # round 1, the lich's first turn: every other creature in 60 ft (its ghoul too)
    assert aura == [
        "1 goblin jet de Volonté contre aura de terreur de lich d20=20-1=19 vs DD 18 -> "
        "réussite (naturel 20)",
        "1 orc jet de Volonté contre aura de terreur de lich d20=3-1=2 vs DD 18 -> "
        "échec (marge -16)",
        # 1 HD (< 5 HD): frightened; the SRD duration, the lich's 11 HD
        "1 orc devient effrayé (11 rounds) (aura de terreur de lich)",
        "1 veteran jet de Volonté contre aura de terreur de lich d20=11+2=13 vs DD 18 -> "
        "échec (marge -5)",
        # 6 HD: shaken (its −2 shows on its next save)
        "1 veteran devient secoué (11 rounds) (aura de terreur de lich)",
        "1 ghoul aura de terreur de lich : immunisé (effets mentaux)",
    ]
    # and nothing in rounds 2 and 3: the goblin is protected by its save, the orc
    # and the veteran are already under the aura's effect, the ghoul's immunity is
    # said once


def test_ghoul_paralysis(capsys):
    lines = transcript(capsys, "ghoul_paralysis")
    first = lines.index(
        "2 ghoul claws vs pillard d20=15+3=18 CA 12 -> TOUCHÉ : 3 dégâts (pillard 5/20 pv)"
    )
    assert lines[first + 1 : first + 3] == [
        "2 pillard jet de Vigueur contre paralysie d20=2+2=4 vs DD 13 -> échec (marge -9)",
        "2 pillard devient paralysé (2 rounds) (paralysie)",
    ]
    # helpless: Dex 0 and +4 to melee attacks against it; a save on every hit
    assert lines[first + 3].startswith(
        "2 ghoul claws vs pillard d20=14+7=21 CA 7 (sans défense -5)"
    )
    assert lines[first + 4].startswith("2 pillard jet de Vigueur contre paralysie")
    assert lines.count("2 pillard paralysé : ne peut pas agir") == 1
    # the other ghoul leaves the helpless raider to the guard who threatens it
    assert all("vs pillard" not in line for line in lines if line.startswith("2 ghoul-2 "))
    # 2 rounds, counted on the ghoul that gave it, even once destroyed (its initiative
    # count still passes): it ends as round 4 starts, before anyone acts
    assert "2 ghoul est détruit" in lines
    end = lines.index("4 pillard n'est plus paralysé")
    assert lines[end - 1].startswith("3 garde ")
    assert lines[end + 1].startswith("4 ghoul-2 ")


def test_lich_paralyzing_touch_then_coup_de_grace(capsys):
    lines = transcript(capsys, "lich_touch_coup_de_grace")
    touch = lines.index(
        "1 lich touch vs veteran d20=4+5=9 CA 9 (contact, charge -2) -> TOUCHÉ : 6 dégâts "
        "(veteran 39/45 pv)"
    )
    assert lines[touch + 1 : touch + 3] == [
        "1 veteran jet de Vigueur contre toucher paralysant d20=8+7=15 vs DD 18 -> échec "
        "(marge -3)",
        "1 veteran devient paralysé (toucher paralysant)",  # no duration: the fight
    ]
    assert "2 archere fuit lich : double déplacement" in lines
    # the archer flees and does not threaten the lich: the lich's full round goes to
    # a coup de grâce with its touch (automatic critical, Fort DC 10 + damage)
    cdg = lines.index("2 veteran paralysé : ne peut pas agir") + 3
    assert lines[cdg : cdg + 3] == [
        "2 lich coup de grâce sur veteran (touch) : critique automatique ×2, 12 dégâts "
        "(veteran 27/45 pv) ; Vigueur DD 22 ou meurt",
        "2 veteran jet de Vigueur contre coup de grâce d20=14+7=21 vs DD 22 -> échec (marge -1)",
        "2 veteran meurt",
    ]
    assert lines[-1] == "combat terminé : victoire de monsters en 3 rounds"


def test_paralysis_then_coup_de_grace(capsys):
    lines = transcript(capsys, "paralysis_coup_de_grace")
    assert "1 pillard devient paralysé (3 rounds) (paralysie)" in lines
    turn = lines.index("2 pillard paralysé : ne peut pas agir")
    # adjacent to a helpless foe, and the only other enemy (an archer) does not threaten
    # it: a full-round coup de grâce, an automatic critical, Fort DC 10 + damage or death
    assert lines[turn + 1 : turn + 4] == [
        "2 ghoul coup de grâce sur pillard (bite) : critique automatique ×2, 9 dégâts "
        "(pillard -1/20 pv) ; Vigueur DD 19 ou meurt",
        "2 pillard jet de Vigueur contre coup de grâce d20=1+2=3 vs DD 19 -> échec (naturel 1)",
        "2 pillard meurt",
    ]
    # the dead raider's paralysis runs out unseen; once the archer is paralyzed no
    # enemy can act, and a paralyzed side counts as down (docs/rules.md, « Victory »)
    assert not any("n'est plus paralysé" in line for line in lines)
    assert lines[-2] == "3 archere devient paralysé (5 rounds) (paralysie)"
    assert lines[-1] == "combat terminé : victoire de monsters en 3 rounds"


def test_confused_starting_condition(capsys):
    lines = transcript(capsys, "confused")
    raider = [line for line in lines if line.split(" ")[1:2] == ["pillard"]]
    assert raider[:4] == [
        "1 pillard confus, d%=47 : balbutie (tour perdu)",
        "2 pillard confus, d%=15 : agit normalement",
        "2 pillard charge (1,2)->(1,3)->(1,4)->(1,5)->(2,6)->(2,7)->(2,8)",
        "2 pillard sword vs brute d20=1+6=7 CA 12 -> RATÉ",
    ]
    # 51–75: 1d8 + Str to itself; the 3 rounds end at the end of its third turn
    assert raider[4:6] == [
        "3 pillard confus, d%=65 : se blesse (8 dégâts)",
        "3 pillard n'est plus confus",
    ]
    assert not any("confus" in line for line in raider[6:])


def test_cleric_heals_a_dying_ally(capsys):
    lines = transcript(capsys, "cleric_heals_dying_ally")
    fall = lines.index("3 garde tombe, mourant (-3 pv)")
    # the next turn the cleric touches it (cure light wounds: harmless on an ally, no
    # save, no die), which provokes from the adjacent brute; 1d8 + 3 brings it to 7
    assert lines[fall + 1 : fall + 6] == [
        "4 clerc lance soins légers sur garde (niveau 1, 2 emplacements restants)",
        "4 brute attaque d'opportunité contre clerc (lance un sort)",
        "4 brute sword vs clerc d20=10+4=14 CA 16 -> RATÉ",
        "4 garde soins légers : inoffensif, aucun jet",
        "4 garde soins légers (clerc) : +10 pv (7/20 pv)",
    ]
    # conscious again, it fights on its own turn
    assert lines[fall + 6].startswith("4 garde sword vs brute")
    assert sum("lance soins légers" in line for line in lines) == 2


def test_a_wizards_sleep_ends_the_fight(capsys):
    lines = transcript(capsys, "wizard_sleep")
    # a one-round spell: begun in round 1, nothing happens until the wizard's next turn
    begun = lines.index("1 magicien commence à lancer sommeil en (2,9) (niveau 1, 2 emplacements "
                        "restants)")  # fmt: skip
    assert not any("endormi" in line for line in lines[:begun])
    # hurt in between by an arrow: concentration against 10 + 4 + 1
    i = lines.index("2 magicien finit de lancer sommeil")
    assert lines[i - 1].startswith("2 magicien blessé en incantant (4 dégâts) (sommeil) : "
                                   "concentration")  # fmt: skip
    assert lines[i + 1] == "2 magicien sommeil : 10 cases, touche goblin, goblin-2, goblin-3"
    # each goblin (1 HD of the 4) saves on its own; all three fail and fall asleep
    assert sum(line.endswith("devient endormi (30 rounds) (sommeil)") for line in lines) == 3
    assert lines[-1] == "combat terminé : victoire de players en 2 rounds"


def test_a_cone_and_a_line_cut_by_walls(capsys):
    lines = transcript(capsys, "cone_and_line_walls")
    # the cone east of the wizard: the raider north of the wall square (pillard) is
    # within 15 ft but has no line of effect from the cone's corner
    assert "1 magicien cône de flammes : 6 cases, touche pillard-2, pillard-3" in lines
    # the line along pillard-3's row stops at the wall square: pillard-4 is spared
    assert "2 magicien trait de foudre : 4 cases, touche pillard-3" in lines
    assert not any(line.startswith(("1 pillard ", "2 pillard-4 ")) for line in lines[5:])
    # per creature: a success halves, a failure takes it all
    assert "1 pillard-2 cône de flammes (magicien) : 6 dégâts (moitié de 12 : sauvegarde " \
        "réussie) (14/20 pv)" in lines  # fmt: skip


def test_a_ray_misses_on_concealment(capsys):
    lines = transcript(capsys, "ray_concealment")
    # a ranged touch attack against touch AC; the hit is followed by the d100 of
    # the displaced raider's 50 % concealment
    assert (
        "2 magicien rayon de givre (contact à distance) vs pillard d20=12+3=15 CA 10 (contact) "
        "-> TOUCHÉ, mais camouflage : d100=22 ≤ 50 % -> RATÉ"
    ) in lines
    i = lines.index("3 magicien lance rayon de givre sur pillard (niveau 0, à volonté)")
    assert lines[i + 4 : i + 6] == [
        "3 magicien rayon de givre (contact à distance) vs pillard d20=7+3=10 CA 10 (contact) "
        "-> TOUCHÉ",
        "3 pillard rayon de givre (magicien) : 1 dégât (19/20 pv)",
    ]
