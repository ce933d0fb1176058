"""Continuing a partial answer: the two request forms a model can be asked in.

An interrupted answer is continued (``agent.resume()``) in one of two ways:

- **assistant prefix** (``continued_by == "assistant_prefix"``): the formatted messages end with
  ``{"role": "assistant", "content": <partial text exactly as streamed>}`` and the model
  returns only the rest, as servers with prefill do (vLLM's ``continue_final_message``,
  llama.cpp's assistant prefill, DeepSeek's and Mistral's ``prefix``, DashScope's
  ``partial``...). A model says it can with ``ChatModelBase.supports_assistant_prefix``; the
  agent then passes ``continue_final_message=True`` with the call.
- **continuation prompt** (``continued_by == "prompt"``, any model): the last message is a
  user message, built by ``continuation_prompt()``, that quotes the partial text and asks for
  the rest. ``parse_continuation_prompt()`` recognises one (a scripted responder, a replay
  or a widget can tell it from a question).

Either way ``join_continuation()`` joins partial and continuation, dropping a repeat of the
partial text when a model started over anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from nb_hitl.message import TextBlock

CONTINUE_KWARG = "continue_final_message"
"""The keyword the agent passes to a model call whose last message is a prefix to continue."""

_OPEN = "<partial_answer>"
_CLOSE = "</partial_answer>"
_HEAD = (
    "Your previous answer was interrupted before it was finished. Here it is, exactly as far "
    "as it got:"
)
_TAIL = (
    "Continue it from exactly where it stops (mid-sentence or mid-word if it stops there). "
    "Reply with only the rest: do not repeat any of it, do not start over, do not comment."
)
_INSTRUCTION = "While you continue, follow this instruction:"
_PROMPT_RE = re.compile(
    re.escape(_HEAD)
    + r"\n"
    + re.escape(_OPEN)
    + r"\n(?P<partial>.*)\n"
    + re.escape(_CLOSE)
    + r"\n(?:"
    + re.escape(_INSTRUCTION)
    + r" (?P<instruction>.*)\n)?"
    + re.escape(_TAIL)
    + r"\Z",
    re.DOTALL,
)


@dataclass(frozen=True)
class ContinuationRequest:
    """What a continuation prompt asks for."""

    partial: str
    """The partial answer, exactly as it was streamed."""
    instruction: str | None = None
    """How to go on ("continue, but shorter"), if the person gave an instruction."""


def continuation_prompt(partial: str, instruction: str | None = None) -> str:
    """The user message of the prompt form: quotes ``partial`` and asks for the rest."""
    parts = [_HEAD, _OPEN, partial, _CLOSE]
    if instruction and instruction.strip():
        parts.append(f"{_INSTRUCTION} {' '.join(instruction.split())}")
    parts.append(_TAIL)
    return "\n".join(parts)


def parse_continuation_prompt(text: Any) -> ContinuationRequest | None:
    """The request in a continuation prompt, or ``None`` when ``text`` is not one."""
    if not isinstance(text, str):
        return None
    found = _PROMPT_RE.match(text)
    if found is None:
        return None
    return ContinuationRequest(found.group("partial"), found.group("instruction"))


def join_continuation(partial: str, continuation: str, *, drop_repeat: bool = True) -> str:
    """``partial`` followed by ``continuation``; the result always starts with ``partial``.

    A model asked to continue sometimes starts over (a server that ignores the prefill, or the
    prompt form): with ``drop_repeat`` (the default), when ``continuation`` begins with the
    whole partial text (at least ``MIN_REPEAT`` characters of it, so that a short partial is
    never mistaken for a repeat), that repeat is dropped and the answer reads once.
    """
    stripped = partial.rstrip()
    if drop_repeat and len(stripped) >= MIN_REPEAT:
        body = continuation.lstrip()
        if body.startswith(stripped):
            rest = body[len(stripped) :]
            return partial + (rest.lstrip() if stripped != partial else rest)
    return partial + continuation


MIN_REPEAT = 12
"""Shortest partial text ``join_continuation`` treats as repeated by the model."""


def continuation_blocks(prefix: str, blocks: list[Any], *, complete: bool) -> list[Any]:
    """A continuation's response blocks with its text put after ``prefix`` (one text block;
    thinking first, tool calls after), as the agent shows and records the continued answer.

    While the text so far could still be the start of a repeat of ``prefix`` (a model that
    started over), only ``prefix`` shows, so the shown text only ever grows; once it is clear
    (or ``complete``), ``join_continuation`` decides.
    """
    texts = [b for b in blocks if isinstance(b, TextBlock)]
    rest = "".join(b.text for b in texts)
    if not complete and prefix.rstrip().startswith(rest.lstrip()):
        joined = prefix
    else:
        joined = join_continuation(prefix, rest)
    others = [b for b in blocks if not isinstance(b, TextBlock)]
    thinking = [b for b in others if b.type == "thinking"]
    calls = [b for b in others if b.type != "thinking"]
    return [*thinking, TextBlock(text=joined), *calls]


__all__ = [
    "CONTINUE_KWARG",
    "MIN_REPEAT",
    "ContinuationRequest",
    "continuation_blocks",
    "continuation_prompt",
    "join_continuation",
    "parse_continuation_prompt",
]
