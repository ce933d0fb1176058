"""ScriptedModel.demo() through a real ReActAgent: it answers what it is asked, takes a steer
into its next sentence, continues a cut answer from the cut, and follows an instruction."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.demo import demo_toolkit
from nb_hitl.demo.model import PICK_UP, demo_responder
from nb_hitl.events import MessageUpdated, ToolCallStarted
from nb_hitl.testing import assert_history_valid

QUESTIONS = {
    "interruption": "How does interrupting an agent work?",
    "resumption": "How do I resume an answer I stopped?",
    "steering": "What is steering?",
    "compression": "How does memory compression work?",
    "tools": "How do tools work?",
    "memory": "What does the agent's memory hold?",
    "generic": "What is the capital of France?",
}


def demo_agent(tokens_per_second: float = 2000.0, *, tools: bool = True) -> ReActAgent:
    model = ScriptedModel.demo(tokens_per_second=tokens_per_second)
    toolkit = demo_toolkit() if tools else None
    return ReActAgent("Friday", "You are a helpful assistant.", model, toolkit=toolkit)


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def tools_called(agent: ReActAgent) -> list[str]:
    return [b.name for m in agent.memory.messages for b in m.get_content_blocks("tool_use")]


async def ask_and_cut(agent: ReActAgent, question: str, after_chars: int = 120) -> Msg:
    """Ask, and interrupt once the final answer has streamed ``after_chars`` characters."""

    def on_event(ev: Any) -> None:
        if isinstance(ev, MessageUpdated) and ev.msg is not None:
            has_calls = ev.msg.get_content_blocks("tool_use")
            if not has_calls and len(ev.msg.get_text_content() or "") >= after_chars:
                agent.interrupt_nowait()

    sub = agent.subscribe(on_event)
    try:
        result = await agent(Msg("User", question, "user"))
    finally:
        sub.close()
    assert result.metadata.get("_is_interrupted") is True
    return agent.memory.get(result.metadata["partial_msg_id"])


async def test_distinct_questions_get_distinct_multi_sentence_answers() -> None:
    answers = {}
    for topic, question in QUESTIONS.items():
        agent = demo_agent()
        answers[topic] = (await agent(Msg("User", question, "user"))).get_text_content() or ""
        assert len(sentences(answers[topic])) >= 5, (topic, answers[topic])
        assert_history_valid(agent.memory.messages)
    assert len(set(answers.values())) == len(answers)
    assert "interrupt()" in answers["interruption"]
    assert answers["resumption"].startswith("Resuming means carrying on")
    assert "agent.steer(msg)" in answers["steering"]
    assert "trigger_threshold" in answers["compression"]
    assert '"capital" and "france"' in answers["generic"]  # the generic answer echoes the words
    assert "What is the capital of France?" in answers["generic"]


async def test_the_tool_plan_runs_the_tools_that_make_sense() -> None:
    agent = demo_agent()
    answer = await agent(Msg("User", "How does interrupting an agent work?", "user"))
    assert tools_called(agent) == ["search_notes"]  # nothing to calculate
    assert 'My notes agree: "agent.interrupt() cancels' in (answer.get_text_content() or "")
    agent = demo_agent()
    answer = await agent(Msg("User", "What is 12 * (3 + 4)?", "user"))
    assert tools_called(agent) == ["search_notes", "calculate"]
    calls = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_use")]
    assert calls[1].input == {"expression": "12 * (3 + 4)"}
    assert "the calculate tool says it is 84" in (answer.get_text_content() or "")
    bare = demo_agent(tools=False)  # without tools it answers in text at once
    answer = await bare(Msg("User", "How does memory compression work?", "user"))
    assert len(bare.memory.messages) == 2 and "trigger_threshold" in answer.get_text_content()


async def test_same_prompt_same_turn() -> None:
    prompt = [{"role": "system", "content": "s"}, {"role": "user", "content": "What is steering?"}]
    assert demo_responder(prompt, None) == demo_responder(list(prompt), None)


async def steer_during_first_tool(agent: ReActAgent, question: str, steer: str) -> Msg:
    def on_event(ev: Any) -> None:
        if isinstance(ev, ToolCallStarted):
            agent.steer_nowait(Msg("User", steer, "user"))

    sub = agent.subscribe(on_event)
    try:
        return await agent(Msg("User", question, "user"))
    finally:
        sub.close()


async def test_a_steer_to_another_topic_is_taken_into_the_next_sentence() -> None:
    agent = demo_agent()
    answer = await steer_during_first_tool(
        agent, "How does interrupting an agent work?", "Actually, focus on memory."
    )
    messages = agent.memory.messages
    at = next(i for i, m in enumerate(messages) if m.metadata.get("_steered"))
    after = next(m for m in messages[at + 1 :] if m.role == "assistant")
    first = sentences(after.get_text_content() or "")[0]
    assert '"Actually, focus on memory."' in first and "the agent's memory" in first
    text = answer.get_text_content() or ""
    assert "The agent's memory is the conversation" in text
    assert "Interrupting an agent comes down to" not in text  # what came next changed
    assert_history_valid(messages)


async def test_a_steer_asking_for_brevity_shortens_what_follows() -> None:
    plain = await demo_agent()(Msg("User", "What is steering?", "user"))
    agent = demo_agent()
    answer = await steer_during_first_tool(agent, "What is steering?", "Keep it short, please.")
    text = answer.get_text_content() or ""
    assert text.startswith('Noted: "Keep it short, please.", so I will keep it short.')
    assert len(sentences(text)) <= 3 < len(sentences(plain.get_text_content() or ""))
    assert "In short:" in text


async def test_a_plain_steer_is_acknowledged_and_kept_in_mind() -> None:
    agent = demo_agent()
    answer = await steer_during_first_tool(agent, "How do tools work?", "Use the staging data.")
    texts = [m.get_text_content() or "" for m in agent.memory.messages if m.role == "assistant"]
    assert texts[1].startswith('Noted: "Use the staging data."')  # the turn right after it
    assert "Tools let the model act" in (answer.get_text_content() or "")


MODES = ["assistant_prefix", "prompt"]


def in_mode(agent: ReActAgent, mode: str) -> ReActAgent:
    if mode == "prompt":  # a model without prefill: resume() quotes the partial in a prompt
        agent.model.supports_assistant_prefix = False  # type: ignore[misc]
    return agent


@pytest.mark.parametrize("mode", MODES)
async def test_resume_continues_exactly_after_the_cut(mode: str) -> None:
    agent = in_mode(demo_agent(), mode)
    partial = (await ask_and_cut(agent, QUESTIONS["interruption"])).get_text_content() or ""
    full = (await demo_agent()(Msg("User", QUESTIONS["interruption"], "user"))).get_text_content()
    assert full is not None and full.startswith(partial) and len(partial) < len(full)
    resumed = await agent.resume()
    assert resumed.metadata["continued_by"] == mode
    rest = (resumed.get_text_content() or "")[len(partial) :]
    assert partial + rest == full  # mid-sentence, from the next character, never restarted
    assert not rest.startswith(("Interrupting", PICK_UP))
    assert_history_valid(agent.memory.messages)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("instruction", "check"),
    [
        ("Continue, but shorter.", lambda rest: "In short:" in rest),
        ("Continue, but keep it to one short paragraph.", lambda rest: "\n" not in rest),
        ("Continue in bullet points.", lambda rest: "\n- " in rest),
    ],
)
async def test_resume_follows_the_instruction(instruction: str, check: Any, mode: str) -> None:
    plain_agent = demo_agent()
    partial = (await ask_and_cut(plain_agent, QUESTIONS["compression"])).get_text_content() or ""
    plain = (await plain_agent.resume()).get_text_content() or ""
    agent = in_mode(demo_agent(), mode)
    assert (await ask_and_cut(agent, QUESTIONS["compression"])).get_text_content() == partial
    resumed = await agent.resume(instruction)
    assert resumed.metadata["continued_by"] == mode
    text = resumed.get_text_content() or ""
    rest, plain_rest = text[len(partial) :], plain[len(partial) :]
    cut_sentence_end = re.search(r"[.!?](?=\s|$)", plain_rest)
    assert cut_sentence_end is not None
    assert rest.startswith(plain_rest[: cut_sentence_end.end()])  # the cut sentence is finished
    assert check(rest)
    if "bullet" not in instruction:
        assert len(rest) < len(plain_rest) / 2, (rest, plain_rest)


async def test_please_continue_picks_up_at_the_cut_sentence() -> None:
    agent = demo_agent()
    partial = (await ask_and_cut(agent, QUESTIONS["interruption"])).get_text_content() or ""
    resumed = await agent(Msg("User", "Please continue where you left off.", "user"))
    text = resumed.get_text_content() or ""
    cut_sentence = sentences(partial)[-1]
    assert text.startswith(PICK_UP + cut_sentence)
    assert tools_called(agent) == ["search_notes"]  # the notes were not searched again
    assert_history_valid(agent.memory.messages)


async def test_a_new_question_after_an_interrupt_is_answered() -> None:
    agent = demo_agent()
    await ask_and_cut(agent, QUESTIONS["interruption"])
    answer = await agent(Msg("User", "How does memory compression work?", "user"))
    text = answer.get_text_content() or ""
    assert text.startswith("Compression keeps a long conversation") and PICK_UP not in text
    assert_history_valid(agent.memory.messages)


async def test_interrupt_with_a_one_line_instruction_gives_the_one_line_version() -> None:
    agent = demo_agent(tokens_per_second=400)
    task = asyncio.create_task(agent(Msg("User", QUESTIONS["interruption"], "user")))

    def on_event(ev: Any) -> None:
        if isinstance(ev, MessageUpdated) and len(ev.msg.get_text_content() or "") > 150:
            agent.interrupt_nowait(Msg("User", "Stop. Just give me the one-line version.", "user"))

    sub = agent.subscribe(on_event)
    await task
    sub.close()
    answer = await agent()
    text = answer.get_text_content() or ""
    assert len(sentences(text)) == 1 and text.startswith("Stop cancels the reply's own task")
    assert tools_called(agent) == ["search_notes"]


async def test_continue_after_a_cut_during_the_tools_runs_the_rest_of_the_plan() -> None:
    agent = demo_agent()

    def on_event(ev: Any) -> None:
        if isinstance(ev, ToolCallStarted) and ev.tool_use and ev.tool_use.name == "calculate":
            agent.interrupt_nowait()

    sub = agent.subscribe(on_event)
    await agent(Msg("User", "How does memory compression work?", "user"))
    sub.close()
    answer = await agent(Msg("User", "Please continue.", "user"))
    assert tools_called(agent) == ["search_notes", "calculate", "calculate"]  # run again
    steps = [m.get_text_content() for m in agent.memory.messages if m.role == "assistant"]
    assert steps[-2] == "Picking up where I left off. Now a quick calculation to check the numbers."
    assert "saves 10667 tokens" in (answer.get_text_content() or "")
    assert_history_valid(agent.memory.messages)


async def test_stop_after_a_step_then_resume_takes_the_plan_up_where_it_ended() -> None:
    agent = demo_agent()

    def on_event(ev: Any) -> None:
        if isinstance(ev, ToolCallStarted):
            agent.stop_after_step_nowait()

    sub = agent.subscribe(on_event)
    stopped = await agent(Msg("User", QUESTIONS["compression"], "user"))
    sub.close()
    assert stopped.metadata["stopped_after_step"] is True
    assert tools_called(agent) == ["search_notes"]  # the step in flight finished, no more
    resumed = await agent.resume()
    assert resumed.metadata["continued_by"] == "next_step"
    steps = [m.get_text_content() for m in agent.memory.messages if m.role == "assistant"]
    assert steps[-2] == "Picking up where I left off. Now a quick calculation to check the numbers."
    assert (resumed.get_text_content() or "").startswith("Compression keeps a long conversation")
    assert tools_called(agent) == ["search_notes", "calculate"]
    assert_history_valid(agent.memory.messages)


async def test_a_question_about_resuming_after_an_interrupt_is_a_question_not_a_continue() -> None:
    agent = demo_agent()
    await ask_and_cut(agent, QUESTIONS["compression"])
    answer = await agent(Msg("User", "How do I resume an answer I stopped?", "user"))
    text = answer.get_text_content() or ""
    assert text.startswith("Resuming means carrying on") and PICK_UP not in text
