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


# -- cones ----------------------------------------------------------------------------
# A 15-ft cone (3 squares), from the intersection A, hand-derived:
# * diagonal (north-east from A, the caster's north-east corner): the burst's
#   quadrant: far row 1: far columns 1..3 → d = 1..3 (3 squares); far row 2:
#   d(1, 2) = 2, d(2, 2) = 3, d(3, 2) = 4 (2 squares); far row 3: d(1, 3) = 3,
#   d(2, 3) = 4 (1 square): the CRB's diagonal staircase of 6 squares.
# * straight (north from A, the caster's north-west corner): the squares whose
#   centre lies in the 90° wedge about A's column line (its diagonals through A
#   included): row 1 above A spans 1 column each side, row 2 two, row 3 three;
#   by distance: row 1: far (1, 1) → 1 (2 squares); row 2: d(1, 2) = 2,
#   d(2, 2) = 3 (4 squares); row 3: d(1, 3) = 3, d(2, 3) = 4 (2 squares): 8
#   squares, 2-4-2 about A's column line. The CRB's straight 15-ft figure (1-3-3,
#   centred on the caster's column) starts from the middle of the caster's side,
#   which the text (« from any corner of your square ») does not allow; we follow
#   the text (docs/rules.md, « Spell areas »).
CONE_15 = {
    # direction, apex (row line, column line) → picture, caster at (4, 4)
    ((-1, 0), (4, 4)): [
        ".........",
        "...XX....",
        "..XXXX...",
        "...XX....",
        "....C....",
        ".........",
    ],
    ((-1, 0), (4, 5)): [
        ".........",
        "....XX...",
        "...XXXX..",
        "....XX...",
        "....C....",
        ".........",
    ],
    ((-1, 1), (4, 5)): [
        ".........",
        ".....X...",
        ".....XX..",
        ".....XXX.",
        "....C....",
        ".........",
    ],
    ((0, 1), (4, 5)): [
        ".........",
        ".........",
        "......X..",
        ".....XXX.",
        "....CXXX.",
        "......X..",
    ],
    ((1, 1), (5, 5)): [
        ".........",
        ".........",
        ".........",
        ".........",
        "....C....",
        ".....XXX.",
        ".....XX..",
        ".....X...",
    ],
    ((1, 0), (5, 5)): [
        ".........",
        ".........",
        ".........",
        ".........",
        "....C....",
        "....XX...",
        "...XXXX..",
        "....XX...",
    ],
    ((1, -1), (5, 4)): [
        ".........",
        ".........",
        ".........",
        ".........",
        "....C....",
        ".XXX.....",
        "..XX.....",
        "...X.....",
    ],
    ((0, -1), (5, 4)): [
        ".........",
        ".........",
        ".........",
        "..X......",
        ".XXXC....",
        ".XXX.....",
        "..X......",
    ],
    ((-1, -1), (4, 4)): [
        ".........",
        "...X.....",
        "..XX.....",
        ".XXX.....",
        "....C....",
    ],
}


def _padded(rows: list[str], height: int) -> list[str]:
    """The picture with empty rows below, ``height`` rows in all."""
    return rows + ["." * len(rows[0])] * (height - len(rows))


def test_15_ft_cones_in_the_eight_directions():
    gmap = open_map(9)
    caster = gmap.cell(4, 4)
    for (direction, (row, col)), expected in CONE_15.items():
        cells = areas.cone_cells(gmap, point(gmap, row, col), direction, 15)
        assert picture(gmap, cells, caster) == _padded(expected, 9), direction
        assert caster not in cells


def _rotate(rows: list[str]) -> list[str]:
    """A square picture turned a quarter clockwise."""
    n = len(rows)
    return ["".join(rows[n - 1 - c][r] for c in range(n)) for r in range(n)]


def test_30_ft_cones_in_the_eight_directions():
    # 6 squares. Straight (north from the caster's north-west corner A): rows above
    # A span 1..6 columns each side of A's column line; by distance: far row 1 → 1
    # column each side, 2 → 2 (d(2, 2) = 3), 3 → 3 (d(3, 3) = 4), 4 → 4
    # (d(4, 4) = 6), 5 → 3 (d(3, 5) = 6, d(4, 5) = 7), 6 → 1 (d(1, 6) = 6,
    # d(2, 6) = 7): rows of 2, 4, 6, 8, 6, 2 = 28 squares.
    # Diagonal (north-east from the north-east corner): the quadrant of the 30-ft
    # burst: far rows 1..6 hold 6, 5, 5, 4, 3, 1 squares (d(6, 1) = 6, d(5, 2) = 6,
    # d(5, 3) = 6, d(4, 4) = 6, d(3, 5) = 6, d(1, 6) = 6, each next one 7) = 24.
    north = [
        "...............",
        "......XX.......",
        "....XXXXXX.....",
        "...XXXXXXXX....",
        "....XXXXXX.....",
        ".....XXXX......",
        "......XX.......",
        ".......C.......",
    ]
    north_east = [
        "...............",
        "........X......",
        "........XXX....",
        "........XXXX...",
        "........XXXXX..",
        "........XXXXX..",
        "........XXXXXX.",
        ".......C.......",
    ]
    gmap = open_map(15)
    caster = gmap.cell(7, 7)
    straight = _padded(north, 15)
    diagonal = _padded(north_east, 15)
    # each quarter turn about the caster's square moves the corner clockwise:
    # north-west (7, 7) → north-east (7, 8) → south-east (8, 8) → south-west (8, 7)
    corners = [(7, 7), (7, 8), (8, 8), (8, 7)]
    straight_dirs = [(-1, 0), (0, 1), (1, 0), (0, -1)]
    diagonal_dirs = [(-1, 1), (1, 1), (1, -1), (-1, -1)]
    for turn in range(4):
        apex = point(gmap, *corners[turn])
        got = areas.cone_cells(gmap, apex, straight_dirs[turn], 30)
        assert picture(gmap, got, caster) == straight, straight_dirs[turn]
        assert len(got) == 28
        apex = point(gmap, *corners[(turn + 1) % 4])
        got = areas.cone_cells(gmap, apex, diagonal_dirs[turn], 30)
        assert picture(gmap, got, caster) == diagonal, diagonal_dirs[turn]
        assert len(got) == 24
        straight, diagonal = _rotate(straight), _rotate(diagonal)


def test_aiming_a_cone_picks_its_direction_and_corner():
    gmap = open_map(9)
    me = gmap.cell(4, 4)

    def toward(row: int, col: int, anchor: int = me, k: int = 1):
        placed = areas.cone_toward(gmap, anchor, k, gmap.cell(row, col))
        return None if placed is None else (areas.point_rc(gmap, placed[0]), placed[1])

    # from the centre (4.5, 4.5) of the caster's square to the aimed centre:
    assert toward(0, 3) == ((4, 4), (-1, 0))  # 1 left, 4 up: north, the west corner nearer
    assert toward(0, 5) == ((4, 5), (-1, 0))  # 1 right, 4 up: north, the east corner
    assert toward(0, 4) == ((4, 4), (-1, 0))  # straight up: a tie, the west corner
    assert toward(2, 6) == ((4, 5), (-1, 1))  # 2 right, 2 up: north-east
    assert toward(2, 8) == ((4, 5), (-1, 1))  # 4 right, 2 up: 26.6° off the axis, diagonal
    assert toward(3, 8) == ((4, 5), (0, 1))  # 4 right, 1 up: 14° off, east, north corner
    assert toward(4, 4) is None  # its own square
    # a Large caster on (3, 3)-(4, 4): its corners are (3, 3), (3, 5), (5, 3), (5, 5)
    assert toward(0, 3, gmap.cell(3, 3), 2) == ((3, 3), (-1, 0))
    assert toward(3, 3, gmap.cell(3, 3), 2) is None
    cells = areas.area_of(gmap, "cone", 15, gmap.cell(3, 3), 2, gmap.cell(0, 3))
    assert sorted(gmap.rc(c) for c in cells) == [
        (0, 2), (0, 3), (1, 1), (1, 2), (1, 3), (1, 4), (2, 2), (2, 3)
    ]  # fmt: skip


# -- lines ----------------------------------------------------------------------------
def _line(gmap: GameMap, caster: tuple[int, int], aim: tuple[int, int], length_ft: int):
    me, target = gmap.cell(*caster), gmap.cell(*aim)
    start = areas.line_start(gmap, me, 1, target)
    assert start is not None
    cells = areas.line_cells(gmap, start, target, length_ft)
    assert areas.area_of(gmap, "line", length_ft, me, 1, target) == frozenset(cells)
    return areas.point_rc(gmap, start), [gmap.rc(c) for c in cells]


def test_lines_along_a_row_a_column_a_diagonal_and_off_angle():
    gmap = open_map(30)
    # Along a row: from (5, 0) toward (5, 29). The two east corners are equally near
    # the aimed centre; the north-east one (row line 5, column line 1) comes first.
    # The segment climbs 1 row in 57 columns: it stays in row 5. Square (5, c) has
    # its far corner (c, 1) from the start: d = c ≤ 6 (30 ft), ≤ 24 (120 ft).
    start, cells = _line(gmap, (5, 0), (5, 29), 30)
    assert start == (5, 1) and cells == [(5, c) for c in range(1, 7)]
    start, cells = _line(gmap, (5, 0), (5, 29), 120)
    assert start == (5, 1) and cells == [(5, c) for c in range(1, 25)]
    # Along a column: from (0, 5) down: the south-west corner (1, 5), column 5.
    start, cells = _line(gmap, (0, 5), (29, 5), 30)
    assert start == (1, 5) and cells == [(r, 5) for r in range(1, 7)]
    start, cells = _line(gmap, (0, 5), (29, 5), 120)
    assert start == (1, 5) and cells == [(r, 5) for r in range(1, 25)]
    # Along the diagonal: from the south-east corner (1, 1) through the corners of
    # (i, i), whose far corner is (i, i): d = i + i // 2: ≤ 6 up to i = 4 (30 ft:
    # 1 + 2 + 1 + 2 diagonals), ≤ 24 up to i = 16.
    start, cells = _line(gmap, (0, 0), (29, 29), 30)
    assert start == (1, 1) and cells == [(i, i) for i in range(1, 5)]
    start, cells = _line(gmap, (0, 0), (29, 29), 120)
    assert start == (1, 1) and cells == [(i, i) for i in range(1, 17)]
    # Off angle: from (0, 0) toward the centre of (2, 5), from the south-east corner
    # (1, 1) (the nearest): slope 1/3, through the intersections (4, 2), (7, 3)…
    # (x, y), so row r holds columns 3r − 2 .. 3r; square (r, c) has its far corner
    # (c, r): d = c + r // 2. 30 ft: (1, 1..3) → 1..3, (2, 4) → 5, (2, 5) → 6,
    # (2, 6) → 7 stops it. 120 ft: rows 1..7 (d(21, 7) = 24), then (8, 22) → 26.
    start, cells = _line(gmap, (0, 0), (2, 5), 30)
    assert start == (1, 1) and cells == [(1, 1), (1, 2), (1, 3), (2, 4), (2, 5)]
    start, cells = _line(gmap, (0, 0), (2, 5), 120)
    assert start == (1, 1)
    assert cells == [(r, c) for r in range(1, 8) for c in range(3 * r - 2, 3 * r + 1)]


def test_a_line_aimed_at_the_casters_own_square_is_empty():
    gmap = open_map(9)
    me = gmap.cell(4, 4)
    assert areas.line_start(gmap, me, 1, me) is None
    assert areas.area_of(gmap, "line", 30, me, 1, me) == frozenset()
    assert areas.area_of(gmap, "cone", 15, me, 1, me) == frozenset()


# -- squares --------------------------------------------------------------------------
def test_grease_10_ft_square_is_centred_on_the_named_intersection():
    gmap = open_map(8)
    # target_pos (3, 3) names the intersection at the top-left corner of (3, 3): the
    # 2 × 2 block around it
    cells = areas.area_of(gmap, "square", 10, gmap.cell(0, 0), 1, gmap.cell(3, 3))
    assert sorted(gmap.rc(c) for c in cells) == [(2, 2), (2, 3), (3, 2), (3, 3)]
    # an odd side is centred on the named square itself
    cells = areas.area_of(gmap, "square", 15, gmap.cell(0, 0), 1, gmap.cell(3, 3))
    assert sorted(gmap.rc(c) for c in cells) == [(r, c) for r in (2, 3, 4) for c in (2, 3, 4)]
    # clipped at the map's edge
    cells = areas.area_of(gmap, "square", 10, gmap.cell(4, 4), 1, gmap.cell(0, 0))
    assert sorted(gmap.rc(c) for c in cells) == [(0, 0)]


# -- line of effect -------------------------------------------------------------------
def test_a_wall_cuts_a_15_ft_cone_and_stops_a_line():
    # The caster at (4, 0) aims east at (4, 8): the cone's apex is its north-east
    # corner (row line 4, column line 1; the two east corners tie, the north one
    # first). The template (see the 15-ft cones above, turned east) is (3, 1),
    # (4, 1), (2, 2)…(5, 2), (3, 3), (4, 3). The walls (3, 2) and (4, 2) are never
    # in an area. (3, 3) and (4, 3) are behind them: from the apex, the segments to
    # their corners either cross a wall's interior (e.g. to (3, 5) (x, y) through
    # (4, 2)) or run along the edge between the two walls (inside a solid mass,
    # docs/rules.md « Line of effect and cover »). (2, 2) and (5, 2) are seen
    # through (3, 1) and (4, 1), on the diagonals to their corners (2, 3) and (2, 5).
    gmap = make_map(
        [".........", ".........", ".........", "..#......", "..#......", ".........", "........."]
    )
    me, aim = gmap.cell(4, 0), gmap.cell(4, 8)
    assert areas.cone_toward(gmap, me, 1, aim) == (point(gmap, 4, 1), (0, 1))
    assert picture(gmap, areas.area_of(gmap, "cone", 15, me, 1, aim), me) == [
        ".........",
        ".........",
        "..X......",
        ".X#......",
        "CX#......",
        "..X......",
        ".........",
    ]
    # the line east (from the same corner, in row 4) strikes the wall at once
    assert [gmap.rc(c) for c in areas.line_cells(gmap, point(gmap, 4, 1), aim, 120)] == [(4, 1)]


def test_a_wall_cuts_a_30_ft_cone_and_a_120_ft_line():
    # The same caster and aim, the wall at (3, 5)-(4, 5). The 30-ft straight cone
    # (2, 4, 6, 8, 6, 2 squares, turned east) spans columns 1..6; it loses the two
    # walls and the two squares behind them, (3, 6) and (4, 6) (every segment from
    # the apex to their corners crosses a wall or runs between the two walls):
    # 28 − 4 = 24 squares. (2, 5) and (5, 5), beside the wall, are seen (e.g. the
    # segment to (5, 3) (x, y) crosses row 3 in columns 1..4 only). The line (row 4
    # from column 1) holds (4, 1)…(4, 4) and stops at the wall: the caster's
    # enemies at (4, 6) and beyond are out of it.
    gmap = make_map(["........."] * 3 + [".....#...", ".....#..."] + ["........."] * 4)
    me, aim = gmap.cell(4, 0), gmap.cell(4, 8)
    cells = areas.area_of(gmap, "cone", 30, me, 1, aim)
    assert picture(gmap, cells, me) == [
        "....X....",
        "...XXX...",
        "..XXXX...",
        ".XXXX#...",
        "CXXXX#...",
        "..XXXX...",
        "...XXX...",
        "....X....",
        ".........",
    ]
    assert len(cells) == 24
    line = areas.line_cells(gmap, point(gmap, 4, 1), aim, 120)
    assert [gmap.rc(c) for c in line] == [(4, 1), (4, 2), (4, 3), (4, 4)]
    assert areas.area_of(gmap, "line", 120, me, 1, aim) == frozenset(line)


CURTAIN = """name: t
terrain: |
  .......
  ...b...
  .......
legend:
  ".": {type: floor, move_cost: 1}
  "b": {type: curtain, move_cost: 1, blocks_los: true, cover_bonus: 2}
"""


def test_a_line_ends_on_a_curtain_square_and_a_burst_reaches_into_it():
    from engine.content.maps import parse_map

    gmap = parse_map(CURTAIN, "test")
    # a passable square that blocks line of effect: the line strikes it (a creature
    # standing in it is hit) and goes no farther
    line = areas.line_cells(gmap, point(gmap, 1, 1), gmap.cell(1, 6), 30)
    assert [gmap.rc(c) for c in line] == [(1, 1), (1, 2), (1, 3)]
    # a burst next to it reaches its square (nothing crosses it on the way) but not
    # the square behind it: from the point (row 1, col 2) every segment to the
    # corners of (1, 4) crosses the curtain
    cells = burst_cells(gmap, point(gmap, 1, 2), 10)
    assert gmap.cell(1, 3) in cells and gmap.cell(1, 4) not in cells


def test_point_targeting():
    gmap = make_map([".......", "...#...", "...#...", "...#...", "......."])
    me = gmap.cell(2, 0)
    assert areas.point_reason(gmap, me, 1, 2, 2, 60) is None
    # off the map
    assert areas.point_reason(gmap, me, 1, 2, 9, 60) == "invalid_destination"
    assert areas.point_reason(gmap, me, 1, -1, 2, 60) == "invalid_destination"
    # behind the wall: no segment from a corner of the caster's square reaches the
    # intersection at the top-left corner of (2, 5)
    assert areas.point_reason(gmap, me, 1, 2, 5, 60) == "invalid_destination"
    # range: from the nearest intersection of the caster's square (column line 1):
    # the point (2, 6) is 5 columns away, 25 ft
    assert areas.point_distance_ft(gmap, me, 1, point(gmap, 2, 6)) == 25
    assert areas.point_reason(gmap, me, 1, 0, 6, 20) == "out_of_range"
    assert areas.in_sight(gmap, me, 1, point(gmap, 0, 6))


# -- creatures --------------------------------------------------------------------------
def test_creatures_caught_in_the_creatures_order_big_ones_by_one_square():
    from builders import make_profile, state

    gmap = open_map(10)
    ogre = state("ogre", "B", make_profile(name="Ogre", size="Large"), gmap, (5, 4))
    goblin = state("gob", "B", make_profile(name="Goblin"), gmap, (3, 3))
    far = state("far", "B", make_profile(name="Far"), gmap, (8, 8))
    wizard = state("wiz", "A", make_profile(name="Wizard"), gmap, (0, 0))
    # a 10-ft burst on the intersection (4, 4) holds rows 3-4, columns 2..5 and rows
    # 2 and 5, columns 3-4: (3, 3) is in, and so is (5, 4), one of the ogre's four
    # squares (5, 4)-(6, 5); (8, 8) and (0, 0) are not
    cells = burst_cells(gmap, point(gmap, 4, 4), 10)
    assert gmap.cell(5, 4) in cells
    assert not {gmap.cell(5, 5), gmap.cell(6, 4), gmap.cell(6, 5)} & cells
    caught = areas.creatures_in_area(gmap, cells, [ogre, far, wizard, goblin])
    assert [c.id for c in caught] == ["ogre", "gob"]
    # the order is the caller's (a situation's combatants)
    caught = areas.creatures_in_area(gmap, cells, [goblin, ogre])
    assert [c.id for c in caught] == ["gob", "ogre"]


def test_a_creature_behind_a_wall_is_spared_by_a_burst_not_by_a_spread():
    from builders import make_profile, state

    gmap = make_map(["....", "###.", "...."])
    hidden = state("hidden", "B", make_profile(name="Hidden"), gmap, (2, 3))
    burst = burst_cells(gmap, point(gmap, 0, 0), 30)
    spread = burst_cells(gmap, point(gmap, 0, 0), 30, spread=True)
    assert areas.creatures_in_area(gmap, burst, [hidden]) == []
    assert areas.creatures_in_area(gmap, spread, [hidden]) == [hidden]
