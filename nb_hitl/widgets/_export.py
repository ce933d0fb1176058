"""A chat transcript as a Markdown or a standalone HTML file (the chat's Export button).

Markdown keeps the messages' own text, with ``<`` and ``&`` outside code escaped so that no
message can put raw HTML into a viewer that renders it; tool calls and results go in code
fences longer than any run of backticks they hold. HTML is the panel's own escaped rendering
(markdown with raw HTML disabled, images as links) in one self-contained page.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from nb_hitl._render import CSS, esc, interrupt_cause, msg_flags, msg_html, shown_text
from nb_hitl.message import MetaKey

if TYPE_CHECKING:
    from nb_hitl.message import Msg

ExportFormat = Literal["markdown", "html"]
EXPORT_FORMATS: dict[str, str] = {"markdown": ".md", "html": ".html"}
"""The formats and their file suffixes."""
_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})", re.M)


def _fence(text: str, info: str = "") -> str:
    """``text`` in a code fence longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    bar = "`" * max(3, longest + 1)
    return f"{bar}{info}\n{text}\n{bar}"


def _escape_outside_code(text: str) -> str:
    """Escape ``&`` and ``<`` except inside fenced code (where a viewer shows them as typed)."""
    out, inside, bar = [], False, ""
    for line in text.split("\n"):
        found = _FENCE.match(line)
        if found and (not inside or found.group(2).startswith(bar)):
            inside, bar = (not inside), found.group(2)[:3]
            out.append(line)
        elif inside:
            out.append(line)
        else:
            out.append(line.replace("&", "&amp;").replace("<", "&lt;"))
    return "\n".join(out)


def _json(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        return str(value)


def _flags(msg: Msg) -> str:
    interrupted, error = msg_flags(msg)
    words = []
    if msg.is_interrupted:
        cause = interrupt_cause(msg)
        words.append(f"interrupted ({cause})" if cause else "interrupted")
    elif interrupted:
        words.append("partial, interrupted")
    if error:
        words.append("error")
    return f" · *{', '.join(words)}*" if words else ""


def message_markdown(msg: Msg) -> str:
    """One message as Markdown: a heading line, its text, tool calls and results."""
    name = _escape_outside_code(msg.name).replace("*", "\\*")
    parts = [f"**{name}** ({esc(msg.role)}){_flags(msg)}"]
    for block in msg.get_content_blocks():
        if block.type == "text":
            parts.append(_escape_outside_code(shown_text(msg, block.text)))
        elif block.type == "thinking":
            parts.append("*thinking:*\n\n" + _fence(block.thinking))
        elif block.type == "tool_use":
            tool = _escape_outside_code(block.name)
            parts.append(f"*tool call* `{tool}`:\n\n" + _fence(_json(block.input), "json"))
        elif block.type == "tool_result":
            tag = " (interrupted)" if block.is_interrupted else " (error)" if block.is_error else ""
            tool = _escape_outside_code(block.name)
            parts.append(f"*result of* `{tool}`{tag}:\n\n" + _fence(block.output_text()))
        elif block.type in ("image", "audio", "video"):
            parts.append(f"*[{block.type}]*")
    err = msg.metadata.get(MetaKey.ERROR)
    if isinstance(err, str) and err:
        parts.append(_fence(err))
    return "\n\n".join(parts)


def transcript_markdown(messages: Iterable[Msg], title: str = "") -> str:
    """The messages as one Markdown document."""
    head = f"# {_escape_outside_code(title)}\n\n" if title else ""
    return head + "\n\n---\n\n".join(message_markdown(m) for m in messages) + "\n"


def transcript_html(messages: Iterable[Msg], title: str = "") -> str:
    """The messages as one standalone, escaped HTML page (the panel's own rendering)."""
    rows = "\n".join(msg_html(m, "link") for m in messages)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{esc(title or 'Chat transcript')}</title>{CSS}</head>\n"
        f'<body><div class="nb-hitl-chat"><h1>{esc(title)}</h1>\n{rows}\n</div></body></html>\n'
    )


def export_transcript(
    messages: list[Msg],
    path: str | Path | None = None,
    fmt: ExportFormat = "markdown",
    *,
    title: str = "",
    stem: str = "chat",
) -> Path:
    """Write ``messages`` to ``path`` (default: ``<stem>-<date-time>.md`` or ``.html`` in the
    working directory, which is the notebook's folder in JupyterLab and Notebook 7).

    Raises:
        ValueError: an unknown format.
        OSError: the file cannot be written (its message names the path).
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"format must be 'markdown' or 'html', got {fmt!r}.")
    if path is None:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("._") or "chat"
        path = Path(f"{safe}-{time.strftime('%Y%m%d-%H%M%S')}{EXPORT_FORMATS[fmt]}")
    path = Path(path)
    text = (
        transcript_markdown(messages, title)
        if fmt == "markdown"
        else transcript_html(messages, title)
    )
    path.write_text(text, encoding="utf-8")
    return path


__all__ = [
    "EXPORT_FORMATS",
    "ExportFormat",
    "export_transcript",
    "message_markdown",
    "transcript_html",
    "transcript_markdown",
]
