"""Resuming: ``agent.resume()`` continues the last interrupted reply where it stopped.

What the interrupted reply left decides what resuming does (``ResumePoint.continued_by``):

- ``"assistant_prefix"`` / ``"prompt"``: it was cut mid-answer. The model is asked to continue
  the partial text itself, mid-sentence: as an assistant prefix where the model supports it
  (``ChatModelBase.supports_assistant_prefix``; the prompt ends with ``{"role": "assistant",
  "content": <partial text>}`` and the model returns only the rest), otherwise with a
  continuation prompt (``nb_hitl.model._continuation``). The new message holds the partial
  text and its continuation as one answer (``metadata["partial_chars"]``: where the seam is).
  A server that refuses the prefix request (HTTP 400/404/422...) gets the prompt form, once,
  and the model remembers it (``model.assistant_prefix_refused``).
- ``"tools"``: tool calls the interrupt closed as "not run" run now (in a new assistant message
  that repeats them with fresh ids, ``metadata["resumed_calls"]``: new id -> old id), approval
  rules included; the call that was interrupted mid-run is reported as interrupted (its
  result says so) and runs again only with ``rerun_interrupted=True``.
- ``"next_step"``: nothing partial to continue (interrupted before its first step, while
  compressing, or stopped after a step): the reply goes on with its next step.

Memory is never rewritten: the partial message and the interrupted message stay as the
record, every ``tool_use`` keeps exactly one result, and the continuation comes after them
(after the optional instruction, a user message with ``metadata["_resume_instruction"]``).
The message ``resume()`` returns carries ``metadata["continued_by"]`` and
``metadata["continues"]`` (the interrupted message's id). Everything needed is in memory, so a
reply interrupted in one kernel is continued after ``load_session`` in another.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from nb_hitl.events import Resumed
from nb_hitl.exceptions import ModelError, NothingToResumeError, ResumeError
from nb_hitl.memory import COMPRESSED
from nb_hitl.message import MetaKey, Msg, ToolUseBlock
from nb_hitl.model import CONTINUE_KWARG, continuation_prompt

from ._point import ResumePoint, answer_text, carry_point, text_digest

if TYPE_CHECKING:
    from nb_hitl.events import Event
    from nb_hitl.formatter import FormatterBase
    from nb_hitl.model import ChatModelBase
    from nb_hitl.tool import Toolkit

logger = logging.getLogger("nb_hitl.agent")

REFUSED_STATUS = frozenset({400, 404, 405, 415, 422, 501})
"""HTTP statuses that mean "this server does not take the assistant-prefix request"."""


class ResumeHost(Protocol):
    """What the resumer uses of its agent: the ReAct loop's own pieces."""

    name: str
    memory: Any
    _where: str
    _live: Msg | None

    @property
    def _open_calls(self) -> dict[str, ToolUseBlock]: ...

    @property
    def model(self) -> ChatModelBase: ...

    @property
    def formatter(self) -> FormatterBase: ...

    @property
    def toolkit(self) -> Toolkit: ...

    @property
    def approvals(self) -> Any: ...

    @property
    def _reply_id(self) -> str | None: ...

    def _emit(self, event: Event) -> None: ...

    def system_msg(self) -> Msg: ...

    def _ingest_calls(self, msg: Msg) -> None: ...

    async def _commit(self, msg: Msg) -> None: ...

    def _print_wanted(self) -> bool: ...

    async def print(self, msg: Msg, last: bool = True, speech: Any = None) -> None: ...

    async def _stream_model(
        self,
        prompt: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: str | None = None,
        *,
        prefix: str | None = None,
        model_kwargs: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Msg: ...


class Resumer:
    """Continuing the last interrupted reply (``agent.resumer``; the module docstring).

    ``ReActAgent.resume()`` asks for a point (``prepare``) and runs a reply; the reply takes
    it (``take``), runs its first step from it (``step``), and tags its result (``tag``); an
    interrupt of that reply hands the point on (``interrupted``).

    Args:
        host: the agent (``ResumeHost``).
    """

    def __init__(self, host: ResumeHost) -> None:
        self._host = host
        self.pending: ResumePoint | None = None
        """The point ``resume()`` asked for, until the reply it runs takes it."""
        self.active: ResumePoint | None = None
        """The point the running reply continues (None: a fresh reply)."""

    # -- the API -------------------------------------------------------------------------------
    def prepare(
        self, instruction: str | Msg | None = None, *, rerun_interrupted: bool = False
    ) -> Msg | None:
        """Set the point the next reply continues; the instruction message to send, if any.

        Raises:
            NothingToResumeError, ResumeError: as ``point()``.
            TypeError: ``instruction`` has no text.
        """
        point = self.point()
        point.rerun_interrupted = rerun_interrupted
        msg: Msg | None = None
        if instruction is not None:
            msg = instruction if isinstance(instruction, Msg) else Msg("user", instruction, "user")
            if not isinstance(msg.content, str) and not msg.get_text_content():
                raise TypeError("resume(instruction) takes a str or a Msg with text.")
            msg.metadata[MetaKey.RESUME_INSTRUCTION] = True
            msg.metadata[MetaKey.CONTINUES] = point.interrupted_id
            point.instruction_id = msg.id
        self.pending = point
        return msg

    def can_resume(self) -> bool:
        """Whether memory holds an interrupted reply to continue (the agent checks it is idle)."""
        try:
            self.point()
        except ResumeError:
            return False
        return True

    def point(self) -> ResumePoint:
        """What ``resume()`` would continue, without changing anything.

        Raises:
            NothingToResumeError: the last reply finished (or was already continued), or none
                was interrupted.
            ResumeError: memory was compressed or edited past the interrupted reply.
        """
        if self._host.approvals.has_parked_calls:
            raise NothingToResumeError(
                "Nothing to continue: the reply is parked on tool calls that wait for "
                "approval. Decide them and call `await agent.resume_pending()`."
            )
        msgs = self._host.memory.messages
        record: Msg | None = None
        for m in reversed(msgs):
            if m.role == "assistant" and m.name == self._host.name:
                record = m
                break
        if (
            record is not None
            and record.metadata.get(MetaKey.PARTIAL)
            and record.metadata.get(MetaKey.ERROR)
        ):
            return self._point_after_error(record)
        if record is not None and record.metadata.get(MetaKey.PARTIAL):
            raise ResumeError(
                "Cannot continue: the interrupted message after the partial answer was deleted "
                "from memory, so what was interrupted is unknown. Send a new message instead.",
                reason="edited",
            )
        if record is None or not (
            record.metadata.get(MetaKey.IS_INTERRUPTED)
            or record.metadata.get(MetaKey.STOPPED_AFTER_STEP)
        ):
            raise NothingToResumeError(
                f"Nothing to continue: {self._host.name}'s last reply "
                + ("finished normally" if record is not None else "does not exist")
                + ". resume() continues a reply that was interrupted (Stop, interrupt()) or "
                "stopped after a step; send a new message with `await agent(msg)` instead."
            )
        return self._point_for(record)

    def _point_after_error(self, partial: Msg) -> ResumePoint:
        """A reply whose model call failed mid-answer (``metadata["_error"]``): its partial
        text is continued as an interrupted one would be (``continues`` is the partial)."""
        if COMPRESSED in self._host.memory.marks_of(partial.id):
            raise ResumeError(
                "Cannot continue: memory was compressed past the failed reply's partial answer.",
                reason="compressed",
                interrupted_id=partial.id,
            )
        text = answer_text(partial)
        return ResumePoint(
            partial.id,
            self._host.model.continuation_mode,
            partial_id=partial.id,
            partial_text=text,
        )

    def _point_for(self, record: Msg) -> ResumePoint:
        memory = self._host.memory
        if COMPRESSED in memory.marks_of(record.id):
            raise ResumeError(
                "Cannot continue: memory was compressed past the interrupted reply (it is folded "
                "into the summary now). Undo the compression with `await "
                "agent.undo_compression()`, or send a new message.",
                reason="compressed",
                interrupted_id=record.id,
            )
        carries = (
            MetaKey.PARTIAL_MSG_ID in record.metadata or MetaKey.CLOSED_CALLS in record.metadata
        )
        if record.metadata.get(MetaKey.STOPPED_AFTER_STEP) and not carries:
            return ResumePoint(record.id, "next_step")
        point = ResumePoint(record.id, "next_step")
        partial_id = record.metadata.get(MetaKey.PARTIAL_MSG_ID)
        partial = memory.get(partial_id) if isinstance(partial_id, str) else None
        if partial_id and partial is None:
            raise ResumeError(
                "Cannot continue: the partial answer of the interrupted reply was deleted from "
                "memory. Send a new message instead.",
                reason="edited",
                interrupted_id=record.id,
            )
        if partial is not None:
            if COMPRESSED in memory.marks_of(partial.id):
                raise ResumeError(
                    "Cannot continue: memory was compressed past the interrupted reply's partial "
                    "answer. Undo the compression with `await agent.undo_compression()`, or send "
                    "a new message.",
                    reason="compressed",
                    interrupted_id=record.id,
                )
            text = answer_text(partial)
            digest = record.metadata.get(MetaKey.PARTIAL_DIGEST)
            if isinstance(digest, str) and digest != text_digest(text):
                raise ResumeError(
                    "Cannot continue: the partial answer was edited since the interrupt, so it "
                    "is no longer what the model wrote. Send a new message instead.",
                    reason="edited",
                    interrupted_id=record.id,
                )
            if text.strip() and not partial.get_content_blocks("tool_use"):
                point.partial_id = partial.id
                point.partial_text = text
                point.continued_by = self._host.model.continuation_mode
        closed = record.metadata.get(MetaKey.CLOSED_CALLS)
        if isinstance(closed, dict) and point.partial_id is None:
            calls = _calls_by_id(memory.messages)
            point.not_run = [calls[i] for i in closed.get("not_run", []) if i in calls]
            point.interrupted_calls = [
                calls[i] for i in closed.get("interrupted", []) if i in calls
            ]
            if point.not_run or point.interrupted_calls:
                point.continued_by = "tools"
        return point

    # -- inside the reply ------------------------------------------------------------------------
    @staticmethod
    def partial_digest(partial: Msg) -> str:
        """The fingerprint an interrupted message keeps of its partial answer's text (checked
        by ``point()``: an answer edited since is not continued as if it were not)."""
        return text_digest(answer_text(partial))

    def interrupted(self, extra: dict[str, Any]) -> ResumePoint | None:
        """The point the interrupted reply was continuing, if it was a resumed one. A
        ``resume()`` stopped before its reply began hands its point on to the interrupted
        message (``extra``), so the next ``resume()`` continues the same partial answer and
        unrun calls instead of going on with a fresh step."""
        active = self.active
        if active is None and self.pending is not None:
            active = self.pending
        if active is not None and not active.started:
            # stopped before its resume step (before its first step, compressing...)
            carry_point(active, self._host.memory, extra)
        return active

    def take(self) -> ResumePoint | None:
        """At the start of a reply: the point it continues (``resume()``'s), now active."""
        point, self.pending = self.pending, None
        self.active = point
        if point is not None:
            self._host._emit(
                Resumed(
                    self._host.name,
                    self._host._reply_id,
                    point.interrupted_id,
                    point.continued_by,
                    point.partial_id,
                )
            )
        return point

    async def step(self, point: ResumePoint) -> Msg | None:
        """The resumed reply's first step: the continued answer or the re-issued calls.

        Returns the message whose open tool calls the loop runs next, or ``None`` when the
        reply simply goes on with a reasoning step.
        """
        point.started = True
        if point.partial_id is not None:
            return await self._continue_text(point)
        calls = list(point.not_run)
        if point.rerun_interrupted:
            wanted = {c.id for c in point.not_run} | {c.id for c in point.interrupted_calls}
            order = [*point.interrupted_calls, *point.not_run]
            calls = sorted(order, key=lambda c: _position(self._host.memory.messages, c.id))
            calls = [c for c in calls if c.id in wanted]
        if not calls:
            return None
        again = [ToolUseBlock(id=c.id, name=c.name, input=dict(c.input)) for c in calls]
        msg = Msg(self._host.name, list(again), "assistant")
        self._host._ingest_calls(msg)  # fresh ids: the old calls keep their one result each
        renamed = msg.metadata.pop(MetaKey.PROVIDER_TOOL_CALL_IDS, {})
        msg.metadata[MetaKey.RESUMED_CALLS] = renamed
        msg.metadata[MetaKey.CONTINUES] = point.interrupted_id
        for call in msg.get_content_blocks("tool_use"):
            self._host._open_calls[call.id] = call
        self._host._where = "resuming tool calls"
        await self._host._commit(msg)
        if self._host._print_wanted():
            await self._host.print(msg, True)
        return msg

    async def _continue_text(self, point: ResumePoint) -> Msg:
        skip = {point.partial_id, point.interrupted_id}
        history = [m for m in self._host.memory.select(exclude_mark=COMPRESSED) if m.id not in skip]
        tools = self._host.toolkit.get_json_schemas() or None
        seam = {
            MetaKey.CONTINUES: point.interrupted_id,
            MetaKey.CONTINUED_FROM: point.partial_id,
            MetaKey.PARTIAL_CHARS: len(point.partial_text),
        }
        msg: Msg | None = None
        if point.continued_by == "assistant_prefix":
            prompt = await self._host.formatter.format([self._host.system_msg(), *history])
            prompt.append({"role": "assistant", "content": point.partial_text})
            try:
                msg = await self._host._stream_model(
                    prompt,
                    tools,
                    prefix=point.partial_text,
                    model_kwargs={CONTINUE_KWARG: True},
                    metadata={**seam, MetaKey.CONTINUED_BY: "assistant_prefix"},
                )
            except ModelError as exc:
                live = self._host._live
                if exc.status_code not in REFUSED_STATUS or answer_text(live) != point.partial_text:
                    raise
                self._host._live = None
                model = self._host.model
                point.note = (
                    f"{type(model).__name__} {model.model_name!r} refused the "
                    f"assistant-prefix request (HTTP {exc.status_code}: {exc}); continued with "
                    "the prompt form instead, and will from now on."
                )
                self._host.model.assistant_prefix_refused = point.note
                logger.warning("%s", point.note)
                point.continued_by = "prompt"
        if msg is None:
            instruction = None
            if point.instruction_id is not None:
                found = self._host.memory.get(point.instruction_id)
                instruction = found.get_text_content() if found is not None else None
                history = [m for m in history if m.id != point.instruction_id]
            prompt = await self._host.formatter.format([self._host.system_msg(), *history])
            prompt.append(
                {"role": "user", "content": continuation_prompt(point.partial_text, instruction)}
            )
            msg = await self._host._stream_model(
                prompt,
                tools,
                prefix=point.partial_text,
                metadata={**seam, MetaKey.CONTINUED_BY: "prompt"},
            )
        if point.note:
            msg.metadata[MetaKey.CONTINUATION_NOTE] = point.note
        self._host._ingest_calls(msg)
        for call in msg.get_content_blocks("tool_use"):
            self._host._open_calls[call.id] = call
        await self._host._commit(msg)
        if self._host._print_wanted():
            await self._host.print(msg, True)
        return msg

    def tag(self, result: Msg, point: ResumePoint) -> Msg:
        """Mark the message a resumed reply returns (it is in memory already)."""
        tags: dict[str, Any] = {
            MetaKey.CONTINUED_BY: point.continued_by,
            MetaKey.CONTINUES: point.interrupted_id,
        }
        if point.note:
            tags[MetaKey.CONTINUATION_NOTE] = point.note
        if any(result.metadata.get(k) != v for k, v in tags.items()):
            result.metadata.update(tags)
            if self._host.memory.get(result.id) is result:
                self._host.memory.replace(result)  # listeners (widgets) see the new metadata
        return result


def _calls_by_id(msgs: list[Msg]) -> dict[str, ToolUseBlock]:
    return {b.id: b for m in msgs for b in m.get_content_blocks("tool_use")}


def _position(msgs: list[Msg], call_id: str) -> tuple[int, int]:
    for i, m in enumerate(msgs):
        for j, b in enumerate(m.get_content_blocks("tool_use")):
            if b.id == call_id:
                return (i, j)
    return (len(msgs), 0)


__all__ = ["REFUSED_STATUS", "ResumeHost", "Resumer"]
