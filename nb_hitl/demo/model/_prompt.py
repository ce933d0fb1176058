"""How the demo model reads its prompt: which question it is answering, and what happened since.

The prompt is what any chat model receives (formatted messages, no nb_hitl metadata), so the
demo model reads it as a real model would:

- a user message right after a tool result came in mid-reply: a **steer** (``agent.steer()``
  records it at a step boundary, where only tool results can come before it);
- a user message right after an interrupted reply that asks to continue or only says how
  ("shorter", "bullet points"): an **instruction** about the same question;
- any other user message: a new **question**, even right after an interrupt;
- an assistant message followed by the interrupt marker (``[Interrupted] ...``): the partial
  answer, cut where the person pressed Stop; a reply ended by ``stop_after_step()``
  (``[Stopped] ...``) reads as interrupted between two steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._topics import Topic, find_topic, generic_topic

INTERRUPT_MARK = "[Interrupted]"
STOP_MARK = "[Stopped]"
"""How ``stop_after_step()`` ends a reply: like an interrupt, between two steps."""

_CONTINUE = re.compile(
    r"\b(continue|continuing|go on|carry on|keep going|resume|left off|finish)\b", re.I
)
_LEADING_STOP = re.compile(r"^\s*(stop|wait|no)\b[\s.!,:;-]*", re.I)
_REFERS_BACK = re.compile(r"\b(it|that|this|again|same)\b", re.I)
_ASKS = re.compile(
    r"^\s*(how|what|why|when|where|which|who|does|do|is|are|can i|could i|should i)\b.*\?\s*$",
    re.I | re.S,
)
"""A question of its own ("How do I resume an answer?"), not an instruction to go on."""
_STYLES = (
    ("bullets", re.compile(r"\bbullet|\bpoints?\b|\blist\b", re.I)),
    ("line", re.compile(r"one[- ]line|one sentence|single sentence|tl;?dr|one-liner", re.I)),
    ("paragraph", re.compile(r"\bparagraph\b", re.I)),
    ("short", re.compile(r"short|brief|concise|quick|summari[sz]e|in a nutshell", re.I)),
)


def text_of(message: dict[str, Any]) -> str:
    """A formatted message's text (string content or the text of its content parts)."""
    content = message.get("content") or ""
    if isinstance(content, list):  # content parts (AgentScope's formatter output)
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


def style_of(text: str) -> str:
    """``bullets``, ``line``, ``paragraph``, ``short`` or ``""`` (as asked in ``text``)."""
    return next((name for name, pattern in _STYLES if pattern.search(text)), "")


def asks_to_continue(text: str) -> bool:
    """True when ``text`` asks to carry on with the answer ("Please continue.")."""
    return bool(_CONTINUE.search(text))


@dataclass
class Task:
    """The question being answered and what happened while answering it."""

    question: str
    topic: Topic
    steers: list[str] = field(default_factory=list)
    """Steering messages taken in mid-reply, oldest first."""
    instruction: str = ""
    """The newest instruction given after an interrupt ("Continue, but shorter.")."""
    continuing: bool = False
    """The newest user message asks to continue the interrupted answer."""
    partial: str = ""
    """The text of the newest interrupted answer turn ("" if none was cut)."""
    partial_had_calls: bool = False
    """That turn also asked for tool calls (it was cut in the tool phase)."""
    partial_index: int = -1
    """Where the partial answer is in the prompt (its turn was computed from what is before)."""
    turns_since_instruction: int = 0
    """Assistant turns given since ``instruction`` (0: the next turn is the first)."""
    results: dict[str, str] = field(default_factory=dict)
    """Tool name -> its latest result that really ran (interrupted ones are left out)."""
    answered_steers: int = 0
    """How many of ``steers`` an assistant turn came after (already acknowledged)."""
    answered: bool = False
    """A final answer (text, no tool calls, not interrupted) was given."""

    @property
    def style(self) -> str:
        """How the answer should look, as the newest steer or instruction asks."""
        for text in [self.instruction, *reversed(self.steers)]:
            if text and style_of(text):
                return style_of(text)
        return ""

    @property
    def focus(self) -> Topic:
        """The topic to talk about: the newest steer's, if it names one, else the question's."""
        for text in reversed(self.steers):
            topic = find_topic(text)
            if topic is not None:
                return topic
        return self.topic


def read_prompt(messages: list[dict[str, Any]]) -> Task | None:
    """Walk the conversation and return the task the next turn works on (None: no question)."""
    task: Task | None = None
    last = ""  # role of the newest non-user message: "tool", "assistant" or "interrupted"
    call_names: dict[str, str] = {}
    pending_text = ""
    pending_calls = False
    pending_index = -1
    for index, message in enumerate(messages):
        role = message.get("role")
        text = text_of(message)
        if role == "user":
            task = _on_user(task, text, last)
            if last != "tool":  # after a steer the reply goes on: still "tool"
                last = "user"
        elif role == "assistant":
            calls = message.get("tool_calls") or []
            if text.startswith((INTERRUPT_MARK, STOP_MARK)) and not calls:
                if task is not None and pending_text and last == "assistant":
                    task.partial, task.partial_had_calls = pending_text, pending_calls
                    task.partial_index = pending_index
                    task.answered = False
                last = "interrupted"
                continue
            for call in calls:
                call_names[str(call.get("id"))] = str(call.get("function", {}).get("name", ""))
            pending_text, pending_calls, pending_index = text, bool(calls), index
            if task is not None:
                task.answered_steers = len(task.steers)
                task.answered = not calls
                task.turns_since_instruction += 1
            last = "assistant"
        elif role == "tool":
            name = call_names.get(str(message.get("tool_call_id")), "")
            if task is not None and name and not text.startswith(INTERRUPT_MARK):
                task.results[name] = text
            last = "tool"
    return task


def _on_user(task: Task | None, text: str, last: str) -> Task:
    if task is not None and last == "tool":  # taken in at a step boundary: a steer
        task.steers.append(text)
        return task
    if task is not None and last == "interrupted":
        rest = _LEADING_STOP.sub("", text)
        own = find_topic(rest)
        own_question = bool(_ASKS.match(rest)) and own is not None
        if not own_question and (
            asks_to_continue(rest) or (style_of(rest) and own in (None, task.focus))
        ):
            task.instruction = text
            task.continuing = asks_to_continue(rest)
            task.turns_since_instruction = 0
            return task
    own = find_topic(text)
    if own is None and task is not None and _REFERS_BACK.search(text):
        own = task.focus  # "Explain it all again": the same topic
    return Task(text, own or generic_topic(text))


__all__ = ["INTERRUPT_MARK", "Task", "asks_to_continue", "read_prompt", "style_of", "text_of"]
