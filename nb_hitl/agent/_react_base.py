"""ReActAgentBase: an agent whose reply reasons and acts, with hooks around both steps.

AgentScope 1.x's base of ``ReActAgent``: a subclass writes ``_reasoning`` and ``_acting`` (and
its own ``reply`` that calls them), and the ``pre_/post_reasoning`` and ``pre_/post_acting``
hooks run around each call, as AgentScope's metaclass arranges. ``ReActAgent`` derives from it
and runs those hooks from its own loop.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from ._base import AgentBase
from ._hooks import REACT_HOOK_TYPES, _wrap


class ReActAgentBase(AgentBase):
    """Base of agents that alternate reasoning and acting (AgentScope's ``ReActAgentBase``).

    A subclass implements ``_reasoning`` and ``_acting`` as coroutines; the hooks registered
    for ``reasoning`` and ``acting`` run around every call of them, once even when an override
    calls ``super()``.
    """

    supported_hook_types = REACT_HOOK_TYPES

    _loop_runs_step_hooks: ClassVar[bool] = False
    """True on classes whose reply loop runs the step hooks itself (``ReActAgent``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls._loop_runs_step_hooks:
            return
        for step in ("reasoning", "acting"):
            method = cls.__dict__.get(f"_{step}")
            if inspect.iscoroutinefunction(method) and not hasattr(method, "__nb_hitl_hooked__"):
                setattr(cls, f"_{step}", _wrap(step, method))

    async def _reasoning(self, *args: Any, **kwargs: Any) -> Any:
        """Think: ask the model what to do next (a subclass implements it)."""
        raise NotImplementedError(f"{type(self).__name__} must implement async _reasoning().")

    async def _acting(self, *args: Any, **kwargs: Any) -> Any:
        """Act: run one step the reasoning chose (a subclass implements it)."""
        raise NotImplementedError(f"{type(self).__name__} must implement async _acting().")
