"""The seam of a continued answer: the partial text and its continuation drawn as ONE answer.

``agent.resume()`` records the continuation as one new message holding the partial text and
the rest (``metadata["continued_from"]``: the partial message, ``["partial_chars"]``: where the
seam is). The chat draws that message alone, with a small "resumed here" mark at the seam, and
folds away the rows it continues (the partial answer, the interrupted message and the resume
instruction, which the mark quotes); the inspector still lists every record.

The mark goes in as a private-use character before the markdown is rendered, so it lands
exactly at the cut, mid-sentence or mid-word, and is swapped for escaped HTML afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from nb_hitl._render import (
    RemoteImages,
    block_html,
    error_text,
    esc,
    header_html,
    markdown,
    msg_classes,
    plain,
)
from nb_hitl.message import MetaKey

if TYPE_CHECKING:
    from nb_hitl.message import Msg

MARK = "\ue000"
"""Stands for the seam in the text while markdown renders (stripped from the text itself)."""


CONTINUED_BY = {
    "assistant_prefix": "the model continued its own partial message (assistant prefix)",
    "prompt": "the model was shown the partial text and asked for the rest (prompt)",
}


def seams(msg: Msg, lookup: Callable[[str], Msg | None] = lambda _id: None) -> list[int]:
    """Where ``msg``'s text was resumed, earliest first (a continuation continued again has
    several seams: ``lookup`` finds the earlier partial messages by id)."""
    found: list[int] = []
    text = msg.get_text_content() or ""
    current: Msg | None = msg
    seen: set[str] = set()
    while current is not None and current.id not in seen:
        seen.add(current.id)
        at = current.metadata.get(MetaKey.PARTIAL_CHARS)
        source = current.metadata.get(MetaKey.CONTINUED_FROM)
        if not isinstance(at, int) or not isinstance(source, str) or not 0 <= at <= len(text):
            break
        found.append(at)
        current = lookup(source)
    return sorted(set(found))


def seam_html(msg: Msg, instruction: str = "") -> str:
    """The "resumed here" mark (the instruction given to ``resume()`` quoted, if any)."""
    how = CONTINUED_BY.get(str(msg.metadata.get(MetaKey.CONTINUED_BY) or ""), "continued")
    title = f"Stopped here; Continue resumed the same answer: {how}."
    label = "resumed here"
    if instruction:
        short = " ".join(instruction.split())
        short = short if len(short) <= 48 else short[:47] + "…"
        label += f" · “{short}”"
        title += f" Instruction: {' '.join(instruction.split())}"
    icon = '<i class="fa fa-step-forward" aria-hidden="true"></i>'
    return f'<span class="nb-hitl-seam" role="note" title="{esc(title)}">{icon} {esc(label)}</span>'


def render_with_seams(
    text: str, start: int, at: Sequence[int], mark: str, images: RemoteImages, *, last: bool
) -> str:
    """Markdown of ``text`` (which starts at offset ``start`` of the whole answer) with
    ``mark`` (HTML) at each seam in ``at`` that falls inside it (at its very end only when it
    is the ``last`` piece: the continuation is about to stream there)."""
    text = text.replace(MARK, "")
    end = start + len(text)
    inside = sorted({a for a in at if start <= a < end or (last and a == end)}, reverse=True)
    if not inside:
        return markdown(text, images) if text else ""
    for a in inside:
        text = text[: a - start] + MARK + text[a - start :]
    return markdown(text, images).replace(MARK, mark)


def continued_body(
    msg: Msg,
    images: RemoteImages = "link",
    lookup: Callable[[str], Msg | None] = lambda _id: None,
    instruction: str = "",
) -> str:
    """The body of a continued answer: its whole text with the seam mark(s), its blocks."""
    at = seams(msg, lookup)
    mark = seam_html(msg, instruction)
    parts: list[str] = []
    offset = 0
    for block in msg.get_content_blocks():
        if block.type == "text":
            parts.append(render_with_seams(block.text, offset, at, mark, images, last=True))
            offset += len(block.text) + 1  # get_text_content joins text blocks with "\n"
        else:
            parts.append(block_html(block, images))
    err = error_text(msg)
    if err:
        parts.append(f'<div class="nb-hitl-error-text">{plain(err)}</div>')
    return "".join(parts)


def continued_html(
    msg: Msg,
    images: RemoteImages = "link",
    lookup: Callable[[str], Msg | None] = lambda _id: None,
    instruction: str = "",
) -> str:
    """A frozen continued answer: the whole text with its seam(s), in the row's classes."""
    body = continued_body(msg, images, lookup, instruction)
    return (
        f'<div class="{" ".join(msg_classes(msg))}" data-role="{esc(msg.role)}">'
        f"{resumed_header(msg)}{body}</div>"
    )


def resumed_header(msg: Msg, live: bool = False) -> str:
    """The row's header with a "resumed" badge saying how the answer was continued."""
    head = header_html(msg, live=live)
    how = CONTINUED_BY.get(str(msg.metadata.get(MetaKey.CONTINUED_BY) or ""), "")
    badge = (
        f'<span class="nb-hitl-badge nb-hitl-badge-resumed" title="{esc(how or "resumed")}">'
        "resumed</span>"
    )
    return head[: -len("</div>")] + badge + "</div>" if head.endswith("</div>") else head + badge


def is_continuation(msg: Any) -> bool:
    """Whether ``msg`` continues a partial answer (drawn with a seam)."""
    metadata = getattr(msg, "metadata", None) or {}
    return isinstance(metadata.get(MetaKey.CONTINUED_FROM), str) and isinstance(
        metadata.get(MetaKey.PARTIAL_CHARS), int
    )


def folded_ids(msg: Msg, messages: Sequence[Msg]) -> tuple[list[str], str]:
    """The rows a continuation stands for (partial, interrupted message, instruction) and the
    instruction's text."""
    interrupted = msg.metadata.get(MetaKey.CONTINUES)
    ids = [str(msg.metadata.get(MetaKey.CONTINUED_FROM))]
    if isinstance(interrupted, str):
        ids.append(interrupted)
    instruction = ""
    for m in messages:
        if (
            m.metadata.get(MetaKey.RESUME_INSTRUCTION)
            and m.metadata.get(MetaKey.CONTINUES) == interrupted
        ):
            ids.append(m.id)
            instruction = m.get_text_content() or ""
    return ids, instruction


__all__ = [
    "MARK",
    "continued_body",
    "continued_html",
    "folded_ids",
    "is_continuation",
    "render_with_seams",
    "resumed_header",
    "seam_html",
    "seams",
]
