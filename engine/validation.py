"""Reading content files; one-line French :class:`DataError` messages for bad ones."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from engine.errors import DataError, os_error_fr, suggestion

M = TypeVar("M", bound=BaseModel)

#: pydantic error-type prefix → what was expected, with French agreement
_EXPECTED = {
    "int": "entier attendu",
    "float": "nombre attendu",
    "str": "chaîne de caractères attendue",
    "string": "chaîne de caractères attendue",
    "bool": "booléen (true/false) attendu",
    "list": "liste attendue",
    "tuple": "liste attendue",
    "dict": "objet (clé: valeur) attendu",
    "model": "objet (clé: valeur) attendu",
    "dataclass": "objet (clé: valeur) attendu",
}


class StrictModel(BaseModel):
    """Base of every content model: frozen, strict types, unknown fields rejected."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _member_names(annotation: Any) -> set[str]:
    names: set[str] = set()
    args: tuple[Any, ...] = get_args(annotation)
    for arg in args:
        names.add(str(getattr(arg, "__name__", arg)))
        names.add(str(arg))
    return names


def _unwrap_optional(annotation: Any) -> Any:
    """``X | None`` → ``X``; any other annotation unchanged."""
    if get_origin(annotation) in (typing.Union, types.UnionType):
        members: list[Any] = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def walk(model: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[str, type[BaseModel] | None]:
    """Render a pydantic error location as a user path and find the model it ends in.

    List indices become ``[0]``, dict keys ``["key"]``, union member tags are
    dropped. The model is the innermost content model reached (for suggestions).
    """
    path = ""
    ann: Any = model
    for part in loc:
        ann = _unwrap_optional(ann)
        union = get_origin(ann) in (typing.Union, types.UnionType)
        if union and isinstance(part, str) and part in _member_names(ann):
            ann = None  # a union of several types: pydantic names the member it tried
            continue
        if _is_model(ann) and isinstance(part, str):
            path += f".{part}" if path else part
            info: Any = ann.model_fields.get(part) or next(
                (f for f in ann.model_fields.values() if f.alias == part), None
            )
            ann = info.annotation if info is not None else None
            continue
        origin = get_origin(ann)
        if origin is dict:
            path += f'["{part}"]'
            args: tuple[Any, ...] = get_args(ann)
            ann = args[1] if len(args) == 2 else None
            continue
        if origin in (list, tuple) or isinstance(part, int):
            path += f"[{part}]"
            args = get_args(ann)
            ann = args[0] if args else None
            continue
        if ann is not None and part not in _member_names(ann):
            path += f".{part}" if path else part
        ann = None
    ann = _unwrap_optional(ann)
    owner: type[BaseModel] | None = ann if _is_model(ann) else None
    return path, owner


def _describe(error: Mapping[str, Any], model: type[BaseModel]) -> tuple[str, str]:
    loc: tuple[int | str, ...] = tuple(error.get("loc", ()))
    kind = str(error.get("type", ""))
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    value = error.get("input")
    if kind == "extra_forbidden":
        name = str(loc[-1]) if loc else "?"
        where, owner = walk(model, loc[:-1])
        known = (
            [f.alias or name for name, f in owner.model_fields.items()] if owner is not None else []
        )
        return where, f"champ inconnu « {name} »{suggestion(name, known)}"
    where, _owner = walk(model, loc)
    if kind == "missing":
        return where, "champ obligatoire manquant"
    if kind.endswith(("_type", "_parsing")):
        base = kind.split("_", maxsplit=1)[0]
        expected = _EXPECTED.get(base, f"type {base} attendu")
        return where, f"{expected}, reçu {value!r}"
    if kind == "greater_than":
        return where, f"doit être strictement supérieur à {ctx.get('gt')} (reçu {value!r})"
    if kind == "greater_than_equal":
        return where, f"doit être supérieur ou égal à {ctx.get('ge')} (reçu {value!r})"
    if kind == "less_than_equal":
        return where, f"doit être inférieur ou égal à {ctx.get('le')} (reçu {value!r})"
    if kind == "less_than":
        return where, f"doit être strictement inférieur à {ctx.get('lt')} (reçu {value!r})"
    if kind == "literal_error":
        expected = str(ctx.get("expected", "")).replace(" or ", " ou ")
        return where, f"valeur invalide {value!r}, valeurs possibles : {expected}"
    if kind in ("too_short", "too_long", "string_too_short", "string_too_long"):
        return where, f"longueur invalide (reçu {value!r})"
    if kind == "value_error":
        message = str(ctx.get("error", error.get("msg", "")))
        return where, message
    return where, f"valeur invalide {value!r} ({error.get('msg', kind)})"


def _priority(error: Mapping[str, Any]) -> int:
    # An unknown field is usually the typo behind a "missing" one: report it first,
    # with its suggestion.
    return 0 if error.get("type") == "extra_forbidden" else 1


def translate(err: ValidationError, model: type[BaseModel], source: str | None) -> DataError:
    """Build the French :class:`DataError` for the most useful error of ``err``."""
    errors = err.errors(include_url=False)
    first = sorted(errors, key=_priority)[0]
    where, message = _describe(first, model)
    extra = len(errors) - 1
    if extra:
        message += f" (et {extra} autre{'s' if extra > 1 else ''} erreur{'s' if extra > 1 else ''})"
    return DataError(message, source=source, location=where or None)


def read_text(path: str | Path, empty: str = "chemin de fichier vide") -> tuple[str, str]:
    """Read a UTF-8 content file: ``(text, source name)``.

    :raises DataError: empty path, unreadable file (French reason), not UTF-8.
    """
    if not str(path).strip():
        raise DataError(empty)
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8"), str(p)
    except OSError as err:
        raise DataError(f"lecture impossible : {os_error_fr(err)}", source=str(p)) from None
    except UnicodeDecodeError:
        raise DataError("le fichier n'est pas encodé en UTF-8", source=str(p)) from None


def load_yaml(text: str, source: str | None) -> object:
    """Parse YAML safely. :raises DataError: on any syntax problem (line number if known)."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (ligne {mark.line + 1})" if mark is not None else ""
        raise DataError(f"YAML invalide{where}", source=source) from None
    except RecursionError:
        raise DataError("YAML trop profondément imbriqué", source=source) from None
    except (ValueError, TypeError, AttributeError, OverflowError) as err:
        # PyYAML's constructors raise these on bad tagged scalars (!!int abc…)
        raise DataError(f"YAML invalide ({type(err).__name__})", source=source) from None


def validate(model: type[M], data: object, source: str | None) -> M:
    """Validate ``data`` against ``model``, raising a French :class:`DataError`."""
    if not isinstance(data, dict):
        raise DataError("le document doit être un objet (clé: valeur)", source=source)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise translate(err, model, source) from None
    except RecursionError:
        raise DataError("document trop profondément imbriqué", source=source) from None
