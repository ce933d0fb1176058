"""A recorded conversation made ready to replay: messages checked, counted once, calls found.

``prepare()`` accepts what people have at hand (a list of ``Msg``, a memory, an agent, a session
file), refuses what no agent could have sent (an orphan tool result, a repeated id, nothing to
replay) with the message number to fix, and counts every message once. Every replay of a sweep
shares one ``Prepared``.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from nb_hitl.exceptions import TranscriptError
from nb_hitl.memory import PINNED
from nb_hitl.message import MetaKey, Msg
from nb_hitl.token import MsgCount, TokenCounter

from .._summary import SUMMARIZE_PROMPT, summary_request
from ._policy import summary_settings

CLOSING_KEY = MetaKey.MAX_ITERS_REACHED
"""Metadata key of the closing answer the agent writes after ``max_iters`` (no tools sent)."""
_OVERHEAD: weakref.WeakKeyDictionary[TokenCounter, dict[tuple[str, str, str], int]] = (
    weakref.WeakKeyDictionary()
)
"""Summariser prompt overhead per counter and (instructions, schema): counted once."""


@dataclass
class Prepared:
    """A conversation ready to replay (shared by every replay of a sweep)."""

    msgs: list[Msg]
    ids: list[str]
    roles: list[str]
    names: list[str]
    entries: list[MsgCount]
    tokens: list[int]
    calls: list[int]
    """Indices of the messages written by a model call (the agent's assistant messages)."""
    closing: set[int]
    """Indices of closing answers after ``max_iters`` (sent without tools, never compressed)."""
    agent_name: str
    pinned: tuple[str, ...]
    counter: TokenCounter
    formatter: Any
    sys_prompt: str
    system_tokens: int
    """The system prompt's message plus the 3 reply-priming tokens."""
    tools_tokens: int
    closing_tokens: int
    """The extra user message of a closing answer."""

    def summary_tokens(self, text: str) -> int:
        """Tokens a summary text adds to the system message, counted as the agent's plan does."""
        sys_prompt = self.sys_prompt
        joined = f"{sys_prompt}\n\n{text}" if sys_prompt and text else (sys_prompt or text)
        counter, formatter = self.counter, self.formatter
        return counter.count_system(joined, formatter) - counter.count_system(sys_prompt, formatter)

    def summariser_overhead(self, instructions: str, schema: type[BaseModel]) -> int:
        """Tokens of the summariser's instructions and framing, transcript left out."""
        known = _OVERHEAD.setdefault(self.counter, {})
        key = (instructions, schema.__module__, schema.__qualname__)
        n = known.get(key)
        if n is None:
            prompt = self.formatter.format_sync(summary_request([], "", instructions, schema))
            n = known[key] = self.counter.count_sync(prompt)
        return n

    def summary_settings(self, config: Any) -> tuple[str, type[BaseModel], str]:
        """The compression prompt, schema and template to summarise with."""
        return summary_settings(config)


def default_formatter() -> Any:
    """The formatter a ``ReActAgent`` uses when given none."""
    from nb_hitl.formatter import OpenAIChatFormatter

    return OpenAIChatFormatter(plain_content=True)


def _from_source(source: Any) -> tuple[list[Msg], set[str], str | None, Any]:
    """(messages, pinned ids, system prompt or None, tool schemas or None) of ``source``."""
    if isinstance(source, (str, os.PathLike)):
        from nb_hitl.memory import InMemoryMemory
        from nb_hitl.session import read_session

        state = read_session(source)["agent"]["state"]
        loaded = InMemoryMemory()
        if state.get("memory"):
            loaded.load_state_dict(state["memory"])  # the memory's own reader: one format
        msgs, pinned, _, _ = _from_source(loaded)
        return msgs, pinned, state.get("sys_prompt"), None
    memory = getattr(source, "memory", None)
    if memory is not None and hasattr(memory, "messages"):  # an agent
        msgs, pinned, _, _ = _from_source(memory)
        toolkit = getattr(source, "toolkit", None)
        tools = toolkit.get_json_schemas() or None if toolkit is not None else None
        return msgs, pinned, getattr(source, "sys_prompt", None), tools
    if hasattr(source, "messages") and hasattr(source, "marks_of"):  # a memory
        msgs = list(source.messages)
        return msgs, {m.id for m in msgs if PINNED in source.marks_of(m.id)}, None, None
    if isinstance(source, Sequence) and not isinstance(source, (bytes, bytearray)):
        msgs = []
        for number, item in enumerate(source, start=1):
            if isinstance(item, Msg):
                msgs.append(item)
            elif isinstance(item, dict):
                msgs.append(Msg.from_dict(item))
            else:
                raise TranscriptError(
                    f"Message {number} is a {type(item).__name__}, not a Msg; give a list of "
                    "Msg (or their dicts), a memory, an agent or a session file's path."
                )
        return msgs, set(), None, None
    raise TranscriptError(
        f"Cannot replay {type(source).__name__}: give a list of Msg, an InMemoryMemory, an "
        "agent or a session file's path."
    )


def _check(msgs: list[Msg]) -> None:
    if not msgs:
        raise TranscriptError(
            "The conversation is empty: nothing to replay. Pass the agent's memory, a session "
            "file or a list of Msg with at least one user message and one assistant answer."
        )
    seen: dict[str, int] = {}
    calls: set[str] = set()
    for number, msg in enumerate(msgs, start=1):
        if msg.id in seen:
            raise TranscriptError(
                f"Messages {seen[msg.id]} and {number} have the same id {msg.id!r}; a replay "
                "needs each message once. Remove the duplicate."
            )
        seen[msg.id] = number
        if isinstance(msg.content, str):
            continue
        for block in msg.content:
            if block.type == "tool_use":
                calls.add(block.id)
            elif block.type == "tool_result" and block.id not in calls:
                raise TranscriptError(
                    f"Message {number} ({msg.id}) holds the result of tool call {block.id!r} "
                    f"({block.name}), but no earlier message makes that call: an orphan tool "
                    "result, which a chat API rejects (HTTP 400). Remove that message, or add "
                    "the assistant message with the call before it."
                )


def prepare(
    source: Any,
    *,
    counter: TokenCounter,
    sys_prompt: str | None = None,
    tools: Sequence[dict[str, Any]] | None = None,
    formatter: Any = None,
    pinned_ids: Iterable[str] = (),
) -> Prepared:
    """Check ``source``, count each message once, and find the model calls.

    Raises:
        TranscriptError: see ``replay_compression``.
    """
    msgs, pinned, source_prompt, source_tools = _from_source(source)
    _check(msgs)
    if formatter is None:
        formatter = getattr(source, "formatter", None) or default_formatter()
    answers = [m for m in msgs if m.role == "assistant" and not m.is_interrupted]
    if not answers:
        raise TranscriptError(
            f"The conversation ({len(msgs)} messages) has no assistant answer, so there is no "
            "model call to replay. Replay a memory after the agent has replied at least once."
        )
    agent_name = answers[-1].name
    calls = [
        j
        for j, m in enumerate(msgs)
        if m.role == "assistant" and m.name == agent_name and not m.is_interrupted
    ]
    closing = {j for j in calls if msgs[j].metadata.get(CLOSING_KEY)}
    entries = counter.msg_counts(msgs, formatter)
    prompt = (source_prompt or "") if sys_prompt is None else sys_prompt
    schemas = source_tools if tools is None else (list(tools) or None)

    return Prepared(
        msgs=msgs,
        ids=[m.id for m in msgs],
        roles=[m.role for m in msgs],
        names=[m.name for m in msgs],
        entries=entries,
        tokens=[e.tokens for e in entries],
        calls=calls,
        closing=closing,
        agent_name=agent_name,
        pinned=tuple(dict.fromkeys([*sorted(pinned), *pinned_ids])),
        counter=counter,
        formatter=formatter,
        sys_prompt=prompt,
        system_tokens=counter.count_system(prompt, formatter) + 3,
        tools_tokens=counter.count_tools(schemas),
        closing_tokens=counter.count_message({"role": "user", "content": SUMMARIZE_PROMPT}),
    )
