"""Display-width aware text helpers (accents, combining marks, CJK)."""

from __future__ import annotations

import unicodedata


def display_width(text: str) -> int:
    """Columns a string occupies in a terminal.

    >>> display_width("été"), display_width("戦士"), display_width("e\\u0301")
    (3, 4, 1)
    """
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def pad(text: str, width: int, *, right: bool = False) -> str:
    """Pad ``text`` with spaces to ``width`` display columns (never truncates)."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def table(headers: list[str], rows: list[list[str]], right: set[int] | None = None) -> list[str]:
    """Aligned columns separated by two spaces, a dash line under the header."""
    right = right or set()
    widths = [display_width(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], display_width(cell))
    out = ["  ".join(pad(h, widths[i], right=i in right) for i, h in enumerate(headers)).rstrip()]
    out.append("  ".join("-" * w for w in widths))
    for row in rows:
        out.append(
            "  ".join(pad(c, widths[i], right=i in right) for i, c in enumerate(row)).rstrip()
        )
    return out
