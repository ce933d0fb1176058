"""The hub panel's Start / Next round / Continue buttons headless, with real scripted agents."""

from __future__ import annotations

from test_hub_panel import debate, speaker, stop_bob
from widget_helpers import until

from nb_hitl.pipeline import MsgHub
from nb_hitl.testing import assert_history_valid
from nb_hitl.widgets import HubPanel


def shown(button: object) -> bool:
    return button.layout.display != "none"  # type: ignore[attr-defined]


def spoken(panel: HubPanel) -> list[tuple[str, str]]:
    return [(e.msg.name, e.msg.get_text_content() or "") for e in panel.transcript.entries if e.msg]


async def test_start_then_next_round_from_the_panel() -> None:
    alice = speaker("Alice", ["Tabs.", "Still tabs."])
    bob = speaker("Bob", ["Spaces.", "Still spaces."])
    panel = HubPanel(MsgHub([alice, bob]), user_name="Moderator")
    runs = panel.runs
    assert shown(runs.start_button) and not shown(runs.next_button)
    assert not shown(runs.continue_button)
    assert "press Start" in panel.speakers.value
    panel.input.value = "Tabs or spaces?"
    runs.start_button.click()
    assert panel.input.value == "" and not shown(runs.start_button)  # hidden while it runs
    await panel.wait()
    assert panel.outcome == "finished"
    assert shown(runs.next_button) and not shown(runs.start_button)
    assert "Next round" in panel.speakers.value
    runs.next_button.click()
    await panel.wait()
    assert [t for _, t in spoken(panel)] == [
        "Tabs or spaces?", "Tabs.", "Spaces.", "Still tabs.", "Still spaces."]  # fmt: skip
    panel.close()


async def test_continue_after_stop_goes_on_with_the_stopped_speaker_then_the_rest() -> None:
    alice, bob, carol = debate()
    panel = HubPanel(MsgHub([alice, bob, carol]), user_name="Moderator")
    assert panel.start(msg="Tabs or spaces?") is None  # no Task repr left as cell output
    await stop_bob(panel)
    panel.pause.stop_button.click()
    await panel.wait()
    assert panel.outcome == "stopped" and carol.model.calls == []
    assert shown(panel.runs.continue_button) and shown(panel.runs.next_button)
    panel.input.value = "Bob, briefly please."
    panel.runs.continue_button.click()
    await until(lambda: not panel.running and panel.outcome == "finished", what="continued")
    texts = spoken(panel)
    assert ("Moderator", "Bob, briefly please.") in texts
    assert texts[-2:] == [("Bob", "Spaces, briefly."), ("Carol", "I side with whoever spoke last.")]
    assert len(alice.model.calls) == 1  # Alice had spoken: she is not asked again
    assert not shown(panel.runs.continue_button)  # nothing stopped any more
    for agent in (alice, bob, carol):
        assert_history_valid(agent.memory.messages)
    panel.close()


async def test_continue_after_a_model_error_asks_the_failed_speaker_again_then_the_rest() -> None:
    from nb_hitl.model import ScriptedTurn

    alice = speaker("Alice", ["Tabs."])
    bob = speaker("Bob", [ScriptedTurn(error=RuntimeError("model down")), "Spaces, after all."])
    carol = speaker("Carol", ["I side with Bob."])
    panel = HubPanel(MsgHub([alice, bob, carol]), user_name="Moderator")
    panel.input.value = "Tabs or spaces?"
    panel.runs.start_button.click()
    await until(lambda: not panel.running and panel.outcome == "error", what="the error")
    assert carol.model.calls == []  # the round ended at Bob
    assert shown(panel.runs.continue_button) and shown(panel.runs.next_button)
    assert "Continue" in panel.speakers.value
    panel.runs.continue_button.click()
    await until(lambda: not panel.running and panel.outcome == "finished", what="continued")
    texts = spoken(panel)
    assert texts[-2:] == [("Bob", "Spaces, after all."), ("Carol", "I side with Bob.")]
    assert len(alice.model.calls) == 1  # Alice had spoken: she is not asked again
    assert not shown(panel.runs.continue_button)
    for agent in (alice, bob, carol):
        assert_history_valid(agent.memory.messages)
    panel.close()


async def test_the_paused_hubs_two_stop_buttons_say_what_they_do() -> None:
    # Issue 35 item 11: paused, the pause prompt's Stop (ends the discussion) sat under the
    # panel's own Stop (interrupts whoever speaks), both labelled "Stop".
    alice, bob, carol = debate()
    panel = HubPanel(MsgHub([alice, bob, carol]), user_name="Moderator")
    panel.start(msg="Tabs or spaces?")
    await stop_bob(panel)
    assert panel.state == "paused"
    ends, interrupts = panel.pause.stop_button, panel.stop_button
    assert ends.description == "End discussion" and "End discussion" in panel.pause.question.value
    assert interrupts.description == "Stop speaker" and "speaking" in interrupts.tooltip
    assert "End discussion" in panel.speakers.value
    ends.click()
    await panel.wait()
    assert panel.outcome == "stopped" and carol.model.calls == []
    panel.close()
