"""agent.resume(): the interrupted answer continues where it stopped; tools left unrun run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.events import Event, MessageUpdated, Resumed
from nb_hitl.exceptions import AgentBusyError, ModelError, NothingToResumeError, ResumeError
from nb_hitl.memory import COMPRESSED
from nb_hitl.message import Msg, TextBlock
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.model._continuation import parse_continuation_prompt
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.testing import user_msg as user
from nb_hitl.tool import Toolkit

ROOT = str(Path(__file__).resolve().parents[2])
ANSWER = "The reply runs as a background task so that the cell returns at once and Stop works."
REST = " and then it goes on to the end."


def pieces(n: int) -> Any:
    return lambda e: isinstance(e, MessageUpdated) and e.tokens >= n


async def interrupted_mid_answer(
    agent: ReActAgent, question: str = "How does it work?", after: int = 4
) -> Msg:
    task = asyncio.create_task(agent(user(question)))
    await wait_for_event(agent, pieces(after))
    assert await agent.interrupt()
    result = await task
    assert result.is_interrupted
    return result


def slow_agent(script: list[Any], **kwargs: Any) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=400)
    return ReActAgent("Friday", "You explain things.", model, **kwargs)


async def test_resume_continues_the_partial_answer_mid_sentence_with_an_assistant_prefix() -> None:
    agent = slow_agent([ANSWER, REST])
    record = await interrupted_mid_answer(agent)
    partial = agent.memory.get(record.metadata["partial_msg_id"])
    assert partial is not None
    cut = partial.get_text_content() or ""
    assert cut and ANSWER.startswith(cut) and cut != ANSWER
    events: list[Event] = []
    agent.subscribe(events.append)

    reply = await agent.resume()

    assert reply.get_text_content() == cut + REST  # the same sentence, finished
    assert reply.metadata["continued_by"] == "assistant_prefix"
    assert reply.metadata["continues"] == record.id
    assert reply.metadata["continued_from"] == partial.id
    assert reply.metadata["partial_chars"] == len(cut)
    assert not reply.is_interrupted
    prompt = agent.model.calls[-1].messages  # type: ignore[attr-defined]
    assert prompt[-1] == {"role": "assistant", "content": cut}  # no tool_calls, as streamed
    assert prompt[-2]["role"] == "user" and prompt[-2]["content"] == "How does it work?"
    assert agent.model.calls[-1].kwargs == {"continue_final_message": True}  # type: ignore[attr-defined]
    # the records stay: question, partial, interrupted message, then the continued answer
    assert [m.id for m in agent.memory.messages][1:] == [partial.id, record.id, reply.id]
    assert_history_valid(agent.memory.messages)
    await asyncio.sleep(0)
    resumed = [e for e in events if isinstance(e, Resumed)]
    assert len(resumed) == 1 and resumed[0].interrupted_id == record.id
    updates = [e for e in events if isinstance(e, MessageUpdated)]
    assert "".join(e.delta for e in updates) == REST  # deltas carry only the new text


async def test_an_instruction_is_a_user_message_right_before_the_prefix() -> None:
    agent = slow_agent([ANSWER, " (short)."])
    await interrupted_mid_answer(agent)
    reply = await agent.resume("continue, but shorter")
    prompt = agent.model.calls[-1].messages  # type: ignore[attr-defined]
    assert prompt[-2]["role"] == "user" and prompt[-2]["content"] == "continue, but shorter"
    assert prompt[-1]["role"] == "assistant"
    instruction = agent.memory.messages[-2]
    assert instruction.metadata["_resume_instruction"] is True
    assert reply.get_text_content().endswith(" (short).")  # type: ignore[union-attr]


async def test_a_model_without_prefill_gets_the_continuation_prompt() -> None:
    agent = slow_agent([ANSWER, REST])
    agent.model.supports_assistant_prefix = False
    await interrupted_mid_answer(agent)
    cut = agent.memory.messages[1].get_text_content() or ""
    reply = await agent.resume("shorter please")
    call = agent.model.calls[-1]  # type: ignore[attr-defined]
    request = parse_continuation_prompt(call.messages[-1]["content"])
    assert call.messages[-1]["role"] == "user" and request is not None
    assert request.partial == cut and request.instruction == "shorter please"
    assert "continue_final_message" not in call.kwargs
    assert reply.metadata["continued_by"] == "prompt"
    assert reply.get_text_content() == cut + REST


async def test_a_model_that_starts_over_is_not_repeated() -> None:
    agent = slow_agent([ANSWER, ANSWER], max_iters=2)
    await interrupted_mid_answer(agent, after=6)
    reply = await agent.resume()
    assert reply.get_text_content() == ANSWER


async def test_a_server_that_refuses_the_prefix_falls_back_to_the_prompt_once() -> None:
    def respond(messages: list[dict[str, Any]], tools: Any) -> Any:
        if messages[-1]["role"] == "assistant":
            return ModelError("continue_final_message is not supported", status_code=400)
        if parse_continuation_prompt(messages[-1]["content"]) is not None:
            return REST
        return ANSWER

    model = ScriptedModel(responder=respond, tokens_per_second=400)
    agent = ReActAgent("Friday", "You explain things.", model)
    await interrupted_mid_answer(agent)
    reply = await agent.resume()
    assert reply.metadata["continued_by"] == "prompt"
    assert "refused the assistant-prefix request" in reply.metadata["continuation_note"]
    assert model.assistant_prefix_refused and model.continuation_mode == "prompt"
    calls = len(model.calls)
    await interrupted_mid_answer(agent, "Again?")
    again = await agent.resume()
    assert len(model.calls) == calls + 2  # the question, then straight to the prompt form
    assert again.metadata["continued_by"] == "prompt"
    assert_history_valid(agent.memory.messages)


async def test_interrupting_a_resumed_answer_and_resuming_again_finishes_it() -> None:
    agent = slow_agent([ANSWER, " " + " ".join(f"w{i}" for i in range(40)), " fin."])
    await interrupted_mid_answer(agent)
    task = asyncio.create_task(agent.resume())
    await wait_for_event(agent, pieces(3))
    await agent.interrupt()
    second = await task
    assert second.is_interrupted and second.metadata["continued_by"] == "assistant_prefix"
    partial = agent.memory.get(second.metadata["partial_msg_id"])
    assert partial is not None
    cut = partial.get_text_content() or ""
    first_cut = agent.memory.messages[1].get_text_content() or ""
    assert cut.startswith(first_cut) and len(cut) > len(first_cut)
    final = await agent.resume()
    assert final.get_text_content() == cut + " fin."
    assert final.metadata["continues"] == second.id
    assert_history_valid(agent.memory.messages)


# -- tools -------------------------------------------------------------------------------------
def gated_toolkit(gate: asyncio.Event, ran: list[str]) -> Toolkit:
    tk = Toolkit()

    async def slow(city: str) -> str:
        """Look a city up slowly.

        Args:
            city: the city.
        """
        ran.append(f"slow {city}")
        await gate.wait()
        return f"slow result for {city}"

    def fast(city: str) -> str:
        """Look a city up fast.

        Args:
            city: the city.
        """
        ran.append(f"fast {city}")
        return f"fast result for {city}"

    def guarded(city: str) -> str:
        """Needs approval.

        Args:
            city: the city.
        """
        ran.append(f"guarded {city}")
        return f"guarded result for {city}"

    tk.register_tool_function(slow)
    tk.register_tool_function(fast)
    tk.register_tool_function(guarded, needs_approval=True)
    return tk


def tool_turn(*names: str) -> ScriptedTurn:
    return ScriptedTurn(
        text="Let me look.", tool_calls=[ScriptedToolCall(n, {"city": "Oslo"}) for n in names]
    )


async def interrupted_in_slow_tool(agent: ReActAgent) -> Msg:
    task = asyncio.create_task(agent(user("Look Oslo up.")))
    await wait_for_event(agent, lambda e: e.kind == "tool_call_started")
    assert await agent.interrupt()
    return await task


async def test_calls_left_unrun_run_on_resume_and_the_interrupted_one_is_only_reported() -> None:
    gate, ran = asyncio.Event(), []
    model = ScriptedModel([tool_turn("slow", "fast"), "Oslo is fine."], tokens_per_second=1e6)
    agent = ReActAgent("Friday", "sys", model, toolkit=gated_toolkit(gate, ran))
    record = await interrupted_in_slow_tool(agent)
    assert (
        record.metadata["closed_calls"]["not_run"]
        and record.metadata["closed_calls"]["interrupted"]
    )
    point = agent.resume_point()
    assert point.continued_by == "tools"
    assert [c.name for c in point.not_run] == ["fast"]
    assert [c.name for c in point.interrupted_calls] == ["slow"]

    reply = await agent.resume()

    assert ran == ["slow Oslo", "fast Oslo"]  # slow is not run again
    assert reply.get_text_content() == "Oslo is fine."
    assert reply.metadata["continued_by"] == "tools" and reply.metadata["continues"] == record.id
    again = next(m for m in agent.memory.messages if m.metadata.get("resumed_calls"))
    ((new_id, old_id),) = again.metadata["resumed_calls"].items()
    assert old_id == point.not_run[0].id and new_id != old_id
    assert_history_valid(agent.memory.messages)  # every tool_use answered exactly once


async def test_rerun_interrupted_runs_the_interrupted_call_again_in_the_models_order() -> None:
    gate, ran = asyncio.Event(), []
    model = ScriptedModel([tool_turn("slow", "fast"), "Done."], tokens_per_second=1e6)
    agent = ReActAgent("Friday", "sys", model, toolkit=gated_toolkit(gate, ran))
    await interrupted_in_slow_tool(agent)
    gate.set()
    await agent.resume(rerun_interrupted=True)
    assert ran == ["slow Oslo", "slow Oslo", "fast Oslo"]
    assert_history_valid(agent.memory.messages)


async def test_a_resumed_call_that_needs_approval_parks_as_usual() -> None:
    gate, ran = asyncio.Event(), []
    gate.set()
    model = ScriptedModel([tool_turn("fast", "guarded"), "Done."], tokens_per_second=1e6)
    agent = ReActAgent("Friday", "sys", model, toolkit=gated_toolkit(gate, ran))
    task = asyncio.create_task(agent(user("Look Oslo up.")))
    await wait_for_event(agent, lambda e: e.kind == "approval_requested")
    await agent.interrupt()  # the turn's calls wait for approval: none has run
    record = await task
    assert ran == [] and len(record.metadata["closed_calls"]["not_run"]) == 2
    task = asyncio.create_task(agent.resume())
    await wait_for_event(agent, lambda e: e.kind == "approval_requested")
    assert agent.is_waiting_for_approval and ran == []
    agent.approve(agent.pending_approvals[0].call.id)
    reply = await task
    assert ran == ["fast Oslo", "guarded Oslo"] and reply.get_text_content() == "Done."
    assert_history_valid(agent.memory.messages)


async def test_interrupted_before_any_step_resumes_with_the_next_step() -> None:
    agent = slow_agent(["Here is my answer."])
    task = asyncio.create_task(agent(user("Hi")))
    await asyncio.sleep(0)
    await agent.interrupt()
    assert (await task).is_interrupted
    assert agent.resume_point().continued_by == "next_step"
    reply = await agent.resume()
    assert reply.get_text_content() == "Here is my answer."
    assert reply.metadata["continued_by"] == "next_step"


# -- refusals ------------------------------------------------------------------------------------
async def test_nothing_to_resume_says_so_and_what_to_do() -> None:
    agent = slow_agent(["Hello.", ANSWER, REST])
    with pytest.raises(NothingToResumeError, match="send a new message"):
        await agent.resume()
    await agent(user("Hi"))
    with pytest.raises(NothingToResumeError, match="finished normally"):
        await agent.resume()
    assert not agent.can_resume
    await interrupted_mid_answer(agent)
    assert agent.can_resume
    await agent.resume()
    with pytest.raises(NothingToResumeError):  # already continued
        await agent.resume()


async def test_resume_is_refused_after_the_interrupted_reply_was_compressed() -> None:
    agent = slow_agent([ANSWER, REST])
    record = await interrupted_mid_answer(agent)
    agent.memory.update_marks_sync(COMPRESSED, msg_ids=[record.metadata["partial_msg_id"]])
    before = agent.memory.messages
    with pytest.raises(ResumeError, match="compressed") as err:
        await agent.resume()
    assert err.value.reason == "compressed" and err.value.interrupted_id == record.id
    assert agent.memory.messages == before and not agent.can_resume


async def test_resume_is_refused_after_the_partial_answer_was_edited_or_deleted() -> None:
    agent = slow_agent([ANSWER, REST])
    record = await interrupted_mid_answer(agent)
    partial = agent.memory.get(record.metadata["partial_msg_id"])
    assert partial is not None
    edited = partial.model_copy(update={"content": [TextBlock(text="something else")]})
    agent.memory.replace(edited)
    with pytest.raises(ResumeError, match="edited") as err:
        await agent.resume()
    assert err.value.reason == "edited"
    agent.memory.delete_sync(partial.id)
    with pytest.raises(ResumeError, match="deleted"):
        await agent.resume()
    again = slow_agent([ANSWER])
    record = await interrupted_mid_answer(again)
    again.memory.delete_sync(record.id)  # the partial stays, its interrupted message is gone
    with pytest.raises(ResumeError, match=r"interrupted message .* was deleted") as err:
        await again.resume()
    assert err.value.reason == "edited"


async def test_resume_while_replying_raises_agent_busy() -> None:
    agent = slow_agent([ANSWER, ANSWER])
    await interrupted_mid_answer(agent)
    task = asyncio.create_task(agent(user("another")))
    await asyncio.sleep(0)
    with pytest.raises(AgentBusyError):
        await agent.resume()
    await agent.interrupt()
    await task


async def test_a_reply_interrupted_before_a_save_is_continued_after_loading_in_a_new_agent(
    tmp_path: Any,
) -> None:
    agent = slow_agent([ANSWER])
    record = await interrupted_mid_answer(agent)
    cut = agent.memory.messages[1].get_text_content() or ""
    path = agent.save_session(tmp_path / "chat.json")

    fresh = slow_agent([REST])  # another kernel: a new agent, the same model and tools
    fresh.load_session(path)
    assert fresh.can_resume
    reply = await fresh.resume()
    assert reply.get_text_content() == cut + REST
    assert reply.metadata["continues"] == record.id
    assert fresh.model.calls[-1].messages[-1] == {"role": "assistant", "content": cut}  # type: ignore[attr-defined]
    assert_history_valid(fresh.memory.messages)


async def test_a_reply_interrupted_on_an_approval_resumes_after_loading_in_a_new_agent(
    tmp_path: Any,
) -> None:
    gate, ran = asyncio.Event(), []
    gate.set()
    model = ScriptedModel([tool_turn("fast", "guarded")], tokens_per_second=1e6)
    agent = ReActAgent("Friday", "sys", model, toolkit=gated_toolkit(gate, ran))
    task = asyncio.create_task(agent(user("Look Oslo up.")))
    await wait_for_event(agent, lambda e: e.kind == "approval_requested")
    await agent.interrupt()
    await task
    path = agent.save_session(tmp_path / "parked.json")

    fresh_ran: list[str] = []
    fresh_model = ScriptedModel(["Both done."], tokens_per_second=1e6)
    fresh = ReActAgent("Friday", "sys", fresh_model, toolkit=gated_toolkit(gate, fresh_ran))
    fresh.load_session(path)
    assert fresh.resume_point().continued_by == "tools"
    task = asyncio.create_task(fresh.resume())
    await wait_for_event(fresh, lambda e: e.kind == "approval_requested")
    fresh.approve(fresh.pending_approvals[0].call.id)
    reply = await task
    assert fresh_ran == ["fast Oslo", "guarded Oslo"] and reply.get_text_content() == "Both done."
    assert ran == []
    assert_history_valid(fresh.memory.messages)


CONTINUE_IN_ANOTHER_PROCESS = """
import asyncio, sys
from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel

async def main():
    agent = ReActAgent("Friday", "You explain things.", ScriptedModel([" and it ends."]))
    agent.load_session(sys.argv[1])
    reply = await agent.resume()
    print(reply.metadata["continued_by"], reply.get_text_content(), sep="|")

asyncio.run(main())
"""


async def test_a_reply_interrupted_in_one_process_is_continued_in_another(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys

    agent = slow_agent([ANSWER])
    await interrupted_mid_answer(agent)
    cut = agent.memory.messages[1].get_text_content() or ""
    path = agent.save_session(tmp_path / "chat.json")
    env = {**os.environ, "PYTHONPATH": ROOT, "NB_HITL_DISABLE_CONSOLE_OUTPUT": "true"}
    run = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", CONTINUE_IN_ANOTHER_PROCESS, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"assistant_prefix|{cut} and it ends."


async def test_an_answer_cut_by_a_model_error_is_continued_too() -> None:
    failing = ScriptedTurn(text=ANSWER, error=ModelError("connection reset"), error_after_tokens=5)
    agent = slow_agent([failing, REST])
    with pytest.raises(ModelError):
        await agent(user("How does it work?"))
    partial = agent.memory.messages[-1]
    assert partial.metadata["_partial"] and partial.metadata["_error"]
    cut = partial.get_text_content() or ""
    reply = await agent.resume()
    assert reply.get_text_content() == cut + REST
    assert reply.metadata["continues"] == partial.id
    assert_history_valid(agent.memory.messages)


async def test_a_resume_stopped_before_its_first_step_leaves_the_same_partial_to_continue() -> None:
    agent = slow_agent([ANSWER, REST])
    record = await interrupted_mid_answer(agent)
    cut = agent.memory.get(record.metadata["partial_msg_id"]).get_text_content()  # type: ignore[union-attr]
    for stop in ("interrupt", "stop_after_step"):
        task = asyncio.create_task(agent.resume())
        await asyncio.sleep(0)
        assert await getattr(agent, stop)()  # before the continuation started
        ended = await task
        assert ended.metadata["continued_by"] == "assistant_prefix"
        assert ended.metadata["partial_msg_id"] == record.metadata["partial_msg_id"]
        point = agent.resume_point()
        assert point.continued_by == "assistant_prefix" and point.partial_text == cut
    reply = await agent.resume()
    assert reply.get_text_content() == f"{cut}{REST}"
    assert_history_valid(agent.memory.messages)


@pytest.mark.parametrize("text", ["", "token1 token2 ", "é" * 1024, "x" * 2049, "a\ud83d b"])
def test_the_partial_digest_is_the_sha256_saved_sessions_hold(text: str) -> None:
    import hashlib

    from nb_hitl.agent.resume import text_digest

    data = text.encode("utf-8", "surrogatepass")  # short, long, and with a lone surrogate
    assert text_digest(text) == hashlib.sha256(data).hexdigest()[:16]
