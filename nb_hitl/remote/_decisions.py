"""A remote run's interrupts as the panel's approval cards and questions, and their answers.

An AG-UI run that needs a person ends with ``RUN_FINISHED`` whose outcome is
``{"type": "interrupt", "interrupts": [...]}``; the next run answers each interrupt by id in
``RunAgentInput.resume``. ``RemoteAgent`` keeps its reply *parked* in between, exactly like a
local agent: the approval cards and question forms are the same widgets, ``approve`` /
``deny`` / ``answer`` / ``decide`` are the same calls, and Stop closes what waits.

Which interrupt is what: ``metadata["kind"]`` (``"approval"`` or ``"question"``, nb_hitl's
server), else the same keys inside LangGraph's raw ``interrupt()`` value
(``metadata["langgraph"]["raw"]``, ag-ui-langgraph's mapping), else a question when the raw
value or metadata carries ``questions``, else an approval of whatever the interrupt says. The
answers (nb_hitl's contract, docs/remote.md): ``{"decision": "approve"}``, ``{"decision":
"edit", "arguments": {...}}``, ``{"decision": "deny", "reason": "..."}``,
``{"answers": {question: answer}}``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from nb_hitl.agent import PendingApproval, PendingQuestion, Question
from nb_hitl.agent.approvals import check_answers
from nb_hitl.events import ApprovalDecided, ApprovalRequested, QuestionAnswered, QuestionAsked
from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import ToolUseBlock

if TYPE_CHECKING:
    from nb_hitl.events import Event

NOT_REMOTE = "the server decides its own permission rules; a remote agent cannot add rules"


@dataclass
class Waiting:
    """One interrupt of the last run, waiting for the person."""

    interrupt_id: str
    kind: str
    """``"approval"`` or ``"question"``."""
    call: ToolUseBlock | None = None
    questions: list[Question] = field(default_factory=list)
    reason: str = ""
    asked_at: float = field(default_factory=time.time)
    answer: dict[str, Any] | None = None
    """The resume entry once decided."""
    future: asyncio.Future[None] | None = None


def _details(interrupt: Any) -> dict[str, Any]:
    """The interrupt's own fields: its metadata, or LangGraph's raw ``interrupt()`` value."""
    meta = getattr(interrupt, "metadata", None) or {}
    if isinstance(meta, dict) and meta.get("kind") in ("approval", "question"):
        return meta
    raw = meta.get("langgraph", {}).get("raw") if isinstance(meta.get("langgraph"), dict) else None
    if isinstance(raw, dict):
        return raw
    return meta if isinstance(meta, dict) else {}


def _questions(details: dict[str, Any], interrupt: Any) -> list[Question] | None:
    raw = details.get("questions")
    if not isinstance(raw, list) or not raw:
        return None
    out = []
    for q in raw[:4]:
        if not isinstance(q, dict):
            return None
        data = {k: q[k] for k in ("question", "header", "options") if k in q}
        data["multi_select"] = bool(q.get("multiSelect", q.get("multi_select", False)))
        try:
            out.append(Question.model_validate(data))
        except ValueError:
            return None
    return out


def read_interrupt(interrupt: Any, calls: dict[str, ToolUseBlock]) -> Waiting:
    """What one AG-UI ``Interrupt`` asks: an approval (with the call) or questions."""
    details = _details(interrupt)
    iid = str(interrupt.id)
    questions = _questions(details, interrupt)
    if details.get("kind") == "question" or (questions and details.get("kind") != "approval"):
        if not questions:
            text = str(interrupt.message or details.get("question") or "The agent asks:")[:1000]
            questions = [Question(question=text)]
        return Waiting(iid, "question", questions=questions, reason=str(interrupt.reason))
    streamed = calls.get(str(interrupt.tool_call_id or ""))
    name = details.get("toolName") or details.get("tool_name") or details.get("tool")
    args = details.get("arguments", details.get("args"))
    if streamed is not None:
        name = name or streamed.name
        args = args if isinstance(args, dict) else streamed.input
    if not isinstance(args, dict):
        args = {"message": str(interrupt.message or "")} if interrupt.message else {}
    name = str(name or interrupt.reason or "approval")[:200]
    call = ToolUseBlock(id=iid, name=name, input=args)
    why = str(details.get("why") or interrupt.message or "")
    return Waiting(iid, "approval", call=call, reason=why)


class DecisionsHost(Protocol):
    """What the decisions use of their agent: its name, the reply, its events."""

    name: str

    @property
    def reply_id(self) -> str | None: ...

    def emit(self, event: Event) -> None: ...


class RemoteDecisions:
    """Parked interrupts with the local agent's decision API (``agent.decisions`` of a
    ``RemoteAgent``, which keeps the local names as one-line delegations).

    Args:
        host: the ``RemoteAgent`` (``DecisionsHost``).
    """

    def __init__(self, host: DecisionsHost) -> None:
        self._host = host
        self._waiting: dict[str, Waiting] = {}
        self.approval_log: list[dict[str, Any]] = []
        """Every decision so far (as a local agent's ``approval_log``)."""
        self.abandoned: list[str] = []
        """Interrupt ids a Stop left open (the next run tells the server)."""

    def emit(self, event: Event) -> None:
        self._host.emit(event)

    @property
    def name(self) -> str:
        return self._host.name

    @property
    def reply_id(self) -> str | None:
        return self._host.reply_id

    # -- reading -----------------------------------------------------------------------------
    @property
    def pending_approvals(self) -> list[PendingApproval]:
        """The approvals the remote run waits for, in the server's order."""
        return [
            PendingApproval(
                w.interrupt_id, w.call.name, dict(w.call.input), w.call, w.reason, None, w.asked_at
            )
            for w in self._waiting.values()
            if w.kind == "approval" and w.call is not None and w.answer is None
        ]

    @property
    def pending_questions(self) -> list[PendingQuestion]:
        """The questions the remote run waits for."""
        return [
            PendingQuestion(w.interrupt_id, w.questions, w.interrupt_id, w.asked_at)
            for w in self._waiting.values()
            if w.kind == "question" and w.answer is None
        ]

    @property
    def is_waiting_for_approval(self) -> bool:
        """True while the reply is parked on the server's interrupts."""
        return any(w.answer is None for w in self._waiting.values())

    # -- deciding (the local agent's names) ----------------------------------------------------
    def approve(self, call_id: str, arguments: str | dict[str, Any] | None = None) -> None:
        """Approve a waiting call, optionally with edited ``arguments`` (dict or JSON text)."""
        from nb_hitl.agent.approvals import parse_arguments

        waiting = self._undecided(call_id, "approval")
        if arguments is None:
            self._decided(waiting, {"decision": "approve"}, "approved")
            return
        args = parse_arguments(arguments)
        assert waiting.call is not None
        if args == waiting.call.input:
            self._decided(waiting, {"decision": "approve"}, "approved")
        else:
            self._decided(waiting, {"decision": "edit", "arguments": args}, "edited", args)

    def deny(self, call_id: str, reason: str = "") -> None:
        """Deny a waiting call; the server's agent receives the reason."""
        reason = str(reason or "").strip()
        waiting = self._undecided(call_id, "approval")
        self._decided(waiting, {"decision": "deny", "reason": reason}, "denied", reason=reason)

    def decide(
        self,
        call_id: str,
        decision: str,
        *,
        arguments: Any = None,
        reason: str = "",
        rule: Any = None,
        **_ignored: Any,
    ) -> None:
        """``approve`` / ``edit`` / ``deny`` by word; ``rule`` is refused (the server's rules)."""
        if rule is not None:
            raise ApprovalError(f"Not added: {NOT_REMOTE}. Approve or deny this call alone.")
        if decision == "deny":
            self.deny(call_id, reason)
        elif decision in ("approve", "edit"):
            self.approve(call_id, arguments)
        else:
            raise ApprovalError(f"decision must be approve, edit or deny, got {decision!r}.")

    def always_allow(self, tool_name: str) -> None:
        """Refused: the server keeps its own permission rules."""
        raise ApprovalError(f"Not changed: {NOT_REMOTE}. Approve this call instead.")

    def approve_all(self) -> None:
        """Approve every waiting call."""
        for p in self.pending_approvals:
            self.approve(p.call_id)

    def deny_all(self, reason: str = "") -> None:
        """Deny every waiting call with the same reason."""
        for p in self.pending_approvals:
            self.deny(p.call_id, reason)

    # The names a local agent has too (the older ones above stay).
    def allow_for_session(self, tool_name: str) -> None:
        """``always_allow``: for this session only."""
        self.always_allow(tool_name)

    def approve_waiting(self) -> None:
        """``approve_all``: every call waiting now."""
        self.approve_all()

    def deny_waiting(self, reason: str = "") -> None:
        """``deny_all``: every call waiting now."""
        self.deny_all(reason)

    def answer(self, question_id: str, answers: Any, **_ignored: Any) -> None:
        """Answer the remote run's questions (as ``ReActAgent.answer``)."""
        waiting = self._undecided(question_id, "question")
        checked = check_answers(waiting.questions, answers)
        waiting.answer = {"answers": checked}
        self._wake(waiting)
        self.emit(QuestionAnswered(self.name, self.reply_id, question_id, checked))

    # -- the parked reply --------------------------------------------------------------------
    def _undecided(self, call_id: str, kind: str) -> Waiting:
        waiting = self._waiting.get(call_id)
        if waiting is None or waiting.kind != kind or waiting.answer is not None:
            open_ids = ", ".join(repr(i) for i, w in self._waiting.items() if w.answer is None)
            raise ApprovalError(
                f"Nothing waits under {call_id!r} (waiting: {open_ids or 'none'}).",
                call_id=call_id,
            )
        return waiting

    def _decided(
        self,
        waiting: Waiting,
        payload: dict[str, Any],
        decision: str,
        arguments: dict[str, Any] | None = None,
        reason: str = "",
    ) -> None:
        assert waiting.call is not None
        waiting.answer = payload
        self.approval_log.append(
            {
                "call_id": waiting.interrupt_id,
                "tool_name": waiting.call.name,
                "input": dict(waiting.call.input),
                "decision": decision,
                "arguments": arguments,
                "reason": reason,
            }
        )
        self._wake(waiting)
        self.emit(
            ApprovalDecided(
                self.name,
                self.reply_id,
                waiting.interrupt_id,
                waiting.call.name,
                decision,
                arguments,
                reason,
            )
        )

    @staticmethod
    def _wake(waiting: Waiting) -> None:
        if waiting.future is not None and not waiting.future.done():
            waiting.future.set_result(None)

    async def park(self, waits: list[Waiting]) -> list[dict[str, Any]]:
        """Show each interrupt, wait for every answer; the resume entries, in order."""
        loop = asyncio.get_running_loop()
        self._waiting = {w.interrupt_id: w for w in waits}
        for w in waits:
            w.future = loop.create_future()
            if w.kind == "approval":
                self.emit(ApprovalRequested(self.name, self.reply_id, w.call))
            else:
                self.emit(
                    QuestionAsked(
                        self.name,
                        self.reply_id,
                        w.interrupt_id,
                        tuple(w.questions),
                        w.interrupt_id,
                    )
                )
        try:
            for w in waits:
                assert w.future is not None
                await w.future
        except asyncio.CancelledError:
            self.close_waiting()
            raise
        self._waiting = {}
        return [
            {"interruptId": w.interrupt_id, "status": "resolved", "payload": w.answer}
            for w in waits
        ]

    def close_waiting(self) -> list[str]:
        """Stop while parked: each open card says so; returns the interrupt ids left open."""
        left = []
        for w in self._waiting.values():
            if w.answer is not None:
                continue
            left.append(w.interrupt_id)
            if w.kind == "approval" and w.call is not None:
                self.emit(
                    ApprovalDecided(
                        self.name, self.reply_id, w.interrupt_id, w.call.name, "interrupted"
                    )
                )
            else:
                self.emit(
                    QuestionAnswered(self.name, self.reply_id, w.interrupt_id, None, "interrupted")
                )
        self._waiting = {}
        self.abandoned.extend(left)
        return left


__all__ = ["NOT_REMOTE", "DecisionsHost", "RemoteDecisions", "Waiting", "read_interrupt"]
