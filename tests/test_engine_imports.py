"""The import graph of ``engine/``: no cycle, and rule modules never import the loop or the view.

Every ``import`` and ``from … import`` of every module is an edge, wherever it
sits: at module level, inside a function, under ``if TYPE_CHECKING:`` (a
type-only import still ties the two modules together: each must be read to
check the other, and a later move into subpackages or a mypyc build would meet
the cycle). Relative imports are resolved; ``from engine import x`` is an edge
to ``engine.x`` when ``x`` is a module. Docstring examples (``>>>``) are text,
not imports.

Run as a script (``python tests/test_engine_imports.py [ENGINE_DIR]``) it prints
the cycles and forbidden edges of another checkout's ``engine/``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"

#: the turn loop and the policies' view: rules receive a FightState instead
LOOP = "engine.battle"
VIEW = "engine.observation"
#: modules that resolve rules; none of them may import LOOP or VIEW
RULE_MODULES = frozenset(
    f"engine.{name}"
    for name in (
        "aoo",
        "attack",
        "checks",
        "economy",
        "fight",
        "grid",
        "life",
        "los",
        "movement",
        "moves",
        "reach",
        "readiness",
        "skills",
        "space",
        "state",
        "stealth",
        "strikes",
        "table",
        "tumbling",
        "weapons",
    )
)


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
        # `import engine.maps.x` reaches engine.maps; keep the longest known prefix
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
        if mod in RULE_MODULES
        for dep in sorted(graph[mod] & {LOOP, VIEW})
    ]


def test_the_graph_is_read() -> None:
    graph = import_graph(ENGINE)
    assert "engine.readiness" in graph["engine.battle"]  # `from engine import readiness`
    assert "engine.attack" in graph["engine.aoo"]
    assert set(graph) >= RULE_MODULES, sorted(RULE_MODULES - set(graph))


def test_no_import_cycle_in_engine() -> None:
    assert cycles(import_graph(ENGINE)) == []


def test_rule_modules_import_neither_loop_nor_view() -> None:
    assert forbidden(import_graph(ENGINE)) == []


def test_the_checks_see_function_level_and_type_checking_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "engine"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "battle.py").write_text("from engine import attack\n")
    (pkg / "attack.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from engine.battle import B\n"
    )
    (pkg / "observation.py").write_text("def f():\n    from . import aoo\n")
    (pkg / "aoo.py").write_text("def g():\n    import engine.observation\n")
    graph = import_graph(pkg)
    assert cycles(graph) == [
        ["engine.aoo", "engine.observation"],
        ["engine.attack", "engine.battle"],
    ]
    assert forbidden(graph) == [
        "engine.aoo -> engine.observation",
        "engine.attack -> engine.battle",
    ]


if __name__ == "__main__":
    graph = import_graph(Path(sys.argv[1]) if len(sys.argv) > 1 else ENGINE)
    for comp in cycles(graph):
        print("cycle:", " ".join(comp))
    for edge in forbidden(graph):
        print("forbidden:", edge)
