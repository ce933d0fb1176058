"""The chat's controls as one front-end part (``ChatControls``), headless: the page's actions
(from any thread) drive the same chat a click did, the stand-ins (``chat.input``,
``chat.send_button``...) read and write the model's state, bad messages lose nothing, and
every string a model or user produced reaches the page escaped or as text."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import traitlets
from widget_helpers import record_part, until

from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._controls import BUTTON_KEYS, CLASSES, ChatControls

XSS = '<img src=x onerror="alert(1)">'
LONG = " ".join(f"word{i}" for i in range(3000))


def agent(script: list[object], name: str = "Friday", tps: float = 3000.0) -> ReActAgent:
    return ReActAgent(name, "You are a test agent.", ScriptedModel(script, tokens_per_second=tps))


def record(controls: ChatControls) -> list[dict[str, Any]]:
    """What the controls send their page from now on (the custom messages, in order): the
    chat's batches, with only the controls' ops (they are drawn inside the chat)."""
    return record_part(controls)


async def test_the_state_has_every_control_the_front_end_draws() -> None:
    chat = ChatWidget(agent(["ok"]))
    state = chat.controls.state
    for key in BUTTON_KEYS:
        assert set(state[key]) == {"label", "icon", "style", "tooltip", "disabled", "hidden"}
        assert key in CLASSES
    assert state["send"]["label"] == "Send" and state["send"]["style"] == "primary"
    assert state["stop"]["disabled"] and state["continue"]["disabled"]
    assert state["retry"]["hidden"] and not state["clear"]["hidden"]
    assert "Ctrl+Enter" in state["send"]["tooltip"]
    assert state["input"] == {"placeholder": "Message Friday…", "disabled": False}
    assert state["mode"]["value"] == "interrupt" and state["mode"]["label"] == "While running:"
    assert [o[0] for o in state["mode"]["options"]] == ["steer", "interrupt", "queue"]
    assert 'role="status"' in state["status"] and 'data-state="idle"' in state["status"]
    assert chat.view_state["controls"] == state  # drawn by the chat's one model
    assert chat.controls.comm is None  # no comm of its own
    for name in ("input", "send_button", "stop_button", "continue_button", "mode_picker"):
        assert not hasattr(getattr(chat, name), "model_id"), f"{name} is no widget of its own"


async def test_the_first_view_starts_from_the_whole_state_with_no_op_sent_before() -> None:
    chat = ChatWidget(agent(["ok"]))
    trait = chat.controls.get_state()["snapshot"]  # what a page's model is made with
    assert trait["seq"] == chat.controls.seq and trait["state"] == chat.controls.state
    assert "Ctrl+Enter" in trait["state"]["send"]["tooltip"]
    assert chat.controls.sent == 0  # no op batch went out before a view could take it


async def test_send_stop_and_continue_from_page_actions() -> None:
    friday = agent([LONG, "Resumed."], tps=300)
    chat = ChatWidget(friday)
    controls = chat.controls
    controls.press("type", text="tell me a long story")
    assert chat.input.value == "tell me a long story"
    controls.press("send", text="tell me a long story")
    await until(lambda: chat.state == "running" and friday.is_replying, what="reply")
    assert chat.input.value == "" and controls.state["input_value"]["text"] == ""
    assert not controls.state["stop"]["disabled"] and controls.state["continue"]["disabled"]
    await until(lambda: bool(chat.live.views), what="streaming")
    controls.press("stop", text="")
    await until(lambda: chat.state == "idle", what="stopped")
    assert friday.memory.messages[-1].is_interrupted
    assert not controls.state["continue"]["disabled"]
    controls.press("continue", text="Go on, briefly.")
    await until(  # the same answer goes on from where it stopped
        lambda: (
            chat.state == "idle"
            and (friday.memory.messages[-1].get_text_content() or "").endswith("Resumed.")
        ),
        what="resumed",
    )
    assert "Go on, briefly." in [m.get_text_content() for m in friday.memory.messages]


async def test_an_action_delivered_on_another_thread_runs_on_the_chat_loop() -> None:
    chat = ChatWidget(agent(["Hello back."]))
    clicked: list[int] = []
    chat.send_button.on_click(lambda _b: clicked.append(threading.get_ident()))
    content = {"t": "action", "name": "send", "args": {"text": "hi from a subshell"}}
    thread = threading.Thread(target=chat.controls.page_message, args=(content,))
    thread.start()
    thread.join()
    await until(lambda: chat.state == "idle" and len(chat.agent.memory) == 2, what="reply")
    assert clicked == [threading.get_ident()]
    assert chat.agent.memory.messages[0].get_text_content() == "hi from a subshell"


async def test_the_kernel_writes_the_box_only_by_counted_writes() -> None:
    chat = ChatWidget(agent(["ok"]))
    controls = chat.controls
    before = controls.state["input_value"]["n"]
    controls.press("type", text="a draft")  # what the page shows: not sent back
    assert controls.state["input_value"] == {"text": "a draft", "n": before}
    chat.input.value = "from code"
    assert controls.state["input_value"] == {"text": "from code", "n": before + 1}
    chat.input.value = "from code"  # the same text again still reaches the page
    assert controls.state["input_value"]["n"] == before + 2
    seen: list[str] = []
    chat.input.observe(lambda change: seen.append(change["new"]), "value")
    controls.press("type", text="typed")
    assert seen == ["typed"]


async def test_the_mode_picker_and_export_format_follow_the_page() -> None:
    chat = ChatWidget(agent(["ok"]))
    chat.controls.press("mode", value="steer")
    assert chat.send_mode == "steer" and chat.controls.state["mode"]["value"] == "steer"
    chat.controls.press("export_format", value="html")
    assert chat.tools.export_format.value == "html"
    with pytest.raises(traitlets.TraitError, match="not among"):
        chat.mode_picker.value = "shout"
    with pytest.raises(ValueError, match="send_mode must be"):
        chat.send_mode = "shout"  # type: ignore[assignment]
    assert chat.send_mode == "steer"


async def test_bad_messages_from_the_page_lose_nothing() -> None:
    chat = ChatWidget(agent(["Still here."]))
    controls = chat.controls
    chat.input.value = "keep me"
    sent = record(controls)
    for bad in (
        None,
        7,
        {"t": "action"},
        {"t": "action", "name": 5},
        {"t": "action", "name": "nope", "args": {}},
        {"t": "action", "name": "type", "args": {"text": 12}},
        {"t": "action", "name": "type", "args": {"text": "x", "extra": 1}},
        {"t": "action", "name": "mode", "args": {"value": "shout"}},
        {"t": "action", "name": "export_format", "args": ["html"]},
    ):
        controls.page_message(bad)
    assert chat.input.value == "x" and chat.send_mode == "interrupt"
    assert chat.tools.export_format.value == "markdown"
    redrawn = [op for m in sent for op in m.get("ops", []) if op["key"] == "mode"]
    assert [op["value"]["value"] for op in redrawn] == ["interrupt"]  # the refused pick undone
    controls.press("send", text="hello")
    await until(lambda: chat.state == "idle" and len(chat.agent.memory) == 2, what="reply")


async def test_stand_ins_change_only_their_part_and_batches_send_once() -> None:
    chat = ChatWidget(agent(["ok"]))
    controls = chat.controls
    sent = record(controls)
    chat.stop_button.description = "Stopping…"
    assert [[op["key"] for op in m["ops"]] for m in sent] == [["stop"]]
    assert sent[0]["ops"][0]["value"]["label"] == "Stopping…"
    chat.stop_button.description = "Stopping…"  # no change: nothing sent
    assert len(sent) == 1
    with controls.batch():
        chat.send_button.disabled = True
        chat.continue_button.tooltip = "later"
        chat.tools.retry_button.layout.display = ""
    assert len(sent) == 2 and sent[1]["seq"] == sent[0]["seq"] + 1
    assert sorted(op["key"] for op in sent[1]["ops"]) == ["continue", "retry", "send"]
    assert chat.tools.retry_button.layout.display == "" and not chat.tools.retry_button.hidden
    chat.tools.retry_button.layout.display = "none"
    assert controls.state["retry"]["hidden"]


async def test_hostile_names_and_notes_reach_the_page_escaped_or_as_text() -> None:
    chat = ChatWidget(agent([RuntimeError(XSS)], name=XSS))
    chat.send(XSS)
    await until(lambda: chat.state == "error", what="the error")
    html = chat.controls.drawn_html()
    assert XSS not in html and "&lt;img" in html
    # The placeholder and labels are set as text and attributes by the page (not HTML).
    assert chat.controls.state["input"]["placeholder"] == f"Message {XSS}…"
    assert XSS not in chat.controls.drawn_html()


def test_embedded_controls_open_no_comm_and_act_through_their_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import comm as comm_pkg

    from nb_hitl.widgets._model import PanelModel

    opened: list[str] = []
    real = comm_pkg.create_comm

    def create_comm(*args: Any, **kwargs: Any) -> Any:
        made = real(*args, **kwargs)
        opened.append(made.comm_id)
        return made

    monkeypatch.setattr(comm_pkg, "create_comm", create_comm)
    host = PanelModel({})
    before = len(opened)
    controls = ChatControls(
        host.bridge, placeholder="Message Friday…", send_mode="queue",
        modes=[("Queue", "queue")], hints=["answered after"], embedded=True,
    )  # fmt: skip
    assert len(opened) == before, "an embedded part opens no comm of its own (nor a layout's)"
    sent: list[dict[str, Any]] = []
    host.page_send = sent.append  # type: ignore[method-assign]
    host.embed(controls, "controls")
    pressed: list[str] = []
    controls.send_button.on_click(lambda _b: pressed.append(controls.input.value))
    controls.send_button.tooltip = "Send it"  # before ready(): nothing sent yet
    controls.ready()
    assert host.state["controls"]["send"]["tooltip"] == "Send it"
    assert host.state["controls"]["mode"]["value"] == "queue"
    controls.stop_button.disabled = False  # a change: the controls' own op, in a child op
    op = sent[-1]["ops"][-1]
    assert op["op"] == "child" and op["key"] == "controls"
    assert [(o["op"], o["key"]) for o in op["ops"]] == [("set", "stop")]
    assert host.state["controls"]["stop"]["disabled"] is False
    host.page_message(
        {"t": "action", "name": "controls", "args": {"name": "send", "args": {"text": "hi"}}}
    )
    assert pressed == ["hi"]
    assert "Send it" not in host.drawn_html()  # a `controls` part is text, not HTML
