"""HubPanel headless, with real scripted agents: colours, the speaking indicator, Stop during
the second speaker's turn, the pause prompt and each resume choice, a UserAgent fed by the
panel, inspector switching, escaping, and bad input."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_panel import no_live_markup
from widget_helpers import all_html, all_state, until

import nb_hitl
from nb_hitl._render import CSS
from nb_hitl.agent import ReActAgent, ScriptedInput, UserAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.pipeline import FanoutPipeline, MsgHub, SequentialPipeline
from nb_hitl.testing import assert_history_valid
from nb_hitl.tool import Toolkit
from nb_hitl.widgets import AgentPanel, HubPanel
from nb_hitl.widgets.hub._style import DARK_PALETTE, PALETTE

LONG = " ".join(f"word{i}" for i in range(400))
XSS = '<img src=x onerror="alert(1)">'


def speaker(name: str, script: list[Any], tps: float = 1e6, **kw: Any) -> ReActAgent:
    return ReActAgent(name, f"You are {name}.", ScriptedModel(script, tokens_per_second=tps), **kw)


def debate(bob_script: list[Any] | None = None) -> tuple[ReActAgent, ReActAgent, ReActAgent]:
    """Alice answers at once, Bob streams slowly (time to press Stop), Carol answers at once."""
    return (
        speaker("Alice", ["Tabs are honest."]),
        speaker("Bob", bob_script or [LONG, "Spaces, briefly."], tps=40),
        speaker("Carol", ["I side with whoever spoke last."]),
    )


def rows_of(panel: HubPanel, name: str) -> list[Any]:
    return [e for e in panel.transcript.entries if e.msg is not None and e.msg.name == name]


async def stop_bob(panel: HubPanel) -> None:
    """Wait until Bob's reply is on screen and streaming, then press Stop."""
    await until(lambda: bool(rows_of(panel, "Bob")), what="Bob streaming")
    assert panel.speaking == ["Bob"]
    panel.stop_button.click()
    await until(lambda: panel.paused, what="the pause prompt")


def _luminance(colour: str) -> float:
    def chan(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * chan(r) + 0.7152 * chan(g) + 0.0722 * chan(b)


def test_palette_colours_are_distinct_and_readable_on_white() -> None:
    assert len(set(PALETTE)) == len(PALETTE) >= 6
    for colour in PALETTE:
        contrast = 1.05 / (_luminance(colour) + 0.05)
        assert contrast >= 4.5, (colour, contrast)
    # none is the interrupted orange or the error red of the chat's stylesheet
    assert not {"#e67e22", "#d0021b"} & {c.lower() for c in PALETTE}
    # JupyterLab's dark themes get lighter ones, readable on their #111111
    assert len(set(DARK_PALETTE)) == len(DARK_PALETTE) == len(PALETTE)
    for colour in DARK_PALETTE:
        contrast = (_luminance(colour) + 0.05) / (_luminance("#111111") + 0.05)
        assert contrast >= 4.5, (colour, contrast)
        assert colour in CSS.split('body[data-jp-theme-light="false"]', 1)[1]


async def test_show_hub_gives_a_hub_panel_with_a_colour_per_participant() -> None:
    alice, bob, carol = debate(["Spaces."])
    hub = MsgHub([alice, bob, carol], announcement=Msg("Host", "Tabs or spaces?", "user"))
    panel = nb_hitl.show(hub)
    assert isinstance(panel, HubPanel)
    assert isinstance(nb_hitl.show(alice), AgentPanel)  # one agent still gets the chat
    colours = [panel.colour_of(n) for n in ("Alice", "Bob", "Carol")]
    assert len(set(colours)) == 3 and all(c in PALETTE for c in colours)
    assert panel.colour_of("Host") is None  # not a participant: the chat's own style
    html = all_html(panel)
    for name, colour in zip(("Alice", "Bob", "Carol"), colours, strict=True):
        cls = panel.speaker_class(name)
        assert f'class="nb-hitl-chip {cls}"' in html and colour in CSS  # its stylesheet's

    await panel.run(msg="Go.")
    assert panel.outcome == "finished"
    for name in ("Alice", "Bob", "Carol"):
        (row,) = rows_of(panel, name)
        assert panel.speaker_class(name) in row.drawn._dom_classes
    # colours stay with their participant when another joins
    dave = speaker("Dave", ["Dave here."])
    hub.add(dave)
    await panel.run([dave])
    assert [panel.colour_of(n) for n in ("Alice", "Bob", "Carol")] == colours
    assert panel.colour_of("Dave") not in colours
    assert [t.get_text_content() for t in (e.msg for e in rows_of(panel, "Dave"))] == ["Dave here."]
    panel.close()


async def test_the_speaking_indicator_follows_the_speaker() -> None:
    alice, bob, carol = debate()
    panel = HubPanel(MsgHub([alice, bob, carol]))
    assert "Idle" in panel.speakers.value and panel.stop_button.disabled
    panel.start(msg="Go.")
    await until(lambda: bool(rows_of(panel, "Bob")), what="Bob streaming")
    assert panel.speaking == ["Bob"]
    assert "Bob is speaking" in panel.speakers.value
    cls = panel.speaker_class("Bob")
    assert f'class="nb-hitl-chip {cls} nb-hitl-speaking"' in panel.speakers.value
    assert f'class="nb-hitl-chip {panel.speaker_class("Alice")}"' in panel.speakers.value
    assert not panel.stop_button.disabled
    panel.stop()
    await until(lambda: panel.paused)
    panel.resume("retry")
    await panel.wait()
    assert panel.speaking == [] and "Finished." in panel.speakers.value
    assert panel.stop_button.disabled
    panel.close()


async def test_a_streamed_row_is_the_chats_live_op_and_stop_restyles_it_first() -> None:
    alice, bob, carol = debate()
    panel = HubPanel(MsgHub([alice, bob, carol]))
    sent: list[dict[str, Any]] = []
    send = panel.transcript.send

    def record(ops: list[dict[str, Any]]) -> Any:
        sent.extend(ops)
        return send(ops)

    panel.transcript.send = record
    panel.start(msg="Tabs or spaces?")
    await until(lambda: any(op["op"] == "live" and "msg" in op for op in sent), what="deltas")
    bob_row = rows_of(panel, "Bob")[0].key
    streamed = [op for op in sent if op["op"] == "live"]
    assert {op["id"] for op in streamed} == {bob_row}
    for op in streamed:  # the chat transcript's op (``_row_deltas.live_op``), nothing else
        assert set(op) <= {"op", "key", "id", "cls", "msg"} and op["key"] == "rows"
        assert op["msg"]["t"] in ("delta", "snapshot")
    before = len(sent)
    panel.stop_button.click()
    await until(lambda: panel.paused, what="the pause prompt")
    after = [op for op in sent[before:] if op.get("id") == bob_row]
    assert after[0]["op"] == "live" and "msg" not in after[0]  # the style goes out first
    assert "nb-hitl-interrupted" in after[0]["cls"].split()
    assert not [op for op in sent if op["op"] == "classes"]
    shown = next(r for r in panel.view_state["rows"] if r["id"] == bob_row)
    assert "nb-hitl-interrupted" in shown["cls"] or "nb-hitl-interrupted" in shown["html"]
    panel.close()


async def test_stop_during_the_second_speakers_turn_pauses_with_a_prompt() -> None:
    alice, bob, carol = debate()
    panel = HubPanel(MsgHub([alice, bob, carol]))
    panel.start(msg="Tabs or spaces?")
    await stop_bob(panel)
    assert panel.state == "paused" and panel.pause.visible
    q = panel.pause.question.value
    assert "Bob was interrupted" in q and "Skip goes on with Carol" in q
    assert panel.pause.retry_button.description == "Retry Bob"
    assert panel.pause.skip_button.description == "Skip to Carol"
    assert carol.model.calls == []  # the interrupted reply was not passed on
    assert bob.memory.messages[-1].is_interrupted
    # Bob's rows keep the chat's interrupted style (the partial text and the marker)
    bob_rows = rows_of(panel, "Bob")
    assert len(bob_rows) == 2
    for entry in bob_rows:
        assert "nb-hitl-interrupted" in entry.drawn._dom_classes or (
            "nb-hitl-interrupted" in entry.drawn.value
        )
    assert panel.speaker_class("Bob") in bob_rows[0].drawn._dom_classes  # still Bob's colour
    # what Alice and Carol observed is not drawn a second time
    assert len([e for e in panel.transcript.entries if e.msg and e.msg.is_interrupted]) == 1
    with pytest.raises(RuntimeError, match="already running"):
        panel.start()
    panel.resume("stop")
    await panel.wait()
    assert not panel.pause.visible and panel.state == "idle"
    panel.close()


@pytest.mark.parametrize("action", ["retry", "skip", "stop"])
async def test_each_choice_of_the_pause_prompt_resumes_the_pipeline(action: str) -> None:
    alice, bob, carol = debate()
    panel = HubPanel(MsgHub([alice, bob, carol]), user_name="Moderator")
    panel.start(msg="Tabs or spaces?")
    await stop_bob(panel)
    panel.pause.instruction.value = "Answer in one word."
    getattr(panel.pause, f"{action}_button").click()
    result = await panel.wait()
    texts = [(e.msg.name, e.msg.get_text_content()) for e in panel.transcript.entries if e.msg]
    if action == "retry":
        assert bob.model.calls[1].messages[-1]["content"] == "Answer in one word."
        assert ("Moderator", "Answer in one word.") in texts
        assert ("Bob", "Spaces, briefly.") in texts
        assert result.name == "Carol" and panel.outcome == "finished"
    elif action == "skip":
        assert len(bob.model.calls) == 1
        assert carol.model.calls[0].messages[-1]["content"] == "Answer in one word."
        assert result.name == "Carol" and panel.outcome == "finished"
    else:
        assert carol.model.calls == [] and len(bob.model.calls) == 1
        assert result.is_interrupted and result.name == "Bob"
        assert panel.outcome == "stopped" and "Stopped." in panel.speakers.value
        assert ("Moderator", "Answer in one word.") not in texts  # Stop takes no instruction
    notes = [e.view.value for e in panel.transcript.entries if e.key.startswith("note-")]
    assert (
        len(notes) == 1
        and {"retry": "try again", "skip": "skipped", "stop": "stopped"}[action] in notes[0]
    )
    for agent in (alice, bob, carol):
        assert_history_valid(agent.memory.messages)
    with pytest.raises(RuntimeError, match="not paused"):
        panel.resume("retry")
    panel.close()


async def test_stop_mid_tool_of_the_second_speaker_closes_its_calls() -> None:
    started = asyncio.Event()

    async def research() -> str:
        """Look the topic up."""
        started.set()
        await asyncio.sleep(60)
        return "never"

    tk = Toolkit()
    tk.register_tool_function(research)
    lookup = ScriptedTurn(text="Let me check.", tool_calls=[ScriptedToolCall("research", {})])
    bob = speaker("Bob", [lookup, "Checked."], toolkit=tk)
    alice, _, carol = debate()
    panel = HubPanel(MsgHub([alice, bob, carol]))
    panel.start(msg="Go.")
    await asyncio.wait_for(started.wait(), 15)
    assert panel.speaking == ["Bob"]
    assert panel.stop() is True
    await until(lambda: panel.paused)
    assert_history_valid(bob.memory.messages)
    panel.resume("retry", "Skip the lookup.")
    await panel.wait()
    assert panel.result.name == "Carol"
    assert_history_valid(bob.memory.messages)
    # the others observed Bob's text, never his tool call
    for other in (alice, carol):
        assert not any(m.get_content_blocks("tool_use") for m in other.memory.messages)
    panel.close()


async def test_fanout_stop_interrupts_every_speaker_and_retry_asks_them_again() -> None:
    alice = speaker("Alice", [LONG, "A again."], tps=40)
    bob = speaker("Bob", [LONG, "B again."], tps=40)
    panel = HubPanel(MsgHub([alice, bob]))
    panel.start(FanoutPipeline([alice, bob]), "Both at once.")
    await until(lambda: bool(rows_of(panel, "Alice")) and bool(rows_of(panel, "Bob")))
    assert sorted(panel.speaking) == ["Alice", "Bob"]
    assert "Alice, Bob are speaking" in panel.speakers.value or (
        "Bob, Alice are speaking" in panel.speakers.value
    )
    panel.stop()
    await until(lambda: panel.paused)
    assert "Alice, Bob was interrupted" in panel.pause.question.value
    panel.resume("retry", "Shorter.")
    result = await panel.wait()
    assert [m.get_text_content() for m in result] == ["A again.", "B again."]
    panel.close()


async def test_a_user_agent_in_the_discussion_types_in_the_panel() -> None:
    alice = speaker("Alice", ["What do you think?"])
    you = UserAgent("You")  # reads the terminal by default; the panel takes over
    bob = speaker("Bob", ["Noted."])
    panel = HubPanel(MsgHub([alice, you, bob]))
    assert you.input_source is panel.input_source()
    assert panel.send("too early") is False and "no one" in panel._note.value
    panel.start(msg="Go.")
    await until(lambda: panel.state == "waiting", what="the person's turn")
    assert not panel.send_button.disabled and "You is speaking" not in panel.speakers.value
    assert "Waiting for you" in panel.speakers.value
    panel.input.value = "   "
    panel.send_button.click()
    assert "empty" in panel._note.value and panel.state == "waiting"
    panel.input.value = "Tabs, obviously."
    panel.send_button.click()
    await panel.wait()
    assert panel.input.value == "" and panel.send_button.disabled
    (row,) = rows_of(panel, "You")
    assert row.msg.get_text_content() == "Tabs, obviously."
    assert panel.speaker_class("You") in row.drawn._dom_classes
    assert bob.model.calls[0].messages[-1]["content"] == "Tabs, obviously."
    assert "You" not in [label for label, _ in panel.inspectors.picker.options]  # no memory
    with pytest.raises(ValueError, match="no memory"):
        panel.inspect(you)
    panel.close()


async def test_stop_while_the_user_agent_waits_pauses_too() -> None:
    alice, you = speaker("Alice", ["Your turn."]), UserAgent("You")
    panel = HubPanel(MsgHub([alice, you]))
    panel.start()
    await until(lambda: panel.state == "waiting")
    assert panel.stop() is True
    await until(lambda: panel.paused)
    assert "You was interrupted" in panel.pause.question.value
    assert panel.send_button.disabled
    panel.resume("skip")
    await panel.wait()
    assert panel.outcome == "finished"
    panel.close()


async def test_the_inspector_switches_between_participants() -> None:
    alice, bob, carol = debate(["Spaces."])
    panel = HubPanel(MsgHub([alice, bob, carol]))
    assert [label for label, _ in panel.inspectors.picker.options] == ["Alice", "Bob", "Carol"]
    assert panel.inspector is not None and panel.inspector.agent is alice
    await panel.run(msg="Go.")
    panel.inspectors.picker.value = 1
    assert panel.inspector.agent is bob
    panel.inspector.refresh()
    assert "Spaces." in all_html(panel.inspector)
    first = panel.inspect("Carol")
    assert panel.inspectors.picker.value == 2 and panel.inspector is first
    assert panel.inspect(2) is first  # made once, reused
    with pytest.raises(ValueError, match="not a participant"):
        panel.inspect("Mallory")
    panel.close()


async def test_hostile_names_and_text_are_escaped_everywhere() -> None:
    evil = speaker(XSS, [f"{XSS} <script>alert('t')</script>"])
    other = speaker("Bob", [LONG], tps=40)
    hub = MsgHub([evil, other], announcement=Msg(XSS, XSS, "user"))
    panel = HubPanel(hub, user_name=XSS)
    panel.start(msg=XSS)
    await until(lambda: bool(rows_of(panel, "Bob")))
    panel.stop()
    await until(lambda: panel.paused)
    panel.pause.instruction.value = XSS
    panel.pause.skip_button.click()
    await panel.wait()
    html = all_html(panel)
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    no_live_markup(html)
    assert XSS not in html
    assert panel.colour_of(XSS) is not None  # a participant like any other
    assert f'data-name="{XSS}"' not in all_state(panel)
    panel.close()


async def test_bad_input_gets_clear_errors_and_the_panel_stays_usable() -> None:
    with pytest.raises(TypeError, match="shows a MsgHub"):
        HubPanel("not a hub")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no participants"):
        HubPanel(MsgHub([]))
    alice, bob, carol = debate(["Spaces."])
    panel = HubPanel(MsgHub([alice, bob]))
    with pytest.raises(RuntimeError, match="not paused"):
        panel.resume("retry")
    with pytest.raises(ValueError, match="'retry', 'skip' or 'stop'"):
        panel.resume("again")
    with pytest.raises(ValueError, match="Carol not in the hub"):
        panel.start([alice, carol])
    with pytest.raises(ValueError, match="rounds"):
        panel.start(rounds=0)
    with pytest.raises(ValueError, match="rounds= goes with a list"):
        panel.start(SequentialPipeline([alice]), rounds=2)
    assert not panel.running
    await panel.run(msg="Go.")  # still usable
    assert panel.outcome == "finished" and panel.result.get_text_content() == "Spaces."
    panel.close()


async def test_a_failing_speaker_shows_an_error_and_the_next_run_works() -> None:
    alice = speaker("Alice", [ScriptedTurn(text="Hm", error=RuntimeError("model down"))])
    panel = HubPanel(MsgHub([alice]))
    with pytest.raises(RuntimeError, match="model down"):
        await panel.run(msg="Go.")
    assert panel.outcome == "error"
    # once in the feed (the inspector drawn inside the hub shows its own error line too)
    feed = "\n".join(str(row.get("html", "")) for row in panel.view_state["rows"])
    assert feed.count("model down") == 1 and "model down" in all_html(panel)
    assert panel.state == "idle" and "Ended with an error." in panel.speakers.value
    alice.model.script.append(ScriptedTurn(text="Back."))
    await panel.run(msg="Again.")
    assert panel.outcome == "finished" and panel.result.get_text_content() == "Back."
    panel.close()


async def test_a_panel_over_an_earlier_discussion_draws_each_message_once() -> None:
    alice, bob = speaker("Alice", ["A."]), speaker("Bob", ["B."])
    hub = MsgHub([alice, bob], announcement=Msg("Host", "Topic.", "user"))
    async with hub:
        await alice()
        await bob()
        panel = HubPanel(hub)  # the hub is open: the panel does not announce again
        assert [e.msg.get_text_content() for e in panel.transcript.entries if e.msg] == [
            "Topic.",
            "A.",
            "B.",
        ]
        alice.model.script.append(ScriptedTurn(text="A2."))
        await panel.run([alice])
        assert [m.get_text_content() for m in bob.memory.messages].count("Topic.") == 1
        assert bob.memory.messages[-1].get_text_content() == "A2."
    panel.close()
    assert not hub.is_open


async def test_a_panel_over_an_earlier_discussion_draws_the_persons_words_once() -> None:
    # a UserAgent keeps no memory: the others' copies are the only record of what it said
    alice, bob = speaker("Alice", ["Your view?", "Go on."]), speaker("Bob", ["B."])
    you = UserAgent("You", ScriptedInput(["Tabs.", "Spaces."]))
    hub = MsgHub([alice, you, bob])
    async with hub:
        await SequentialPipeline([alice, you, bob])(Msg("Host", "Topic.", "user"))
        await alice()
        stopped = asyncio.create_task(you())
        await asyncio.sleep(0)
        assert await you.interrupt() is True  # stopped while it waits: observed as its marker
        await stopped
        panel = HubPanel(hub)
    texts = [(e.msg.name, e.msg.get_text_content()) for e in panel.transcript.entries if e.msg]
    assert texts == [
        ("Host", "Topic."),
        ("Alice", "Your view?"),
        ("You", "Tabs."),
        ("Bob", "B."),
        ("Alice", "Go on."),
        ("You", you.interrupt_text),
    ]
    panel.close()


async def test_messages_that_share_a_millisecond_keep_the_discussions_order() -> None:
    # timestamps have millisecond resolution: a fast discussion has ties (the test above
    # failed about 1 run in 5 when Bob's "B." and Alice's "Go on." shared one)
    alice, bob = speaker("Alice", ["Your view?", "Go on."]), speaker("Bob", ["B."])
    you = UserAgent("You", ScriptedInput(["Tabs."]))
    hub = MsgHub([alice, you, bob])
    async with hub:
        await SequentialPipeline([alice, you, bob])(Msg("Host", "Topic.", "user"))
        await alice()
        for agent in (alice, bob):
            for msg in agent.memory.messages:
                msg.timestamp = "2026-01-01T00:00:00.000+00:00"
        panel = HubPanel(hub)
    texts = [(e.msg.name, e.msg.get_text_content()) for e in panel.transcript.entries if e.msg]
    assert texts == [
        ("Host", "Topic."),
        ("Alice", "Your view?"),
        ("You", "Tabs."),
        ("Bob", "B."),
        ("Alice", "Go on."),
    ]
    panel.close()


async def test_the_announcement_comes_before_the_first_message() -> None:
    alice, bob = speaker("Alice", ["A."]), speaker("Bob", ["B."])
    panel = HubPanel(MsgHub([alice, bob], announcement=Msg("Host", "Topic.", "user")))
    await panel.run(msg="Go.")
    texts = [e.msg.get_text_content() for e in panel.transcript.entries if e.msg]
    assert texts == ["Topic.", "Go.", "A.", "B."]
    assert [m.get_text_content() for m in alice.memory.messages] == texts
    panel.close()


async def test_a_newer_panel_for_the_same_hub_takes_over() -> None:
    alice, bob, carol = debate()
    you = UserAgent("You")
    hub = MsgHub([alice, bob, carol, you])
    old = HubPanel(hub)
    old.start(msg="Go.")
    await until(lambda: bool(rows_of(old, "Bob")))
    new = HubPanel(hub)  # the cell was run again
    assert old.detached and not new.detached
    await until(lambda: not old.running and not bob.is_replying, what="the old run to end")
    assert bob.memory.messages[-1].is_interrupted  # the old run's speaker was stopped
    assert "newer panel" in old._note.value and old.stop_button.disabled
    with pytest.raises(RuntimeError, match="newer panel"):
        old.start()
    assert you.input_source is new.input_source()  # the person types in the newer panel
    bob.model.script.append(ScriptedTurn(text="Bob again."))
    new.start([bob, you], "Once more.")
    await until(lambda: new.state == "waiting")
    new.send("Me too.")
    await new.wait()
    assert new.outcome == "finished" and new.result.get_text_content() == "Me too."
    assert not rows_of(old, "You")  # the old panel no longer draws anything
    new.close()
    old.close()


async def test_keys_stop_and_send_and_skip_on_the_last_speaker_ends_the_run() -> None:
    alice = speaker("Alice", [LONG], tps=40)
    you = UserAgent("You")
    panel = HubPanel(MsgHub([you, alice]))
    panel.start()
    await until(lambda: panel.state == "waiting")
    panel.shortcuts.press("send", "Hello, Alice.")  # Ctrl+Enter in the box
    await until(lambda: bool(rows_of(panel, "Alice")))
    panel.shortcuts.press("stop")  # Esc in the panel
    await until(lambda: panel.paused)
    assert "Skip ends the discussion" in panel.pause.question.value
    assert panel.pause.skip_button.description == "Skip"
    panel.resume("skip", "ignored: no one is left")
    result = await panel.wait()  # the pipeline's result: what the skipped speaker was given
    assert result.get_text_content() == "Hello, Alice." and panel.outcome == "finished"
    assert "ignored" not in all_html(panel)  # an instruction no one hears is not shown
    assert alice.model.calls[0].messages[-1]["content"] == "Hello, Alice."
    panel.close()


def _deploy_toolkit(ran: list[str]) -> Toolkit:
    def deploy(env: str) -> str:
        """Deploy the release.

        Args:
            env: where to.
        """
        ran.append(env)
        return f"deployed to {env}"

    tk = Toolkit()
    tk.register_tool_function(deploy, needs_approval=True)
    return tk


async def test_a_speakers_tool_call_waits_for_approval_in_the_hub_transcript() -> None:
    ran: list[str] = []
    call = ScriptedTurn(text="Deploying.", tool_calls=[ScriptedToolCall("deploy", {"env": "eu"})])
    alice = speaker("Alice", ["Ship it."])
    bob = speaker("Bob", [call, "Deployed."], toolkit=_deploy_toolkit(ran))
    panel = HubPanel(MsgHub([alice, bob]))
    panel.start(msg="Release?")
    cards = panel.feed.approvals[id(bob)]
    await until(lambda: bool(cards.waiting), what="the approval card")
    card = cards.waiting[0]
    assert any(e.view is card for e in panel.transcript.entries)  # in the one transcript
    await until(lambda: "Waiting for your approval (Bob" in panel.speakers.value)
    card.approve_button.click()
    result = await panel.wait()
    assert ran == ["eu"] and result.get_text_content() == "Deployed."
    assert "approval" not in panel.speakers.value and panel.outcome == "finished"
    assert_history_valid(bob.memory.messages)
    panel.close()


async def test_stop_while_a_call_waits_for_approval_pauses_the_discussion() -> None:
    ran: list[str] = []
    call = ScriptedTurn(text="Deploying.", tool_calls=[ScriptedToolCall("deploy", {"env": "eu"})])
    bob = speaker("Bob", [call, "Not deployed then."], toolkit=_deploy_toolkit(ran))
    carol = speaker("Carol", ["Noted."])
    panel = HubPanel(MsgHub([bob, carol]))
    panel.start(msg="Release?")
    await until(lambda: bool(panel.feed.approvals[id(bob)].waiting))
    panel.stop_button.click()
    await until(lambda: panel.paused)
    assert "Bob was interrupted" in panel.pause.question.value and ran == []
    assert_history_valid(bob.memory.messages)
    panel.resume("skip")
    assert (await panel.wait()).get_text_content() == "Noted."
    panel.close()


async def test_a_speakers_question_is_a_form_in_the_hub_transcript() -> None:
    from nb_hitl.agent import ask_user

    tk = Toolkit()
    tk.register_tool_function(ask_user)
    q = {"question": "Which region?", "options": ["eu", "us"]}
    ask = ScriptedTurn(tool_calls=[ScriptedToolCall("ask_user", {"questions": [q]}, id="q1")])
    alice = speaker("Alice", ["Ship it."])
    bob = speaker("Bob", [ask, "Shipping to the EU."], toolkit=tk)
    panel = HubPanel(MsgHub([alice, bob]))
    panel.start(msg="Release?")
    forms = panel.feed.questions[id(bob)]
    await until(lambda: bool(forms.waiting), what="the question form")
    form = forms.waiting[0]
    assert any(e.view is form for e in panel.transcript.entries)
    await until(lambda: "Bob" in panel.speakers.value and "answer" in panel.speakers.value)
    form.fields[0].choose("eu")
    form.submit.click()
    result = await panel.wait()
    assert result.get_text_content() == "Shipping to the EU."
    assert form.answered == "answered" and panel.outcome == "finished"
    panel.close()
