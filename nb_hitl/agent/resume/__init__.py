"""Resuming an interrupted reply: the resume point and the continuation (``agent.resumer``).

- ``_point.py``: ``ResumePoint`` (what ``agent.resume()`` continues), the text helpers both
  sides use, and ``carry_point`` (a continuation stopped before it began hands its point on).
- ``_resumer.py``: the ``Resumer`` part: finds the point in memory (``resume_point()``), and
  runs the continued reply's first step in one of its shapes (assistant prefix, continuation
  prompt, re-issued tool calls, next step), then tags its result.

May import ``nb_hitl.message``, ``events``, ``exceptions``, ``memory`` and ``model`` (the
continuation prompt and its HTTP refusals); it reads its agent only through ``ResumeHost``
and never imports the rest of ``nb_hitl.agent``.
"""

from ._point import ResumePoint, answer_text, carry_point, text_digest
from ._resumer import REFUSED_STATUS, ResumeHost, Resumer

__all__ = [
    "REFUSED_STATUS",
    "ResumeHost",
    "ResumePoint",
    "Resumer",
    "answer_text",
    "carry_point",
    "text_digest",
]
