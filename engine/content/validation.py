"""Reading content files; one-line French :class:`DataError` messages for bad ones."""

from __future__ import annotations

import json
import reprlib
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from engine.core.errors import DataError, os_error_fr, suggestion

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


# The default factories of content model fields. pydantic reads the signature of
# every ``default_factory``; for a builtin such as ``list`` that means parsing its
# text signature with ``tokenize``, whose first use compiles a large regular
# expression: about 20 M instructions of each start-up, which a Python function
# does not cost (``tests/test_cli_startup.py``).


def empty_list() -> list[Any]:
    """A new empty list (``Field(default_factory=empty_list)``)."""
    return []


def empty_dict() -> dict[Any, Any]:
    """A new empty dict (``Field(default_factory=empty_dict)``)."""
    return {}


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _member_names(annotation: Any) -> set[str]:
    names: set[str] = set()
    args: tuple[Any, ...] = get_args(annotation)
    for arg in map(_unwrap_optional, args):
        names.add(str(getattr(arg, "__name__", arg)))
        names.add(str(arg))
    return names


def _unwrap_optional(annotation: Any) -> Any:
    """``X | None`` → ``X``, ``Annotated[X, …]`` → ``X``; any other annotation unchanged."""
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
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
            # a union of several types: pydantic names the member it tried (its
            # class, or the tag of a discriminated union named after it)
            tried = [_unwrap_optional(a) for a in get_args(ann)]
            ann = next((a for a in tried if _is_model(a) and a.__name__ == part), None)
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
        return where, f"{expected}, reçu {quote(value)}"
    if kind == "greater_than":
        return where, f"doit être strictement supérieur à {ctx.get('gt')} (reçu {quote(value)})"
    if kind == "greater_than_equal":
        return where, f"doit être supérieur ou égal à {ctx.get('ge')} (reçu {quote(value)})"
    if kind == "less_than_equal":
        return where, f"doit être inférieur ou égal à {ctx.get('le')} (reçu {quote(value)})"
    if kind == "less_than":
        return where, f"doit être strictement inférieur à {ctx.get('lt')} (reçu {quote(value)})"
    if kind == "literal_error":
        expected = str(ctx.get("expected", "")).replace(" or ", " ou ")
        return where, f"valeur invalide {quote(value)}, valeurs possibles : {expected}"
    if kind in ("too_short", "too_long", "string_too_short", "string_too_long"):
        return where, f"longueur invalide (reçu {quote(value)})"
    if kind == "value_error":
        message = str(ctx.get("error", error.get("msg", "")))
        return where, message
    return where, f"valeur invalide {quote(value)} ({error.get('msg', kind)})"


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


#: the largest file a loader reads, in bytes (a content file is a few kilobytes)
MAX_FILE_BYTES = 16 * 2**20
#: the deepest nesting of lists and objects a loaded document may have
MAX_DEPTH = 64
#: how many YAML aliases of scalars a document may hold (aliases of lists or
#: objects are refused: nested, they expand exponentially — « billion laughs »)
MAX_ALIASES = 1000
#: how many characters of a bad value an error message quotes
QUOTE_CHARS = 60


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters (``…`` marks the cut).

    Containers are rendered shallowly, so a huge value costs no more than a small one.

    >>> quote("x" * 100, 10)
    "'xxxxxxxx…"
    >>> quote([1, [2, [3, [4]]]])
    '[1, [2, [...]]]'
    """
    if isinstance(value, str):
        text = repr(value[: limit + 1])
    elif isinstance(value, (dict, list, tuple)):
        text = _REPR.repr(value)
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 6
_REPR.maxstring = _REPR.maxother = QUOTE_CHARS
_REPR.maxlong = 40


def printable(text: str) -> str:
    """``text`` with lone surrogates written as ``\\udcff`` escapes, so it can be printed.

    >>> printable("ok\\udcff")
    'ok\\\\udcff'
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _size_fr(limit: int) -> str:
    return f"{limit // 2**20} Mio" if limit >= 2**20 else f"{limit} octets"


def read_bytes(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The content of ``path``, at most ``limit`` bytes (read as such: ``/dev/zero`` ends).

    :raises DataError: unreadable file (French reason), a file larger than ``limit``,
        or a name that is not UTF-8 (lone surrogates).
    """
    source = printable(str(path))
    if source != str(path):
        # bytes that are not UTF-8 in the name: it would end up in reports (--json) and
        # messages that cannot be written as UTF-8
        raise DataError("nom de fichier non encodé en UTF-8 : renommez le fichier", source=source)
    try:
        with Path(path).open("rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        raise DataError(f"lecture impossible : {os_error_fr(err)}", source=source) from None
    except ValueError:  # a NUL character in the path
        raise DataError("lecture impossible : chemin invalide", source=source) from None
    if len(data) > limit:
        raise DataError(f"fichier trop volumineux (plus de {_size_fr(limit)})", source=source)
    return data


def read_text(
    path: str | Path, empty: str = "chemin de fichier vide", limit: int = MAX_FILE_BYTES
) -> tuple[str, str]:
    """Read a UTF-8 content file: ``(text, source name)``.

    Line ends are normalised to ``\\n`` (as text mode reads them).

    :raises DataError: empty path, unreadable file (French reason), larger than
        ``limit`` bytes, not UTF-8.
    """
    if not str(path).strip():
        raise DataError(empty)
    data = read_bytes(path, limit)
    source = printable(str(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DataError(
            f"le fichier n'est pas encodé en UTF-8 (octet invalide à la position {err.start})",
            source=source,
        ) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, source


def _surrogate_error(text: str, source: str | None) -> DataError:
    return DataError(
        f"caractère invalide (demi-paire de substitution) dans {quote(text)}", source=source
    )


def _has_surrogate(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_YAML_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _DuplicateKeyError(Exception):
    def __init__(self, key: object, line: int | None) -> None:
        self.key = key
        self.line = line


class GuardedYamlLoader(_YAML_BASE):  # type: ignore[misc, valid-type]
    """The safe YAML loader (libyaml's when present) refusing duplicate mapping keys."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        own = {id(k) for k, _ in node.value}  # keys merged in by « << » may be overridden
        self.flatten_mapping(node)
        mapping: dict[Any, Any] = {}
        build: Any = getattr(self, "construct_object")  # noqa: B009 - untyped in the stubs
        for key_node, value_node in node.value:
            key: Any = build(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, "unhashable key", key_node.start_mark
                ) from None
            if key in mapping and id(key_node) in own:
                raise _DuplicateKeyError(key, key_node.start_mark.line + 1)
            mapping[key] = build(value_node, deep=deep)
        return mapping


def _check_yaml_graph(root: yaml.Node, source: str | None) -> None:
    """Refuse what would expand or nest without bound, and lone surrogates, before
    anything is built from the node graph."""
    seen: set[int] = set()
    aliases = 0
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            if not isinstance(node, yaml.ScalarNode):
                raise DataError(
                    f"alias YAML d'une liste ou d'un objet (ancre de la ligne "
                    f"{node.start_mark.line + 1}) : non accepté",
                    source=source,
                )
            aliases += 1
            if aliases > MAX_ALIASES:
                raise DataError(f"plus de {MAX_ALIASES} alias YAML", source=source)
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            value: Any = node.value
            if isinstance(value, str) and _has_surrogate(value):
                raise _surrogate_error(value, source)
            continue
        if depth >= MAX_DEPTH:
            raise DataError(
                f"YAML trop profondément imbriqué (plus de {MAX_DEPTH} niveaux)", source=source
            )
        children: Any = node.value
        if isinstance(node, yaml.MappingNode):
            for key, value in children:
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
        else:
            stack.extend((child, depth + 1) for child in children)


def load_yaml(text: str, source: str | None) -> object:
    """Parse YAML safely: no alias of a list or an object, at most :data:`MAX_DEPTH`
    levels, no duplicate key.

    :raises DataError: on any syntax problem (line number if known) or any of the above.
    """
    loader: Any = GuardedYamlLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_yaml_graph(node, source)
        return loader.construct_document(node)
    except _DuplicateKeyError as dup:
        raise DataError(
            f"clé {quote(dup.key)} en double (ligne {dup.line})", source=source
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (ligne {mark.line + 1})" if mark is not None else ""
        raise DataError(f"YAML invalide{where}", source=source) from None
    except RecursionError:
        raise DataError("YAML trop profondément imbriqué", source=source) from None
    except (ValueError, TypeError, AttributeError, OverflowError) as err:
        # PyYAML's constructors raise these on bad tagged scalars (!!int abc…)
        raise DataError(f"YAML invalide ({type(err).__name__})", source=source) from None
    finally:
        loader.dispose()


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(key, None)
        out[key] = value
    return out


def _no_constant(name: str) -> object:
    raise _NonStandardError(name)


class _NonStandardError(Exception):
    pass


def _check_json_tree(root: object, source: str | None) -> None:
    stack: list[tuple[object, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            if _has_surrogate(node):
                raise _surrogate_error(node, source)
            continue
        if not isinstance(node, (dict, list)):
            continue
        if depth >= MAX_DEPTH:
            raise DataError(
                f"JSON trop profondément imbriqué (plus de {MAX_DEPTH} niveaux)", source=source
            )
        if isinstance(node, dict):
            for key, value in typing.cast(dict[str, object], node).items():
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
        else:
            stack.extend((child, depth + 1) for child in typing.cast(list[object], node))


def load_json(text: str, source: str | None) -> object:
    """Parse JSON strictly: no duplicate key, no ``NaN``/``Infinity``, at most
    :data:`MAX_DEPTH` levels, no lone surrogate (``"\\ud800"``) in a string.

    :raises DataError: on any of these or a syntax error (line and column).
    """
    try:
        data = json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_no_constant)
    except _DuplicateKeyError as dup:
        raise DataError(f"clé {quote(dup.key)} en double", source=source) from None
    except _NonStandardError as err:
        raise DataError(f"JSON invalide (valeur {err} non standard)", source=source) from None
    except json.JSONDecodeError as err:
        raise DataError(
            f"JSON invalide (ligne {err.lineno}, colonne {err.colno})", source=source
        ) from None
    except RecursionError:
        raise DataError("JSON trop profondément imbriqué", source=source) from None
    except ValueError:  # e.g. an integer literal too long to convert
        raise DataError("JSON invalide (nombre hors limites)", source=source) from None
    _check_json_tree(data, source)
    return data


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
