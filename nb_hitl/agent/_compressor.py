"""Doing memory compression: summarise, mark, undo, pin (the ``Compressor`` part).

``ReActAgent`` owns one (``agent.compressor``) and keeps AgentScope's and nb_hitl's public
names (``compression_config``, ``compression_plan()``, ``compress_memory()``, ``pin()``...)
as one-line delegations. The compressor reads the agent through ``CompressionHost``.

A compression asks the compression model for the structured summary (``summary_schema``) of
the messages the plan picked and of the previous summary (so summaries roll up and nothing is
lost), renders it with ``summary_template`` into memory's summary slot, and marks the messages
``COMPRESSED`` (kept, so ``undo_compression()`` can bring them back).

It is atomic: memory is not touched until the summary is ready, and then changes in one
``restore()``; any error or interruption while changing it restores the snapshot taken just
before. A failed summary (model error, invalid output) skips the compression with a
``CompressionFailed`` event and a logged warning, and the reply goes on. An interruption
re-raises ``CancelledError`` after emitting ``CompressionFailed``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from nb_hitl.compression import (
    DEFAULT_COMPRESSION_PROMPT,
    DEFAULT_SUMMARY_TEMPLATE,
    CompressionConfig,
    CompressionPlan,
    CompressionResult,
    SummarySchema,
    default_counter,
    plan_compression,
    summarize,
)
from nb_hitl.events import (
    CompressionConfigChanged,
    CompressionFailed,
    CompressionFinished,
    CompressionStarted,
    CompressionUndone,
    Event,
)
from nb_hitl.exceptions import AgentBusyError, ConfigError
from nb_hitl.memory import COMPRESSED, PINNED

logger = logging.getLogger("nb_hitl.compression")

UNDO_DEPTH = 20
"""How many compressions ``undo_compression()`` can take back, newest first."""
PLANS_KEPT = 4
"""How many plans (one per ``keep_recent``) ``plan()`` keeps while nothing they count changes."""


@dataclass
class _Undo:
    ids: list[str]
    previous_summary: str
    summary: str


class CompressionHost(Protocol):
    """What the compressor uses of its agent."""

    name: str
    sys_prompt: str
    model: Any
    formatter: Any
    toolkit: Any
    memory: Any
    _where: str
    _reply_task: asyncio.Task[Any] | None

    @property
    def _reply_id(self) -> str | None: ...

    def _emit(self, event: Event) -> None: ...


class Compressor:
    """One agent's memory compression: its settings, the plan, summaries, undo and pins.

    Args:
        host: the agent whose memory it compresses (``CompressionHost``).
    """

    def __init__(self, host: CompressionHost) -> None:
        self._host = host
        self._config: CompressionConfig | None = None
        self._lock = asyncio.Lock()
        self.undo: list[_Undo] = []
        """Compressions ``undo_compression()`` can take back, oldest first (branches swap it)."""
        self._plans: dict[int, CompressionPlan] = {}
        """The latest plans by ``keep_recent``, newest last, valid while ``_plans_key`` holds."""
        self._plans_key: tuple[Any, ...] | None = None
        self._plans_refs: tuple[Any, ...] = ()
        """The objects ``_plans_key`` names by id, held so that no id is reused meanwhile."""

    # -- settings ------------------------------------------------------------------------------
    @property
    def config(self) -> CompressionConfig | None:
        """When and how memory is compressed (None: only on demand, with default settings)."""
        return self._config

    @config.setter
    def config(self, value: CompressionConfig | dict[str, Any] | None) -> None:
        if isinstance(value, dict):
            value = CompressionConfig(**value)
        if value is not None and not isinstance(value, CompressionConfig):
            raise ConfigError(
                f"compression_config must be a CompressionConfig (or None), got {value!r}; e.g. "
                "CompressionConfig(enable=True, trigger_threshold=3000, keep_recent=3)."
            )
        old = self._config
        if old is not None and old is not value:
            old.unwatch(self._settings_changed)
        self._config = value
        if value is not None and old is not value:
            value.watch(self._settings_changed)
        self._settings_changed(value)

    def _settings_changed(self, cfg: CompressionConfig | None) -> None:
        """Tell every view of the settings (``CompressionConfigChanged``): they follow it."""
        self._host._emit(
            CompressionConfigChanged(
                self._host.name,
                self._event_reply_id(),
                cfg.trigger_threshold if cfg is not None else None,
                cfg.keep_recent if cfg is not None else 3,
                cfg.enable if cfg is not None else False,
            )
        )

    def _event_reply_id(self) -> str | None:
        task = self._host._reply_task
        return self._host._reply_id if task is not None and not task.done() else None

    # -- the plan ------------------------------------------------------------------------------
    def current_question_id(self) -> str | None:
        """The message the agent is answering: the last uncompressed ``user`` message.

        Without one (agents talking to agents), the last message not written by this agent.
        """
        fallback = None
        for msg in reversed(self._host.memory.select(exclude_mark=COMPRESSED)):
            if msg.role == "user":
                return str(msg.id)
            if fallback is None and msg.role != "system" and msg.name != self._host.name:
                fallback = msg.id
        return fallback

    def plan(
        self, trigger_threshold: int | None = None, keep_recent: int | None = None
    ) -> CompressionPlan:
        """What compressing would do now; pure and cheap (see ``plan_compression``).

        The plans of the last ``PLANS_KEPT`` ``keep_recent`` values are kept until something
        they count changes (``_plan_key``), and another threshold only redraws a kept plan's
        verdict (``CompressionPlan.with_threshold``): a what-if slider on a 5,000-message
        memory re-plans in microseconds. Plans are shared: treat them as read-only.

        Args:
            trigger_threshold: plan with this threshold instead of the config's (what-if).
            keep_recent: plan with this ``keep_recent`` instead of the config's (what-if).
        """
        cfg = self._config
        counter = cfg.agent_token_counter if cfg is not None else default_counter()
        if trigger_threshold is None and cfg is not None:
            trigger_threshold = cfg.trigger_threshold
        if keep_recent is None:
            keep_recent = cfg.keep_recent if cfg is not None else 3
        tools = self._host.toolkit.get_json_schemas() or None
        key = self._plan_key(counter, tools, cfg.enable if cfg is not None else False)
        if key is None or key != self._plans_key:
            self._plans.clear()
            self._plans_key = key
        cached = self._plans.pop(keep_recent, None)
        if cached is None:
            cached = self._fresh_plan(counter, trigger_threshold, keep_recent, tools, cfg)
        if key is not None:
            self._plans[keep_recent] = cached  # newest last
            while len(self._plans) > PLANS_KEPT:
                del self._plans[next(iter(self._plans))]
        return cached.with_threshold(trigger_threshold)

    def forget_plans(self) -> None:
        """Count the next plan afresh (``plan()`` keeps the last few while memory, summary,
        system prompt, name, tool schemas, ``enable``, token counter and formatter stay the
        same; a message changed in place, against the rule that held messages are immutable,
        goes unnoticed until then)."""
        self._plans.clear()
        self._plans_key = None

    def _plan_key(self, counter: Any, tools: Any, enabled: bool) -> tuple[Any, ...] | None:
        """What a plan counts, besides the threshold: when it is unchanged, so is the plan.

        The memory's ``version`` stands for its messages, marks (pins) and summary; a memory
        without one is planned afresh every time.
        """
        host = self._host
        memory = host.memory
        version = getattr(memory, "version", None)
        if version is None:
            return None
        formatter = host.formatter
        self._plans_refs = (memory, counter, formatter)
        return (
            id(memory),
            version,
            memory.summary,
            host.sys_prompt,
            host.name,
            tools,
            enabled,
            id(counter),
            id(formatter),
        )

    def _fresh_plan(
        self,
        counter: Any,
        trigger_threshold: int | None,
        keep_recent: int,
        tools: list[dict[str, Any]] | None,
        cfg: CompressionConfig | None,
    ) -> CompressionPlan:
        history = self._host.memory.select(exclude_mark=COMPRESSED)
        pinned = [m.id for m in self._host.memory.select(mark=PINNED)]
        question = self.current_question_id()
        row = {m.id: number for number, m in enumerate(self._host.memory.messages, start=1)}
        return plan_compression(
            history,
            counter=counter,
            trigger_threshold=trigger_threshold,
            keep_recent=keep_recent,
            system_prompt=self._host.sys_prompt,
            summary=self._host.memory.summary,
            tools=tools,
            pinned_ids=pinned,
            protected_ids=[question] if question else [],
            formatter=self._host.formatter,
            enabled=cfg.enable if cfg is not None else False,
            numbers=[row[m.id] for m in history],
        )

    # -- pins ---------------------------------------------------------------------------------
    def pin(self, msg_id: str) -> None:
        """Never compress message ``msg_id`` (it stays in the prompt verbatim)."""
        if self._host.memory.get(msg_id) is None:
            raise KeyError(f"No message {msg_id!r} in {self._host.name}'s memory; nothing to pin.")
        self._host.memory.update_marks_sync(PINNED, msg_ids=[msg_id])

    def unpin(self, msg_id: str) -> None:
        """Let message ``msg_id`` be compressed again."""
        self._host.memory.update_marks_sync(None, PINNED, [msg_id])

    # -- doing it -------------------------------------------------------------------------------
    async def compress_if_needed(self) -> None:
        """Before each reasoning step: compress when enabled and the plan triggers."""
        cfg = self._config
        if cfg is not None and cfg.enable:
            await self._compress(force=False, trigger="auto")

    async def compress_now(
        self, force: bool = False, *, keep_recent: int | None = None
    ) -> CompressionResult | None:
        """Compress now if the plan triggers (or, with ``force``, whatever it can compress).

        Args:
            force: compress even below the threshold.
            keep_recent: keep this many latest messages this once (what-if; default the
                config's), as ``compression_plan(keep_recent=...)`` shows it.

        Returns None when nothing was compressed (under the threshold, nothing compressible,
        or the summary failed: see the ``CompressionFailed`` event).

        Raises:
            AgentBusyError: a reply is running (it compresses before each step by itself).
        """
        task = self._host._reply_task
        if task is not None and not task.done() and asyncio.current_task() is not task:
            raise AgentBusyError(self._host.name)
        return await self._compress(force=force, trigger="manual", keep_recent=keep_recent)

    async def _compress(
        self, force: bool, trigger: str, keep_recent: int | None = None
    ) -> CompressionResult | None:
        undo = self.undo
        async with self._lock:
            plan = self.plan(keep_recent=keep_recent)
            if not plan.compress_ids or not (force or plan.would_trigger):
                return None
            cfg = self._config
            self._host._emit(
                CompressionStarted(
                    self._host.name,
                    self._event_reply_id(),
                    tuple(plan.compress_ids),
                    plan.total_tokens,
                    trigger,
                )
            )
            previous_where, self._host._where = self._host._where, "compressing memory"
            previous = self._host.memory.summary
            try:
                structured, text = await self._summarize(plan, previous, cfg)
                # Memory may have changed while the summary was written (a pin, new messages):
                # compress only what a fresh plan still allows, so pins and pairs hold.
                still = set(self.plan(keep_recent=keep_recent).compress_ids)
                ids = [i for i in plan.compress_ids if i in still]
                if not ids:
                    raise ValueError("memory changed while summarising; nothing left to compress")
                self._apply(ids, text)
            except asyncio.CancelledError:
                self._host._emit(
                    CompressionFailed(self._host.name, self._event_reply_id(), "interrupted")
                )
                raise
            except Exception as exc:
                self._host._where = previous_where
                reason = f"{type(exc).__name__}: {exc}"
                logger.warning("Memory compression skipped, memory unchanged: %s", reason)
                self._host._emit(CompressionFailed(self._host.name, self._event_reply_id(), reason))
                return None
            self._host._where = previous_where
            undo.append(_Undo(ids, previous, text))
            del undo[:-UNDO_DEPTH]
            after = self.plan().total_tokens
            self._host._emit(
                CompressionFinished(
                    self._host.name,
                    self._event_reply_id(),
                    tuple(ids),
                    plan.total_tokens,
                    after,
                    text,
                )
            )
            return CompressionResult(
                compressed_ids=ids,
                tokens_before=plan.total_tokens,
                tokens_after=after,
                summary=text,
                previous_summary=previous,
                structured=structured.model_dump(mode="json"),
                trigger=trigger,
            )

    async def _summarize(
        self, plan: CompressionPlan, previous: str, cfg: CompressionConfig | None
    ) -> tuple[BaseModel, str]:
        wanted = set(plan.compress_ids)
        return await summarize(
            [m for m in self._host.memory.messages if m.id in wanted],
            previous,
            model=(cfg.compression_model if cfg else None) or self._host.model,
            formatter=(cfg.compression_formatter if cfg else None) or self._host.formatter,
            instructions=cfg.compression_prompt if cfg else DEFAULT_COMPRESSION_PROMPT,
            schema=cfg.summary_schema if cfg else SummarySchema,
            template=cfg.summary_template if cfg else DEFAULT_SUMMARY_TEMPLATE,
        )

    def _apply(self, compress_ids: list[str], summary: str) -> None:
        """Mark and store the summary in one memory change; on any error, put it all back."""
        memory = self._host.memory
        snapshot = memory.snapshot()
        messages, marks, _ = memory.snapshot()
        try:
            for msg_id in compress_ids:
                marks.setdefault(msg_id, set()).add(COMPRESSED)
            memory.restore(messages, marks, summary)
        except BaseException:
            memory.restore(*snapshot)
            raise

    @property
    def can_undo(self) -> bool:
        """Whether ``undo()`` has a compression to undo."""
        return bool(self.undo)

    async def undo_last(self) -> bool:
        """Undo the last compression: its messages return and the previous summary is back.

        Returns False when there is nothing to undo, or when the summary was changed since
        (by another compression's undo stack being lost, ``memory.clear()``, a loaded state).
        """
        undo = self.undo
        async with self._lock:
            if not undo:
                return False
            last = undo[-1]
            if self._host.memory.summary != last.summary:
                logger.warning("Cannot undo compression: memory's summary changed since.")
                undo.clear()
                return False
            undo.pop()
            messages, marks, _ = self._host.memory.snapshot()
            for msg_id in last.ids:
                if msg_id in marks:
                    marks[msg_id].discard(COMPRESSED)
            self._host.memory.restore(messages, marks, last.previous_summary)
            self._host._emit(
                CompressionUndone(
                    self._host.name, self._event_reply_id(), tuple(last.ids), last.previous_summary
                )
            )
            return True
