"""Map loader: ``parse_map`` / ``load_map`` (engine/content/maps.py).

One test per validation rule: each asserts that a :class:`DataError` is raised and
that its French message names the field, character or cell at fault. Positive
tests cover the shipped sample arena and the legend, elevation and marker
semantics.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.content.maps import GameMap, load_map, parse_map
from engine.core.errors import DataError

REPO = Path(__file__).resolve().parents[1]
SAMPLE_ARENA = REPO / "data" / "maps" / "sample_arena.yaml"

LEGEND = """\
legend:
  "#": { type: wall, blocks_los: true }
  ".": { type: floor, move_cost: 1 }
  "T": { type: rubble, move_cost: 2 }
"""

# 4 rows × 5 columns, walls on the border.
TERRAIN = ["#####", "#...#", "#.T.#", "#####"]
ZONES = [".....", ".A.B.", ".....", "....."]
DEPLOYMENT = {"players": "A", "monsters": "B"}


def _block(key: str, rows: list[str]) -> str:
    return f"{key}: |\n" + "".join(f"  {row}\n" for row in rows)


def map_yaml(
    *,
    name: str | None = "Test",
    terrain: list[str] | None = TERRAIN,
    legend: str | None = LEGEND,
    elevation: list[str] | None = None,
    zones: list[str] | None = None,
    deployment: dict[str, str] | None = None,
    markers: str | None = None,
    extra: str = "",
) -> str:
    """Small inline YAML map; every section is optional so each rule can be isolated."""
    parts: list[str] = []
    if name is not None:
        parts.append(f"name: {name}\n")
    if terrain is not None:
        parts.append(_block("terrain", terrain))
    if legend is not None:
        parts.append(legend)
    if elevation is not None:
        parts.append(_block("elevation", elevation))
    if zones is not None:
        parts.append(_block("zones", zones))
    if deployment is not None:
        parts.append("deployment:\n" + "".join(f"  {s}: {z}\n" for s, z in deployment.items()))
    if markers is not None:
        parts.append(f"markers:\n{markers}")
    parts.append(extra)
    return "".join(parts)


def map_error(text: str, source: str | None = None) -> DataError:
    with pytest.raises(DataError) as info:
        parse_map(text, source)
    return info.value


# --------------------------------------------------------------------------- positive


def test_minimal_map_parses() -> None:
    game_map = parse_map(map_yaml(), "mini.yaml")
    assert isinstance(game_map, GameMap)
    assert (game_map.height, game_map.width) == (4, 5)
    assert game_map.terrain_rows == tuple(TERRAIN)
    assert game_map.source == "mini.yaml"
    # No elevation / zones layers: flat ground, no zones, nothing deployed.
    assert game_map.elevation_rows == ("." * 5,) * 4
    assert game_map.zone_rows == ("." * 5,) * 4
    assert set(game_map.elevation) == {0}
    assert set(game_map.zone_of) == {"."}
    assert game_map.markers == {}
    assert game_map.deployment == {}


def test_sample_arena_loads() -> None:
    arena = load_map(SAMPLE_ARENA)
    assert arena.name == "Arène d'essai"
    assert (arena.height, arena.width) == (8, 20)
    assert arena.size == 160
    assert arena.source == str(SAMPLE_ARENA)
    assert arena.deployment == {"players": "A", "monsters": "B"}
    assert arena.markers == {"autel": (1, 16)}


def test_sample_arena_loads_from_str_path() -> None:
    assert load_map(str(SAMPLE_ARENA)).name == "Arène d'essai"


def test_sample_arena_zones_in_row_col_order_and_passable() -> None:
    arena = load_map(SAMPLE_ARENA)
    zone_a = [arena.rc(c) for c in arena.zone_cells("A")]
    zone_b = [arena.rc(c) for c in arena.zone_cells("B")]
    assert zone_a == [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2), (2, 4)]
    assert zone_b == [(1, 15), (1, 16), (1, 17), (1, 18), (2, 15), (2, 17), (2, 18)]
    assert zone_a == sorted(zone_a)
    assert zone_b == sorted(zone_b)
    for cell in arena.zone_cells("A") + arena.zone_cells("B"):
        assert arena.passable(cell)
    assert arena.zone_cells("C") == []


def test_sample_arena_terrain_semantics() -> None:
    arena = load_map(SAMPLE_ARENA)
    wall = arena.cell(0, 0)
    assert arena.move_cost[wall] == 0
    assert arena.blocks_los[wall]
    assert arena.cover[wall] == 4
    pillar = arena.cell(2, 3)
    assert arena.terrain_rows[2][3] == "C"
    assert not arena.passable(pillar)
    assert not arena.blocks_los[pillar]
    assert arena.cover[pillar] == 4
    water = arena.cell(3, 7)
    assert arena.terrain_rows[3][7] == "~"
    assert arena.move_cost[water] == 2
    rubble = arena.cell(4, 3)
    assert arena.move_cost[rubble] == 2
    floor = arena.cell(1, 1)
    assert (arena.move_cost[floor], arena.cover[floor], arena.blocks_los[floor]) == (1, 0, False)
    # Legend entries are exposed even when unused in the terrain ("W").
    types = {t.char: t for t in arena.terrain_types}
    assert set(types) == {"#", ".", "T", "~", "C", "W"}
    assert types["W"].cover_bonus == 2
    assert types["W"].move_cost is None
    assert [t.char for t in arena.terrain_types] == sorted(types)


def test_sample_arena_elevation() -> None:
    arena = load_map(SAMPLE_ARENA)
    assert arena.elevation[arena.cell(1, 2)] == 1
    assert arena.elevation[arena.cell(2, 5)] == 1
    assert arena.elevation[arena.cell(1, 1)] == 0
    assert arena.elevation[arena.cell(1, 6)] == 0
    assert sum(arena.elevation) == 8


def test_legend_semantics() -> None:
    legend = """\
legend:
  ".": { type: floor, move_cost: 1 }
  "#": { type: wall, blocks_los: true }
  "C": { type: pillar, move_cost: null, cover: true }
  "X": { type: chasm }
  "p": { type: low wall, move_cost: 2, cover_bonus: 2 }
  "i": { type: arrow slit, cover_bonus: 8 }
  "b": { type: curtain, move_cost: 1, blocks_los: true, cover_bonus: 2 }
"""
    game_map = parse_map(map_yaml(terrain=["#.CXpib"], legend=legend))
    types = {t.char: t for t in game_map.terrain_types}
    # Omitted move_cost means impassable, exactly like an explicit null.
    assert types["X"].move_cost is None
    assert types["#"].move_cost is None
    assert types["C"].move_cost is None
    assert game_map.move_cost == (0, 1, 0, 0, 2, 0, 1)
    assert [game_map.passable(c) for c in range(7)] == [
        False,
        True,
        False,
        False,
        True,
        False,
        True,
    ]
    # cover: true is standard cover (+4); a blocks_los terrain gives +4 too.
    assert types["C"].cover_bonus == 4
    assert types["#"].cover_bonus == 4
    assert types["X"].cover_bonus == 0
    assert types["."].cover_bonus == 0
    # An explicit cover_bonus is respected (2 partial, 8 improved), even over blocks_los.
    assert types["p"].cover_bonus == 2
    assert types["i"].cover_bonus == 8
    assert types["b"].cover_bonus == 2
    assert game_map.cover == (4, 0, 4, 0, 2, 8, 2)
    assert game_map.blocks_los == (True, False, False, False, False, False, True)
    assert types["C"].to_dict() == {
        "type": "pillar",
        "move_cost": None,
        "blocks_los": False,
        "cover": True,
        "cover_bonus": 4,
    }
    assert types["."].to_dict()["cover"] is False


def test_elevation_digits_parsed() -> None:
    game_map = parse_map(
        map_yaml(terrain=["....."] * 2, elevation=["01234", "5.789"]),
    )
    assert game_map.elevation == (0, 1, 2, 3, 4, 5, 0, 7, 8, 9)
    assert game_map.elevation_rows == ("01234", "5.789")


def test_markers_parsed() -> None:
    markers = "  autel: [1, 2]\n  porte: [2, 3]\n"
    game_map = parse_map(map_yaml(markers=markers))
    assert game_map.markers == {"autel": (1, 2), "porte": (2, 3)}


def test_zones_and_deployment_parsed() -> None:
    game_map = parse_map(map_yaml(zones=ZONES, deployment=DEPLOYMENT))
    assert game_map.deployment == DEPLOYMENT
    assert [game_map.rc(c) for c in game_map.zone_cells("A")] == [(1, 1)]
    assert [game_map.rc(c) for c in game_map.zone_cells("B")] == [(1, 3)]
    assert game_map.zone_rows == tuple(ZONES)


def test_zones_of_dots_only_need_no_deployment() -> None:
    game_map = parse_map(map_yaml(zones=["....."] * 4))
    assert game_map.deployment == {}


def test_lowercase_zone_letters_are_zone_letters() -> None:
    zones = [".....", ".a.b.", ".....", "....."]
    game_map = parse_map(map_yaml(zones=zones, deployment={"x": "a", "y": "b"}))
    assert [game_map.rc(c) for c in game_map.zone_cells("a")] == [(1, 1)]


def test_trailing_blank_lines_are_ignored() -> None:
    text = map_yaml(terrain=None, extra='terrain: "....\\n....\\n\\n\\n"\n')
    text = text.replace(LEGEND, "") + LEGEND
    game_map = parse_map(text)
    assert (game_map.height, game_map.width) == (2, 4)


# --------------------------------------------------------------------------- layer shape


@pytest.mark.parametrize(
    ("layer", "rows"),
    [
        ("elevation", ["....."] * 3),  # one row short
        ("elevation", ["......"] * 4),  # rows one char too long
        ("zones", ["....."] * 5),  # one row too many
        ("zones", ["...."] * 4),  # rows one char too short
    ],
)
def test_layer_dimensions_differ_from_terrain(layer: str, rows: list[str]) -> None:
    err = map_error(map_yaml(**{layer: rows}))  # pyright: ignore[reportArgumentType]
    assert err.location == layer
    message = str(err)
    assert "dimensions" in message
    assert "« terrain »" in message
    assert "(4×5)" in message
    assert f"{len(rows)}×{len(rows[0])}" in message


def test_terrain_rows_of_unequal_length() -> None:
    err = map_error(map_yaml(terrain=["#####", "#...#", "#.T.", "#####"]))
    assert err.location == "terrain"
    assert "ligne 2 de longueur 4 au lieu de 5" in str(err)


def test_elevation_rows_of_unequal_length() -> None:
    err = map_error(map_yaml(elevation=[".....", "....", ".....", "....."]))
    assert err.location == "elevation"
    assert "ligne 1 de longueur 4 au lieu de 5" in str(err)


def test_empty_terrain_layer() -> None:
    err = map_error(map_yaml(terrain=None, extra='terrain: ""\n'))
    assert err.location == "terrain"
    assert "couche vide" in str(err)


# --------------------------------------------------------------------------- characters


def test_unknown_terrain_character() -> None:
    err = map_error(map_yaml(terrain=["#####", "#.X.#", "#.T.#", "#####"]))
    assert err.location == "terrain"
    message = str(err)
    assert "« X »" in message
    assert "(1,2)" in message
    assert "légende" in message


def test_bad_elevation_character() -> None:
    err = map_error(map_yaml(elevation=[".....", "..a..", ".....", "....."]))
    assert err.location == "elevation"
    message = str(err)
    assert "« a »" in message
    assert "(1,2)" in message
    assert "chiffre" in message


def test_non_decimal_digit_in_elevation_is_a_data_error() -> None:
    err = map_error(map_yaml(elevation=[".....", "..²..", ".....", "....."]))
    assert err.location == "elevation"
    assert "« ² »" in str(err)


@pytest.mark.parametrize("char", ["1", "*", "#"])
def test_bad_zone_character(char: str) -> None:
    zones = [".....", f".A{char}B.", ".....", "....."]
    err = map_error(map_yaml(zones=zones, deployment=DEPLOYMENT))
    assert err.location == "zones"
    message = str(err)
    assert f"« {char} »" in message
    assert "(1,2)" in message
    assert "lettre de zone" in message


# --------------------------------------------------------------------------- zones / deployment


def test_zones_without_deployment() -> None:
    err = map_error(map_yaml(zones=ZONES))
    assert err.location == "deployment"
    assert "« deployment »" in str(err)
    assert "« zones »" in str(err)


def test_deployment_without_zones() -> None:
    err = map_error(map_yaml(deployment=DEPLOYMENT))
    assert err.location == "zones"
    assert "« deployment » exige une couche « zones »" in str(err)


def test_zone_letter_not_deployed() -> None:
    err = map_error(map_yaml(zones=ZONES, deployment={"players": "A"}))
    assert err.location == "zones"
    message = str(err)
    assert "« B »" in message
    assert "aucun camp" in message


def test_deployed_side_without_cells() -> None:
    err = map_error(map_yaml(zones=ZONES, deployment={**DEPLOYMENT, "allies": "C"}))
    assert err.location == 'deployment["allies"]'
    message = str(err)
    assert "« allies »" in message
    assert "« C »" in message
    assert "aucune case" in message


def test_two_sides_share_a_letter() -> None:
    zones = [".....", ".A.A.", ".....", "....."]
    err = map_error(map_yaml(zones=zones, deployment={"players": "A", "monsters": "A"}))
    assert err.location == "deployment"
    message = str(err)
    assert "« players »" in message
    assert "« monsters »" in message
    assert "« A »" in message


def test_deployment_value_of_several_letters() -> None:
    err = map_error(map_yaml(zones=ZONES, deployment={"players": "AB", "monsters": "B"}))
    assert err.location == 'deployment["players"]'
    assert "« AB »" in str(err)


def test_zone_cell_on_impassable_square() -> None:
    zones = ["A....", ".A.B.", ".....", "....."]
    err = map_error(map_yaml(zones=zones, deployment=DEPLOYMENT))
    assert err.location == "zones"
    message = str(err)
    assert "(0,0)" in message
    assert "infranchissable" in message
    assert "« # »" in message


# --------------------------------------------------------------------------- markers


@pytest.mark.parametrize("coords", ["[4, 0]", "[0, 5]", "[-1, 2]", "[1, -1]", "[99, 99]"])
def test_marker_out_of_map(coords: str) -> None:
    err = map_error(map_yaml(markers=f"  autel: {coords}\n"))
    assert err.location == 'markers["autel"]'
    message = str(err)
    assert "hors de la carte" in message
    assert "(4×5)" in message


def test_marker_on_impassable_square() -> None:
    err = map_error(map_yaml(markers="  autel: [0, 2]\n"))
    assert err.location == 'markers["autel"]'
    assert "(0,2) est une case infranchissable" in str(err)


@pytest.mark.parametrize("coords", ["[1]", "[1, 2, 3]", "[]"])
def test_marker_not_a_pair(coords: str) -> None:
    err = map_error(map_yaml(markers=f"  autel: {coords}\n"))
    assert err.location == 'markers["autel"]'
    assert "[ligne, colonne] attendu" in str(err)


def test_marker_not_a_list() -> None:
    err = map_error(map_yaml(markers="  autel: 3\n"))
    assert err.location == 'markers["autel"]'
    assert "liste" in str(err)


# --------------------------------------------------------------------------- document fields


def test_missing_terrain() -> None:
    err = map_error(map_yaml(terrain=None))
    assert err.location == "terrain"
    assert "champ obligatoire manquant" in str(err)


def test_missing_name() -> None:
    err = map_error(map_yaml(name=None))
    assert err.location == "name"
    assert "champ obligatoire manquant" in str(err)


def test_missing_legend() -> None:
    err = map_error(map_yaml(legend=None))
    assert err.location == "legend"
    assert "champ obligatoire manquant" in str(err)


def test_unknown_top_level_field_suggests_closest() -> None:
    err = map_error(map_yaml(extra="terain: x\n"))
    message = str(err)
    assert "champ inconnu « terain »" in message
    assert "vouliez-vous dire « terrain » ?" in message


def test_unknown_top_level_field_without_close_match() -> None:
    err = map_error(map_yaml(extra="zzzzzzzz: 1\n"))
    message = str(err)
    assert "champ inconnu « zzzzzzzz »" in message
    assert "vouliez-vous dire" not in message


def test_misspelled_required_field_names_the_typo() -> None:
    text = map_yaml(terrain=None, extra=_block("terain", TERRAIN))
    message = str(map_error(text))
    assert "« terain »" in message
    assert "vouliez-vous dire « terrain » ?" in message


@pytest.mark.parametrize("cost", [0, -1])
def test_legend_move_cost_not_positive(cost: int) -> None:
    legend = LEGEND.replace(
        "{ type: rubble, move_cost: 2 }", f"{{ type: rubble, move_cost: {cost} }}"
    )
    err = map_error(map_yaml(legend=legend))
    assert err.location == 'legend["T"].move_cost'
    assert "strictement supérieur à 0" in str(err)


def test_legend_cover_bonus_3() -> None:
    legend = LEGEND.replace("move_cost: 2 }", "move_cost: 2, cover_bonus: 3 }")
    err = map_error(map_yaml(legend=legend))
    assert err.location == 'legend["T"].cover_bonus'
    message = str(err)
    assert "valeur invalide 3" in message
    assert "2" in message
    assert "8" in message


def test_legend_key_of_two_characters() -> None:
    legend = LEGEND + '  "TT": { type: rubble, move_cost: 2 }\n'
    err = map_error(map_yaml(legend=legend))
    assert err.location == "legend"
    message = str(err)
    assert "« TT »" in message
    assert "un seul caractère" in message


def test_legend_key_blank() -> None:
    legend = LEGEND + '  " ": { type: void, move_cost: 1 }\n'
    err = map_error(map_yaml(legend=legend))
    assert err.location == "legend"
    assert "un seul caractère visible" in str(err)


def test_legend_entry_without_type() -> None:
    legend = LEGEND.replace("{ type: rubble, move_cost: 2 }", "{ move_cost: 2 }")
    err = map_error(map_yaml(legend=legend))
    assert err.location == 'legend["T"].type'
    assert "champ obligatoire manquant" in str(err)


@pytest.mark.parametrize("size", ["10", "1.5", "'5'"])
def test_square_size_other_than_5(size: str) -> None:
    err = map_error(map_yaml(extra=f"square_size_ft: {size}\n"))
    assert err.location == "square_size_ft"
    assert "valeur invalide" in str(err)


def test_square_size_5_accepted() -> None:
    assert parse_map(map_yaml(extra="square_size_ft: 5\n")).width == 5


def test_invalid_yaml() -> None:
    err = map_error("name: [unclosed\nterrain: x\n", "bad.yaml")
    message = str(err)
    assert message.startswith("bad.yaml : ")
    assert "YAML invalide" in message
    assert "ligne" in message


@pytest.mark.parametrize("text", ["- 1\n- 2\n", "just a sentence\n", "", "42\n"])
def test_yaml_document_not_a_mapping(text: str) -> None:
    err = map_error(text)
    assert "le document doit être un objet (clé: valeur)" in str(err)


def test_error_names_the_source() -> None:
    err = map_error(map_yaml(name=None), "cartes/x.yaml")
    assert err.source == "cartes/x.yaml"
    assert str(err) == "cartes/x.yaml : champ « name » : champ obligatoire manquant"


def test_load_map_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "absent.yaml"
    with pytest.raises(DataError) as info:
        load_map(missing)
    assert info.value.source == str(missing)
    message = str(info.value)
    assert "fichier introuvable" in message
    assert str(missing) in message


@pytest.mark.parametrize("path", ["", "   "])
def test_load_map_empty_path(path: str) -> None:
    with pytest.raises(DataError, match="chemin de fichier vide"):
        load_map(path)


def test_load_map_directory(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        load_map(tmp_path)
    assert "lecture impossible" in str(info.value)


def test_load_map_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(map_yaml(name="Arène").encode("latin-1"))
    with pytest.raises(DataError) as info:
        load_map(path)
    assert "UTF-8" in str(info.value)


def test_load_map_reads_file(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text(map_yaml(name="Arène"), encoding="utf-8")
    game_map = load_map(path)
    assert game_map.name == "Arène"
    assert game_map.source == str(path)


@pytest.mark.parametrize("value", ["!!int abc", "!!float abc", "!!timestamp nope"])
def test_bad_yaml_tag_is_a_data_error(value: str) -> None:
    map_error(map_yaml(extra=f"square_size_ft: {value}\n"))


def test_huge_integer_is_a_data_error() -> None:
    map_error(map_yaml(markers="  autel: [" + "1" * 5000 + ", 1]\n"))


def test_deeply_nested_yaml_is_a_data_error() -> None:
    outcome = "accepted"
    try:
        parse_map("name: " + "[" * 600 + "]" * 600 + "\n")
    except DataError:
        return
    except RecursionError:  # not re-raised: pytest would render thousands of frames
        outcome = "RecursionError"
    pytest.fail(f"deeply nested YAML: {outcome} instead of DataError")
