"""What the chat's Continue does (``agent.resume()``: the same answer, finished, when it can),
and the other queued requests that are not a message: edit-and-resend and regenerate.

Continue continues the interrupted reply itself (``agent.resume(instruction)``: the partial
answer is finished mid-sentence, the typed text, if any, steers the rest). It falls back to
sending a message (the typed text, else ``continue_text``) when the agent has no ``resume()``,
when a ``UserAgent`` loop reads the chat (the loop, not the chat, calls the agent), or when
there is nothing to resume (the reply was stopped before it began).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nb_hitl.message import Msg


@dataclass
class ResumeRequest:
    """A queued Continue: ``agent.resume(instruction)`` once the agent is idle."""

    instruction: Msg | None = None
    """The typed instruction (recorded by ``resume()`` right before the continuation)."""

    @property
    def id(self) -> str:
        """The instruction's id (what the chat restores to the box if resuming fails)."""
        return self.instruction.id if self.instruction is not None else "resume-request"

    async def run(self, agent: Any) -> Any:
        """Continue the agent's interrupted reply."""
        return await agent.resume(self.instruction)


@dataclass
class EditRequest:
    """A queued edit: ``agent.edit_and_resend(msg_id, text)`` (a new branch) once idle."""

    msg_id: str
    """The earlier user message being edited."""
    text: str
    """Its new text."""
    id: str = "edit-request"

    async def run(self, agent: Any) -> Any:
        """Re-send the edited message on a new branch."""
        return await agent.edit_and_resend(self.msg_id, self.text)


@dataclass
class RegenerateRequest:
    """A queued regenerate: ``agent.regenerate(msg_id)`` (a new branch) once idle."""

    msg_id: str
    """The answer to give again."""
    id: str = "regenerate-request"

    async def run(self, agent: Any) -> Any:
        """Answer the answer's question again on a new branch."""
        return await agent.regenerate(self.msg_id)


Request = ResumeRequest | EditRequest | RegenerateRequest
"""What the chat queues besides messages."""


def can_resume(agent: Any) -> bool:
    """Whether ``agent.resume()`` would continue something now (False without ``resume()``)."""
    if not callable(getattr(agent, "resume", None)):
        return False
    try:
        return bool(agent.can_resume)
    except Exception:  # an agent whose check fails is treated as having nothing to resume
        return False


__all__ = ["EditRequest", "RegenerateRequest", "Request", "ResumeRequest", "can_resume"]
