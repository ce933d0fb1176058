"""agent.resume() against a real model: llama.cpp (llama-cpp-python) serving SmolLM2-135M.

llama-cpp-python's chat endpoint answers a final assistant message from scratch, so its
continuation is a raw ``/v1/completions`` request with the chat template
(``OpenAIChatModel(assistant_prefix="completions")``): interrupted mid-sentence and resumed,
the model's first new tokens are the ones it would have said next without the interrupt.
"""

from __future__ import annotations

import asyncio

import pytest
from llama_server import LlamaServer

from nb_hitl.agent import ReActAgent
from nb_hitl.events import Event, MessageUpdated
from nb_hitl.message import Msg
from nb_hitl.model import OpenAIChatModel
from nb_hitl.testing import assert_history_valid, wait_for_event

pytestmark = pytest.mark.real_model

SYSTEM = "You are a storyteller."
QUESTION = "Tell me a story about a lighthouse keeper."


def pieces(n: int):  # type: ignore[no-untyped-def]
    return lambda e: isinstance(e, MessageUpdated) and e.tokens >= n


def words(text: str) -> list[str]:
    return text.split()


async def test_an_answer_interrupted_mid_sentence_is_continued_where_it_stopped(
    llama_server: LlamaServer,
) -> None:
    model = OpenAIChatModel(
        "smollm2",
        base_url=llama_server.base_url,
        timeout=120.0,
        assistant_prefix="completions",
        generate_kwargs={"max_tokens": 24, "temperature": 0.0, "seed": 1},
    )
    try:
        # What the model says without an interrupt (greedy, so the same every time).
        reference = await ReActAgent("Friday", SYSTEM, model)(Msg("User", QUESTION, "user"))
        said = reference.get_text_content() or ""

        agent = ReActAgent("Friday", SYSTEM, model)
        events: list[Event] = []
        agent.subscribe(events.append)
        task = asyncio.create_task(agent(Msg("User", QUESTION, "user")))
        await wait_for_event(agent, pieces(6), timeout=120)
        assert await agent.interrupt()
        record = await task
        partial = agent.memory.get(record.metadata["partial_msg_id"])
        assert partial is not None
        cut = partial.get_text_content() or ""
        assert cut and said.startswith(cut) and cut != said  # stopped mid-answer

        reply = await agent.resume()
    finally:
        await model.aclose()

    text = reply.get_text_content() or ""
    assert reply.metadata["continued_by"] == "assistant_prefix"
    assert reply.metadata["partial_chars"] == len(cut) and text.startswith(cut)
    new = text[len(cut) :]
    assert new.strip()
    # It goes on from the cut instead of starting over...
    assert not new.lstrip().startswith(cut.split()[0])
    # ...with the word the uninterrupted answer had next (greedy decoding; later words may
    # part where two tokens nearly tie, as the prompt is now read in one batch).
    assert words(new)[:1] == words(said[len(cut) :])[:1], (cut, new, said)
    assert [m.role for m in agent.memory.messages] == [
        "user",
        "assistant",
        "assistant",
        "assistant",
    ]
    assert_history_valid(agent.memory.messages)
