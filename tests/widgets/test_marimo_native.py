"""marimo's native route headless: a panel that is one ``PanelModel`` goes to marimo through
``mo.ui.anywidget``, over marimo's own comm (``MarimoComm``: the ops reach the page as custom
messages, the page's actions come back and run on the kernel loop, whatever thread delivers
them); ``prepare_marimo``'s construction hook sends such panels to marimo and keeps a
placeholder for what a host draws. The browser half is ``tests/browser/test_native_in_marimo.py``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import anywidget
import ipywidgets as w
import marimo
import pytest
from comm import DummyComm
from marimo._plugins.ui._impl.anywidget.init import WIDGET_COMM_MANAGER, init_marimo_widget
from marimo._plugins.ui._impl.comm import MarimoComm
from marimo._runtime.commands import ModelCommand, ModelCustomMessage
from widget_helpers import until

import nb_hitl
from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import (
    AgentPanel,
    CompressionExplorer,
    MemoryInspector,
    marimo_panel,
)
from nb_hitl.widgets._keys import KeyBindings
from nb_hitl.widgets._loop import LoopBridge
from nb_hitl.widgets._marimo import native_view, prepare_marimo
from nb_hitl.widgets._model import PanelModel, inside_host

XSS = '<img src=x onerror="alert(1)">'


def friday(script: list[object] | None = None) -> ReActAgent:
    return ReActAgent("Friday", "You are a test agent.", ScriptedModel(script or ["Hi."]))


class Stream:
    """marimo's session stream as a test sees it: every notification the kernel writes."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.threads: set[str] = set()

    def write(self, data: bytes) -> None:
        self.threads.add(threading.current_thread().name)
        self.sent.append(json.loads(data))

    def custom(self, model_id: str) -> list[Any]:
        """The custom messages the page of ``model_id`` received, in order."""
        return [
            n["message"]["content"]
            for n in self.sent
            if n.get("op") == "model-lifecycle"
            and n.get("model_id") == model_id
            and n["message"].get("method") == "custom"
        ]


def on_marimo_comm(panel: PanelModel) -> Stream:
    """Open ``panel``'s comm as marimo's construction hook does, writing to a test stream."""
    init_marimo_widget(panel)
    assert isinstance(panel.comm, MarimoComm)
    stream = Stream()
    panel.comm._stream = stream  # type: ignore[assignment]  # the session it is bound to
    return stream


def page_sends(panel: PanelModel, content: Any, buffers: list[bytes] | None = None) -> None:
    """The page sends ``content`` to ``panel``, as marimo's kernel hands it a ``ModelCommand``."""
    WIDGET_COMM_MANAGER.receive_comm_message(
        ModelCommand(
            model_id=panel.model_id,  # type: ignore[arg-type]
            message=ModelCustomMessage(content=content),
            buffers=buffers or [],
        )
    )


class Echo(PanelModel):
    """A panel whose action ``say`` sets its ``text`` part (and records the thread)."""

    _esm = "export default { render() {} };"

    def __init__(self, agent: Any = None, **_kwargs: Any) -> None:
        super().__init__({"text": ""})
        self.agent = agent
        self.threads: list[int] = []
        self.on_action("say", self._say)

    def _say(self, text: str = "") -> None:
        self.threads.append(threading.get_ident())
        self.set_view(text=text)


async def test_a_panel_model_is_shown_through_mo_ui_anywidget() -> None:
    agent = friday()
    agent.memory.add_sync([nb_hitl.Msg("User", f"hi {XSS}", "user")])
    inspector = MemoryInspector(agent)
    view = marimo_panel(inspector)
    assert isinstance(view, marimo.ui.anywidget) and view.widget is inspector
    assert view.refresh == inspector.refresh  # attributes pass through to the panel
    kind, html = view._mime_()
    assert kind == "text/html" and "marimo-anywidget" in html and inspector.model_id in html
    assert XSS not in html  # the state travels on the comm, not in the cell's HTML
    with pytest.raises(TypeError, match="anywidgets only"):
        native_view(w.HTML("x"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="marimo_panel"):
        marimo_panel(3)


async def test_show_takes_the_native_route_for_a_panel_model_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import nb_hitl.widgets._panel as panel_module

    monkeypatch.setattr(marimo, "running_in_notebook", lambda: True)
    agent = friday()
    view = nb_hitl.show(agent, session=None)  # AgentPanel is one PanelModel: no host
    assert isinstance(view, marimo.ui.anywidget) and isinstance(view.widget, AgentPanel)
    assert view.widget.agent is agent and view.chat is view.widget.chat
    assert isinstance(marimo_panel(agent), marimo.ui.anywidget)
    monkeypatch.setattr(panel_module, "AgentPanel", Echo)  # any PanelModel class goes there
    view = nb_hitl.show(agent, session=None)
    assert isinstance(view, marimo.ui.anywidget) and isinstance(view.widget, Echo)
    assert view.widget.agent is agent


async def test_ops_reach_the_page_and_actions_come_back_over_marimos_comm() -> None:
    panel = Echo()
    stream = on_marimo_comm(panel)
    loop_thread = threading.get_ident()
    panel.set_view(text="first")
    assert stream.custom(panel.model_id) == [
        {"t": "ops", "seq": 1, "ops": [{"op": "set", "key": "text", "value": "first"}]}
    ]
    # A click: the page's action, handled on the loop, its redraw sent back in order.
    page_sends(panel, {"t": "action", "name": "say", "args": {"text": f"from the page {XSS}"}})
    await until(lambda: panel.state["text"].startswith("from the page"), what="the action")
    assert panel.threads == [loop_thread]
    # From another thread (marimo's kernel may hand messages over from one): still the loop.
    worker = threading.Thread(
        target=page_sends, args=(panel, {"t": "action", "name": "say", "args": {"text": "2"}})
    )
    worker.start()
    worker.join()
    await until(lambda: panel.state["text"] == "2", what="the action from another thread")
    assert panel.threads == [loop_thread, loop_thread]
    # Binary buffers with a message do not get in its way; a page that is behind gets a snapshot.
    page_sends(panel, {"t": "sync", "seq": 0}, buffers=[b"\x00\x01"])
    await until(lambda: stream.custom(panel.model_id)[-1].get("t") == "snapshot", what="sync")
    messages = stream.custom(panel.model_id)
    assert [m["seq"] for m in messages if m["t"] == "ops"] == [1, 2, 3]
    assert messages[-1]["snapshot"]["state"] == {"text": "2"}
    # Bad messages are ignored and the panel stays usable.
    for bad in (None, 3, "x", {"t": "action", "name": 5}, {"t": "action", "name": "say",
                "args": 7}):  # fmt: skip
        page_sends(panel, bad)
    page_sends(panel, {"t": "action", "name": "say", "args": {"text": "still"}})
    await until(lambda: panel.state["text"] == "still", what="usable after bad messages")


async def test_a_send_from_a_background_thread_reaches_the_session_of_the_panel() -> None:
    panel = Echo()
    stream = on_marimo_comm(panel)
    worker = threading.Thread(target=panel.set_view, kwargs={"text": "late"}, name="bg")
    worker.start()
    worker.join()
    assert stream.custom(panel.model_id)[-1]["ops"][0]["value"] == "late"
    assert "bg" in stream.threads


def test_marimo_keeps_custom_messages_apart() -> None:
    """marimo merges queued trait updates of a model (last write wins) but not custom
    messages: two actions sent together both arrive (what the route relies on)."""
    from marimo._runtime.utils.set_ui_element_request_manager import merge_batchable_commands

    first, second = (
        ModelCommand(model_id="m", message=ModelCustomMessage(content={"n": n}), buffers=[])  # type: ignore[arg-type]
        for n in (1, 2)
    )
    merged = merge_batchable_commands([first, second])
    assert [c.message.content for c in merged] == [{"n": 1}, {"n": 2}]  # type: ignore[union-attr]


class Hook:
    """A stand-in for marimo's construction hook (records; can fail like marimo 0.25 does
    for a widget made outside a cell's run)."""

    def __init__(self) -> None:
        self.seen: list[w.Widget] = []
        self.fail = False

    def __call__(self, widget: w.Widget) -> None:
        if self.fail and isinstance(widget, anywidget.AnyWidget):
            raise AssertionError  # marimo: the ES module's virtual file needs a running cell
        self.seen.append(widget)


@pytest.fixture
def hook() -> Any:
    before = w.Widget._widget_construction_callback
    marimo_hook = Hook()
    w.Widget.on_widget_constructed(marimo_hook)
    prepare_marimo()
    try:
        yield marimo_hook
    finally:
        w.Widget.on_widget_constructed(before)


async def test_panels_go_to_marimo_and_what_a_host_draws_gets_no_comm(hook: Hook) -> None:
    from nb_hitl.agent import CompressionConfig
    from nb_hitl.demo import long_task_transcript

    agent = ReActAgent("Friday", "You are a test agent.", ScriptedModel(),
                       compression_config=CompressionConfig(trigger_threshold=6000))  # fmt: skip
    agent.memory.add_sync(long_task_transcript()[:24])
    inspector = MemoryInspector(agent)
    label = w.HTML("x")
    keys = KeyBindings("nb-hitl-chat", [], LoopBridge())  # a chat's part, made on its own
    with inside_host():  # made for a host's embed
        hosted = MemoryInspector(agent)
    assert inspector in hook.seen and label in hook.seen
    assert keys not in hook.seen and hosted not in hook.seen
    assert isinstance(keys.comm, DummyComm) and hosted.comm is None
    hook.fail = True  # an explorer opened by a click, outside a cell's run
    explorer = inspector.open_explorer()
    assert isinstance(explorer, CompressionExplorer)
    assert explorer.comm is None and explorer not in hook.seen  # made inside_host(): none
    assert "explorer" in inspector.state  # drawn inside the inspector: it needs no comm


async def test_the_agent_panel_goes_to_marimo_and_its_parts_open_no_comm(hook: Hook) -> None:
    view = marimo_panel(friday(), session=None)
    panel = view.widget
    assert isinstance(panel, AgentPanel) and panel in hook.seen  # marimo opens its one comm
    for part in (panel.chat, panel.inspector, panel.permissions):
        assert part is not None and part not in hook.seen and part.comm is None
        assert part.carrier() is panel  # drawn by the panel's page
    await asyncio.sleep(0)


def chat_action(name: str, **args: Any) -> dict[str, Any]:
    """What the panel's page sends for a click on the chat's control ``name`` (the chat's
    part ``controls``, inside the panel's part ``chat``)."""
    controls = {"name": "controls", "args": {"name": name, "args": args}}
    return {"t": "action", "name": "chat", "args": controls}


def ops_html(messages: list[Any]) -> str:
    """The HTML and classes the ops of ``messages`` carry, those of parts' ``child`` ops too."""
    parts: list[str] = []

    def ops(batch: list[Any]) -> None:
        for op in batch:
            if op.get("op") == "child":
                ops(op.get("ops") or [])
                continue
            item = op.get("item") or {}
            for value in (item.get("html"), op.get("cls"), op.get("html"), op.get("value")):
                parts.append(value if isinstance(value, str) else json.dumps(value))

    for m in messages:
        if m.get("t") == "ops":
            ops(m["ops"])
    return "\n".join(parts)


async def test_the_first_view_gets_the_whole_panel_with_escaped_text() -> None:
    agent = friday(["Hello."])
    agent.memory.add_sync([nb_hitl.Msg("User", f"hi {XSS}", "user")])
    panel = AgentPanel(agent, session=None)
    kind, html = native_view(panel)._mime_()
    assert kind == "text/html" and panel.model_id in html and XSS not in html
    state = panel.snapshot["state"]  # what a new view starts from
    assert state["chat"]["controls"]["send"]["label"] == "Send"
    assert state["chat"]["keys"]["scope"] == "nb-hitl-chat"  # the keys: the chat's part
    assert XSS not in json.dumps(state) and "&lt;img src=x" in json.dumps(state["chat"])
    assert "&lt;img src=x" in json.dumps(state["inspector"])  # the memory table, escaped
    assert panel.inspector is not None and panel.inspector.comm is None


async def test_send_stream_stop_and_continue_from_the_page() -> None:
    agent = ReActAgent("Friday", "You are a test agent.", ScriptedModel(
        ["one two three four five six seven eight nine ten " * 8, "Done."],
        tokens_per_second=80))  # fmt: skip
    panel = AgentPanel(agent, session=None)
    stream = on_marimo_comm(panel)
    chat = panel.chat
    page_sends(panel, chat_action("type", text="Tell me a story."))
    await until(lambda: chat.input.value == "Tell me a story.", what="typed")
    assert "Tell me a story." not in ops_html(stream.custom(panel.model_id))  # no echo
    page_sends(panel, chat_action("send"))
    await until(lambda: agent.is_replying, what="streaming")
    await until(lambda: len(stream.custom(panel.model_id)) > 3, what="rows drawn")
    page_sends(panel, chat_action("stop"))
    await until(lambda: chat.state == "idle", what="stopped")
    assert agent.memory.messages[-1].metadata.get("_is_interrupted")
    messages = stream.custom(panel.model_id)
    seqs = [m["seq"] for m in messages if m["t"] == "ops"]
    assert seqs == sorted(set(seqs)) and seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert "nb-hitl-interrupted" in ops_html(messages)
    # Continue with an instruction typed in the page: the same answer goes on.
    page_sends(panel, chat_action("type", text="Go on, briefly."))
    await until(lambda: chat.input.value == "Go on, briefly.", what="typed")
    page_sends(panel, chat_action("continue"))
    await until(lambda: chat.state == "idle" and agent.memory.messages[-1].get_text_content()
                == "Done.", what="resumed")  # fmt: skip
    assert "Go on, briefly." in [m.get_text_content() for m in agent.memory.messages]
    # A view made now (a reload) starts from the final state.
    assert "Done." in json.dumps(panel.snapshot["state"]["chat"])


async def test_new_rows_go_as_ops_and_kept_rows_are_not_sent_again() -> None:
    agent = friday(["First answer.", "Second answer."])
    panel = AgentPanel(agent, session=None, inspector=False, permissions=False)
    stream = on_marimo_comm(panel)
    chat = panel.chat
    chat.send("one")
    await until(lambda: chat.state == "idle", what="reply")
    await until(lambda: "First answer." in ops_html(stream.custom(panel.model_id)),
                what="the first answer drawn")  # fmt: skip
    await asyncio.sleep(0.2)  # its last redraws flushed (not a timing assertion)
    stream.sent.clear()
    chat.send("two")
    await until(lambda: chat.state == "idle", what="reply")
    await until(lambda: "Second answer." in ops_html(stream.custom(panel.model_id)),
                what="the answer drawn")  # fmt: skip
    fresh = ops_html(stream.custom(panel.model_id))
    assert "two" in fresh, "the new rows were sent (the transcript's insert op)"
    assert ">one<" not in fresh  # kept rows are not sent again


async def test_bad_messages_from_the_page_are_ignored_and_the_panel_stays_usable() -> None:
    agent = friday(["Hi."])
    panel = AgentPanel(agent, session=None)
    on_marimo_comm(panel)
    inner = {"t": "action", "name": "chat"}
    for bad in (None, 3, {"t": "action", "name": "nope"}, {**inner, "args": 5},
                chat_action("type", text=12), chat_action("send", text=["x"]),
                chat_action("nope"), {**inner, "args": {"name": "controls", "args": 5}},
                {"t": "action", "name": "session", "args": {"name": "load"}}):  # fmt: skip
        page_sends(panel, bad)
    page_sends(panel, chat_action("type", text="still works"))
    await until(lambda: panel.chat.input.value == "still works", what="typed")
    page_sends(panel, chat_action("send"))
    await until(lambda: agent.memory.messages and agent.memory.messages[-1].get_text_content()
                == "Hi.", what="reply")  # fmt: skip


async def test_show_gives_the_hub_panel_natively(monkeypatch: pytest.MonkeyPatch) -> None:
    from nb_hitl.message import Msg
    from nb_hitl.pipeline import MsgHub
    from nb_hitl.widgets import HubPanel

    monkeypatch.setattr(marimo, "running_in_notebook", lambda: True)
    bob = ReActAgent("Bob", "You are Bob.", ScriptedModel(["Spaces."]))
    hub = MsgHub([friday(["Tabs."]), bob], announcement=Msg("Host", f"Tabs? {XSS}", "user"))
    view = nb_hitl.show(hub)
    assert isinstance(view, marimo.ui.anywidget) and isinstance(view.widget, HubPanel)
    assert view.widget.hub is hub
    assert XSS not in view.widget.drawn_html()
