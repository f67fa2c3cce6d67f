"""Turn pydantic validation errors into one-line French :class:`DataError` messages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, ValidationError

from engine.errors import DataError, suggestion

M = TypeVar("M", bound=BaseModel)

_TYPE_NAMES = {
    "int": "un entier",
    "float": "un nombre",
    "str": "une chaîne de caractères",
    "bool": "un booléen (true/false)",
    "list": "une liste",
    "dict": "un objet (clé: valeur)",
    "tuple": "une liste",
}


class StrictModel(BaseModel):
    """Base of every content model: frozen, strict types, unknown fields rejected."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _location(loc: Iterable[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _known_fields(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """Field names of the sub-model found at ``loc`` (for suggestions)."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        fields: Mapping[str, Any] = getattr(current, "model_fields", {})
        info = fields.get(part)
        if info is None:
            return []
        annotation: Any = info.annotation
        current = _unwrap_model(annotation)
        if current is None:
            return []
    fields = getattr(current, "model_fields", {})
    return [str(name) for name in fields]


def _unwrap_model(annotation: object) -> type[BaseModel] | None:
    args: tuple[object, ...] = get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in args:
        found = _unwrap_model(arg)
        if found is not None:
            return found
    return None


def _describe(error: Mapping[str, Any], model: type[BaseModel]) -> tuple[str, str]:
    loc: tuple[int | str, ...] = tuple(error.get("loc", ()))
    kind = str(error.get("type", ""))
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    value = error.get("input")
    if kind == "extra_forbidden":
        name = str(loc[-1]) if loc else "?"
        known = _known_fields(model, loc[:-1])
        hint = suggestion(name, known)
        return _location(loc[:-1]), f"champ inconnu « {name} »{hint}"
    where = _location(loc)
    if kind == "missing":
        return where, "champ obligatoire manquant"
    if kind.endswith(("_type", "_parsing")):
        base = kind.split("_", maxsplit=1)[0]
        expected = _TYPE_NAMES.get(base, base)
        return where, f"{expected} est attendu, reçu {value!r}"
    if kind == "greater_than":
        return where, f"doit être strictement supérieur à {ctx.get('gt')} (reçu {value!r})"
    if kind == "greater_than_equal":
        return where, f"doit être supérieur ou égal à {ctx.get('ge')} (reçu {value!r})"
    if kind == "less_than_equal":
        return where, f"doit être inférieur ou égal à {ctx.get('le')} (reçu {value!r})"
    if kind == "less_than":
        return where, f"doit être strictement inférieur à {ctx.get('lt')} (reçu {value!r})"
    if kind == "literal_error":
        return where, f"valeur invalide {value!r}, valeurs possibles : {ctx.get('expected')}"
    if kind in ("too_short", "too_long"):
        return where, f"longueur invalide (reçu {value!r})"
    if kind == "value_error":
        message = str(ctx.get("error", error.get("msg", "")))
        return where, message
    return where, f"valeur invalide {value!r} ({error.get('msg', kind)})"


def translate(err: ValidationError, model: type[BaseModel], source: str | None) -> DataError:
    """Build the French :class:`DataError` for the first error of ``err``."""
    first = err.errors(include_url=False)[0]
    where, message = _describe(first, model)
    extra = len(err.errors()) - 1
    if extra:
        message += f" (et {extra} autre{'s' if extra > 1 else ''} erreur{'s' if extra > 1 else ''})"
    return DataError(message, source=source, location=where or None)


def validate(model: type[M], data: object, source: str | None) -> M:
    """Validate ``data`` against ``model``, raising a French :class:`DataError`."""
    if not isinstance(data, dict):
        raise DataError("le document doit être un objet (clé: valeur)", source=source)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise translate(err, model, source) from None
