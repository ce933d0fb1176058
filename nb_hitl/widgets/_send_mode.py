"""What the chat's Send does while a reply runs: steer, interrupt & redirect, or queue."""

from __future__ import annotations

from typing import Literal

SendMode = Literal["steer", "interrupt", "queue"]
MODE_LABELS: dict[str, str] = {
    "steer": "Steer",
    "interrupt": "Interrupt & redirect",
    "queue": "Queue",
}
"""The picker's options, in order."""
SEND_LABELS: dict[str, str] = {"steer": "Steer", "interrupt": "Redirect", "queue": "Queue"}
"""The Send button's label while a reply runs."""
MODE_HINTS: dict[str, str] = {
    "steer": "steers: taken in at the next step, nothing lost",
    "interrupt": "interrupts and redirects the reply",
    "queue": "queued: answered after this reply",
}
STEER_NOTE = "Steering: your message is taken in at the next step of the reply."
STEER_KEPT_NOTE = (
    "Stopped before your steering message was taken in: it is kept, and the next reply "
    "(Continue or a new message) takes it in first."
)


def check_send_mode(mode: object) -> None:
    """Refuse a send mode that is not one of ``steer``, ``interrupt``, ``queue``."""
    if mode not in MODE_LABELS:
        raise ValueError(
            f"send_mode must be 'steer', 'interrupt' or 'queue', got {mode!r}; "
            "e.g. ChatWidget(agent, send_mode='steer')."
        )


__all__ = [
    "MODE_HINTS",
    "MODE_LABELS",
    "SEND_LABELS",
    "STEER_KEPT_NOTE",
    "STEER_NOTE",
    "SendMode",
    "check_send_mode",
]
