"""FormatterBase: what every formatter shares (AgentScope's ``FormatterBase`` surface)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nb_hitl.exceptions import ConfigError
from nb_hitl.message import Msg


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
        """Format ``msgs`` without awaiting."""
        self.assert_list_of_msgs(msgs)
        out: list[dict[str, Any]] = []
        for msg in msgs:
            out.extend(self.format_msg(msg))
        return out

    def format_msg(self, msg: Msg) -> list[dict[str, Any]]:
        """Format one message into zero or more chat messages."""
        raise NotImplementedError

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

        Differs on purpose from AgentScope for inline (base64) media: AgentScope writes the
        data to a temporary file on every format call and names that file; here nothing is
        written and the line says the data is inline (the block is still returned, so
        ``promote_tool_result_images`` shows the image itself).
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
                    where = f"data:{source['media_type']};base64,{source['data']}"
                    lines.append(f"The returned {kind} is inline data ({source['media_type']}).")
                media.append((where, block))
            else:
                raise ValueError(
                    f"Unsupported block type in a tool result: {kind}; expected text, image, "
                    "audio or video."
                )
        if len(lines) == 1:
            return lines[0], media
        return "\n".join("- " + line for line in lines), media


def safe_name(name: str) -> str:
    """``name`` as the OpenAI API accepts it (``[a-zA-Z0-9_-]{1,64}``); valid names unchanged.

    Differs on purpose from AgentScope, which sends names as they are: ``"Ann Lee"`` is a
    400 error from the OpenAI API.
    """
    cleaned = "".join(c if (c.isascii() and c.isalnum()) or c in "_-" else "_" for c in name)[:64]
    return cleaned or "_"
