"""Sequential and fanout pipelines that pause for the human when a speaker is interrupted.

AgentScope 1.x semantics (``sequential_pipeline`` passes each output to the next agent;
``fanout_pipeline`` gives every agent the same input) with one difference by default: an
*interrupted* reply is not passed on as if it were an answer. The pipeline stops and returns
the interrupted message, whose ``metadata["pipeline"]`` says where it stopped (``id``,
``kind``, ``position``, ``agent``). ``await pipeline.resume(action, instruction)`` (or the
module-level ``resume(msg, ...)``) then goes on from there:

- ``"retry"``: ask the same agent again, with ``instruction`` (or with what its memory holds);
- ``"skip"``: go on with the next agent (given ``instruction``, else the skipped one's input);
- ``"stop"``: end the pipeline; the interrupted message is the result.

``pause_on_interrupt=False`` restores AgentScope's behaviour (the message is passed on).
"""

from __future__ import annotations

import asyncio
import copy
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from nb_hitl.agent import AgentBase
from nb_hitl.message import MetaKey, Msg

Action = Literal["retry", "skip", "stop"]
ACTIONS = ("retry", "skip", "stop")
_PAUSED: dict[str, SequentialPipeline | FanoutPipeline] = {}
"""Paused pipelines by id, so ``resume(msg)`` finds the one a message came from."""


@dataclass
class PipelinePause:
    """Where a pipeline stopped: the interrupted agent(s), their message(s) and input."""

    positions: list[int]
    messages: list[Msg]
    input: Any


def _interrupted(out: Any) -> bool:
    return isinstance(out, Msg) and out.is_interrupted


def _as_msg(instruction: Msg | str | None) -> Msg | None:
    if instruction is None or isinstance(instruction, Msg):
        return instruction
    if isinstance(instruction, str):
        return Msg("user", instruction, "user")
    raise TypeError(f"instruction must be a Msg, a str or None, got {type(instruction).__name__}.")


def _check(agents: Sequence[AgentBase]) -> list[AgentBase]:
    out = list(agents)
    for a in out:
        if not isinstance(a, AgentBase):
            raise TypeError(f"pipelines take agents (AgentBase), got {type(a).__name__}.")
    return out


class _Pausing:
    kind = "pipeline"

    def __init__(self, agents: Sequence[AgentBase], pause_on_interrupt: bool) -> None:
        self.agents = _check(agents)
        self.pause_on_interrupt = pause_on_interrupt
        self.id = uuid.uuid4().hex[:12]
        self.paused: PipelinePause | None = None
        """Set while the pipeline waits for ``resume()``."""

    def _mark(self, msg: Msg, position: int) -> None:
        msg.metadata[MetaKey.PIPELINE] = {
            "id": self.id,
            "kind": self.kind,
            "position": position,
            "agent": self.agents[position].name,
        }

    def _pause(self, positions: list[int], messages: list[Msg], given: Any) -> None:
        for pos, msg in zip(positions, messages, strict=True):
            self._mark(msg, pos)
        self.paused = PipelinePause(positions, messages, given)
        _PAUSED[self.id] = self  # type: ignore[assignment]

    def _forget_pause(self) -> None:
        """A new run drops an unresumed pause, so its message no longer resumes anything."""
        self.paused = None
        _PAUSED.pop(self.id, None)

    def _unpause(self) -> PipelinePause:
        p = self.paused
        if p is None:
            raise RuntimeError(
                f"This {self.kind} pipeline is not paused: resume() continues a pipeline that "
                "returned an interrupted message."
            )
        self.paused = None
        _PAUSED.pop(self.id, None)
        return p

    @staticmethod
    def _check_action(action: str) -> None:
        if action not in ACTIONS:
            raise ValueError(f"resume() takes action 'retry', 'skip' or 'stop', got {action!r}.")


class SequentialPipeline(_Pausing):
    """Run agents one after the other, each given the previous one's output.

    Args:
        agents: the agents, in order.
        pause_on_interrupt: stop at an interrupted reply (see the module docstring).
    """

    kind = "sequential"

    def __init__(self, agents: Sequence[AgentBase], *, pause_on_interrupt: bool = True) -> None:
        super().__init__(agents, pause_on_interrupt)

    async def __call__(self, msg: Msg | list[Msg] | None = None) -> Msg | list[Msg] | None:
        """Run from the first agent; returns the last output, or the interrupted message."""
        self._forget_pause()
        return await self._run_from(0, msg)

    async def _run_from(self, start: int, msg: Any) -> Any:
        for i in range(start, len(self.agents)):
            out = await self.agents[i](msg)
            if self.pause_on_interrupt and _interrupted(out):
                self._pause([i], [out], msg)
                return out
            msg = out
        return msg

    async def resume(
        self, action: Action = "retry", instruction: Msg | str | None = None
    ) -> Msg | list[Msg] | None:
        """Go on after a pause: ``retry`` the interrupted agent, ``skip`` it, or ``stop``."""
        self._check_action(action)
        instruction_msg = _as_msg(instruction)
        p = self._unpause()
        pos = p.positions[0]
        if action == "stop":
            return p.messages[0]
        if action == "skip":
            return await self._run_from(pos + 1, instruction_msg or p.input)
        return await self._run_from(pos, instruction_msg)


class FanoutPipeline(_Pausing):
    """Give every agent the same input (a deep copy each) and collect their replies.

    Args:
        agents: the agents.
        enable_gather: run them concurrently (else one after the other).
        pause_on_interrupt: mark interrupted replies and wait for ``resume()``.
    """

    kind = "fanout"

    def __init__(
        self,
        agents: Sequence[AgentBase],
        *,
        enable_gather: bool = True,
        pause_on_interrupt: bool = True,
    ) -> None:
        super().__init__(agents, pause_on_interrupt)
        self.enable_gather = enable_gather
        self._results: list[Msg] = []

    async def __call__(self, msg: Msg | list[Msg] | None = None, **kwargs: Any) -> list[Msg]:
        """Every agent's reply, in the agents' order (interrupted ones marked, see above)."""
        self._forget_pause()
        self._results = await self._ask(list(range(len(self.agents))), msg, kwargs)
        self._check_paused(msg)
        return list(self._results)

    async def _ask(self, positions: list[int], msg: Any, kwargs: dict[str, Any]) -> list[Msg]:
        agents = [self.agents[i] for i in positions]
        if self.enable_gather:
            return list(await asyncio.gather(*(a(copy.deepcopy(msg), **kwargs) for a in agents)))
        return [await a(copy.deepcopy(msg), **kwargs) for a in agents]

    def _check_paused(self, given: Any) -> None:
        if not self.pause_on_interrupt:
            return
        positions = [i for i, m in enumerate(self._results) if _interrupted(m)]
        if positions:
            self._pause(positions, [self._results[i] for i in positions], given)

    async def resume(
        self, action: Action = "retry", instruction: Msg | str | None = None
    ) -> list[Msg]:
        """``retry`` the interrupted agents (with ``instruction``), ``skip`` them (their
        replies are left out of the result), or ``stop`` (the result as it is)."""
        self._check_action(action)
        instruction_msg = _as_msg(instruction)
        p = self._unpause()
        if action == "stop":
            return list(self._results)
        if action == "skip":
            return [m for i, m in enumerate(self._results) if i not in p.positions]
        again = await self._ask(p.positions, instruction_msg, {})
        for pos, out in zip(p.positions, again, strict=True):
            self._results[pos] = out
        self._check_paused(instruction_msg)
        return list(self._results)


async def sequential_pipeline(
    agents: Sequence[AgentBase],
    msg: Msg | list[Msg] | None = None,
    *,
    pause_on_interrupt: bool = True,
) -> Msg | list[Msg] | None:
    """Run ``agents`` in order, each given the previous output; returns the last output.

    An interrupted reply stops it (its ``metadata["pipeline"]`` says where); continue with
    ``resume(that_msg, "retry" | "skip" | "stop", instruction)``.
    """
    return await SequentialPipeline(agents, pause_on_interrupt=pause_on_interrupt)(msg)


async def fanout_pipeline(
    agents: Sequence[AgentBase],
    msg: Msg | list[Msg] | None = None,
    enable_gather: bool = True,
    *,
    pause_on_interrupt: bool = True,
    **kwargs: Any,
) -> list[Msg]:
    """Give every agent ``msg`` (a deep copy each); returns their replies in order."""
    pipe = FanoutPipeline(
        agents, enable_gather=enable_gather, pause_on_interrupt=pause_on_interrupt
    )
    return await pipe(msg, **kwargs)


async def resume(
    msg: Msg, action: Action = "retry", instruction: Msg | str | None = None
) -> Msg | list[Msg] | None:
    """Continue the paused pipeline that returned the interrupted message ``msg``."""
    info = msg.metadata.get(MetaKey.PIPELINE) if isinstance(msg, Msg) else None
    pipe = _PAUSED.get(info.get("id", "")) if isinstance(info, dict) else None
    if pipe is None:
        raise ValueError(
            "This message did not come from a paused pipeline (no metadata['pipeline'], or "
            "that pipeline was already resumed); pass the interrupted message it returned."
        )
    return await pipe.resume(action, instruction)


__all__ = [
    "FanoutPipeline",
    "PipelinePause",
    "SequentialPipeline",
    "fanout_pipeline",
    "resume",
    "sequential_pipeline",
]
