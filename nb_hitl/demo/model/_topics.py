"""What the demo model knows: a few topics, each a multi-sentence answer, and how to pick one.

``ScriptedModel.demo()`` answers from these (see ``_responder``). A question is matched to
a topic by its words; a question on none of them gets the generic answer, which echoes the
question's own words. Every sentence is true of nb_hitl, so the demo teaches while it streams.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """One thing the demo model can explain."""

    name: str
    """Its name in the answer's words ("interrupting an agent")."""
    stems: tuple[str, ...]
    """Word beginnings that point to it (``"interrupt"`` matches "interrupting")."""
    sentences: tuple[str, ...]
    """The full answer, one sentence each, in order."""
    summary: str
    """The answer in one sentence (for "one line" and "shorter")."""
    calculation: tuple[str, str] | None = None
    """An expression worth checking with ``calculate`` and how the answer uses the result
    (``{result}`` is replaced), or ``None``: this topic needs no calculation."""


TOPICS: tuple[Topic, ...] = (
    Topic(
        "interrupting an agent",
        ("interrupt", "stop", "cancel", "halt"),
        (
            "Interrupting an agent comes down to one cancelled task: the reply runs as a "
            "background task of its own, so the notebook stays responsive while text streams in.",
            "Pressing Stop calls agent.interrupt(), which cancels that task and never the "
            "caller's, so the cell that started the reply is left alone.",
            "The agent catches the CancelledError inside the reply and calls "
            "handle_interrupt(), which returns a message marked _is_interrupted.",
            "Before it does, the history is closed consistently: the text streamed so far is "
            "kept as a partial message, and every tool call gets exactly one result, even a "
            "call that never started.",
            "That is why the next request to an OpenAI-style API is still valid after a Stop, "
            "with no dangling tool call to make it fail.",
            "An interrupt that arrives before the reply task starts is not lost either: the "
            "reply ends as soon as it begins.",
            "Finally, interrupt(msg) records your new instruction right after the interrupted "
            "message, so the next reply answers it.",
        ),
        "Stop cancels the reply's own task, and the agent turns that into an interrupted "
        "message with a history that stays valid.",
    ),
    Topic(
        "resuming an interrupted answer",
        ("resum", "continu", "pick", "left off", "carry on", "go on"),
        (
            "Resuming means carrying on from the exact point where the reply was cut, not "
            "starting the answer again.",
            "After a Stop, memory still holds your question, every finished step and the "
            "partial answer, so nothing that was said is lost.",
            "agent.resume() gives the model that partial answer as the start of its own message "
            "and asks for the rest, so the continuation begins mid-sentence, right after the "
            "last character you saw.",
            "Where a server cannot continue a message, the agent asks in a prompt that quotes "
            "the partial text instead, and metadata['continued_by'] says which way it went.",
            "You can add an instruction, such as continue, but shorter, and the rest of the "
            "answer follows it.",
            "The chat draws the partial answer and its continuation as one answer, with a small "
            "mark where it resumed.",
        ),
        "agent.resume() continues the partial answer from the exact character where it was "
        "cut, optionally following an instruction.",
    ),
    Topic(
        "steering a running reply",
        ("steer", "redirect", "guid", "course"),
        (
            "Steering changes where a running reply goes without stopping it.",
            "agent.steer(msg) queues your message, and the reply takes it in at its next step "
            "boundary, after the model turn or tool batch in flight has finished.",
            "Nothing is cancelled and nothing is lost: the message is recorded in memory where "
            "it landed, marked _steered, and the next model call sees it.",
            "In the panel, pick Steer above the input and press Send while the agent works; "
            "your message appears where the reply took it in.",
            "If the reply finishes before it reaches a boundary, the message stays queued and "
            "the next reply answers it first.",
            "Steer for a course correction, such as use the staging database, and press Stop "
            "when the current direction is simply wrong.",
        ),
        "agent.steer(msg) hands a running reply new input at its next step, with nothing "
        "cancelled.",
    ),
    Topic(
        "memory compression",
        ("compress", "summar", "token", "context window", "threshold", "fold"),
        (
            "Compression keeps a long conversation inside the model's context window.",
            "When the prompt passes trigger_threshold tokens, the oldest messages are folded "
            "into a structured summary, while the last keep_recent messages stay word for word.",
            "Tool calls and their results are never split apart, and your current question is "
            "never summarised away.",
            "The summary travels in the system prompt, and the folded messages stay in memory "
            "marked as compressed, so you can still inspect them.",
            "A compression that is interrupted changes nothing: it is applied all at once or "
            "not at all.",
            "The inspector shows the token count against the threshold, and the explorer "
            "replays a transcript under other settings before you change anything.",
        ),
        "Past trigger_threshold tokens the oldest messages are folded into a summary and the "
        "last keep_recent stay verbatim.",
        (
            "14566 - 3899",
            "Folding a 14,566-token prompt down to 3,899 tokens saves {result} "
            "tokens, which is the kind of figure the inspector shows before you compress.",
        ),
    ),
    Topic(
        "tools",
        ("tool", "function", "approv", "calculat"),
        (
            "Tools let the model act: it asks for a call, the agent runs it, and the result "
            "comes back as an observation for the next step.",
            "Each call gets exactly one result, and a tool that raises becomes an error the "
            "model can read rather than a crash.",
            "Async tools run on the event loop and sync tools in a worker thread, so a slow tool "
            "never freezes the notebook.",
            "Stop during a tool cancels it; calls that never started are closed as not run, and "
            "a resumed reply can still run them.",
            "With approvals, the calls you mark as sensitive wait for your decision in the "
            "panel: approve, edit the arguments, or deny with a reason.",
        ),
        "The model asks for tool calls, the agent runs them and hands back one result per call.",
        (
            "3 * (4 + 5)",
            "The calculate tool I just called says 3 * (4 + 5) = {result}, "
            "and that result is now an observation in memory like any other.",
        ),
    ),
    Topic(
        "the agent's memory",
        ("memor", "history", "remember", "record"),
        (
            "The agent's memory is the conversation as the model will see it next, every "
            "message in order.",
            "It holds your messages, the assistant's turns with their tool calls, and one "
            "result for every call.",
            "After an interrupt it also keeps the partial answer, flagged _partial, and the "
            "interrupted message, so the record shows exactly what happened.",
            "The inspector beside the chat draws it as a table, with token counts and the "
            "compression threshold.",
            "save_session() writes all of it to a file, and load_session() in a new kernel "
            "brings the agent back where it was.",
        ),
        "Memory is the conversation the model sees next: every message, tool result and "
        "interrupt, in order.",
    ),
)

TOPIC_PRIORITY = (
    "resuming an interrupted answer",
    "steering a running reply",
    "memory compression",
    "tools",
    "interrupting an agent",
    "the agent's memory",
)
"""Which topic wins when a text names two as often: the more specific first."""

STOP_WORDS = frozenset(
    "a an and are as at be but by can could did do does for from had has have how i if in "
    "is it its me my not of on or please so tell that the their then there these this to "
    "was we what when where which who why will with would you your about again explain more "
    "just give some any".split()
)
"""Words left out when the generic answer echoes a question."""


def find_topic(text: str) -> Topic | None:
    """The topic ``text`` is about: the one whose stems it uses most; on a tie the more
    specific one (``TOPIC_PRIORITY``: "resume an answer I stopped" is about resuming, "memory
    compression" about compression)."""
    lowered = text.lower()
    words = re.findall(r"[a-z_]+", lowered)
    best, hits = None, 0
    for topic in sorted(TOPICS, key=lambda t: TOPIC_PRIORITY.index(t.name)):
        count = sum(
            (stem in lowered) if " " in stem else sum(w.startswith(stem) for w in words)
            for stem in topic.stems
        )
        if count > hits:
            best, hits = topic, count
    return best


def key_words(text: str, limit: int = 3) -> list[str]:
    """The first ``limit`` distinct words of ``text`` that carry meaning (for the echo)."""
    seen: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z0-9_'-]*", text):
        lowered = word.lower().strip("'-")
        if len(lowered) > 2 and lowered not in STOP_WORDS and lowered not in seen:
            seen.append(lowered)
        if len(seen) == limit:
            break
    return seen


def generic_topic(question: str) -> Topic:
    """A topic made of ``question``'s own words, for a question on none of the topics."""
    words = key_words(question)
    listed = _listing(words) if words else "your question"
    quoted = question.strip().replace("\n", " ")
    quoted = quoted if len(quoted) <= 120 else quoted[:117] + "..."
    return Topic(
        listed,
        (),
        (
            f'You asked: "{quoted}".',
            "I am the offline demo model, so I answer from a script rather than from "
            "knowledge, but I did read "
            + (f"your words: {listed}." if words else "your question."),
            f"A real model given {listed} would plan, look things up with its tools, and then "
            f"answer step by step, which is exactly the loop you are watching here.",
            "Ask me about interrupting, resuming, steering, compression, memory or tools to get "
            "a specific answer.",
            "Whatever you ask, you can press Stop at any moment, press Continue to finish the "
            "sentence where it stopped, or steer me with a new message while I work.",
        ),
        f"I am the offline demo model: I read {listed}, but I only know about agents.",
    )


def arithmetic(text: str) -> str | None:
    """An arithmetic expression written in ``text`` (``"12 * 7"``), or ``None``."""
    match = re.search(r"[\d(][\d\s+\-*/().]*[+\-*/][\d\s+\-*/().]*[\d)]", text)
    if match is None:
        return None
    expression = " ".join(match.group(0).split())
    return expression if expression.count("(") == expression.count(")") else None


def _listing(words: list[str]) -> str:
    quoted = [f'"{w}"' for w in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


__all__ = ["TOPICS", "Topic", "arithmetic", "find_topic", "generic_topic", "key_words"]
