"""OpenAIChatModel continues a partial answer in each server's request shape (agent.resume())."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, Scenario, Sse, Status, text_chunks

from nb_hitl.agent import ReActAgent
from nb_hitl.events import MessageUpdated
from nb_hitl.exceptions import ConfigError
from nb_hitl.message import Msg
from nb_hitl.model import OpenAIChatModel
from nb_hitl.model._continuation import parse_continuation_prompt
from nb_hitl.model._openai_prefix import (
    chatml,
    check_prefix_style,
    completion_as_chat,
    completion_request,
)
from nb_hitl.testing import assert_history_valid, wait_for_event

MakeModel = Callable[..., OpenAIChatModel]
PREFIXED = [
    {"role": "user", "content": "Tell me about lighthouses."},
    {"role": "assistant", "content": "The first lighthouse was"},
]


async def drain(model: OpenAIChatModel, messages: list[dict[str, Any]], **kwargs: Any) -> str:
    last = None
    async for chunk in model(messages, **kwargs):
        last = chunk
    assert last is not None
    return "".join(b.text for b in last.content if b.type == "text")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("style", "fields", "last_extra"),
    [
        (
            "continue_final_message",
            {"continue_final_message": True, "add_generation_prompt": False},
            {},
        ),
        ("prefix", {}, {"prefix": True}),
        ("partial", {}, {"partial": True}),
        ("plain", {}, {}),
    ],
)
async def test_each_style_sends_its_request_shape(
    fake_server: FakeOpenAIServer,
    make_model: MakeModel,
    style: str,
    fields: dict[str, Any],
    last_extra: dict[str, Any],
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks([" built", " in Egypt."]))]))
    model = make_model(name, assistant_prefix=style)
    assert model.supports_assistant_prefix and model.continuation_mode == "assistant_prefix"
    assert await drain(model, PREFIXED, continue_final_message=True) == " built in Egypt."
    body = fake_server.requests_for(name)[0].body
    for key, value in fields.items():
        assert body[key] == value
    assert body["messages"][-1] == {**PREFIXED[-1], **last_extra}
    assert "continue_final_message" not in body or style == "continue_final_message"


async def test_without_the_continue_flag_a_request_is_unchanged(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["ok"]))]))
    await drain(make_model(name, assistant_prefix="prefix"), PREFIXED)
    body = fake_server.requests_for(name)[0].body
    assert body["messages"][-1] == PREFIXED[-1] and "continue_final_message" not in body


def test_auto_knows_the_hosts_that_take_a_prefix_and_refuses_unknown_styles() -> None:
    assert check_prefix_style("auto", "https://api.deepseek.com/beta") == "prefix"
    assert check_prefix_style("auto", "https://api.deepseek.com/v1") is None  # beta only
    assert check_prefix_style("auto", "https://api.mistral.ai/v1") == "prefix"
    assert check_prefix_style("auto", "https://dashscope.aliyuncs.com/compatible-mode/v1") == (
        "partial"
    )
    assert check_prefix_style("auto", "https://api.openai.com/v1") is None
    assert check_prefix_style("auto", "http://127.0.0.1:8000/v1") is None
    with pytest.raises(ConfigError, match="request shape"):
        check_prefix_style("prefill", "http://127.0.0.1:8000/v1")
    plain = OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1")
    assert plain.assistant_prefix is None and plain.continuation_mode == "prompt"


def test_chatml_leaves_the_last_message_open_for_a_raw_completion() -> None:
    prompt = chatml([{"role": "system", "content": "Be brief."}, *PREFIXED])
    assert prompt == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        "<|im_start|>user\nTell me about lighthouses.<|im_end|>\n"
        "<|im_start|>assistant\nThe first lighthouse was"
    )
    request = completion_request(
        {"model": "m", "messages": PREFIXED, "max_tokens": 8, "tools": [], "stream": True},
        chatml,
    )
    assert request == {
        "model": "m",
        "prompt": chatml(PREFIXED),
        "max_tokens": 8,
        "stream": True,
        "stop": ["<|im_end|>"],
    }
    chunk = {"id": "c", "choices": [{"index": 0, "text": " built", "finish_reason": None}]}
    assert completion_as_chat(chunk)["choices"][0]["delta"] == {"content": " built"}


STORY = " ".join(f"word{i}" for i in range(60))


@pytest.mark.parametrize(
    ("style", "refusal"),  # completions: the fake server has no /v1/completions (404)
    [
        ("continue_final_message", Status(400, "continue_final_message is not supported")),
        ("completions", None),
    ],
)
async def test_a_server_that_refuses_the_prefix_is_asked_with_the_prompt_once(
    fake_server: FakeOpenAIServer, make_model: MakeModel, style: str, refusal: Status | None
) -> None:
    answers: list[Any] = [Sse(text_chunks(STORY.split(" ")), delay=0.02)]
    if refusal is not None:
        answers.append(refusal)
    answers.append(Sse(text_chunks([" and", " the", " end."])))
    name = fake_server.add(Scenario(answers))
    model = make_model(name, assistant_prefix=style, max_retries=0)
    agent = ReActAgent("Friday", "You tell stories.", model)
    task = asyncio.create_task(agent(Msg("User", "A story, please.", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated) and e.tokens >= 4)
    await agent.interrupt()
    record = await task
    cut = agent.memory.get(record.metadata["partial_msg_id"]).get_text_content()  # type: ignore[union-attr]

    reply = await agent.resume()

    assert reply.get_text_content() == f"{cut} and the end."
    assert reply.metadata["continued_by"] == "prompt"
    assert "refused the assistant-prefix request" in reply.metadata["continuation_note"]
    assert model.assistant_prefix_refused and model.continuation_mode == "prompt"
    requests = fake_server.requests_for(name)
    if style == "completions":
        assert requests[1].path.endswith("/completions") and "prompt" in requests[1].body
    else:
        assert requests[1].body["continue_final_message"] is True
    last = requests[-1].body["messages"][-1]
    request = parse_continuation_prompt(last["content"])
    assert last["role"] == "user" and request is not None and request.partial == cut
    assert_history_valid(agent.memory.messages)
