"""The package layers stay clean: no import cycle anywhere, and no layer imports one above it.

The import graph is computed from the source of the whole ``nb_hitl`` tree: every ``import``
statement counts, including those inside functions and ``if TYPE_CHECKING:`` blocks, so a lazy
import that reaches up or closes a loop counts too. ``from package import name`` is an edge to
the submodule ``package.name`` when there is one, else to the package (its ``__init__``).

The layers, lowest first (a module may import its own layer and any layer below it; names in
one row are peers that may import each other, as long as no cycle forms):

1. ``_version``, ``_lazy``, ``exceptions``, ``_render``, ``module``, ``_secret_names``: the
   foundation. Version, lazy re-exports, the error tree, HTML escaping/markdown,
   ``StateModule``, the rule for secret-looking names. Nothing in it
   knows what a message or an agent is.
2. ``message``: ``Msg`` and content blocks, the data everything else passes around.
3. ``events``: the typed events the core emits. They are plain data about messages, so they
   sit right above ``message`` and everything that emits them (compression, tools, agents) or
   reads them (widgets, ``testing``) is above; UIs depend on events, never the other way.
4. ``formatter``, ``token``: a message list in a provider's chat format, and its exact token
   count (the counter counts what the formatter makes of a message).
5. ``tool``, ``memory``: tool schemas and execution; the conversation store.
6. ``model``: a chat model call takes formatted messages and tool schemas (structured output
   is a forced tool call built with the tools' own schema rule) and its usage check counts
   an agent's memory, so it sits above all four. ``demo.model``, the demo model's responder,
   is a peer: ``ScriptedModel.demo()`` answers with it.
7. ``compression``: settings, plan, selection rules and summaries; it counts tokens, reads
   memory and calls the model.
8. ``session``: saving and loading an agent, compression settings included.
9. ``compression.replay``: the compression explorer's engine. It replays a recorded
   conversation, and a session file is one, so it sits above ``session``; ``agent``
   re-exports its names, so it sits below ``agent``.
10. ``agent``: the reply lifecycle, ReAct loop, approvals, users; it compresses its memory and
    saves sessions.
11. ``pipeline``, ``remote``: ``MsgHub`` and pipelines made of agents; ``RemoteAgent``, an
    agent whose replies run on an AG-UI server (an agent like the others, so the panel above
    drives it).
12. ``serve``: nb_hitl agents behind the AG-UI protocol (a Starlette app under uvicorn); it
    drives agents and their sessions and knows no widget.
13. ``widgets``, ``extension``, ``server_extension``: the notebook front ends; the extension's
    magics use the chat; the Jupyter server extension (it imports nothing of nb_hitl).
14. the ``nb_hitl`` package itself (``show()``, the lazy top-level names), ``demo`` (the demo
    tools, servers and remote demos; ``demo_remote`` is the remote demos' old address) and
    ``testing``: entry points and helpers that may use anything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import nb_hitl

ROOT = Path(nb_hitl.__file__).parent

LAYERS: list[tuple[str, ...]] = [
    ("_version", "_lazy", "exceptions", "_render", "module", "_secret_names"),
    ("message",),
    ("events",),
    ("formatter", "token"),
    ("tool", "memory"),
    ("model", "demo.model"),
    ("compression",),
    ("session",),
    ("compression.replay",),
    ("agent",),
    ("pipeline", "remote"),
    ("serve",),
    ("widgets", "extension", "server_extension"),
    ("", "demo", "testing", "demo_remote"),
]
"""Lowest first; each entry names a module or package relative to ``nb_hitl`` ("" is the
package's own ``__init__``). A module belongs to the longest entry that prefixes it."""


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: Iterable[str], root: Path = ROOT) -> set[str]:
    """Every nb_hitl module or package ``path`` imports, resolved to an absolute name."""
    known = set(modules)
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            submodules = {f"{module}.{alias.name}" for alias in node.names} & known
            if len(submodules) < len(node.names):  # some names are not submodules
                found.add(module)
            found |= submodules
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return (found & known) - {name}


def _graph(root: Path = ROOT) -> dict[str, set[str]]:
    paths = {_module_name(p, root): p for p in root.rglob("*.py")}
    return {name: _imports(path, paths, root) for name, path in paths.items()}


def _layer_of(module: str, layers: list[tuple[str, ...]] = LAYERS) -> int | None:
    """The index in ``layers`` of ``module``'s longest matching entry (None: no layer)."""
    best: tuple[int, int] | None = None
    relative = module.removeprefix("nb_hitl").removeprefix(".")
    for index, entries in enumerate(layers):
        for entry in entries:
            if relative == entry or (entry and relative.startswith(entry + ".")):
                if best is None or len(entry) > best[0]:
                    best = (len(entry), index)
    return None if best is None else best[1]


def _cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: one list per strongly connected component of 2+
    modules (or a module importing itself), each in a readable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # Tarjan's algorithm, iterative (no recursion limit)
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _upward(
    graph: Mapping[str, Iterable[str]], layers: list[tuple[str, ...]] = LAYERS
) -> list[str]:
    """``a -> b`` for every import of a module ``b`` in a higher layer than ``a``."""
    out = []
    for name in sorted(graph):
        for dep in sorted(graph[name]):
            here, there = _layer_of(name, layers), _layer_of(dep, layers)
            if here is not None and there is not None and there > here:
                out.append(f"{name} (layer {here + 1}) -> {dep} (layer {there + 1})")
    return out


def _describe(graph: Mapping[str, Iterable[str]], cycle: list[str]) -> str:
    members = set(cycle)
    return "; ".join(f"{m} -> {sorted(set(graph[m]) & members)}" for m in cycle)


def test_no_import_cycle_anywhere_in_the_package() -> None:
    graph = _graph()
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(_describe(graph, c) for c in cycles)


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = _upward(_graph())
    assert not upward, "upward imports (see this test's docstring for the layers):\n" + "\n".join(
        upward
    )


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(name for name in _graph() if _layer_of(name) is None)
    assert not unplaced, f"add these to LAYERS in tests/test_layers.py: {unplaced}"


def test_every_layer_entry_names_a_real_module() -> None:
    names = set(_graph())
    missing = [
        entry
        for entries in LAYERS
        for entry in entries
        if (f"nb_hitl.{entry}" if entry else "nb_hitl") not in names
    ]
    assert not missing, f"LAYERS names modules that do not exist: {missing}"


def test_the_checks_catch_a_cycle_and_an_upward_import() -> None:
    graph = {
        "nb_hitl.message._msg": {"nb_hitl.agent._base"},  # upward, and closes a loop
        "nb_hitl.agent._base": {"nb_hitl.agent._react"},
        "nb_hitl.agent._react": {"nb_hitl.message._msg", "nb_hitl.model"},
        "nb_hitl.model": set(),
        "nb_hitl.token._counter": {"nb_hitl.token._counter"},  # imports itself
    }
    assert _cycles(graph) == [
        ["nb_hitl.agent._base", "nb_hitl.agent._react", "nb_hitl.message._msg"],
        ["nb_hitl.token._counter"],
    ]
    assert _upward(graph) == ["nb_hitl.message._msg (layer 2) -> nb_hitl.agent._base (layer 10)"]


def test_the_longest_layer_entry_wins() -> None:
    assert _layer_of("nb_hitl.compression._config") == _layer_of("nb_hitl.compression")
    assert _layer_of("nb_hitl.compression.replay._source") == _layer_of("nb_hitl.session") + 1  # type: ignore[operator]
    assert _layer_of("nb_hitl") == len(LAYERS) - 1
    assert _layer_of("nb_hitl.exceptions") == 0


def test_submodule_imports_resolve_to_the_submodule_not_the_package(tmp_path: Path) -> None:
    pkg = tmp_path / "nb_hitl"
    (pkg / "agent").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "agent" / "__init__.py").write_text("from ._base import Agent\n")
    (pkg / "agent" / "_live.py").write_text("")
    (pkg / "agent" / "_base.py").write_text(
        "from . import _live\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from nb_hitl.agent import Agent\n"
    )
    graph = _graph(pkg)
    assert graph["nb_hitl.agent._base"] == {"nb_hitl.agent._live", "nb_hitl.agent"}
    assert _cycles(graph) == [["nb_hitl.agent", "nb_hitl.agent._base"]]


ALARM_LINES = 800
"""Past this, ask whether two concepts hide in one module. A module is one concept, as long as
that concept needs: split where a reader would draw a seam, never to meet a line count (a class
smeared over files to stay short is harder to read than one long file)."""


def test_no_module_grows_past_the_two_concepts_alarm() -> None:
    long = {
        str(p.relative_to(ROOT.parent)): n
        for p in ROOT.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > ALARM_LINES
    }
    assert not long, f"does one of these hold two concepts? split it where they meet: {long}"


MAX_REACT_MRO = 5
"""``ReActAgent`` is the reply lifecycle (``AgentBase``) plus named parts it owns
(``agent.approvals``, ``agent.resumer``, ``agent.steering`` ...), not a stack of mixins.
A ratchet: it only goes down (today ReActAgent, ReActAgentBase, AgentBase, StateModule,
object)."""
MAX_MIXINS = 2
"""``class ...Mixin`` definitions in the package; a ratchet too (today the chat widget's two)."""


def test_react_agent_is_a_handful_of_classes() -> None:
    from nb_hitl.agent import ReActAgent

    names = [c.__name__ for c in ReActAgent.__mro__]
    assert len(names) <= MAX_REACT_MRO, f"compose a part instead of mixing in: {names}"


def test_mixins_are_few() -> None:
    mixins = sorted(
        f"{p.relative_to(ROOT.parent)}: {node.name}"
        for p in ROOT.rglob("*.py")
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.name.endswith("Mixin")
    )
    assert len(mixins) <= MAX_MIXINS, "compose a part instead:\n" + "\n".join(mixins)


MAX_PRIVATE_IMPORTS = 2
"""Imports of another package's private module (``nb_hitl.X._y`` from outside ``nb_hitl.X``),
a ratchet: a package exports what the others use under public names (``__all__``, or a name
its docstring gives nb_hitl's own packages). Today's two each say why in a comment: the demo
responder reads ``model._continuation`` (the package would close a loop through
``ScriptedModel.demo``) and ``%%ask`` finds an agent's newest chat in ``widgets._chat``."""


def _private_imports(root: Path = ROOT) -> list[tuple[str, int, int, str]]:
    """``(file, first line, last line, module)`` of each import of another top-level
    package's private module (a path part after the package starting with ``_``)."""
    paths = {_module_name(p, root): p for p in root.rglob("*.py")}
    found = []
    for name, path in sorted(paths.items()):
        top = name.split(".")[1] if "." in name else ""
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = parts[: len(parts) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                subs = [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in paths]
                targets = subs or [module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                parts = target.split(".")
                if parts[0] != "nb_hitl" or len(parts) < 3 or parts[1] == top:
                    continue
                if any(p.startswith("_") for p in parts[2:]):
                    rel = str(path.relative_to(root.parent))
                    found.append((rel, node.lineno, node.end_lineno or node.lineno, target))
    return found


def test_private_imports_across_packages_are_few_and_say_why() -> None:
    found = _private_imports()
    listing = "\n".join(f"{f}:{a}: {m}" for f, a, _b, m in found)
    assert len(found) <= MAX_PRIVATE_IMPORTS, "import a public name instead:\n" + listing
    silent = []
    for file, first, last, module in found:
        if file.startswith("nb_hitl/widgets/"):
            continue  # the widgets' own issue
        lines = (ROOT.parent / file).read_text(encoding="utf-8").splitlines()
        if not any("#" in line for line in lines[max(first - 4, 0) : last]):
            silent.append(f"{file}:{first}: {module}")
    assert not silent, "say why in a comment at (or just above) each:\n" + "\n".join(silent)


def test_message_layer_imports_nothing_above_it() -> None:
    allowed = ("nb_hitl.message", "nb_hitl._render", "nb_hitl.exceptions")
    for name, deps in _graph().items():
        if name.startswith("nb_hitl.message"):
            above = {d for d in deps if not d.startswith(allowed)}
            assert not above, f"{name} imports {sorted(above)}"


def test_render_package_imports_no_other_nb_hitl_module() -> None:
    rendering = {
        name: deps for name, deps in _graph().items() if name.startswith("nb_hitl._render")
    }
    assert len(rendering) > 1
    for name, deps in rendering.items():
        outside = {d for d in deps if not d.startswith("nb_hitl._render")}
        assert not outside, f"{name} imports {sorted(outside)}"


def _reaches(graph: Mapping[str, Iterable[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        current = todo.pop()
        if current == goal:
            return True
        if current not in seen:
            seen.add(current)
            todo.extend(graph.get(current, ()))
    return False


def test_no_import_cycle_between_scripted_model_and_demo() -> None:
    graph = _graph()
    assert _reaches(graph, "nb_hitl.model._scripted", "nb_hitl.demo.model._responder")
    assert _reaches(graph, "nb_hitl.demo", "nb_hitl.demo.model._responder")
    assert not _reaches(graph, "nb_hitl.model._scripted", "nb_hitl.demo")


def test_no_import_cycle_between_chat_and_input_widgets() -> None:
    graph = _graph()
    assert _reaches(graph, "nb_hitl.widgets._chat", "nb_hitl.widgets._input")
    assert not _reaches(graph, "nb_hitl.widgets._input", "nb_hitl.widgets._chat")
