"""Stop after this step: the chat's graceful stop, next to Stop (also Shift+Escape).

Stop cancels at once, wherever the reply is. "After step" (``agent.stop_after_step()``)
lets the model call or tool batch in flight finish and ends the reply at its next step
boundary, with a complete history (``metadata["stopped_after_step"]``, not interrupted);
meanwhile the status line says "stopping after this step…". Continue then goes on with the
next step (``agent.resume()``). Stop still stops at once while the graceful stop is pending.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nb_hitl.events import (
    ErrorOccurred,
    Event,
    ReplyFinished,
    ReplyStarted,
    StoppedAfterStep,
    StopRequested,
)

if TYPE_CHECKING:
    from ._controls import ControlButton
    from ._status import StatusLine

STOPPING_AFTER_STEP = "stopping after this step…"
"""What the status line says while the graceful stop is pending."""
STOPPED_AFTER_STEP = "stopped after a step"
"""What it says once the reply ended that way."""
TOOLTIP = (
    "Stop after this step (Shift+Esc): the model call or tool batch in flight finishes, then "
    "the reply ends cleanly; Continue goes on from there. Stop (Esc) stops at once."
)


class StepStop:
    """The "After step" button (stop after this step) and its state, driven by events.

    Args:
        agent: the chat's agent.
        status: the chat's status line (it says "stopping after this step…").
        button: the button drawn for it (``ChatControls.step_button``).
    """

    def __init__(self, agent: Any, status: StatusLine, button: ControlButton) -> None:
        self.agent = agent
        self.status = status
        self.button = button
        """The button (``nb-hitl-stop-step``, a part of the chat's controls)."""
        button.tooltip = TOOLTIP
        button.hidden = not self.supported
        self.pending = False
        """A graceful stop was asked for and the reply has not ended yet."""
        self.stopped = False
        """The last reply ended by ``stop_after_step()`` (Continue goes on from there)."""

    @property
    def supported(self) -> bool:
        """Whether the agent has step boundaries (``ReActAgent``: yes; ``UserAgent``: no)."""
        return bool(getattr(self.agent, "supports_stop_after_step", False))

    def request(self) -> bool:
        """Ask the running reply to end after its current step; False when none runs."""
        if not self.supported or not self.agent.is_replying or self.pending:
            return self.pending
        if not self.agent.stop_after_step_nowait():
            return False
        self._show_pending()
        return True

    def _show_pending(self) -> None:
        self.pending = True
        self.button.disabled = True
        self.button.description = "Ending…"
        self.status.set_hint(STOPPING_AFTER_STEP)

    def on_event(self, ev: Event) -> None:
        """Follow the reply: enabled while one runs, pending after ``StopRequested``."""
        if isinstance(ev, ReplyStarted):
            self.pending = self.stopped = False
            self.button.description = "After step"
            self.button.disabled = not self.supported
        elif isinstance(ev, StopRequested):
            if not self.pending:
                self._show_pending()  # asked from code (agent.stop_after_step()) or a magic
        elif isinstance(ev, StoppedAfterStep):
            self.stopped = True
        elif isinstance(ev, (ReplyFinished, ErrorOccurred)):
            self.end()

    def end(self) -> None:
        """The reply is over (finished, interrupted or failed): nothing to stop after."""
        self.pending = False
        self.button.disabled = True
        self.button.description = "After step"

    def stop_now(self) -> None:
        """Stop was pressed: the graceful stop is moot."""
        self.button.disabled = True


__all__ = ["STOPPED_AFTER_STEP", "STOPPING_AFTER_STEP", "StepStop"]
