"""Checks of one pipeline run or resume: who spoke, in which order, and where it paused.

``finished`` is the list of replies that ended during the run (speaker, interrupted, message),
``delivered`` the participants a Stop reached while they replied.
"""

from __future__ import annotations

from typing import Any

from interrupt_harness import Violation

from nb_hitl.message import Msg
from nb_hitl.pipeline import FanoutPipeline, SequentialPipeline

Finished = list[tuple[str, bool, "Msg | None"]]


def _stops_were_honoured(finished: Finished, delivered: set[str]) -> None:
    for name, interrupted, _ in finished:
        if name in delivered and not interrupted:
            raise Violation(f"an accepted Stop on {name} did not end its reply interrupted")


def check_sequential_run(
    pipe: SequentialPipeline, start: int, finished: Finished, delivered: set[str], result: Any
) -> None:
    """The speakers of one run or resume from ``start``, in order, and the pause if any."""
    names = [a.name for a in pipe.agents]
    spoke = [name for name, _, _ in finished]
    if spoke != names[start : start + len(spoke)]:
        raise Violation(f"speakers {spoke}, expected the pipeline's order from {start}")
    _stops_were_honoured(finished, delivered)
    if any(interrupted for _, interrupted, _ in finished[:-1]):
        raise Violation("the pipeline went on after an interrupted reply")
    if finished and finished[-1][1]:
        pos = start + len(finished) - 1
        info = result.metadata.get("pipeline") if isinstance(result, Msg) else None
        if not isinstance(result, Msg) or not result.is_interrupted:
            raise Violation("an interrupted speaker did not pause the pipeline")
        if result is not finished[-1][2]:
            raise Violation("the pause returned another message than the interrupted reply")
        if pipe.paused is None or pipe.paused.positions != [pos]:
            raise Violation(f"pipeline.paused is {pipe.paused}, expected position {pos}")
        if info != {"id": pipe.id, "kind": "sequential", "position": pos, "agent": names[pos]}:
            raise Violation(f"metadata['pipeline'] is {info}, expected position {pos}")
        return
    if pipe.paused is not None:
        raise Violation("the pipeline says it is paused, but no reply was interrupted")
    if len(spoke) != len(names) - start:
        raise Violation(f"only {spoke} spoke, expected {names[start:]}")
    if spoke and result is not finished[-1][2]:
        raise Violation("the pipeline's result is not the last speaker's reply")


def check_fanout_run(
    pipe: FanoutPipeline,
    asked: list[int],
    finished: Finished,
    delivered: set[str],
    result: Any,
    action: str,
) -> None:
    """Each participant at ``asked`` replied once; the result lists every reply in the
    agents' order (the interrupted ones marked, and left out after ``skip``); the pipeline is
    paused exactly at the interrupted ones."""
    names = [a.name for a in pipe.agents]
    spoke = sorted(name for name, _, _ in finished)
    if spoke != sorted(names[i] for i in asked):
        raise Violation(f"fanout: {spoke} replied, expected {sorted(names[i] for i in asked)}")
    _stops_were_honoured(finished, delivered)
    if not isinstance(result, list) or not all(isinstance(m, Msg) for m in result):
        raise Violation(f"fanout returned {type(result).__name__}, not a list of messages")
    by_name = {name: msg for name, _, msg in finished}
    if action == "skip":
        if pipe.paused is not None or any(m.is_interrupted for m in result):
            raise Violation("fanout: skip left an interrupted reply in the result, or a pause")
        return
    if len(result) != len(names):
        raise Violation(f"fanout returned {len(result)} replies for {len(names)} agents")
    for i in asked:
        if result[i] is not by_name.get(names[i]):
            raise Violation(f"fanout: result {i} is not {names[i]}'s reply")
    interrupted = [i for i, m in enumerate(result) if m.is_interrupted]
    if not interrupted:
        if pipe.paused is not None:
            raise Violation("fanout: paused, but no reply was interrupted")
        return
    if pipe.paused is None or pipe.paused.positions != interrupted:
        raise Violation(f"fanout: paused is {pipe.paused}, expected positions {interrupted}")
    for i in interrupted:
        info = result[i].metadata.get("pipeline")
        if info != {"id": pipe.id, "kind": "fanout", "position": i, "agent": names[i]}:
            raise Violation(f"fanout: metadata['pipeline'] is {info}, expected position {i}")


__all__ = ["check_fanout_run", "check_sequential_run"]
