"""The import graph of ``engine/``: no cycle, imports point down the layers (``core``,
``content``, ``geometry``, ``state``, ``rules``, ``view``, ``turn``, ``run``), and the
modules of the rule layers never import the loop or the view.

Every ``import`` and ``from … import`` of every module is an edge, wherever it
sits: at module level, inside a function, under ``if TYPE_CHECKING:`` (a
type-only import still ties the two modules together: each must be read to
check the other, and a later move into subpackages or a mypyc build would meet
the cycle). Relative imports are resolved; ``from engine.rules import x`` is an
edge to ``engine.rules.x`` when ``x`` is a module. Docstring examples (``>>>``) are text,
not imports.

Run as a script (``python tests/test_engine_imports.py [ENGINE_DIR]``) it prints
the cycles, forbidden and upward edges of another checkout's ``engine/``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"

#: the turn loop and the policies' view: rules receive a FightState instead
LOOP = "engine.turn.battle"
VIEW = "engine.view.observation"
#: the layers of ``engine/``, bottom first: a module imports only from its own layer
#: and the layers below it (docs/architecture.md)
LAYERS = ("core", "content", "geometry", "state", "rules", "view", "turn", "run")
#: the layers whose modules resolve rules or hold what rules read: none of them may
#: import LOOP or VIEW
RULE_LAYERS = ("core", "content", "geometry", "state", "rules")


def engine_modules(root: Path) -> dict[str, Path]:
    """Module name → file, for every ``.py`` under ``root`` (packages included)."""
    out: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(("engine", *parts))] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The engine modules that the module ``name`` (file ``path``) imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            for alias in node.names:
                found.add(f"{base}.{alias.name}")  # `from engine import readiness`
    out: set[str] = set()
    for dotted in found:
        # `import engine.content.maps.x` reaches engine.content.maps; keep the longest known prefix
        target = dotted
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target not in (name, "engine"):
            out.add(target)
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = engine_modules(root)
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def forbidden(graph: dict[str, set[str]]) -> list[str]:
    """``rule -> loop/view`` edges."""
    return [
        f"{mod} -> {dep}"
        for mod in sorted(graph)
        if _layer(mod) in RULE_LAYERS
        for dep in sorted(graph[mod] & {LOOP, VIEW})
    ]


def _layer(module: str) -> str:
    """``engine.rules.attack`` and ``engine.rules`` → ``rules`` (``""`` for ``engine``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Edges from a layer to a layer above it, and modules outside every layer."""
    out = [f"{mod}: outside the layers" for mod in sorted(graph)
           if mod != "engine" and _layer(mod) not in LAYERS]  # fmt: skip
    for mod in sorted(graph):
        if _layer(mod) not in LAYERS:
            continue
        for dep in sorted(graph[mod]):
            if _layer(dep) in LAYERS and LAYERS.index(_layer(dep)) > LAYERS.index(_layer(mod)):
                out.append(f"{mod} -> {dep}")
    return out


def test_the_graph_is_read() -> None:
    graph = import_graph(ENGINE)
    # `from engine.rules import readiness`
    assert "engine.rules.readiness" in graph["engine.turn.battle"]
    assert "engine.rules.attack" in graph["engine.rules.aoo"]
    assert {_layer(m) for m in graph} == {"", *LAYERS}


def test_no_import_cycle_in_engine() -> None:
    assert cycles(import_graph(ENGINE)) == []


def test_rule_modules_import_neither_loop_nor_view() -> None:
    assert forbidden(import_graph(ENGINE)) == []


def test_imports_point_down_the_layers() -> None:
    assert upward(import_graph(ENGINE)) == []


def test_the_checks_see_function_level_and_type_checking_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "engine"
    for layer in ("", "rules", "turn", "view", "core"):
        (pkg / layer).mkdir(parents=True, exist_ok=True)
        (pkg / layer / "__init__.py").write_text("")
    (pkg / "turn" / "battle.py").write_text("from engine.rules import attack\n")
    (pkg / "rules" / "attack.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from engine.turn.battle import B\n"
    )
    (pkg / "view" / "observation.py").write_text("def f():\n    from ..rules import aoo\n")
    (pkg / "rules" / "aoo.py").write_text("def g():\n    import engine.view.observation\n")
    (pkg / "core" / "rng.py").write_text("from engine.rules.aoo import g\n")
    graph = import_graph(pkg)
    assert cycles(graph) == [
        ["engine.rules.aoo", "engine.view.observation"],
        ["engine.rules.attack", "engine.turn.battle"],
    ]
    assert forbidden(graph) == [
        "engine.rules.aoo -> engine.view.observation",
        "engine.rules.attack -> engine.turn.battle",
    ]
    assert upward(graph) == [
        "engine.core.rng -> engine.rules.aoo",
        "engine.rules.aoo -> engine.view.observation",
        "engine.rules.attack -> engine.turn.battle",
    ]


if __name__ == "__main__":
    graph = import_graph(Path(sys.argv[1]) if len(sys.argv) > 1 else ENGINE)
    for comp in cycles(graph):
        print("cycle:", " ".join(comp))
    for edge in forbidden(graph):
        print("forbidden:", edge)
    for edge in upward(graph):
        print("upward:", edge)
