"""ScriptedModel: streams cumulative chunks at a set speed, tool calls, errors, exhaustion."""

from __future__ import annotations

import time

import pytest

from nb_hitl.exceptions import ConfigError, ScriptExhaustedError
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn


async def test_text_streams_cumulatively_and_records_prompt() -> None:
    model = ScriptedModel(["Hello there, friend."], tokens_per_second=1e6)
    prompt = [{"role": "user", "content": "hi"}]
    chunks = [c async for c in model(prompt, tools=None)]
    texts = [c.content[0].text for c in chunks]  # type: ignore[union-attr]
    assert texts == ["Hello", "Hello there,", "Hello there, friend.", "Hello there, friend."]
    assert chunks[-1].is_last and chunks[-1].usage is not None
    assert chunks[-1].usage.output_tokens == 3
    assert model.prompts == [prompt]


async def test_tokens_per_second_paces_the_stream() -> None:
    model = ScriptedModel([" ".join(["w"] * 20)], tokens_per_second=100)
    t0 = time.perf_counter()
    _ = [c async for c in model([])]
    # 20 tokens at 100/s: the schedule puts the last token at 0.2 s (never earlier)
    assert time.perf_counter() - t0 >= 0.19


async def test_tool_call_arguments_stream_then_parse() -> None:
    call = ScriptedToolCall("search", {"query": "long query text"}, id="c1")
    model = ScriptedModel([ScriptedTurn(text="ok", tool_calls=[call])], tokens_per_second=1e6)
    chunks = [c async for c in model([])]
    partial_raw = [c.content[-1].raw_input for c in chunks if c.content[-1].type == "tool_use"]
    assert partial_raw[0] == '{"query"'
    final = chunks[-1].content[-1]
    assert final.type == "tool_use"
    assert final.input == {"query": "long query text"} and final.raw_input is None


async def test_invalid_json_arguments_stay_raw() -> None:
    call = ScriptedToolCall("search", raw_arguments='{"query": ', id="c1")
    model = ScriptedModel([ScriptedTurn(tool_calls=[call])], tokens_per_second=1e6)
    chunks = [c async for c in model([])]
    final = chunks[-1].content[-1]
    assert final.type == "tool_use" and final.raw_input == '{"query": ' and final.input == {}


async def test_scripted_error_after_some_tokens() -> None:
    model = ScriptedModel(
        [ScriptedTurn(text="a b c d", error=RuntimeError("boom"), error_after_tokens=2)],
        tokens_per_second=1e6,
    )
    got = []
    with pytest.raises(RuntimeError, match="boom"):
        async for c in model([]):
            got.append(c.content[0].text)  # type: ignore[union-attr]
    assert got == ["a", "a b"]


async def test_exhausted_script_is_a_clear_error() -> None:
    model = ScriptedModel(["only one"], tokens_per_second=1e6)
    _ = [c async for c in model([])]
    with pytest.raises(ScriptExhaustedError, match="called 2 times but its script has only 1"):
        _ = [c async for c in model([])]


async def test_a_played_script_hands_further_calls_to_then() -> None:
    """A walkthrough's scripted agent stays in a panel after Run All: the reader's next
    message is answered (by the demo model here), not an error."""
    model = ScriptedModel(["scripted"], tokens_per_second=1e6, then=ScriptedModel.demo(1e6))
    first = [c async for c in model([{"role": "user", "content": "hi"}])]
    assert first[-1].content[0].text == "scripted"  # type: ignore[union-attr]
    question = [{"role": "user", "content": "What is steering?"}]
    later = [c async for c in model(question)]
    assert later[-1].content[0].text.startswith("Steering changes")  # type: ignore[union-attr]
    assert len(model.calls) == 2  # the model's own record holds both calls

    done = ScriptedModel([], tokens_per_second=1e6, then=lambda msgs, tools: "My script is done.")
    said = [c async for c in done([])]
    assert said[-1].content[0].text == "My script is done."  # type: ignore[union-attr]


async def test_responder_sync_and_async() -> None:
    model = ScriptedModel(responder=lambda msgs, tools: f"echo {msgs[-1]['content']}")
    chunks = [c async for c in model([{"role": "user", "content": "x"}])]
    assert chunks[-1].content[0].text == "echo x"  # type: ignore[union-attr]

    async def responder(msgs: list, tools: object) -> ScriptedTurn:
        return ScriptedTurn(text="async")

    chunks = [c async for c in ScriptedModel(responder=responder)([])]
    assert chunks[-1].content[0].text == "async"  # type: ignore[union-attr]


def test_bad_configuration_is_rejected() -> None:
    with pytest.raises(ConfigError, match="tokens_per_second"):
        ScriptedModel(["x"], tokens_per_second=0)
    with pytest.raises(ConfigError, match="either a script or a responder"):
        ScriptedModel(["x"], responder=lambda m, t: "y")
    with pytest.raises(ConfigError, match="scripted turn"):
        ScriptedModel([42])  # type: ignore[list-item]


async def test_closing_the_stream_early_stops_it() -> None:
    model = ScriptedModel([" ".join(["w"] * 1000)], tokens_per_second=1e6)
    gen = model([])
    first = await gen.__anext__()
    await gen.aclose()
    assert first.content[0].text == "w"  # type: ignore[union-attr]
    with pytest.raises(StopAsyncIteration):
        await gen.__anext__()
