"""What the panel cannot do with a remote agent, and why (shown greyed out with the reason).

The panel reads ``agent.unsupported`` (feature -> reason) and disables each control with the
reason as its tooltip, plus one note saying it all; nothing is silently ignored.
"""

from __future__ import annotations

UNSUPPORTED: dict[str, str] = {
    "compression": "Memory compression runs on the server; the client cannot compress, undo "
    "or explore it.",
    "branches": "Edit, Regenerate and branches rewrite the server's history, which AG-UI "
    "cannot do.",
    "edit_memory": "The memory shown mirrors the server's: Clear, pins and edits would not "
    "reach it.",
    "stop_after_step": "AG-UI has no stop-after-this-step; Stop cancels the run.",
    "rules": "The server keeps its own permission rules: Always allow and Allow similar "
    "are not available.",
    "session": "The server keeps the thread (save/load a session on the server side).",
    "steer": "This server has no steering endpoint: sending while a reply runs interrupts "
    "and redirects.",
    "continue": "This server cannot continue an interrupted answer: Continue sends "
    "“Please continue.” as a message.",
}
"""Features a remote agent lacks, with the reason; ``RemoteAgent.connect()`` removes those
the server turns out to have (steering, Continue on nb_hitl's server)."""


__all__ = ["UNSUPPORTED"]
