"""Map files (YAML) and the immutable :class:`GameMap` built from them.

A map is a set of ASCII layers of identical size, one character per square of
5 ft (1.5 m). Coordinates are ``(row, col)``, 0-based, border included.

Validation follows the seed specification: every layer has the dimensions of
``terrain``; every character is known (the legend for ``terrain``, digits or
``.`` for ``elevation``, letters or ``.`` for ``zones``); a ``zones`` layer needs
a ``deployment`` section and every zone letter must be deployed; every deployed
side owns at least one zone cell and no two sides share a letter; markers lie on
the map and on passable squares.

Decision (not in the seed): a zone cell on an impassable square is a map error,
like a marker on an impassable square. Deployment never silently skips cells, so
what the author painted is exactly where combatants may start.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from engine.content.validation import StrictModel, empty_dict, load_yaml, read_text, validate
from engine.core.errors import DataError

#: Internal cell index: ``row * width + col``.
Cell = int

SQUARE_FT = 5
DIGITS = "0123456789"


class LegendEntry(StrictModel):
    """What one terrain character means."""

    type: str = Field(min_length=1)
    #: Squares of movement to enter (int > 0); ``None`` or omitted: impassable.
    move_cost: int | None = Field(default=None, gt=0)
    #: A solid barrier that blocks line of effect.
    blocks_los: bool = False
    #: Standard cover (+4) when ``cover_bonus`` is not given.
    cover: bool = False
    #: Explicit cover level: 2 (partial), 4 (standard), 8 (improved).
    cover_bonus: Literal[2, 4, 8] | None = None


class MapFile(StrictModel):
    """The YAML document, as written by the user."""

    name: str = Field(min_length=1)
    square_size_ft: Literal[5] = 5
    terrain: str
    legend: dict[str, LegendEntry]
    elevation: str | None = None
    zones: str | None = None
    markers: dict[str, list[int]] = Field(default_factory=empty_dict)
    deployment: dict[str, str] = Field(default_factory=empty_dict)

    @field_validator("legend")
    @classmethod
    def _single_characters(cls, legend: dict[str, LegendEntry]) -> dict[str, LegendEntry]:
        for key in legend:
            if len(key) != 1 or key.isspace():
                raise ValueError(f"clé de légende « {key} » : un seul caractère visible attendu")
        return legend


@dataclass(frozen=True, slots=True)
class TerrainType:
    """Semantics of one terrain character, as exposed to policies."""

    char: str
    type: str
    move_cost: int | None
    blocks_los: bool
    cover_bonus: int

    def to_dict(self) -> dict[str, object]:
        return {
            "type": self.type,
            "move_cost": self.move_cost,
            "blocks_los": self.blocks_los,
            "cover": self.cover_bonus > 0,
            "cover_bonus": self.cover_bonus,
        }


@dataclass(frozen=True, slots=True, eq=False)
class GameMap:
    """Static map data with per-cell tables. Shared by every fight, never mutated."""

    name: str
    height: int
    width: int
    terrain_rows: tuple[str, ...]
    elevation_rows: tuple[str, ...]
    zone_rows: tuple[str, ...]
    #: per cell: squares to enter, 0 if impassable
    move_cost: tuple[int, ...]
    blocks_los: tuple[bool, ...]
    #: per cell: cover bonus given when a line crosses it (0, 2, 4, 8)
    cover: tuple[int, ...]
    elevation: tuple[int, ...]
    zone_of: tuple[str, ...]
    terrain_types: tuple[TerrainType, ...]
    markers: dict[str, tuple[int, int]]
    deployment: dict[str, str]
    source: str | None = None
    #: caches filled lazily by the geometry modules (never part of equality)
    cache: dict[object, object] = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        return self.height * self.width

    def cell(self, row: int, col: int) -> Cell:
        return row * self.width + col

    def rc(self, cell: Cell) -> tuple[int, int]:
        return divmod(cell, self.width)

    def in_bounds(self, row: int, col: int) -> bool:
        return 0 <= row < self.height and 0 <= col < self.width

    def passable(self, cell: Cell) -> bool:
        return self.move_cost[cell] > 0

    def zone_cells(self, letter: str) -> list[Cell]:
        """Cells of a zone letter in (row, col) order."""
        return [i for i, z in enumerate(self.zone_of) if z == letter]


def _rows(text: str) -> list[str]:
    lines = text.split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def _layer(text: str, layer: str, source: str | None, shape: tuple[int, int] | None) -> list[str]:
    rows = _rows(text)
    if not rows:
        raise DataError("couche vide", source=source, location=layer)
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise DataError(
                f"ligne {i} de longueur {len(row)} au lieu de {width} "
                "(toutes les lignes d'une couche ont la même longueur)",
                source=source,
                location=layer,
            )
    if shape is not None and (len(rows), width) != shape:
        raise DataError(
            f"dimensions {len(rows)}×{width} différentes de celles de « terrain » "
            f"({shape[0]}×{shape[1]})",
            source=source,
            location=layer,
        )
    return rows


def build_map(doc: MapFile, source: str | None = None) -> GameMap:
    """Check the cross-field rules of a validated map document and build the map."""
    terrain = _layer(doc.terrain, "terrain", source, None)
    shape = (len(terrain), len(terrain[0]))
    legend = doc.legend
    for r, row in enumerate(terrain):
        for c, ch in enumerate(row):
            if ch not in legend:
                raise DataError(
                    f"caractère « {ch} » en ({r},{c}) absent de la légende",
                    source=source,
                    location="terrain",
                )
    elevation = _layer(doc.elevation, "elevation", source, shape) if doc.elevation else None
    if elevation:
        for r, row in enumerate(elevation):
            for c, ch in enumerate(row):
                if ch != "." and ch not in DIGITS:
                    raise DataError(
                        f"caractère « {ch} » en ({r},{c}) : chiffre ou « . » attendu",
                        source=source,
                        location="elevation",
                    )
    zones = _layer(doc.zones, "zones", source, shape) if doc.zones else None
    letters: set[str] = set()
    if zones:
        for r, row in enumerate(zones):
            for c, ch in enumerate(row):
                if ch == ".":
                    continue
                if not ("A" <= ch <= "Z" or "a" <= ch <= "z"):
                    raise DataError(
                        f"caractère « {ch} » en ({r},{c}) : lettre de zone ou « . » attendu",
                        source=source,
                        location="zones",
                    )
                letters.add(ch)

    types: dict[str, TerrainType] = {}
    for ch, entry in legend.items():
        bonus = entry.cover_bonus or (4 if (entry.cover or entry.blocks_los) else 0)
        types[ch] = TerrainType(ch, entry.type, entry.move_cost, entry.blocks_los, bonus)

    flat = "".join(terrain)
    move_cost = tuple(types[ch].move_cost or 0 for ch in flat)

    if zones:
        for r, row in enumerate(zones):
            for c, ch in enumerate(row):
                if ch != "." and move_cost[r * shape[1] + c] == 0:
                    raise DataError(
                        f"la case de zone « {ch} » en ({r},{c}) est infranchissable "
                        f"(« {terrain[r][c]} ») : une zone de déploiement ne contient que des "
                        "cases praticables",
                        source=source,
                        location="zones",
                    )

    deployment = dict(doc.deployment)
    if letters and not deployment:
        raise DataError(
            "la couche « zones » exige une section « deployment » (camp -> lettre)",
            source=source,
            location="deployment",
        )
    if deployment and not zones:
        raise DataError(
            "« deployment » exige une couche « zones »", source=source, location="zones"
        )
    owner: dict[str, str] = {}
    for side, letter in deployment.items():
        if len(letter) != 1:
            raise DataError(
                f"le camp « {side} » doit recevoir une seule lettre de zone, reçu « {letter} »",
                source=source,
                location=f'deployment["{side}"]',
            )
        if letter in owner:
            raise DataError(
                f"les camps « {owner[letter]} » et « {side} » partagent la lettre de zone "
                f"« {letter} »",
                source=source,
                location="deployment",
            )
        owner[letter] = side
        if letter not in letters:
            raise DataError(
                f"le camp « {side} » est déployé en zone « {letter} », qui n'a aucune case",
                source=source,
                location=f'deployment["{side}"]',
            )
    for letter in sorted(letters):
        if letter not in owner:
            raise DataError(
                f"la lettre de zone « {letter} » n'est attribuée à aucun camp dans « deployment »",
                source=source,
                location="zones",
            )

    markers: dict[str, tuple[int, int]] = {}
    for name, coords in doc.markers.items():
        if len(coords) != 2:
            raise DataError(
                "[ligne, colonne] attendu", source=source, location=f'markers["{name}"]'
            )
        r, c = coords
        if not (0 <= r < shape[0] and 0 <= c < shape[1]):
            raise DataError(
                f"({r},{c}) est hors de la carte ({shape[0]}×{shape[1]})",
                source=source,
                location=f'markers["{name}"]',
            )
        if move_cost[r * shape[1] + c] == 0:
            raise DataError(
                f"({r},{c}) est une case infranchissable",
                source=source,
                location=f'markers["{name}"]',
            )
        markers[name] = (r, c)

    elevation_rows = tuple(elevation) if elevation else tuple("." * shape[1] for _ in terrain)
    zone_rows = tuple(zones) if zones else tuple("." * shape[1] for _ in terrain)
    return GameMap(
        name=doc.name,
        height=shape[0],
        width=shape[1],
        terrain_rows=tuple(terrain),
        elevation_rows=elevation_rows,
        zone_rows=zone_rows,
        move_cost=move_cost,
        blocks_los=tuple(types[ch].blocks_los for ch in flat),
        cover=tuple(types[ch].cover_bonus for ch in flat),
        elevation=tuple(0 if ch == "." else int(ch) for ch in "".join(elevation_rows)),
        zone_of=tuple("".join(zone_rows)),
        terrain_types=tuple(types[ch] for ch in sorted(types)),
        markers=markers,
        deployment=deployment,
        source=source,
    )


def parse_map(text: str, source: str | None = None) -> GameMap:
    """Parse and validate map YAML text.

    :raises DataError: on any syntax or validation problem.
    """
    doc = validate(MapFile, load_yaml(text, source), source)
    return build_map(doc, source)


def load_map(path: str | Path) -> GameMap:
    """Read a map file. :raises DataError: unreadable or invalid file."""
    text, source = read_text(path)
    return parse_map(text, source)
