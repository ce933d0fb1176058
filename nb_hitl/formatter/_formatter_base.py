"""FormatterBase: what every formatter shares (AgentScope's ``FormatterBase`` surface).

A chat formatter walks each message's blocks once: ``tool_use`` blocks become the message's
``tool_calls``, each ``tool_result`` becomes a ``tool`` message placed before its carrier (with
its media optionally promoted into a user message after it), and every other block is handed
to the subclass's ``_content_part``; the subclass's ``_entry`` then builds the message itself.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from nb_hitl.exceptions import ConfigError
from nb_hitl.message import (
    AudioBlock,
    ContentBlock,
    ImageBlock,
    Msg,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)

_MEDIA: dict[str, Any] = {"image": ImageBlock, "audio": AudioBlock, "video": VideoBlock}


class FormatterBase:
    """Turns a list of ``Msg`` into the message dicts one chat API takes.

    Subclasses implement ``format_msg`` (one message, synchronous, so token counters can cache
    per message); ``await format(msgs)`` and ``format_sync(msgs)`` format a whole list.

    Args:
        token_counter: accepted for AgentScope's signature.
        max_tokens: AgentScope's truncation limit. Differs on purpose: not supported (a
            ``ConfigError``); nb_hitl keeps long histories in budget with ``CompressionConfig``,
            which summarises instead of silently dropping the oldest messages.
    """

    def __init__(self, token_counter: Any = None, max_tokens: int | None = None) -> None:
        if max_tokens is not None:
            raise ConfigError(
                f"{type(self).__name__}(max_tokens=...) truncation is not supported; keep the "
                "history in budget with ReActAgent(compression_config=CompressionConfig(...))."
            )
        self.token_counter = token_counter
        self.max_tokens = max_tokens

    async def format(self, msgs: list[Msg]) -> list[dict[str, Any]]:
        """Format ``msgs`` (async like AgentScope's formatters; this does no network I/O)."""
        return self.format_sync(msgs)

    def format_sync(self, msgs: Sequence[Msg]) -> list[dict[str, Any]]:
        """Format ``msgs`` without awaiting.

        A subclass written the AgentScope way, with only ``async format()``, is run through
        its ``format()`` (which must not wait for I/O: formatting is local work).
        """
        self.assert_list_of_msgs(msgs)
        if self._format_only():
            return _run_to_end(self.format(list(msgs)), type(self).__name__)
        out: list[dict[str, Any]] = []
        for msg in msgs:
            out.extend(self.format_msg(msg))
        return out

    def format_msg(self, msg: Msg) -> list[dict[str, Any]]:
        """Format one message into zero or more chat messages (tool results first)."""
        if self._format_only():
            return _run_to_end(self.format([msg]), type(self).__name__)
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        out: list[dict[str, Any]] = []
        promoted: list[Msg] = []
        for block in msg.get_content_blocks():
            if isinstance(block, ToolUseBlock):
                calls.append(tool_call_entry(block))
            elif isinstance(block, ToolResultBlock):
                text, media = self.convert_tool_result_to_string(block.output)
                out.append(self._tool_message(block, text, media))
                promoted.extend(self._promoted(block.name, media))
            else:
                part = self._content_part(msg, block)
                if part is not None:
                    parts.append(part)
        entry = self._entry(msg, parts, calls)
        if entry is not None:
            out.append(entry)
        for extra in promoted:
            out.extend(self.format_msg(extra))
        return out

    def _format_only(self) -> bool:
        """Whether the subclass overrides ``format`` alone (AgentScope's way to write one)."""
        cls = type(self)
        return (
            cls.format is not FormatterBase.format
            and cls.format_msg is FormatterBase.format_msg
            and cls._entry is FormatterBase._entry
        )

    # -- what each chat formatter fills in ----------------------------------------------------
    promoted_intro: ClassVar[str] = "media"
    """The word in the promoted message's heading (AgentScope's: ``image`` for OpenAI)."""

    def _content_part(self, msg: Msg, block: ContentBlock) -> dict[str, Any] | None:
        """The content part for a text or media block of ``msg`` (``None``: not sent)."""
        raise NotImplementedError(f"{type(self).__name__} does not format single messages.")

    def _tool_message(
        self, block: ToolResultBlock, text: str, media: list[tuple[str, Any]]
    ) -> dict[str, Any]:
        """The ``tool`` message for one tool result (``text`` from its output)."""
        return {"role": "tool", "tool_call_id": block.id, "content": text, "name": block.name}

    def _entry(
        self, msg: Msg, parts: list[dict[str, Any]], calls: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """The chat message for ``msg`` itself (``None`` when it has nothing to send)."""
        raise NotImplementedError(f"{type(self).__name__} does not format single messages.")

    def _promote_kinds(self) -> set[str]:
        """Which media kinds of a tool result are promoted into a user message."""
        kinds = {"image": "promote_tool_result_images", "audio": "promote_tool_result_audios"}
        kinds["video"] = "promote_tool_result_videos"
        return {kind for kind, flag in kinds.items() if getattr(self, flag, False)}

    def _promoted(self, tool_name: str, media: list[tuple[str, Any]]) -> list[Msg]:
        """The user message carrying a tool result's promoted media (none if nothing is)."""
        wanted = self._promote_kinds()
        blocks: list[Any] = []
        for where, block in media:
            kind = block["type"]
            if kind in wanted:
                blocks.append(TextBlock(text=f"\n- The {kind} from '{where}': "))
                blocks.append(_MEDIA[kind](source=URLSource(url=where)))
        if not blocks:
            return []
        intro = (
            f"<system-info>The following are the {self.promoted_intro} contents from the tool "
            f"result of '{tool_name}':"
        )
        return [
            Msg("user", [TextBlock(text=intro), *blocks, TextBlock(text="</system-info>")], "user")
        ]

    @staticmethod
    def assert_list_of_msgs(msgs: Sequence[Msg]) -> None:
        """Raise ``TypeError`` unless ``msgs`` is a list (or tuple) of ``Msg``."""
        if not isinstance(msgs, (list, tuple)):
            raise TypeError(f"Input must be a list of Msg objects, got {type(msgs).__name__}.")
        for msg in msgs:
            if not isinstance(msg, Msg):
                raise TypeError(f"Expected Msg object, got {type(msg).__name__} instead.")

    @staticmethod
    def convert_tool_result_to_string(
        output: str | Sequence[Any] | None,  # Sequence of blocks or block dicts
    ) -> tuple[str, list[tuple[str, Any]]]:
        """A tool's output as text, plus its media blocks for APIs that take none in results.

        Text blocks give their text; an image, audio or video block gives a line saying where
        it is. One line is returned as is, several as ``- `` bullet lines (AgentScope's rule).

        Returns:
            The text, and ``(where, block)`` for each media block.

        Inline (base64) media are written to a file, whose path the line gives, as AgentScope
        does (``_save_base64_data``); differs on purpose: the file is named by its content and
        written once, where AgentScope writes a new temporary file at every format call (every
        reasoning step). A promoted medium is sent from that file, as in AgentScope.
        """
        if output is None:
            return "", []
        if isinstance(output, str):
            return output, []
        lines: list[str] = []
        media: list[tuple[str, Any]] = []
        blocks: Sequence[Any] = output
        for block in blocks:
            kind = block["type"]
            if kind == "text":
                lines.append(block["text"])
            elif kind in ("image", "audio", "video"):
                source = block["source"]
                if source["type"] == "url":
                    where = str(source["url"])
                    lines.append(f"The returned {kind} can be found at: {where}")
                else:
                    where = _save_base64_data(source["media_type"], source["data"])
                    lines.append(f"The returned {kind} can be found at: {where}")
                media.append((where, block))
            else:
                raise ValueError(
                    f"Unsupported block type in a tool result: {kind}; expected text, image, "
                    "audio or video."
                )
        if len(lines) == 1:
            return lines[0], media
        return "\n".join("- " + line for line in lines), media


def _save_base64_data(media_type: str, base64_data: str) -> str:
    """The path of a file holding ``base64_data`` decoded (AgentScope's helper, same name).

    The file is named by the data's sha256 in a folder of this user's temporary directory
    (mode 0700, files 0600) and written once, atomically: formatting the same tool result at
    every step reuses it.
    """
    import base64
    import hashlib
    import mimetypes
    import os
    import tempfile

    digest = hashlib.sha256(base64_data.encode("ascii", "replace")).hexdigest()[:32]
    extension = mimetypes.guess_extension(media_type) or "." + media_type.rsplit("/", 1)[-1]
    user = os.getuid() if hasattr(os, "getuid") else os.getlogin()
    folder = os.path.join(tempfile.gettempdir(), f"nb_hitl-media-{user}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    path = os.path.join(folder, digest + extension)
    if not os.path.exists(path):
        fd, partial = tempfile.mkstemp(dir=folder, prefix=".part-")
        with os.fdopen(fd, "wb") as out:
            out.write(base64.b64decode(base64_data))
        os.replace(partial, path)
    return path


def _run_to_end(coroutine: Any, owner: str) -> list[dict[str, Any]]:
    """The result of a ``format()`` coroutine that does not wait (formatting is local)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        result: list[dict[str, Any]] = done.value
        return result
    coroutine.close()
    raise ConfigError(
        f"{owner}.format() waits for I/O, so it cannot be used where nb_hitl formats "
        "synchronously (token counts, compression plans); implement format_msg(msg) as well, "
        "or do the I/O before formatting."
    )


def tool_call_entry(block: ToolUseBlock) -> dict[str, Any]:
    """The ``tool_calls`` entry for a ``tool_use`` block.

    A finished call whose arguments were not valid JSON keeps them verbatim (its
    ``tool_result`` says so); the agent drops half-streamed ones on interrupt.
    """
    arguments = (
        block.raw_input
        if block.raw_input is not None
        else json.dumps(block.input, ensure_ascii=False)
    )
    return {
        "id": block.id,
        "type": "function",
        "function": {"name": block.name, "arguments": arguments},
    }


def safe_name(name: str) -> str:
    """``name`` as the OpenAI API accepts it (``[a-zA-Z0-9_-]{1,64}``); valid names unchanged.

    Differs on purpose from AgentScope, which sends names as they are: ``"Ann Lee"`` is a
    400 error from the OpenAI API.
    """
    cleaned = "".join(c if (c.isascii() and c.isalnum()) or c in "_-" else "_" for c in name)[:64]
    return cleaned or "_"
