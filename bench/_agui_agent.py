"""The agent bench/agui_load.py serves: a ReActAgent on a ScriptedModel answering each message
with 80 words at 100 words/s (a reply takes ~0.8 s), one agent per thread."""

from __future__ import annotations

from typing import Any

from nb_hitl import ReActAgent, ScriptedModel

WORDS = 80


def _answer(messages: list[dict[str, Any]], tools: Any) -> str:
    users = sum(1 for m in messages if m.get("role") == "user")
    return " ".join(f"w{users}.{i}" for i in range(WORDS))


def make_agent() -> ReActAgent:
    model = ScriptedModel(responder=_answer, tokens_per_second=100)
    return ReActAgent("Friday", "You are a load-test agent.", model)
