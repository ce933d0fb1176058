"""Benchmark OpenAIChatModel against a real local model (llama.cpp serving SmolLM2-135M).

Prints, as median and p99:
- time to first token (request sent -> first text chunk);
- generation speed (streamed chunks per second after the first; llama.cpp sends one per token);
- interrupt -> HTTP stream closed, through ``ReActAgent.interrupt()`` (the model's generator has
  closed the response), and interrupt -> ``agent()`` returned (memory bookkeeping included);
- the floor: the raw ``openai`` SDK stream closed by hand (``await stream.close()``), same run.

Usage::

    python bench/real_model.py                     # starts its own llama.cpp server
    python bench/real_model.py --base-url http://127.0.0.1:8000/v1 --model smollm2
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import time
from collections.abc import AsyncGenerator
from typing import Any

# Agents print their replies to the console in scripts (as AgentScope's do); not here.
os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")


import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from llama_server import MODEL_ALIAS, LlamaServer, missing_reason

from nb_hitl.agent import ReActAgent
from nb_hitl.events import Event, MessageUpdated
from nb_hitl.message import Msg
from nb_hitl.model import ChatModelBase, ChatResponse, OpenAIChatModel

STORY = "Tell me a very long story about a lighthouse keeper and a storm."


def summary(name: str, values: list[float], unit: str = "ms", scale: float = 1000.0) -> str:
    ordered = sorted(values)
    p99 = ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]
    return (
        f"{name:<44} median {statistics.median(ordered) * scale:8.2f} {unit}   "
        f"p99 {p99 * scale:8.2f} {unit}   (n={len(ordered)})"
    )


class ClosingTimer(ChatModelBase):
    """Wraps a model and records when its stream has been closed (the generator's cleanup)."""

    def __init__(self, inner: ChatModelBase) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.closed_at = 0.0

    def __call__(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        **kwargs: Any,
    ) -> AsyncGenerator[ChatResponse, None]:
        return self._run(self.inner(messages, tools, tool_choice, **kwargs))

    async def _run(
        self, stream: AsyncGenerator[ChatResponse, None]
    ) -> AsyncGenerator[ChatResponse, None]:
        try:
            async for chunk in stream:
                yield chunk
        finally:
            await stream.aclose()
            self.closed_at = time.perf_counter()


async def first_token_and_speed(
    model: OpenAIChatModel, runs: int
) -> tuple[list[float], list[float]]:
    ttfts: list[float] = []
    speeds: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        first = last = 0.0
        chunks = 0
        async for response in model([{"role": "user", "content": STORY}], max_tokens=128):
            if response.is_last or not response.content:
                continue
            now = time.perf_counter()
            if chunks == 0:
                first = now
            last = now
            chunks += 1
        ttfts.append(first - start)
        if chunks > 1:
            speeds.append((chunks - 1) / (last - first))
    return ttfts, speeds


async def agent_interrupts(
    model: OpenAIChatModel, runs: int, after: int
) -> tuple[list[float], ...]:
    timer = ClosingTimer(model)
    to_closed: list[float] = []
    to_returned: list[float] = []
    for _ in range(runs):
        agent = ReActAgent("Friday", "You are a storyteller.", timer)
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def handler(event: Event, ready: asyncio.Future[None] = ready) -> None:
            if isinstance(event, MessageUpdated) and event.tokens >= after and not ready.done():
                ready.set_result(None)

        agent.subscribe(handler)
        task = asyncio.create_task(agent(Msg("User", STORY, "user"), max_tokens=400))
        await asyncio.wait_for(ready, 60)
        start = time.perf_counter()
        await agent.interrupt()
        result = await task
        returned = time.perf_counter()
        assert result.is_interrupted
        to_closed.append(timer.closed_at - start)
        to_returned.append(returned - start)
    return to_closed, to_returned


async def raw_sdk_interrupts(base_url: str, model_name: str, runs: int, after: int) -> list[float]:
    import openai

    client = openai.AsyncOpenAI(api_key="no-key-needed", base_url=base_url, max_retries=0)
    latencies: list[float] = []
    try:
        for _ in range(runs):
            stream = await client.chat.completions.create(
                model=model_name,
                messages=[{"role": "user", "content": STORY}],
                stream=True,
                max_tokens=400,
            )
            seen = 0
            async for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    seen += 1
                if seen >= after:
                    break
            start = time.perf_counter()
            await stream.close()
            latencies.append(time.perf_counter() - start)
    finally:
        await client.close()
    return latencies


async def main(base_url: str, model_name: str, runs: int, interrupts: int, after: int) -> None:
    model = OpenAIChatModel(
        model_name, base_url=base_url, generate_kwargs={"temperature": 0.7, "seed": -1}
    )
    try:
        async for _ in model([{"role": "user", "content": "warm up"}], max_tokens=8):
            pass
        ttfts, speeds = await first_token_and_speed(model, runs)
        to_closed, to_returned = await agent_interrupts(model, interrupts, after)
    finally:
        await model.aclose()
    floor = await raw_sdk_interrupts(base_url, model_name, interrupts, after)
    print(f"server {base_url}, model {model_name!r}")
    print(summary("time to first token", ttfts))
    print(summary("generation speed (chunks/s ~ tokens/s)", speeds, "tok/s", 1.0))
    print(summary("interrupt -> HTTP stream closed (agent)", to_closed))
    print(summary("interrupt -> agent() returned", to_returned))
    print(summary("raw openai SDK stream.close() (floor)", floor))


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="an already running server (default: start one)")
    parser.add_argument("--model", default=MODEL_ALIAS)
    parser.add_argument("--runs", type=int, default=10, help="replies for first token and speed")
    parser.add_argument("--interrupts", type=int, default=30, help="interrupts to time (>= 20)")
    parser.add_argument("--after", type=int, default=8, help="streamed pieces before interrupting")
    args = parser.parse_args()
    if args.base_url:
        asyncio.run(main(args.base_url, args.model, args.runs, args.interrupts, args.after))
        return
    reason = missing_reason()
    if reason is not None:
        raise SystemExit(reason)
    with LlamaServer() as server:
        asyncio.run(main(server.base_url, args.model, args.runs, args.interrupts, args.after))


if __name__ == "__main__":
    cli()
