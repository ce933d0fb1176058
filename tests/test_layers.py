"""The package layers stay clean: lower layers never import upper ones, even lazily.

Imports are read from the source (every ``import`` statement, including those inside functions
and ``if TYPE_CHECKING:`` blocks), so a lazy import that reaches up counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nb_hitl

ROOT = Path(nb_hitl.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every nb_hitl module or package ``path`` imports, resolved to an absolute name."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m == "nb_hitl" or m.startswith("nb_hitl.")}


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    return {name: _imports(path) & set(modules) - {name} for name, path in modules.items()}


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        current = todo.pop()
        if current == goal:
            return True
        if current not in seen:
            seen.add(current)
            todo.extend(graph.get(current, ()))
    return False


def test_message_layer_imports_nothing_above_it() -> None:
    allowed = ("nb_hitl.message", "nb_hitl._render", "nb_hitl.exceptions")
    for name, deps in _graph().items():
        if name.startswith("nb_hitl.message"):
            above = {d for d in deps if not d.startswith(allowed)}
            assert not above, f"{name} imports {sorted(above)}"


def test_render_module_imports_no_other_nb_hitl_module() -> None:
    assert _graph()["nb_hitl._render"] == set()


def test_no_import_cycle_between_scripted_model_and_demo() -> None:
    graph = _graph()
    assert _reaches(graph, "nb_hitl.model._scripted", "nb_hitl.model._demo_responder")
    assert _reaches(graph, "nb_hitl.demo", "nb_hitl.model._demo_responder")
    assert not _reaches(graph, "nb_hitl.model._scripted", "nb_hitl.demo")


def test_no_import_cycle_between_chat_and_input_widgets() -> None:
    graph = _graph()
    assert _reaches(graph, "nb_hitl.widgets._chat", "nb_hitl.widgets._input")
    assert not _reaches(graph, "nb_hitl.widgets._input", "nb_hitl.widgets._chat")
