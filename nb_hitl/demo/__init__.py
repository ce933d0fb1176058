"""The offline demo: tools and a responder that make ``ScriptedModel.demo()`` believable.

    agent = ReActAgent("Friday", "You are a helpful assistant.", ScriptedModel.demo(),
                       toolkit=demo_toolkit())

The demo agent answers what it is asked: it searches its notes (and runs a calculation where
the question has a figure to check), then streams a multi-sentence answer on the question's
topic, long enough to press Stop in the middle. It takes a steer into its next sentence,
continues an interrupted answer from the cut (``agent.resume()``), and follows an instruction
such as "shorter" (see ``nb_hitl.demo.model``).

``DemoServer().start()`` serves the same answers over OpenAI's chat-completions protocol on
127.0.0.1 (no key, nothing leaves the machine), so ``OpenAIChatModel`` can stream from a real
HTTP server in a walkthrough: ``demo-storyteller`` answers, ``demo-broken`` drops the
connection mid-answer.

The package: ``model/`` the demo model's responder (model layer: ``ScriptedModel.demo()``
imports it), ``_server.py`` ``DemoServer``, ``remote.py`` the demo AG-UI servers of
walkthrough 07 (a LangGraph graph and an nb_hitl agent, ``python -m nb_hitl.demo.remote``;
``nb_hitl.demo_remote`` is its old address), and here the demo's tools and transcripts.
It may import anything in nb_hitl; nothing but ``ScriptedModel.demo()`` imports it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from nb_hitl.message import Msg
from nb_hitl.tool import Toolkit

from ._server import DemoServer
from .model import demo_responder

_NOTES = {
    "interrupt": "agent.interrupt() cancels the reply task; handle_interrupt() returns a "
    "message tagged _is_interrupted.",
    "resum": "agent.resume() continues the partial answer from where it was cut; "
    "metadata['continued_by'] says how.",
    "continu": "agent.resume() continues the partial answer from where it was cut; "
    "metadata['continued_by'] says how.",
    "steer": "agent.steer(msg) is taken in at the next step boundary, marked _steered; "
    "nothing is cancelled.",
    "memor": "Memory keeps the user's message, the partial reply, one tool result per tool "
    "call, and the interrupted message.",
    "compress": "When memory passes trigger_threshold tokens, older messages are folded "
    "into a summary; the last keep_recent messages stay verbatim.",
    "tool": "Every tool call gets exactly one result; calls that never started are closed as "
    "not run.",
}


async def search_notes(query: str, limit: int = 3) -> str:
    """Search the project notes for a query.

    Args:
        query: words to look for.
        limit: the most notes to return.
    """
    await asyncio.sleep(0.3)
    words = [w.strip(".,?!\"'()").lower() for w in query.split()]
    hits = list(
        dict.fromkeys(text for key, text in _NOTES.items() if any(w.startswith(key) for w in words))
    ) or list(dict.fromkeys(_NOTES.values()))
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


def rerun_transcript(msgs: list[Msg]) -> tuple[Any, Toolkit, list[Msg]]:
    """A scripted model, tools and questions that make an agent live ``msgs`` again.

    The model answers with the recorded assistant turns (text and tool calls, same call ids)
    and the tools return the recorded results in order, so ``await agent(q)`` for each
    question rebuilds the conversation message for message, now under the agent's own
    compression setting. Walkthrough 03 uses it to check a replay's prediction live.

    Returns:
        ``(model, toolkit, questions)``: name the agent like the transcript's assistant.
    """
    from collections import deque

    from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn

    turns: list[Any] = [
        ScriptedTurn(
            text=m.get_text_content() or "",
            tool_calls=[
                ScriptedToolCall(b.name, dict(b.input), id=b.id)
                for b in m.get_content_blocks("tool_use")
            ],
        )
        for m in msgs
        if m.role == "assistant"
    ]
    results: dict[str, deque[str]] = {}
    for m in msgs:
        for b in m.get_content_blocks("tool_result"):
            results.setdefault(b.name, deque()).append(b.output_text())

    def recorded(name: str) -> str:
        queue = results.get(name)
        return queue.popleft() if queue else f"(no recorded result left for {name})"

    def sql_query(sql: str) -> str:
        """Run a read-only SQL query on the analytics warehouse.

        Args:
            sql: the query.
        """
        return recorded("sql_query")

    def search_logs(query: str, hours: int = 24) -> str:
        """Search the application logs.

        Args:
            query: words or a pattern to look for.
            hours: how far back to search.
        """
        return recorded("search_logs")

    def read_file(path: str) -> str:
        """Read a file from the analysis workspace.

        Args:
            path: the file's path.
        """
        return recorded("read_file")

    def run_python(code: str) -> str:
        """Run Python code in the analysis sandbox and return its output.

        Args:
            code: the code to run.
        """
        return recorded("run_python")

    toolkit = Toolkit()
    for tool in (sql_query, search_logs, read_file, run_python):
        toolkit.register_tool_function(tool)
    questions = [m for m in msgs if m.role == "user"]
    return ScriptedModel(turns, tokens_per_second=1e6), toolkit, questions


__all__ = [
    "DemoServer",
    "calculate",
    "demo_responder",
    "demo_toolkit",
    "long_task_transcript",
    "rerun_transcript",
    "search_notes",
]
