"""The demo model's responder: the plan ``ScriptedModel.demo()`` follows for any question.

It lives in the model layer so that ``ScriptedModel.demo()`` needs nothing above it;
``nb_hitl.demo`` (the demo's tools and transcript) re-exports it.
"""

from __future__ import annotations

from typing import Any


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            content = m.get("content") or ""
            if isinstance(content, list):  # content parts (AgentScope's formatter output)
                return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content)
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


def demo_responder(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """Compute the demo model's next turn from the prompt (never runs out).

    Returns:
        The turn as a dict of ``ScriptedTurn`` fields (so this module needs no model import).
    """
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
        return {
            "text": "Let me check my notes first.",
            "tool_calls": [{"name": "search_notes", "input": {"query": question[:200]}}],
        }
    if "calculate" in tool_names and "calculate" not in called and not resumed:
        return {
            "text": "Now a quick calculation to check the numbers.",
            "tool_calls": [{"name": "calculate", "input": {"expression": "3 * (4 + 5)"}}],
        }
    return {"text": _answer(question, resumed)}


__all__ = ["demo_responder"]
