"""The demo model's responder: the plan ``ScriptedModel.demo()`` follows for any question.

Offline and deterministic, but it answers what it was asked (``_prompt`` reads the prompt,
``_topics`` holds what it knows):

- a question gets that topic's answer (or the generic one, echoing its words), after the tools
  that make sense for it: ``search_notes`` for every question, ``calculate`` when the question
  holds arithmetic or the topic has a figure to check;
- a steer taken in mid-reply is acknowledged in the very next sentence, and what comes after
  follows it (another topic, shorter, bullet points);
- a prompt ending in an assistant message (assistant-prefix continuation, what
  ``agent.resume()`` sends) is continued right after its last character, mid-sentence, never
  restarted; an instruction just before it ("shorter", "bullet points") shapes the rest;
- "Please continue." after an interrupt picks up at the sentence that was cut; a new
  question after an interrupt is simply answered.

``nb_hitl.demo.model`` sits in the model layer (it imports only ``nb_hitl.model``'s
continuation prompt) so that ``ScriptedModel.demo()`` needs nothing above it; ``nb_hitl.demo``
(the demo's tools and transcript) re-exports it.
"""

from __future__ import annotations

import re
from typing import Any

# The module, not the package: nb_hitl.model's __init__ imports ScriptedModel, whose demo()
# imports this responder (a loop in the import graph).
from nb_hitl.model._continuation import parse_continuation_prompt

from ._prompt import (
    INTERRUPT_MARK,
    STOP_MARK,
    Task,
    asks_to_continue,
    read_prompt,
    style_of,
    text_of,
)
from ._topics import Topic, arithmetic, find_topic, generic_topic

PICK_UP = "Picking up where I left off: "
INTRODUCTION = (
    "Hello! I am the offline demo model, and I answer with a steady stream of text so you can "
    "watch an agent being interrupted and resumed. While this sentence is still arriving, the "
    "reply runs as a background task of its own, and agent.interrupt() (the Stop button) "
    "cancels exactly that task. The words streamed so far stay in memory as a partial "
    "message, followed by a message marked as interrupted. Send a new message to the same "
    "agent, or call agent.resume(), and the answer picks up from its memory. Ask me anything "
    "about interrupting, resuming, steering, approvals or memory compression."
)
"""The answer to a call with no question (``agent()``): long enough, at the default 25 tokens
per second, that the seed's ``agent()``, ``sleep(1)``, ``interrupt()`` still finds it running."""
ENDED_MARKS = (INTERRUPT_MARK, STOP_MARK)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


def demo_responder(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """Compute the demo model's next turn from the prompt (never runs out).

    Returns:
        The turn as a dict of ``ScriptedTurn`` fields (so this module needs no model import).
    """
    names = {t["function"]["name"] for t in tools or []}
    last = messages[-1] if messages else {}
    if last.get("role") == "assistant" and not text_of(last).startswith(ENDED_MARKS):
        return _continue_prefix(messages, names)
    asked = parse_continuation_prompt(text_of(messages[-1])) if messages else None
    if asked is not None:  # the prompt form of agent.resume(): the partial is quoted
        tries = [(list(messages[:-1]), asked.instruction or "")]
        return _continue(tries, asked.partial, names)
    return _turn(messages, names)


def _turn(messages: list[dict[str, Any]], tools: set[str]) -> dict[str, Any]:
    rest = _introduction_rest(messages)
    if rest is not None:
        return {"text": PICK_UP + rest}
    task = read_prompt(messages)
    if task is None:
        return {"text": INTRODUCTION}
    if messages and text_of(messages[-1]).startswith(ENDED_MARKS):
        task.continuing, task.turns_since_instruction = True, 0  # resume() after a stop
    opener = _acknowledge(task)
    first_after_continue = task.continuing and task.turns_since_instruction == 0
    if first_after_continue and task.partial and not task.partial_had_calls:
        rest = _pick_up(messages, tools, task)
        if rest:  # else the cut turn was a step before the answer: take the plan up again
            return {"text": opener + PICK_UP + rest}
    if first_after_continue:
        opener = PICK_UP.replace(": ", ". ") + opener
    if not task.instruction or task.continuing:  # "just the one-line version" needs no tools
        plan = _next_tool(task, tools)
        if plan is not None:
            text, call = plan
            return {"text": opener + text, "tool_calls": [call]}
    return {"text": opener + _styled(_sentences(task), task.focus, task.style)}


def _introduction_rest(messages: list[dict[str, Any]]) -> str | None:
    """After an interrupted introduction, "Please continue": the introduction from the sentence
    that was cut (None for any other prompt)."""
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if len(users) != 1 or users[0] != len(messages) - 1:
        return None
    if not asks_to_continue(text_of(messages[-1])):
        return None
    said = [
        text_of(m)
        for m in messages
        if m.get("role") == "assistant" and not text_of(m).startswith(ENDED_MARKS)
    ]
    if len(said) != 1 or not said[0] or not INTRODUCTION.startswith(said[0]):
        return None
    boundary = max((m.end() for m in _SENTENCE_END.finditer(said[0])), default=0)
    return INTRODUCTION[boundary:].strip()


def _next_tool(task: Task, tools: set[str]) -> tuple[str, dict[str, Any]] | None:
    if "search_notes" in tools and "search_notes" not in task.results:
        query = " ".join([task.question, *task.steers])[:200]
        return "Let me check my notes first.", {"name": "search_notes", "input": {"query": query}}
    expression = _expression(task)
    if expression and "calculate" in tools and "calculate" not in task.results:
        call = {"name": "calculate", "input": {"expression": expression}}
        return "Now a quick calculation to check the numbers.", call
    return None


def _expression(task: Task) -> str | None:
    asked = arithmetic(task.question)
    if asked:
        return asked
    calculation = task.focus.calculation
    return calculation[0] if calculation else None


def _acknowledge(task: Task) -> str:
    """The first sentence of a turn right after a steer: it says how the steer is taken."""
    if len(task.steers) <= task.answered_steers:
        return ""
    steer = _quote(task.steers[-1])
    topic, style = find_topic(task.steers[-1]), style_of(task.steers[-1])
    if topic is not None and topic is not task.topic:
        return f'You steered me ("{steer}"), so I will talk about {topic.name} instead. '
    if style:
        how = {
            "bullets": "so the answer comes in bullet points",
            "line": "so the answer is one line",
            "paragraph": "so the answer is one short paragraph",
            "short": "so I will keep it short",
        }[style]
        return f'Noted: "{steer}", {how}. '
    return f'Noted: "{steer}". I will keep that in mind for the rest of this answer. '


def _sentences(task: Task) -> list[str]:
    """The answer's sentences: the topic's, with what the tools found woven in."""
    topic = task.focus
    body = list(topic.sentences)
    found: list[str] = []
    notes = task.results.get("search_notes", "").strip()
    lines = [ln.lstrip("-* ").strip() for ln in notes.splitlines() if ln.strip()]
    relevant = [ln for ln in lines if find_topic(ln) is topic]
    if relevant or (lines and topic.stems):
        found.append(f'My notes agree: "{_quote((relevant or lines)[0], 160)}"')
    elif lines:
        found.append(f"My notes have nothing specific on {topic.name}.")
    result = task.results.get("calculate", "").strip()
    asked = arithmetic(task.question)
    if result and asked:
        found.append(f"You asked for {asked}: the calculate tool says it is {result}.")
    elif result and topic.calculation:
        found.append(topic.calculation[1].format(result=result))
    plain = [s for s in task.steers if find_topic(s) is None and not style_of(s)]
    if plain and task.answered_steers == len(task.steers) and not _acknowledge(task):
        found.append(f'As you asked ("{_quote(plain[-1])}"), I kept that in mind.')
    return body[:2] + found + body[2:]


def _styled(sentences: list[str], topic: Topic, style: str) -> str:
    """``sentences`` in the asked style: all of them, shorter, one line, or bullet points."""
    if style == "short":
        return " ".join([*sentences[:1], _in_short(topic)])
    if style == "line":
        return topic.summary
    if style == "paragraph":
        return " ".join(sentences[:3])
    if style == "bullets":
        return "The key points:\n" + "\n".join(f"- {p}" for p in sentences[:5])
    return " ".join(sentences)


def _in_short(topic: Topic) -> str:
    return "In short: " + topic.summary


def _split_at_cut(full: str, said: str) -> tuple[str, list[str]]:
    """After ``said`` (a prefix of ``full``): the rest of its sentence and the sentences after."""
    rest = full[len(said) :]
    if not said.strip() or said.rstrip()[-1:] in ".!?" or said.endswith("\n"):
        return "", _split(rest)
    end = _SENTENCE_END.search(rest)
    stop = end.end() if end is not None else len(rest)
    return rest[:stop], _split(rest[stop:])


def _split(text: str) -> list[str]:
    out, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        piece = text[start : end.end()].strip()
        if piece:
            out.append(piece)
        start = end.end()
    tail = text[start:].strip()
    return [*out, tail] if tail else out


def _pick_up(messages: list[dict[str, Any]], tools: set[str], task: Task) -> str:
    """A new message continuing the cut answer, from the start of the sentence that was cut
    ("" when the cut turn was a step that calls a tool, not the answer)."""
    cut = _turn(messages[: task.partial_index], tools)
    if cut.get("tool_calls"):
        return ""
    full, said = str(cut.get("text", "")), task.partial
    if not full.startswith(said):  # not an answer of ours: go on with what was not said yet
        left = [s for s in task.focus.sentences if s not in said] or [task.focus.summary]
        return _styled(left, task.focus, task.style)
    boundary = max((m.end() for m in _SENTENCE_END.finditer(said)), default=0)
    return _styled(_split(full[boundary:]), task.focus, task.style)


def _continue_prefix(messages: list[dict[str, Any]], tools: set[str]) -> dict[str, Any]:
    """The rest of the assistant message the prompt ends with, from its last character
    (assistant-prefix continuation: an instruction may be the user message before it)."""
    said = text_of(messages[-1])
    body = list(messages[:-1])
    while (
        body
        and body[-1].get("role") == "assistant"
        and (text_of(body[-1]).startswith(INTERRUPT_MARK) or text_of(body[-1]) == said)
    ):
        body.pop()  # the interrupt record and the partial itself, if the prompt kept them
    tries: list[tuple[list[dict[str, Any]], str]] = []
    if body and body[-1].get("role") == "user":
        tries.append((body[:-1], text_of(body[-1])))  # an instruction right before the prefix
    tries.append((body, ""))
    return _continue(tries, said, tools)


def _continue(
    tries: list[tuple[list[dict[str, Any]], str]], said: str, tools: set[str]
) -> dict[str, Any]:
    """The rest of ``said``: the first (context, instruction) whose turn ``said`` begins."""
    for context, instruction in tries:
        turn = _turn(context, tools)
        full = str(turn.get("text", ""))
        if full.startswith(said) and (len(full) > len(said) or turn.get("tool_calls")):
            return _rest(turn, said, instruction, read_prompt(context))
    task = read_prompt(tries[-1][0])
    topic = task.focus if task is not None else generic_topic(said)
    left = [s for s in topic.sentences if s not in said] or [topic.summary]
    joiner = "" if said.endswith((" ", "\n")) or not said else " "
    return {"text": joiner + _styled(left, topic, style_of(tries[0][1]))}


def _rest(turn: dict[str, Any], said: str, instruction: str, task: Task | None) -> dict[str, Any]:
    """``turn``'s text after ``said``; an instruction's style shapes what follows the cut
    sentence (which is always finished first, so the seam reads as one answer)."""
    full = str(turn.get("text", ""))
    calls = turn.get("tool_calls") or []
    style = style_of(instruction)
    if not style or calls or task is None:
        return {"text": full[len(said) :], "tool_calls": calls}
    finish, after = _split_at_cut(full, said)
    space = "" if (finish or said).endswith((" ", "\n")) else " "
    if not after:
        return {"text": finish}
    if style in ("short", "line"):
        return {"text": finish + space + _in_short(task.focus)}
    if style == "paragraph":
        return {"text": finish + space + after[0]}
    if style == "bullets":
        listed = "\n".join(f"- {p}" for p in after[:5])
        return {"text": finish + "\n\nThe rest in bullet points:\n" + listed}
    return {"text": finish + space + " ".join(after)}


def _quote(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split()).replace('"', "'")
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


__all__ = ["demo_responder"]
