"""Import the spell registry: Foundry VTT pf1 records + authored overlays → ``data/spells/``.

    uv run --no-sync python scripts/import_spells.py            # rewrite data/spells/
    uv run --no-sync python scripts/import_spells.py --out DIR  # write elsewhere

Reads ``../shared/reference-data/foundry-pf1-spells.json`` (3,029 spell Items; defaults
stripped, see that directory's README) and ``data/spells/overlays/*.yaml`` (what the
records hold only as text: conditions, buffs, HD limits, partial saves, target
filters, and the verdict ``modelled``), and writes one ``<id>.json`` per record
(:func:`engine.content.spells.spell_json`: sorted keys, a final newline), removing
the ``*.json`` files of the output directory it did not write. The output depends
on the inputs only: two runs give the same bytes (``tests/test_spells_data.py``).

The mapping from a record (``docs/rules.md``, « Spell registry »):

* ``name`` → ``name``, its slug without apostrophes → ``id`` (``bulls-strength``);
  ``system.level`` (absent: 1) → ``level``;
  ``learnedAt.class`` → ``class_levels``; ``school`` codes → names; ``subschool`` →
  ``subschools``; ``descriptors`` (``mindAffecting`` → ``mind-affecting``);
* ``components`` (``divineFocus`` 1 → DF, 2 → M/DF, 3 → F/DF); ``sr`` absent → true;
* the first action: ``activation`` type and cost → ``cast_time`` (round + cost 1 →
  one_round; more rounds, minutes, hours → long; full → full_round; nonaction →
  free); ``range`` units (``ft`` + value → feet); ``actionType`` ``rsak`` →
  ranged touch, except ``attackBonus`` 100 → automatic hit (*magic missile*),
  ``msak`` or a touch range without a harmless save → melee touch;
  ``measureTemplate`` circle → burst, cone, ray → line, rect; a circle on a
  personal or 0-ft range, or whose area text says « centered on you/the
  caster », is centered on the caster;
  ``extraAttacks.formula.count`` → ``projectiles`` = 1 + count; ``save`` type,
  « negates » / « half » / « partial » from its description (anything else:
  partial), ``harmless``; ``duration`` units and value (a text duration « N
  rounds/level » is read, others kept as text); ``damage.parts`` → ``damage``
  effects (``electric`` → electricity), or ``heal`` for ``actionType: heal``.

An overlay entry (keyed by the record's name) replaces the fields it gives;
``add_effects`` appends to the imported effects instead of replacing them. A
record without an overlay is imported ``modelled: false`` with the reason.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.content.formulas import compile_formula  # noqa: E402
from engine.content.spells import (  # noqa: E402
    SCHOOLS,
    SpellSpec,
    spell_json,
    spell_key,
)
from engine.content.validation import load_yaml, read_text, translate  # noqa: E402
from engine.core.errors import DataError, suggestion  # noqa: E402

SOURCE = ROOT / ".." / "shared" / "reference-data" / "foundry-pf1-spells.json"
OVERLAYS = ROOT / "data" / "spells" / "overlays"
OUT = ROOT / "data" / "spells"

_DESCRIPTOR_NAMES = {"mindAffecting": "mind-affecting", "languageDependent": "language-dependent"}
_DAMAGE_TYPES = {"electric": "electricity", "": "untyped"}
_SHAPES = {"circle": "burst", "cone": "cone", "ray": "line", "rect": "rect"}
_RANGES = {
    "close": "close",
    "medium": "medium",
    "long": "long",
    "touch": "touch",
    "melee": "touch",
    "reach": "touch",
    "personal": "personal",
    "unlimited": "unlimited",
}
_DURATIONS = {
    "round": "rounds",
    "minute": "minutes",
    "hour": "hours",
    "day": "days",
    "week": "weeks",
    "month": "months",
}
_TEXT_DURATION = re.compile(
    r"(\d+) (round|minute|hour|day)s?(/level| per level)?"
    r"(?: or until discharged| \(D\))?(?:[;,] see text| \(see text\))?"
)
#: why a record without an overlay is not modelled (French)
NOT_AUTHORED = "effet non rédigé : l'enregistrement Foundry ne le décrit qu'en texte"
NOT_CHECKED = "effet non vérifié : seuls les dégâts de l'enregistrement sont importés"
TOO_LONG = "temps d'incantation trop long pour un combat"
SUMMARY_CHARS = 240


def _cast_time(activation: dict[str, Any]) -> str:
    kind = activation.get("type", "standard")
    cost = activation.get("cost") or 1
    if kind == "round":
        return "one_round" if cost == 1 else "long"
    if kind == "full":
        return "full_round" if cost == 1 else "long"
    if kind in ("standard", "swift", "immediate", "move", "free"):
        return str(kind)
    if kind == "nonaction":
        return "free"
    if kind == "attack":  # cast as part of an attack: no action of its own
        return "free"
    return "long"  # minute, hour, special


def _components(raw: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if raw.get("verbal"):
        out.append("V")
    if raw.get("somatic"):
        out.append("S")
    focus = raw.get("divineFocus") or 0
    if raw.get("material") or focus == 2:
        out.append("M/DF" if focus == 2 else "M")
    if raw.get("focus") or focus == 3:
        out.append("F/DF" if focus == 3 else "F")
    if focus == 1:
        out.append("DF")
    return out


def _range(raw: dict[str, Any]) -> dict[str, Any]:
    units = raw.get("units")
    if units == "ft":
        try:
            return {"kind": "feet", "feet": int(str(raw.get("value", "")).strip())}
        except ValueError:
            return {"kind": "special"}
    return {"kind": _RANGES.get(str(units), "special")}


def _formula_or_none(text: object) -> str | None:
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        compile_formula(text.strip())
    except DataError:
        return None
    return text.strip()


def _duration(raw: dict[str, Any]) -> dict[str, Any]:
    units = raw.get("units")
    value = raw.get("value")
    if units == "inst":
        return {"units": "instantaneous"}
    if units == "perm":
        return {"units": "permanent"}
    if units in _DURATIONS:
        formula = _formula_or_none(value)
        if formula is not None:
            return {"units": _DURATIONS[str(units)], "formula": formula}
        return {"units": "special", "text": str(value or "")}
    text = str(value or "").strip()
    match = _TEXT_DURATION.fullmatch(text)
    if match is not None:
        count, unit, per_level = match.groups()
        formula = (f"{count} * @cl" if count != "1" else "@cl") if per_level else count
        return {"units": _DURATIONS[unit], "formula": formula}
    if text == "instantaneous":
        return {"units": "instantaneous"}
    return {"units": "special", "text": text}


def _outcome(description: str) -> str:
    low = description.lower()
    for word in ("partial", "half", "negates"):
        if word in low:
            return word
    if low.strip() in ("none", ""):
        return "none"
    return "partial"


def _area(action: dict[str, Any]) -> dict[str, Any] | None:
    template = action.get("measureTemplate") or {}
    shape = _SHAPES.get(str(template.get("type", "")))
    try:
        size = int(str(template.get("size", "")).strip())
    except ValueError:
        return None
    if shape is None or size <= 0 or size % 5 or size > 1000:
        return None
    area: dict[str, Any] = {"shape": shape, "size_ft": size}
    text = str(action.get("area") or "").lower()
    units = (action.get("range") or {}).get("units")
    zero = units == "ft" and str((action.get("range") or {}).get("value", "")).strip() == "0"
    centered = re.search(r"cent(?:er|r)ed on (?:you|the caster)", text) is not None
    if shape == "burst" and (units == "personal" or zero or centered):
        area["centered_on_caster"] = True
    return area


def _summary(description: str) -> str:
    spaced = re.sub(r"</?(?:p|br|li|ul|ol|div|h\d|tr|td|th|table)\b[^>]*>", " ", description)
    text = html.unescape(re.sub(r"<[^>]+>", "", spaced))
    text = " ".join(text.split())
    out = ""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if out and len(out) + 1 + len(sentence) > SUMMARY_CHARS:
            break
        out = f"{out} {sentence}" if out else sentence
        if len(out) >= SUMMARY_CHARS // 2:
            break
    if len(out) > SUMMARY_CHARS:
        out = out[: SUMMARY_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return out


def _damage_effects(action: dict[str, Any]) -> list[dict[str, Any]]:
    effects: list[dict[str, Any]] = []
    heal = action.get("actionType") == "heal"
    for part in (action.get("damage") or {}).get("parts", []):
        formula = _formula_or_none(part.get("formula"))
        if formula is None:
            continue
        if heal:
            effects.append({"kind": "heal", "formula": formula})
            continue
        values = (part.get("type") or {}).get("values") or ["untyped"]
        types = sorted({_DAMAGE_TYPES.get(v, v) for v in values})
        effects.append({"kind": "damage", "formula": formula, "types": types})
    return effects


def import_record(record: dict[str, Any]) -> dict[str, Any]:
    """The spell file's fields taken from one Foundry record (before any overlay)."""
    system: dict[str, Any] = record["system"]
    name = str(record["name"])
    action: dict[str, Any] = (system.get("actions") or [{}])[0]
    spell: dict[str, Any] = {
        "id": spell_key(name),
        "name": name,
        "source": f"foundry-pf1:{record['_id']}",
        "level": system.get("level", 1),
        "class_levels": dict((system.get("learnedAt") or {}).get("class") or {}),
        "school": SCHOOLS[system["school"]],
        "subschools": sorted(
            str(s).lower() for s in (system.get("subschool") or {}).get("value", [])
        ),
        "descriptors": sorted(
            _DESCRIPTOR_NAMES.get(d, d) for d in (system.get("descriptors") or {}).get("value", [])
        ),
        "components": _components(system.get("components") or {}),
        "spell_resistance": system.get("sr", True),
        "cast_time": _cast_time(action.get("activation") or {}),
        "range": _range(action.get("range") or {}),
        "duration": _duration(action.get("duration") or {}),
        "summary": _summary(str((system.get("description") or {}).get("value", ""))),
    }
    kind = action.get("actionType")
    harmless = bool((action.get("save") or {}).get("harmless", False))
    if kind == "rsak":
        spell["attack"] = "auto_hit" if str(action.get("attackBonus")) == "100" else "ranged_touch"
    elif kind == "msak" or (spell["range"]["kind"] == "touch" and not harmless):
        spell["attack"] = "melee_touch"
    count = ((action.get("extraAttacks") or {}).get("formula") or {}).get("count")
    extra = _formula_or_none(count)
    if extra is not None and spell.get("attack", "none") != "none":
        spell["projectiles"] = f"1 + ({extra})"
    area = _area(action)
    if area is not None:
        spell["area"] = area
        centered = area.get("centered_on_caster", False)
        spell["targeting"] = "area" if centered or area["shape"] in ("cone", "line") else "point"
    elif spell["range"]["kind"] == "personal":
        spell["targeting"] = "self"
    else:
        spell["targeting"] = "creature"
    save = action.get("save") or {}
    if save.get("type") in ("fort", "ref", "will"):
        description = str(save.get("description") or "")
        spell["save"] = {
            "type": save["type"],
            "outcome": _outcome(description),
            "harmless": bool(save.get("harmless", False)),
            "text": description,
        }
    effects = _damage_effects(action)
    if spell.get("save", {}).get("outcome") == "partial":
        effects = []  # what a save does to each is unknown: left to an overlay
    spell["effects"] = effects
    spell["modelled"] = False
    if spell["cast_time"] == "long":
        spell["reason"] = TOO_LONG
    else:
        spell["reason"] = NOT_CHECKED if effects else NOT_AUTHORED
    return spell


def load_overlays(directory: Path) -> dict[str, tuple[dict[str, Any], str]]:
    """Every overlay entry by spell name, with the file it comes from.

    :raises DataError: a bad file, an entry that is not a mapping, a name twice."""
    out: dict[str, tuple[dict[str, Any], str]] = {}
    for path in sorted(directory.glob("*.yaml")):
        text, source = read_text(path)
        doc = load_yaml(text, source)
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise DataError("le document doit être un objet (nom du sort: champs)", source=source)
        for name, fields in doc.items():  # pyright: ignore[reportUnknownVariableType]
            if not isinstance(fields, dict):
                raise DataError(f"« {name} » : objet (champ: valeur) attendu", source=source)
            if name in out:
                raise DataError(f"« {name} » déjà complété dans {out[name][1]}", source=source)
            out[str(name)] = (fields, source)  # pyright: ignore[reportUnknownArgumentType]
    return out


def apply_overlay(spell: dict[str, Any], overlay: dict[str, Any]) -> dict[str, Any]:
    """``spell`` with the overlay's fields (``add_effects`` appended to ``effects``)."""
    out = dict(spell)
    fields = dict(overlay)
    extra = fields.pop("add_effects", None)
    out.update(fields)
    if "modelled" in fields and fields["modelled"] and "reason" not in fields:
        out.pop("reason", None)
    if extra is not None:
        out["effects"] = [*out.get("effects", []), *extra]
    return out


def build(source: Path, overlays: Path) -> dict[str, str]:
    """Every spell file's name and text. :raises DataError: a bad overlay or spell."""
    text, where = read_text(source, limit=64 * 2**20)
    records: list[dict[str, Any]] = json.loads(text)
    entries = load_overlays(overlays)
    names = {str(r["name"]) for r in records}
    for name, (_fields, file) in entries.items():
        if name not in names:
            raise DataError(f"sort inconnu « {name} »{suggestion(name, names)}", source=file)
    files: dict[str, str] = {}
    for record in sorted(records, key=lambda r: spell_key(str(r["name"]))):
        spell = import_record(record)
        entry = entries.get(spell["name"])
        origin = where
        if entry is not None:
            spell = apply_overlay(spell, entry[0])
            origin = entry[1]
        try:
            spec = SpellSpec.model_validate(spell)
        except Exception as err:  # pydantic's ValidationError, said in French
            from pydantic import ValidationError

            if not isinstance(err, ValidationError):
                raise
            bad = translate(err, SpellSpec, origin)
            raise DataError(
                f"« {spell['name']} » : {bad.message}", source=origin, location=bad.location
            ) from None
        name = f"{spec.id}.json"
        if name in files:
            raise DataError(f"deux sorts ont l'identifiant « {spec.id} »", source=where)
        files[name] = spell_json(spec)
    return files


def write(files: dict[str, str], out: Path) -> int:
    """Write ``files`` into ``out`` and remove the other ``*.json`` there; the count written."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.json"):
        if stale.name not in files:
            stale.unlink()
    for name, text in files.items():
        path = out / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
    return len(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE, help="Foundry spells JSON")
    parser.add_argument("--overlays", type=Path, default=OVERLAYS, help="overlay directory")
    parser.add_argument("--out", type=Path, default=OUT, help="output directory")
    args = parser.parse_args(argv)
    try:
        files = build(args.source, args.overlays)
    except DataError as err:
        print(f"erreur : {err}", file=sys.stderr)
        return 2
    count = write(files, args.out)
    modelled = sum('"modelled": true' in t for t in files.values())
    print(f"{count} sorts écrits dans {args.out} ({modelled} modélisés)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
