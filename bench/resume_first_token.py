"""Benchmark: how soon a resumed answer goes on, against asking again from scratch.

An answer is interrupted after ``--cut`` streamed pieces; then, in the same run:

- **resume -> first new token**: ``await agent.resume()`` until the first streamed piece after
  the cut (the partial text is already on screen);
- **fresh -> first token**: the same question asked anew, until its first piece;
- **fresh -> same length**: that fresh reply until it has re-streamed as much text as the
  partial had (what starting over costs before the reader sees anything new).

Prints median and p99 of each and the ratio of the medians. Offline by default
(``ScriptedModel`` streaming at ``--tps`` tokens per second: the agent's own overhead plus the
streaming it saves); ``--real`` uses llama.cpp serving SmolLM2-135M
(``assistant_prefix="completions"``; its prompt processing is in every figure).

Usage::

    python bench/resume_first_token.py                 # offline, 40 trials
    python bench/resume_first_token.py --real --trials 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

# Agents print their replies to the console in scripts (as AgentScope's do); not here.
os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import pct

from nb_hitl.agent import ReActAgent
from nb_hitl.events import Event, MessageUpdated
from nb_hitl.message import Msg
from nb_hitl.model import ChatModelBase, OpenAIChatModel, ScriptedModel

SYSTEM = "You are a storyteller."
QUESTION = "Tell me a story about a lighthouse keeper."
ANSWER = " ".join(f"word{i}" for i in range(120))


def row(name: str, values: list[float]) -> str:
    return (
        f"{name:<34} median {statistics.median(values) * 1000:9.2f} ms   "
        f"p99 {pct(values, 0.99) * 1000:9.2f} ms   (n={len(values)})"
    )


async def first_update(
    agent: ReActAgent, start: Callable[[], Any], done: Callable[[MessageUpdated], bool]
) -> tuple[float, Any]:
    """Seconds from ``start()`` to the first ``MessageUpdated`` for which ``done`` holds."""
    loop = asyncio.get_running_loop()
    seen: asyncio.Future[float] = loop.create_future()

    def on(event: Event) -> None:
        if isinstance(event, MessageUpdated) and not seen.done() and done(event):
            seen.set_result(time.perf_counter())

    sub = agent.subscribe(on)
    began = time.perf_counter()
    task = asyncio.create_task(start())
    try:
        at = await asyncio.wait_for(seen, 300)
    finally:
        sub.close()
    return at - began, task


async def trial(make_model: Callable[[], ChatModelBase], cut: int) -> tuple[float, float, float]:
    model = make_model()
    agent = ReActAgent("Friday", SYSTEM, model)
    _, task = await first_update(
        agent, lambda: agent(Msg("User", QUESTION, "user")), lambda e: e.tokens >= cut
    )
    await agent.interrupt()
    record = await task
    partial = agent.memory.get(record.metadata["partial_msg_id"])
    length = len(partial.get_text_content() or "") if partial is not None else 0
    resume, task = await first_update(agent, agent.resume, lambda e: bool(e.delta))
    await agent.interrupt()
    await task

    fresh_agent = ReActAgent("Friday", SYSTEM, model)
    first, task = await first_update(
        fresh_agent, lambda: fresh_agent(Msg("User", QUESTION, "user")), lambda e: True
    )
    await fresh_agent.interrupt()
    await task
    fresh_agent = ReActAgent("Friday", SYSTEM, model)
    same, task = await first_update(
        fresh_agent,
        lambda: fresh_agent(Msg("User", QUESTION, "user")),
        lambda e: len(e.msg.get_text_content() or "") >= length if e.msg else False,
    )
    await fresh_agent.interrupt()
    await task
    close = getattr(model, "aclose", None)
    if close is not None:
        await close()
    return resume, first, same


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--cut", type=int, default=30, help="pieces streamed before Stop")
    parser.add_argument("--tps", type=float, default=50.0, help="offline streaming speed")
    parser.add_argument("--real", action="store_true", help="llama.cpp + SmolLM2 instead")
    args = parser.parse_args()
    server = None
    if args.real:
        from llama_server import LlamaServer, missing_reason

        reason = missing_reason()
        if reason:
            raise SystemExit(reason)
        server = LlamaServer().start()
        url = server.base_url

        def make_model() -> ChatModelBase:
            return OpenAIChatModel(
                "smollm2",
                base_url=url,
                timeout=300.0,
                assistant_prefix="completions",
                generate_kwargs={"max_tokens": args.cut + 20, "temperature": 0.0, "seed": 1},
            )

        label = "llama.cpp SmolLM2-135M, raw-completion prefix"
    else:

        def respond(messages: list[dict[str, Any]], tools: Any) -> str:
            last = messages[-1]  # an assistant prefix: the rest of the answer, as prefill does
            return ANSWER[len(last["content"]) :] if last["role"] == "assistant" else ANSWER

        def make_model() -> ChatModelBase:
            return ScriptedModel(responder=respond, tokens_per_second=args.tps)

        label = f"ScriptedModel at {args.tps:g} tokens/s, assistant prefix"
    resumes: list[float] = []
    firsts: list[float] = []
    sames: list[float] = []
    try:
        for _ in range(args.trials):
            resume, first, same = await trial(make_model, args.cut)
            resumes.append(resume)
            firsts.append(first)
            sames.append(same)
    finally:
        if server is not None:
            server.stop()
    print(f"{label}; Stop after {args.cut} pieces, {args.trials} trials")
    print(row("resume -> first new token", resumes))
    print(row("fresh reply -> first token", firsts))
    print(row("fresh reply -> same length", sames))
    resume, first, same = (statistics.median(v) for v in (resumes, firsts, sames))
    print(f"resume / fresh first token: {resume / first:.2f}x; ", end="")
    print(f"resume / fresh same length: {resume / same:.3f}x")


if __name__ == "__main__":
    asyncio.run(main())
