"""The compact line a streaming message's thinking and tool-call blocks show as
(``live_extras``; in full once the message is final)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._render import TOOL_GLYPH, esc

if TYPE_CHECKING:
    from nb_hitl.message import Msg


def live_extras(msg: Msg) -> str:
    """Thinking and tool-call blocks of a streaming message, as one compact line each."""
    parts = []
    for b in msg.get_content_blocks():
        if b.type == "thinking":
            parts.append(f'<div class="nb-hitl-tool">thinking… ({len(b.thinking):,} chars)</div>')
        elif b.type == "tool_use":
            state = "arguments streaming…" if b.raw_input is not None else "ready"
            tool = f"{TOOL_GLYPH} <code>{esc(b.name)}</code> ({state})"
            parts.append(f'<div class="nb-hitl-tool">{tool}</div>')
    return "".join(parts)


__all__ = ["live_extras"]
