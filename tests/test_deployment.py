"""Deployments other than the map zone: another zone, start squares, formations."""

from __future__ import annotations

import pytest

from engine.core.errors import EncounterError
from engine.state.deployment import (
    CellsDeployment,
    FormationDeployment,
    ZoneDeployment,
    facing_towards,
    formation_offsets,
)
from engine.state.encounter import build_encounter
from tests.builders import make_map, make_profile

GMAP = make_map(
    [
        "##########",
        "#........#",
        "#..C.....#",
        "#........#",
        "#........#",
        "##########",
    ],
    zones=[
        "..........",
        ".AA....BB.",
        ".AA....BB.",
        "..........",
        "..........",
        "..........",
    ],
    deployment={"west": "A", "east": "B"},
)
GUARD = make_profile(name="Guard")
ORC = make_profile(name="Orc")
SIDES = [("west", [GUARD, GUARD, GUARD]), ("east", [ORC, ORC])]


def starts(enc, side="west"):
    return [enc.gmap.rc(p.cell) for p in enc.placements if p.side == side]


@pytest.mark.parametrize(
    ("shape", "facing", "expected"),
    [
        ("line", "east", [(0, 0), (-1, 0), (1, 0), (-2, 0), (2, 0)]),
        ("line", "south", [(0, 0), (0, 1), (0, -1), (0, 2), (0, -2)]),
        ("column", "east", [(0, 0), (0, -1), (0, -2), (0, -3), (0, -4)]),
        ("column", "north", [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]),
        ("wedge", "east", [(0, 0), (-1, -1), (1, -1), (-2, -2), (2, -2)]),
        ("wedge", "west", [(0, 0), (1, 1), (-1, 1), (2, 2), (-2, 2)]),
    ],
)
def test_formation_offsets(shape, facing, expected):
    assert formation_offsets(shape, facing, 5, 1) == expected
    assert formation_offsets(shape, facing, 5, 2) == [(2 * r, 2 * c) for r, c in expected]


def test_facing_towards_the_other_zones():
    assert facing_towards(GMAP, (3, 2), ["B"]) == "east"
    assert facing_towards(GMAP, (3, 8), ["A"]) == "west"
    assert facing_towards(GMAP, (4, 7), ["B"]) == "north"  # B's centre is (1.5, 7.5)


def test_the_map_zone_is_unchanged_without_a_deployment():
    enc = build_encounter(GMAP, SIDES)
    assert starts(enc) == [(1, 1), (1, 2), (2, 1)]
    assert build_encounter(GMAP, SIDES, {}).placements == enc.placements


def test_every_kind_moves_only_the_side_and_keeps_ids():
    base = build_encounter(GMAP, SIDES)
    cases = [
        (ZoneDeployment(squares=((4, 4), (3, 4), (4, 5), (3, 6))), [(3, 4), (3, 6), (4, 4)]),
        (CellsDeployment(((4, 1), (1, 4), (3, 3))), [(4, 1), (1, 4), (3, 3)]),
        (FormationDeployment("line", (3, 4)), [(3, 4), (2, 4), (4, 4)]),
        (FormationDeployment("column", (3, 4), "east"), [(3, 4), (3, 3), (3, 2)]),
        (FormationDeployment("wedge", (2, 5), "east"), [(2, 5), (1, 4), (3, 4)]),
    ]
    for how, expected in cases:
        enc = build_encounter(GMAP, SIDES, {"west": how})
        assert starts(enc) == expected, how
        assert [p.id for p in enc.placements] == [p.id for p in base.placements]
        assert starts(enc, "east") == starts(base, "east")
    with pytest.raises(EncounterError, match=r"zone « B » n'a que 2 cases libres"):
        build_encounter(GMAP, SIDES, {"west": ZoneDeployment("B")})  # the orcs hold 2 of 4
    with pytest.raises(EncounterError, match=r"coin ancrée en \(3,5\).*\(5,3\) est infranch"):
        build_encounter(GMAP, SIDES, {"west": FormationDeployment("wedge", (3, 5), "east", 2)})


def test_a_zone_letter_of_the_other_side_fills_its_free_squares():
    enc = build_encounter(GMAP, [("west", [GUARD]), ("east", [ORC])], {"west": ZoneDeployment("B")})
    assert starts(enc) == [(1, 8)] and starts(enc, "east") == [(1, 7)]


@pytest.mark.parametrize(
    ("how", "needle"),
    [
        (CellsDeployment(((1, 1), (1, 2))), "3 combattants mais 2 cases de départ sont données"),
        (CellsDeployment(((1, 1), (1, 2), (0, 5))), r"\(0,5\) est infranchissable \(« # », wall\)"),
        (
            CellsDeployment(((1, 1), (1, 2), (2, 3))),
            r"\(2,3\) est infranchissable \(« C », pil",
        ),
        (CellsDeployment(((1, 1), (1, 2), (9, 9))), r"\(9,9\) est hors de la carte \(6 lignes"),
        (CellsDeployment(((1, 1), (1, 7), (3, 3))), r"\(1,7\) est déjà occupée par « Orc »"),
        (CellsDeployment(((1, 1), (1, 1), (3, 3))), r"\(1,1\) est déjà occupée par « Guard »"),
        (FormationDeployment("column", (1, 2), "east"), r"formation en colonne.*\(1,0\)"),
        (ZoneDeployment(letter="Z"), "zone « Z » absente de la carte"),
        (ZoneDeployment(squares=((3, 3), (2, 3))), r"case de zone : \(2,3\) est infranchissable"),
        (ZoneDeployment(squares=((3, 3), (3, 4))), r"zone trop petite.*n'a que 2 cases"),
    ],
)
def test_deployment_errors_are_french(how, needle):
    with pytest.raises(EncounterError, match=needle):
        build_encounter(GMAP, SIDES, {"west": how})


def test_unknown_side_in_deployments():
    with pytest.raises(EncounterError, match="camp inconnu « north »"):
        build_encounter(GMAP, SIDES, {"north": ZoneDeployment("A")})


def test_large_creatures_in_formation_do_not_overlap():
    ogre = make_profile(name="Ogre", size="Large", hp_max=30)
    sides = [("west", [ogre, ogre]), ("east", [ORC])]
    enc = build_encounter(GMAP, sides, {"west": FormationDeployment("column", (2, 4), "west")})
    assert starts(enc) == [(2, 4), (2, 6)]  # spacing 1 × space 2
    with pytest.raises(EncounterError, match=r"« Ogre ».*\(5,5\) est infranchissable"):
        build_encounter(GMAP, sides, {"west": CellsDeployment(((4, 5), (1, 1)))})
    with pytest.raises(EncounterError, match=r"\(1,3\) est trop près du bord.*2×2"):
        build_encounter(
            make_map(["....", "...."], zones=["A..B", "...."], deployment={"w": "A", "e": "B"}),
            [("w", [ogre]), ("e", [ORC])],
            {"w": CellsDeployment(((1, 3),))},
        )
