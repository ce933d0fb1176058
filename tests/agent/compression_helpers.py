"""Builders shared by the compression tests (imported by name; not fixtures)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.events import Event
from nb_hitl.message import Msg, TextBlock, ToolResultBlock, ToolUseBlock
from nb_hitl.model import ScriptedModel
from nb_hitl.token import TokenCounter

COUNTER = TokenCounter()  # one counter: the vocabulary loads once for the whole module


def user(text: str) -> Msg:
    return Msg("User", text, "user")


def said(text: str) -> Msg:
    return Msg("Friday", text, "assistant")


def tool_round(call_id: str, *results: str, text: str = "") -> list[Msg]:
    """An assistant message calling tools, then one result message per call."""
    ids = [f"{call_id}{i}" if len(results) > 1 else call_id for i in range(len(results))]
    calls = [ToolUseBlock(id=i, name="search_notes", input={"query": i}) for i in ids]
    blocks: list[Any] = [TextBlock(text=text)] if text else []
    out = [Msg("Friday", [*blocks, *calls], "assistant")]
    for i, output in zip(ids, results, strict=True):
        block = ToolResultBlock(id=i, name="search_notes", output=output)
        out.append(Msg("system", [block], "system"))
    return out


def facts(start: int, stop: int) -> list[Msg]:
    """User/assistant pairs each stating a code word."""
    out: list[Msg] = []
    for i in range(start, stop):
        out.append(user(f"Remember fact {i}: the code word is zebra{i}."))
        out.append(said(f"Noted: code word {i} is zebra{i}."))
    return out


def make(
    script: list[Any] | None = None,
    *,
    threshold: int = 200,
    keep_recent: int = 2,
    enable: bool = True,
    config: dict[str, Any] | None = None,
    tokens_per_second: float = 1e6,
    **agent_kwargs: Any,
) -> ReActAgent:
    """A ReActAgent on a ScriptedModel with compression configured."""
    settings: dict[str, Any] = {
        "enable": enable,
        "agent_token_counter": COUNTER,
        "trigger_threshold": threshold,
        "keep_recent": keep_recent,
    }
    cfg = CompressionConfig(**{**settings, **(config or {})})
    model = ScriptedModel(script or ["Done."], tokens_per_second=tokens_per_second)
    return ReActAgent(
        "Friday", "You are a test agent.", model, compression_config=cfg, **agent_kwargs
    )


def record(agent: ReActAgent) -> list[Event]:
    events: list[Event] = []
    agent.subscribe(events.append)
    return events


async def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.005)


def state(agent: ReActAgent) -> tuple[list[str], dict[str, list[str]], str]:
    """Memory as comparable data: ids, marks, summary."""
    messages, marks, summary = agent.memory.snapshot()
    return [m.id for m in messages], {k: sorted(v) for k, v in marks.items() if v}, summary
