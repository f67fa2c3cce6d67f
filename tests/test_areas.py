"""Spell areas as squares (``engine/geometry/areas.py``, SRD « Aiming a Spell »).

Every expected picture below is derived by hand from the SRD's counting rule,
not from the code: the point of origin is a grid intersection; a square is in
the area when its *far corner* is within the area's size, counted from
intersection to intersection by the 5-10-5 rule (``d(a, b) = max + min // 2``
squares for a displacement of ``a`` columns and ``b`` rows). The derivation of
each shape is written next to its test. In the pictures ``X`` is a square of
the area, ``C`` the caster, ``#`` a wall (``blocks_los``, impassable).
"""

from __future__ import annotations

from builders import make_map

from engine.content.maps import GameMap
from engine.geometry import areas
from engine.geometry.areas import burst_cells, point


def picture(gmap: GameMap, cells: frozenset[int] | tuple[int, ...], caster: int | None = None):
    rows = []
    for r in range(gmap.height):
        line = ""
        for c in range(gmap.width):
            cell = gmap.cell(r, c)
            if cell == caster:
                line += "C"
            elif cell in cells:
                line += "X"
            elif gmap.blocks_los[cell]:
                line += "#"
            else:
                line += "."
        rows.append(line)
    return rows


def open_map(size: int) -> GameMap:
    return make_map(["." * size] * size)


# -- bursts ---------------------------------------------------------------------------
def test_a_10_ft_burst_is_a_4_by_4_block_less_its_corners():
    # origin: the intersection at row line 4, column line 4. The squares touching
    # it have their far corner 1 diagonal away (5 ft); the next ring: far corner
    # (2, 1) → 2 + 0 = 2 squares (10 ft), in; the corner squares (2, 2) → 2 + 1 = 3
    # squares (15 ft), out. 12 squares.
    gmap = open_map(8)
    assert picture(gmap, burst_cells(gmap, point(gmap, 4, 4), 10)) == [
        "........",
        "........",
        "...XX...",
        "..XXXX..",
        "..XXXX..",
        "...XX...",
        "........",
        "........",
    ]


def test_a_20_ft_burst_matches_the_crb_figure():
    # radius 4 squares; per quadrant, row by row outward (far corner row 1 … 4):
    #   far row 1: far columns 1..4 → d = 1..4: 4 squares;
    #   far row 2: d(3, 2) = 4 in, d(4, 2) = 5 out: 3 squares;
    #   far row 3: d(3, 3) = 4 in, d(4, 3) = 5 out: 3 squares;
    #   far row 4: d(1, 4) = 4 in, d(2, 4) = 5 out: 1 square.
    # Rows of 2, 6, 6, 8, 8, 6, 6, 2 squares: 44, the CRB's 20-ft.-radius burst.
    gmap = open_map(12)
    cells = burst_cells(gmap, point(gmap, 6, 6), 20)
    assert picture(gmap, cells) == [
        "............",
        "............",
        ".....XX.....",
        "...XXXXXX...",
        "...XXXXXX...",
        "..XXXXXXXX..",
        "..XXXXXXXX..",
        "...XXXXXX...",
        "...XXXXXX...",
        ".....XX.....",
        "............",
        "............",
    ]
    assert len(cells) == 44


def test_a_burst_stops_at_the_map_edge():
    gmap = open_map(8)
    # the 10-ft burst at the map's corner intersection keeps its one quadrant
    assert sorted(gmap.rc(c) for c in burst_cells(gmap, point(gmap, 0, 0), 10)) == [
        (0, 0),
        (0, 1),
        (1, 0),
    ]


def test_a_burst_does_not_turn_a_corner_and_a_spread_does():
    # Origin: the map's top-left corner; radius 30 ft (6 squares).
    #   row 0: far corners (1..4, 1) → d = 1..4, in, seen along the top edge.
    #   (1, 3): far corner (4, 2) → 5, in; seen: the segment to its corner (3, 1)
    #   (x, y) crosses only row 0.
    #   row 2: (2, 0) d(1, 3) = 3, (2, 1) d(2, 3) = 4, (2, 2) d(3, 3) = 4,
    #   (2, 3) d(4, 3) = 5: all within the radius, but every segment from the
    #   origin to their corners crosses a wall of row 1 (or runs along the edge
    #   between the wall (1, 0) and the map's edge): total cover, not in the burst.
    # The spread walks around: (0, 0) 1, (0, 1) 2, (0, 2) 3, (0, 3) 4 (straight
    # steps), (1, 3) 5 (the diagonal from (0, 2) cuts the wall's corner: refused),
    # (2, 3) 6: in; (2, 2) would be 7: out.
    gmap = make_map(["....", "###.", "...."])
    origin = point(gmap, 0, 0)
    assert picture(gmap, burst_cells(gmap, origin, 30)) == ["XXXX", "###X", "...."]
    assert picture(gmap, burst_cells(gmap, origin, 30, spread=True)) == ["XXXX", "###X", "...X"]
    # in the open a spread is the burst itself
    field = open_map(12)
    centre = point(field, 6, 6)
    assert burst_cells(field, centre, 20, spread=True) == burst_cells(field, centre, 20)


def test_points_and_the_origin_of_an_aimed_burst():
    gmap = open_map(8)
    # a target_pos names the intersection at its square's top-left corner
    assert areas.aim_point(gmap, gmap.cell(3, 5)) == point(gmap, 3, 5)
    assert areas.point_rc(gmap, point(gmap, 3, 5)) == (3, 5)
    # a creature: the top-left corner of the square at the centre of its space
    assert areas.creature_point(gmap, gmap.cell(2, 2), 1) == point(gmap, 2, 2)
    assert areas.creature_point(gmap, gmap.cell(2, 2), 2) == point(gmap, 3, 3)  # its centre
    assert areas.creature_point(gmap, gmap.cell(2, 2), 3) == point(gmap, 3, 3)
    # Bless « centered on you »: a 5-ft burst on a Medium caster at (4, 4) holds its
    # square and the three squares north and west of its top-left corner
    cells = areas.area_of(gmap, "burst", 5, gmap.cell(4, 4), 1, None, centred_on_caster=True)
    assert sorted(gmap.rc(c) for c in cells) == [(3, 3), (3, 4), (4, 3), (4, 4)]
