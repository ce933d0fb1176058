"""What a client may know of an agent's state (AG-UI ``STATE_SNAPSHOT``): plain JSON, no secrets.

The inspector of a remote panel draws it: the reply's state, the permission mode, the queued
steering messages, the memory's size and the compression settings. Model clients, keys and
tool functions never leave the server.
"""

from __future__ import annotations

from typing import Any

__all__ = ["agent_state"]


def agent_state(agent: Any) -> dict[str, Any]:
    """The JSON state of ``agent`` for ``STATE_SNAPSHOT`` events and the history endpoint."""
    memory = getattr(agent, "memory", None)
    state: dict[str, Any] = {
        "agent": str(getattr(agent, "name", "")),
        "replyState": str(getattr(agent, "reply_state", "idle")),
        "memoryMessages": len(getattr(memory, "messages", []) or []),
        "pendingSteering": len(getattr(agent, "pending_steering", []) or []),
        "canResume": bool(getattr(agent, "can_resume", False)),
    }
    permissions = getattr(agent, "permissions", None)
    if permissions is not None:
        state["permissionMode"] = str(getattr(permissions, "mode", ""))
    config = getattr(agent, "compression_config", None)
    state["compression"] = (
        None
        if config is None
        else {
            "enable": bool(config.enable),
            "triggerThreshold": config.trigger_threshold,
            "keepRecent": config.keep_recent,
        }
    )
    model = getattr(agent, "model", None)
    if model is not None:
        state["model"] = str(getattr(model, "model_name", type(model).__name__))
    return state
