"""The offline demo: tools and a responder that make ``ScriptedModel.demo()`` believable.

    agent = ReActAgent("Friday", "You are a helpful assistant.", ScriptedModel.demo(),
                       toolkit=demo_toolkit())

Whatever the question, the demo agent plans, searches its notes, runs a calculation, then
streams a long structured answer (long enough to press Stop in the middle). After an
interrupt it picks up where it left off.
"""

from __future__ import annotations

import asyncio
from typing import Any

from nb_hitl.message import Msg
from nb_hitl.tool import Toolkit

_NOTES = {
    "interrupt": "agent.interrupt() cancels the reply task; handle_interrupt() returns a "
    "message tagged _is_interrupted.",
    "memory": "Memory keeps the user's message, the partial reply, one tool result per tool "
    "call, and the interrupted message.",
    "compression": "When memory passes trigger_threshold tokens, older messages are folded "
    "into a summary; the last keep_recent messages stay verbatim.",
}


async def search_notes(query: str, limit: int = 3) -> str:
    """Search the project notes for a query.

    Args:
        query: words to look for.
        limit: the most notes to return.
    """
    await asyncio.sleep(0.3)
    words = {w.strip(".,?!").lower() for w in query.split()}
    hits = [text for key, text in _NOTES.items() if key in words] or list(_NOTES.values())
    return "\n".join(f"- {h}" for h in hits[:limit])


def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression with + - * / ( ) and numbers.

    Args:
        expression: for example "3 * (4 + 5)".
    """
    import time

    time.sleep(0.2)  # a slow, synchronous tool: it runs in a worker thread
    allowed = set("0123456789+-*/(). ")
    if not expression or set(expression) - allowed:
        raise ValueError("only numbers and + - * / ( ) are allowed")
    return str(eval(expression, {"__builtins__": {}}, {}))  # charset checked above


def demo_toolkit() -> Toolkit:
    """A toolkit with the demo's tools: ``search_notes`` (async) and ``calculate`` (sync)."""
    toolkit = Toolkit()
    toolkit.register_tool_function(search_notes)
    toolkit.register_tool_function(calculate)
    return toolkit


def long_task_transcript() -> list[Msg]:
    """A realistic long transcript (109 messages, 50 assistant turns, 48 tool calls).

    A data-analysis task, "why did weekly sign-ups drop?", with SQL, log, file and Python tool
    calls and results of very mixed lengths; walkthrough 03 explores compression on it.
    Regenerate it with ``python scripts/make_long_task.py``.
    """
    from importlib.resources import files

    from nb_hitl.message import MsgListAdapter

    raw = files("nb_hitl").joinpath("data/long_task.json").read_text(encoding="utf-8")
    return MsgListAdapter.validate_json(raw)


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            return str(m.get("content") or "")
    return ""


def _answer(question: str, resumed: bool) -> str:
    opener = (
        "Picking up where I left off. "
        if resumed
        else f'Here is a structured answer to "{question[:80]}". '
    )
    return (
        opener
        + "First, the reply runs as a background task, so the notebook stays responsive while "
        "text streams in. Second, pressing Stop calls agent.interrupt(), which cancels that task; "
        "the agent catches the cancellation and hands back a message marked as interrupted. "
        "Third, everything said so far stays in memory: your question, the partial reply, a "
        "result for every tool call, and the interrupted marker, so the history is still valid "
        "for the next model call. Fourth, to resume you simply send another message, and the "
        "agent continues with full context. Finally, when the conversation grows past the "
        "compression threshold, older turns are folded into a summary while the most recent "
        "messages stay verbatim. The calculation I ran confirms the arithmetic, and the notes "
        "I found agree with this explanation."
    )


def demo_responder(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> Any:
    """Compute the demo model's next turn from the prompt (never runs out)."""
    from nb_hitl.model import ScriptedToolCall, ScriptedTurn

    tool_names = {t["function"]["name"] for t in tools or []}
    question = _last_user_text(messages)
    # Tool results since the last user message tell where in the plan we are.
    since_user: list[dict[str, Any]] = []
    for m in reversed(messages):
        if m.get("role") == "user":
            break
        since_user.append(m)
    called = [
        c["function"]["name"]
        for m in since_user
        if m.get("role") == "assistant"
        for c in m.get("tool_calls", [])
    ]
    resumed = any("[Interrupted]" in str(m.get("content")) for m in messages[-6:])
    if "search_notes" in tool_names and "search_notes" not in called and not resumed:
        return ScriptedTurn(
            text="Let me check my notes first.",
            tool_calls=[ScriptedToolCall("search_notes", {"query": question[:200]})],
        )
    if "calculate" in tool_names and "calculate" not in called and not resumed:
        return ScriptedTurn(
            text="Now a quick calculation to check the numbers.",
            tool_calls=[ScriptedToolCall("calculate", {"expression": "3 * (4 + 5)"})],
        )
    return ScriptedTurn(text=_answer(question, resumed))


__all__ = [
    "calculate",
    "demo_responder",
    "demo_toolkit",
    "long_task_transcript",
    "search_notes",
]
