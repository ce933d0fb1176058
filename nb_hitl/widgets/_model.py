"""PanelModel: one panel, one anywidget model: a snapshot, sequenced ops, actions from the page.

A panel's front end is one ES module (``js/src/<panel>.js``, bundled into ``static/``) that
draws the panel's whole view state. The kernel owns that state and sends it two ways:

- the ``snapshot`` trait, ``{v, seq, state}``: what a new view starts from (a second
  ``display``, a reloaded page, a saved notebook). The kernel keeps it current without
  sending it (``_keep_snapshot``: the trait's observers run, ipywidgets' send does not); the
  page stores the same value in its model. The snapshot shares the state's parts: an op
  never changes a part in place, it replaces it (``apply_op``), so no part is copied;
- custom messages (``widget.send``): ``{t: "ops", seq, ops: [...]}``, a batch of deltas with
  a sequence number, and ``{t: "snapshot", snapshot}``, the answer to the page's
  ``{t: "sync", seq}`` when the page is behind (it asks when a view starts and after a gap).

The ops (``apply_op``; ``js/src/shared/ops.js`` is the same reducer in JavaScript) work on the
top-level keys of the state: ``set``, ``merge``, and ``append`` / ``insert`` / ``replace`` /
``remove`` on a list of ``{id, ...}`` items. ``set_view(**parts)`` sends a ``set`` op for each
part whose value changed, all in one batch. ``embed(child, key)`` draws another panel inside
this one: the child's state is this panel's part ``key``, each of its batches becomes one op
of a batch here, ``{op: "child", key, ops: [...]}`` (the child's own ops, applied to that part
with the child's own extra ops: a streaming row's delta stays a delta, however deep the
nesting), and the page's ``{t: "action", name: key, args: {name, args}}`` reaches the child.
A child made inside ``with inside_host():`` opens no comm of its own (nor a ``Layout``): it
is drawn only by its host's page; displaying it on its own later opens its comm then.

Batches and snapshots go out through the loop's kernel-wide budget (``_budget.IopubBudget``:
one token bucket of comm messages a second for every panel): while a panel's batch waits its
turn, the panel's newer ops join it (same ``seq``), and a page action's reaction goes out at
once (``urgent``).

The page sends actions, ``{t: "action", name, args}`` (a click, a key, a slider move). They
may arrive on any thread (JupyterLab's comms over subshells), so each runs on the kernel loop
the panel was made on (``LoopBridge.call``); a handler that returns a coroutine runs as a task
of that bridge. ``page_message(content)`` hands the model a message exactly as the page's
comm delivers it: headless tests drive a panel through it, the same path a click takes.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import logging
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets
import traitlets

from ._budget import iopub_budget
from ._in_marimo import in_marimo, prepare_marimo
from ._loop import LoopBridge
from ._modules import module_url, set_module_base

logger = logging.getLogger("nb_hitl.widgets")

PROTOCOL = 1
"""The version of the snapshot (``v``)."""
STATIC = Path(__file__).parent / "static"
"""The bundled front ends (built from ``js/src`` by ``npm run build``; committed)."""

Action = Callable[..., Any]
_INSIDE: ContextVar[bool] = ContextVar("nb_hitl_inside_host", default=False)


@contextlib.contextmanager
def inside_host() -> Iterator[None]:
    """Panels made in this block open no comm: each is meant for a host's ``embed``."""
    token = _INSIDE.set(True)
    try:
        yield
    finally:
        _INSIDE.reset(token)


def static_file(name: str) -> Path:
    """The path of a bundled front-end file (``inspector.js``), for ``_esm`` / ``_css``."""
    return STATIC / name


def page_css(css: bool) -> str:
    """The stylesheet of the kernel-rendered parts (``nb_hitl._render``) for a panel shown on
    its own, as text for a ``<style>`` (``""`` when ``css`` is false: its host includes it)."""
    if not css:
        return ""
    from nb_hitl._render import CSS

    return CSS.replace("<style>", "").replace("</style>", "").strip()


def apply_op(
    state: dict[str, Any], op: Mapping[str, Any], children: Mapping[str, PanelModel] | None = None
) -> None:
    """Apply one op to ``state`` in place, as ``js/src/shared/ops.js``'s ``applyOp`` does.

    A ``child`` op's ops go to the part ``key`` (a new dict), each applied by the panel
    ``children[key]`` (its own extra ops), or as shared ops when there is none."""
    kind = op.get("op")
    key = op.get("key")
    if not isinstance(key, str):
        return
    if kind == "child":
        inner = op.get("ops")
        if not isinstance(inner, list):
            return
        part = state.get(key)
        part = dict(part) if isinstance(part, Mapping) else {}
        child = (children or {}).get(key)
        for each in inner:
            if not isinstance(each, Mapping):
                continue
            if child is not None:
                child._apply_to(part, each)
            else:
                apply_op(part, each)
        state[key] = part
        return
    items = state.get(key)
    items = list(items) if isinstance(items, list) else []
    if kind == "set":
        state[key] = op.get("value")
    elif kind == "merge":
        merged = dict(state.get(key) or {})
        merged.update(op.get("value") or {})
        state[key] = merged
    elif kind == "append":
        state[key] = items + list(op.get("items") or [])
    elif kind == "insert":
        item = op.get("item")
        item_id = item.get("id") if isinstance(item, Mapping) else None
        items = [x for x in items if not (isinstance(x, Mapping) and x.get("id") == item_id)]
        at = _index(items, op.get("before")) if op.get("before") is not None else -1
        items.insert(at if at >= 0 else len(items), item)
        state[key] = items
    elif kind == "replace":
        item = op.get("item")
        at = _index(items, item.get("id") if isinstance(item, Mapping) else None)
        if at < 0:
            items.append(item)
        else:
            items[at] = item
        state[key] = items
    elif kind == "remove":
        at = _index(items, op.get("id"))
        if at >= 0:
            del items[at]
            state[key] = items


def _index(items: list[Any], item_id: Any) -> int:
    for i, item in enumerate(items):
        if isinstance(item, Mapping) and item.get("id") == item_id:
            return i
    return -1


def _prepare_host() -> None:
    """In marimo, its construction hook wrapped before the first panel is made (a child made
    later by a click, outside a cell's run, must not reach marimo's: ``_in_marimo.py``)."""
    if in_marimo():
        prepare_marimo()


class PanelModel(anywidget.AnyWidget):
    """A panel's one model: its view state, sent as sequenced ops; actions from its page.

    Subclasses set ``_esm`` / ``_css`` to their bundles (``static_file("inspector.js")``) and
    register what the page may ask for with ``on_action``.

    Args:
        state: the view state the panel starts with (JSON-able; no secrets: it is saved in the
            notebook).
        bridge: the kernel loop actions run on (by default the loop running now).
        **kwargs: passed to ``anywidget.AnyWidget`` (``layout``...).
    """

    _nb_hitl_panel = True
    """One model draws the whole panel: marimo may show it natively (``_in_marimo.py``)."""

    _esm: Any  # a subclass's bundle (a Path), or a URL for one panel (``__init__``)
    _module_file: Path | None = None
    """The bundle of ``_esm`` (anywidget turns the class's ``_esm`` into its contents)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        esm = cls.__dict__.get("_esm")
        if isinstance(esm, Path):
            cls._module_file = esm
        super().__init_subclass__(**kwargs)

    snapshot = traitlets.Dict().tag(sync=True)
    """The state a new view starts from: ``{v, seq, state}`` (see module doc)."""

    def __init__(
        self,
        state: Mapping[str, Any] | None = None,
        *,
        bridge: LoopBridge | None = None,
        **kwargs: Any,
    ) -> None:
        self.seq = 0
        self._state: dict[str, Any] = copy.deepcopy(dict(state or {}))
        self.bridge = bridge if bridge is not None else LoopBridge()
        self._actions: dict[str, Action] = {}
        self._host: tuple[PanelModel, str] | None = None
        self._embedded: dict[str, PanelModel] = {}
        """The panels drawn inside this one, by their part (``embed``)."""
        self.sent = 0
        """Op batches and snapshots sent (benches and tests)."""
        self._commless = _INSIDE.get()
        _prepare_host()
        url = None if self._module_file is None else module_url(self._module_file)
        if url is not None:  # the page imports it by URL, once for every panel of this kind
            self._esm = url
        super().__init__(snapshot=self._snapshot(), **kwargs)
        self.on_msg(self._on_msg)

    def open(self) -> None:
        """Open the comm, unless this panel was made to be drawn inside a host only."""
        if not getattr(self, "_commless", False):
            super().open()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        if self.comm is None:  # a panel drawn inside a host, now displayed on its own too
            self._commless = False
            self._keep_snapshot()  # its view starts from the state now
            self.open()
        return super()._repr_mimebundle_(**kwargs)

    # -- the state ---------------------------------------------------------------------------
    @property
    def state(self) -> dict[str, Any]:
        """A copy of the view state, as the page holds it after the last batch."""
        return copy.deepcopy(self._state)

    @property
    def view_state(self) -> dict[str, Any]:
        """The view state (``state``), under a name a panel's own ``state`` cannot shadow (a
        chat's ``state`` is its reply's: ``"idle"``, ``"running"``...)."""
        return copy.deepcopy(self._state)

    def carrier(self) -> PanelModel:
        """The panel whose comm draws this one: itself, or (drawn inside a host with no comm
        of its own) the host that carries its batches, however deep the nesting."""
        panel: PanelModel = self
        while panel._host is not None and (panel.comm is None or panel._commless):
            panel = panel._host[0]
        return panel

    def drawn_html(self) -> str:
        """Every part of the state the page inserts as HTML, joined (tests, exports).

        Those are the string parts (the kernel rendered and escaped them), in parts drawn
        inside this panel and in lists of items (``[{id, html}]``) too; not ``css`` (the
        package's stylesheet), ``controls`` (values the page sets as text and attributes)
        nor an item's ``id``.
        """

        def walk(part: Any) -> list[str]:
            if isinstance(part, str):
                return [part]
            if isinstance(part, dict):
                return [
                    html
                    for key, value in part.items()
                    if key not in ("css", "controls", "id")
                    for html in walk(value)
                ]
            if isinstance(part, list):
                return [html for item in part if isinstance(item, dict) for html in walk(item)]
            return []

        return "\n".join(walk(self._state))

    def _snapshot(self) -> dict[str, Any]:
        # The parts are shared, not copied: ops replace parts, never change them in place.
        return {"v": PROTOCOL, "seq": self.seq, "state": dict(self._state)}

    def set_view(self, **parts: Any) -> list[dict[str, Any]]:
        """Set top-level parts of the state; one batch of ``set`` ops for those that changed
        (nothing is sent when none did). Returns the ops."""
        return self.apply_ops(self.set_ops(**parts))

    def set_ops(self, **parts: Any) -> list[dict[str, Any]]:
        """The ``set`` ops ``set_view(**parts)`` would send (the parts that changed), not
        applied: a panel adds ops of other kinds and sends them all as one batch."""
        state = self._state
        return [
            {"op": "set", "key": key, "value": value}
            for key, value in parts.items()
            if key not in state or state[key] != value
        ]

    def apply_ops(self, ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Apply ``ops`` here and send them to the page as one batch (none: nothing sent).

        The ops are copied first (the caller may keep changing what it passed), unless the
        panel's ``_fresh_ops`` says its callers build every op afresh."""
        if not ops:
            return ops
        if not self._fresh_ops:
            ops = copy.deepcopy(ops)
        return self._apply_batch(ops)

    _fresh_ops = False
    """True: every op given to ``apply_ops`` is new and never changed after (no copy)."""

    def _apply_batch(self, ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Apply ``ops`` (owned: not copied), keep the snapshot, send or forward the batch."""
        for op in ops:
            self._apply_op(op)
        paged = self._host is None or (self.comm is not None and not self._commless)
        # While this panel's last batch waits for the kernel-wide budget, these ops join it.
        joined = paged and self.comm is not None and self._iopub.join(self, ops)
        if not joined:
            self.seq += 1
        self._keep_snapshot()
        if self._host is not None:  # drawn inside its host: the host's page gets the batch
            host, key = self._host
            host._apply_batch([{"op": "child", "key": key, "ops": ops}])
        if paged and not joined:
            self._send_msg({"t": "ops", "seq": self.seq, "ops": ops})
        return ops

    def _keep_snapshot(self) -> None:
        """The ``snapshot`` trait takes the state after a batch (kept, not sent; a panel with
        no comm, drawn by its host only, takes it when it is displayed on its own)."""
        if self.comm is None and self._commless:
            return
        self._set_unsent(self._snapshot())

    _keeping = False

    def _set_unsent(self, snapshot: dict[str, Any]) -> None:
        """Set the ``snapshot`` trait without sending it (the page follows by ops).

        Not ipywidgets' ``_lock_property``: it decides not to send by a JSON round trip of
        the value, the whole state, which on a long transcript or memory cost milliseconds a
        batch (most of a Stop click's time, and of an inspector slider move's)."""
        self._keeping = True
        try:
            self.snapshot = snapshot
        finally:
            self._keeping = False

    def notify_change(self, change: Any) -> None:
        """ipywidgets sends a changed trait here; a kept snapshot only runs its observers."""
        if self._keeping and change.get("name") == "snapshot":
            super(ipywidgets.Widget, self).notify_change(change)  # skips Widget's send
            return
        super().notify_change(change)

    def _apply_op(self, op: dict[str, Any]) -> None:
        """Apply one op to the state (``_apply_to``)."""
        self._apply_to(self._state, op)

    def _apply_to(self, state: dict[str, Any], op: Mapping[str, Any]) -> None:
        """Apply one op to ``state``, this panel's state or its host's copy of it (``apply_op``,
        the embedded panels' ops by them); a panel with ops of its own (its front end's
        ``extraOps``) overrides this and hands the rest on."""
        apply_op(state, op, self._embedded)

    def _quietly(self, key: str, value: Any) -> None:
        """Record part ``key`` as the page already shows it (what a person typed): nothing is
        sent; a host's copy of this panel's state takes it too (a later view starts from it)."""
        self._state[key] = value
        if self._host is not None:
            host, part = self._host
            inner = host._state.get(part)
            host._quietly(part, {**(inner if isinstance(inner, Mapping) else {}), key: value})

    def embed(self, child: PanelModel, key: str, **also: Any) -> None:
        """Draw ``child`` inside this panel as its part ``key`` (see module doc); a panel drawn
        there before is drawn no more (its changes stay its own). ``also``: other parts set in
        the same batch (the page sees both at once)."""
        old = self._embedded.get(key)
        if old is not None and old is not child and old._host == (self, key):
            old._host = None
        child._host = (self, key)
        self._embedded[key] = child
        self.set_view(**{key: child.view_state}, **also)
        self.on_action(key, lambda name="", args=None: child._run_action(name, args or {}))

    @property
    def _iopub(self) -> Any:
        """The kernel-wide budget every panel on this loop sends through (``_budget.py``)."""
        return iopub_budget(self.bridge.loop)

    def _send_msg(self, content: dict[str, Any]) -> None:
        self.sent += 1
        if self.comm is not None:
            self._iopub.send(self, content)

    def page_send(self, content: dict[str, Any]) -> None:
        """Send ``content`` to the page now, as ipywidgets' ``Widget.send`` (the budget's way
        out; a panel's own ``send`` may mean something else: a chat's sends a message)."""
        ipywidgets.Widget.send(self, content)

    # -- what the page sends -----------------------------------------------------------------
    def on_action(self, name: str, handler: Action) -> None:
        """Run ``handler(**args)`` on the kernel loop when the page sends action ``name``."""
        self._actions[name] = handler

    def page_message(self, content: Any) -> None:
        """Handle ``content`` exactly as a message from the page's comm (any thread)."""
        self._handle_msg(
            {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
        )

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("t") == "sync":
            self.bridge.call(self._sync, content.get("seq"))
        elif content.get("t") == "modules":  # the server serves the bundles (``_modules.py``)
            set_module_base(content.get("base"))
        elif content.get("t") == "action":
            args = content.get("args")
            self.bridge.call(
                self._run_action, content.get("name"), args if isinstance(args, dict) else {}
            )

    def _sync(self, seq: Any) -> None:
        if seq != self.seq:
            self._send_msg({"t": "snapshot", "snapshot": self._snapshot()})

    def _run_action(self, name: Any, args: dict[str, Any]) -> None:
        handler = self._actions.get(name) if isinstance(name, str) else None
        if handler is None:
            logger.warning("nb_hitl panel %s: unknown action %r", type(self).__name__, name)
            return
        # The reaction to a click never waits its turn (on the comm that carries it).
        with self._iopub.urgent(self.carrier()):
            result = handler(**args)
        if inspect.iscoroutine(result):
            self.bridge.spawn(result, name=f"nb_hitl {type(self).__name__} {name}")


__all__ = [
    "PROTOCOL",
    "STATIC",
    "PanelModel",
    "apply_op",
    "inside_host",
    "page_css",
    "static_file",
]
