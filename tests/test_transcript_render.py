"""Display-width text helpers and the transcript rendering."""

from __future__ import annotations

import pytest

from harness.report import render_transcript
from harness.text import display_width, pad, table
from harness.transcript import Note

# -- display_width ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "width"),
    [
        ("", 0),
        ("abc", 3),
        ("goblin-2", 8),
        ("é", 1),
        ("été", 3),
        ("Épéiste", 7),
        ("e\u0301", 1),  # e + combining acute
        ("e\u0301te\u0301", 3),
        ("a\u20dd", 1),  # enclosing mark (Me)
        ("a\u200db", 2),  # zero-width joiner (Cf)
        ("戦", 2),
        ("戦士", 4),
        ("戦士-2", 6),
        ("Ａ", 2),  # fullwidth Latin
        ("ｱ", 1),  # halfwidth katakana
        ("🙂", 2),
        ("é戦e\u0301", 4),
    ],
)
def test_display_width(text: str, width: int) -> None:
    assert display_width(text) == width


# -- pad ----------------------------------------------------------------------


def test_pad_ascii_left_and_right() -> None:
    assert pad("ab", 5) == "ab   "
    assert pad("ab", 5, right=True) == "   ab"
    assert pad("ab", 2) == "ab"
    assert pad("", 3) == "   "


def test_pad_counts_display_columns() -> None:
    assert pad("été", 5) == "été  "
    assert pad("e\u0301", 3) == "e\u0301  "
    assert pad("戦士", 6) == "戦士  "
    assert pad("戦士", 6, right=True) == "  戦士"
    for text in ("été", "e\u0301", "戦士", "Ａb"):
        assert display_width(pad(text, 9)) == 9
        assert display_width(pad(text, 9, right=True)) == 9


def test_pad_never_truncates() -> None:
    assert pad("abcdef", 3) == "abcdef"
    assert pad("abcdef", 3, right=True) == "abcdef"
    assert pad("戦士戦士", 2) == "戦士戦士"
    assert pad("x", 0) == "x"
    assert pad("x", -4) == "x"


# -- table --------------------------------------------------------------------


def _column_starts(line: str, cells: list[str]) -> list[int]:
    """Display column at which each cell begins on ``line`` (cells in order)."""
    starts: list[int] = []
    pos = 0
    for cell in cells:
        idx = line.index(cell, pos)
        starts.append(display_width(line[:idx]))
        pos = idx + len(cell)
    return starts


def test_table_basic() -> None:
    lines = table(["A", "Nombre"], [["x", "1"], ["yyyy", "22"]], right={1})
    assert lines == [
        "A     Nombre",
        "----  ------",
        "x          1",
        "yyyy      22",
    ]


def test_table_aligns_by_display_width() -> None:
    headers = ["Nom", "Camp", "PV"]
    rows = [
        ["戦士", "joueurs", "12"],
        ["Épéiste", "monstres", "7"],
        ["e\u0301lu", "joueurs", "100"],
        ["orc", "戦", "3"],
    ]
    lines = table(headers, rows, right={2})
    assert len(lines) == 2 + len(rows)
    dash = lines[1]
    assert dash == "-------  --------  ---"
    expected_starts = [0, 9, 19]
    assert _column_starts(lines[0], headers) == [0, 9, 20]  # "PV" right-aligned in 3
    for line, row in zip(lines[2:], rows, strict=True):
        starts = _column_starts(line, row)
        assert starts[:2] == expected_starts[:2], line
        # last column is right-aligned: every line ends at the dash line's width
        assert display_width(line) == display_width(dash), line


def test_table_rstrips_left_aligned_last_column() -> None:
    lines = table(["Nom", "Note"], [["a", "x"], ["bb", "longue note"]])
    assert lines[0] == "Nom  Note"
    assert lines[2] == "a    x"
    assert lines[3] == "bb   longue note"
    assert all(line == line.rstrip() for line in lines)


def test_table_without_rows() -> None:
    assert table(["Un", "Deux"], []) == ["Un  Deux", "--  ----"]


# -- render_transcript --------------------------------------------------------


def _notes(log):
    """Lines as generic events (the layout does not depend on the event type)."""
    return [Note(*entry) for entry in log]


def _message_column(line: str, message: str) -> int:
    return display_width(line[: line.rindex(message)])


def test_transcript_header_and_raw_lines() -> None:
    log = [
        (None, None, "initiative : goblin d20=5+6=11", ()),
        (None, None, "initiative : orc d20=9+0=9", ()),
        (1, "goblin", "attaque orc", ()),
        (1, "orc", "rate goblin", ()),
        (None, None, "  ligne   brute  avec  espaces", ()),
        (2, "goblin", "achève orc", ()),
        (None, None, "combat terminé : victoire de players en 2 rounds", ()),
    ]
    text = render_transcript(_notes(log))
    assert text.endswith("\n") and not text.endswith("\n\n")
    lines = text.splitlines()
    assert lines[0] == "=== Déroulé du premier combat ==="
    assert lines[1] == "Round  Combattant  Message"
    assert lines[2] == "-----  ----------  -----------"
    assert lines[3] == "initiative : goblin d20=5+6=11"
    assert lines[4] == "initiative : orc d20=9+0=9"
    assert lines[5] == "    1  goblin      attaque orc"
    assert lines[6] == "    1  orc         rate goblin"
    assert lines[7] == "  ligne   brute  avec  espaces"  # raw lines are kept unaltered
    assert lines[8] == "    2  goblin      achève orc"
    assert lines[9] == "combat terminé : victoire de players en 2 rounds"
    assert len(lines) == 10


def test_transcript_custom_title_and_empty_log() -> None:
    text = render_transcript([], title="Combat 3")
    assert text == "=== Combat 3 ===\nRound  Combattant  Message\n-----  ----------  -------\n"


def test_transcript_aligns_wide_and_accented_actor_ids() -> None:
    actors = ["戦士", "Épéiste-2", "e\u0301lu", "orc", "ｵｰｸ", "戦士戦士戦士"]
    log = [(None, None, "initiative : ordre fixé", ())]
    log += [(i + 1, actor, f"message {i} : coup d'épée", ()) for i, actor in enumerate(actors)]
    log.append((None, None, "combat terminé : nul", ()))
    lines = render_transcript(_notes(log)).splitlines()
    header, dash = lines[1], lines[2]
    actor_width = max(display_width(a) for a in actors)
    assert actor_width == 12
    expected = 5 + 2 + actor_width + 2
    assert _message_column(header, "Message") == expected
    assert display_width(dash[: dash.rindex(" ") + 1]) == expected
    rows = lines[4:-1]
    assert len(rows) == len(actors)
    for i, (row, actor) in enumerate(zip(rows, actors, strict=True)):
        assert _message_column(row, f"message {i}") == expected, row
        # the actor column starts right after the round column
        assert row[7:].startswith(actor)
        assert row[:5] == f"{i + 1:>5}"
    assert lines[3] == "initiative : ordre fixé"
    assert lines[-1] == "combat terminé : nul"


def test_transcript_never_truncates_long_messages() -> None:
    long_message = "goblin frappe " + "très fort, " * 60 + "戦" * 20 + " fin"
    log = [(1, "goblin", "court", ()), (1, "goblin", long_message, ())]
    lines = render_transcript(_notes(log)).splitlines()
    assert lines[4].endswith(long_message)
    assert lines[4] == "    1  goblin      " + long_message
    dash_segments = lines[2].split("  ")
    assert len(dash_segments[-1]) == display_width(long_message)


def test_transcript_round_right_aligned() -> None:
    log = [(1, "a", "un", ()), (10, "a", "dix", ()), (100, "a", "cent", ())]
    lines = render_transcript(_notes(log)).splitlines()
    assert [line[:5] for line in lines[3:]] == ["    1", "   10", "  100"]
    big = render_transcript(_notes([(1, "a", "x", ()), (123456, "a", "y", ())])).splitlines()
    assert big[1] == "Round   Combattant  Message"
    assert big[2].startswith("------  ")
    assert big[3] == "     1  a           x"
    assert big[4] == "123456  a           y"


def test_transcript_ignores_rolls_in_rendering() -> None:
    with_rolls = [(1, "goblin", "attaque", (("d20", 20, 5),))]
    without = [(1, "goblin", "attaque", ())]
    assert render_transcript(_notes(with_rolls)) == render_transcript(_notes(without))
