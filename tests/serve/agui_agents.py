"""Agents the server tests serve: a real ReActAgent on a ScriptedModel whose responder reads
the prompt, so a thread loaded by another worker (a fresh agent) answers exactly the same way.

- a user message containing ``approve`` -> the model calls ``write_note`` (needs approval);
- ``ask`` -> the model calls ``ask_user`` with one question (``Which colour?``: red / blue);
- ``long`` -> a long streamed answer (interrupt it);
- ``fail`` -> the model streams two words, then its stream breaks (``ModelStreamError``);
- ``lookup`` -> the model calls ``lookup`` (no approval; it takes 1.5 s: steer meanwhile);
- anything else -> a short answer quoting the last user message.
After a tool result the model answers with the result's text.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from nb_hitl.agent import ReActAgent, ask_user
from nb_hitl.exceptions import ModelStreamError
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit

LONG = " ".join(f"word{i}" for i in range(400))
NOTES: list[str] = []


def write_note(text: str) -> str:
    """Write a note.

    Args:
        text: what to write.
    """
    NOTES.append(text)
    return f"wrote {text!r}"


async def lookup(topic: str) -> str:
    """Look a topic up (slowly).

    Args:
        topic: what to look up.
    """
    await asyncio.sleep(1.5)
    return f"found {topic}"


def _content(m: dict[str, Any]) -> str:
    c = m.get("content")
    if isinstance(c, list):
        return " ".join(str(p.get("text", "")) for p in c if isinstance(p, dict))
    return str(c or "")


def responder(messages: list[dict[str, Any]], tools: Any) -> Any:
    last = messages[-1]
    if last.get("role") == "tool":
        return f"Done: {_content(last)}"
    users = [m for m in messages if m.get("role") == "user"]
    text = _content(users[-1]) if users else ""
    n = len(users)
    if "approve" in text:
        return ScriptedTurn(
            text="I will write it.",
            tool_calls=[ScriptedToolCall("write_note", {"text": f"note {n}"}, id=f"call_w{n}")],
        )
    if "ask" in text:
        q = {"question": "Which colour?", "options": ["red", "blue"]}
        return ScriptedTurn(
            tool_calls=[ScriptedToolCall("ask_user", {"questions": [q]}, id=f"call_q{n}")]
        )
    if "fail" in text:
        broken = ModelStreamError("the stream broke (scripted)")
        return ScriptedTurn(text="Partial words then more", error=broken, error_after_tokens=2)
    if "lookup" in text:
        return ScriptedTurn(
            text="Looking it up.",
            tool_calls=[ScriptedToolCall("lookup", {"topic": "t"}, id=f"call_l{n}")],
        )
    if "long" in text:
        return LONG
    return f"You said: {text}"


def make_agent(thread_id: str = "") -> ReActAgent:
    """A fresh agent for ``thread_id``; tokens/s from $NB_HITL_TEST_TPS (default 200)."""
    toolkit = Toolkit()
    toolkit.register_tool_function(write_note, needs_approval=True)
    toolkit.register_tool_function(ask_user)
    toolkit.register_tool_function(lookup)
    tps = float(os.environ.get("NB_HITL_TEST_TPS", "200"))
    model = ScriptedModel(responder=responder, tokens_per_second=tps)
    return ReActAgent("Friday", "You are Friday.", model, toolkit=toolkit)
