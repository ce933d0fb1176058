"""``view_text_file``, ``write_text_file``, ``insert_text_file``: AgentScope 1.x's file tools.

Lines are numbered from 1 and shown as ``N: text``; answers and error texts are AgentScope's,
word for word, so prompts written for them keep working. Differs on purpose: an error answer
is marked ``is_error``; negative ``ranges`` count from the end (``[-100, -1]``: the last 100
lines, as AgentScope's docstring promises and its code does not do); text written into a range
or appended ends a line before the next one starts (AgentScope glues ``"d"`` to the next line).
"""

from __future__ import annotations

import asyncio
import os

from nb_hitl.message import TextBlock

from .._kind import tool_kind
from .._response import ToolResponse

CONTEXT_LINES = 5
"""Lines shown around an edit, before and after it."""


def _answer(text: str, *, error: bool = False) -> ToolResponse:
    return ToolResponse(content=[TextBlock(type="text", text=text)], is_error=error)


def _read_lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as file:
        return file.readlines()


def _numbered(lines: list[str], first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive, clipped to the file) as ``N: text``."""
    return "".join(f"{n}: {lines[n - 1]}" for n in range(max(first, 1), min(last, len(lines)) + 1))


def _is_range(ranges: object) -> bool:
    return (
        isinstance(ranges, list)
        and len(ranges) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in ranges)
    )


def _edit_view(old_count: int, new_count: int, start: int, end: int) -> tuple[int, int]:
    """The lines to show after lines ``start``..``end`` of ``old_count`` became the new text."""
    return max(1, start - CONTEXT_LINES), min(
        end + new_count - old_count + CONTEXT_LINES, new_count
    )


def _view_text_file(file_path: str, ranges: list[int] | None = None) -> ToolResponse:
    """``view_text_file``'s work, in a worker thread."""
    path = os.path.expanduser(file_path)
    if not os.path.exists(path):
        return _answer(f"Error: The file {path} does not exist.", error=True)
    if not os.path.isfile(path):
        return _answer(f"Error: The path {path} is not a file.", error=True)
    lines = _read_lines(path)
    if not ranges:
        content = _numbered(lines, 1, len(lines))
        where = "" if ranges is None else f" in {ranges} lines"
        return _answer(f"The content of {path}{where}:\n```\n{content}```")
    if not _is_range(ranges):
        return _answer(
            "InvalidArgumentError: Invalid range format. Expected a list of two integers, "
            f"but got {ranges}.",
            error=True,
        )
    start, end = (n if n >= 0 else len(lines) + 1 + n for n in ranges)
    if start > end:
        return _answer(
            "InvalidArgumentError: The start line is greater than the end line in the given "
            f"range {ranges}.",
            error=True,
        )
    if start > len(lines):
        return _answer(
            f"InvalidArgumentError: The range '{ranges}' is out of bounds for the file "
            f"'{path}', which has only {len(lines)} lines.",
            error=True,
        )
    content = _numbered(lines, start, end)
    return _answer(f"The content of {path} in {ranges} lines:\n```\n{content}```")


def _write_text_file(file_path: str, content: str, ranges: list[int] | None = None) -> ToolResponse:
    """``write_text_file``'s work, in a worker thread."""
    path = os.path.expanduser(file_path)
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as file:
            file.write(content)
        if ranges:
            return _answer(
                f"Create and write {path} successfully. The ranges {ranges} is ignored "
                "because the file does not exist."
            )
        return _answer(f"Create and write {path} successfully.")
    if ranges is None:
        with open(path, "w", encoding="utf-8") as file:
            file.write(content)
        return _answer(f"Overwrite {path} successfully.")
    if not _is_range(ranges):
        return _answer(
            f"Error: Invalid range format. Expected a list of two integers, but got {ranges}.",
            error=True,
        )
    old = _read_lines(path)
    start, end = ranges
    if start > len(old):
        return _answer(
            f"Error: The start line {start} is invalid. The file only has {len(old)} lines.",
            error=True,
        )
    after = old[end:]
    if after and content and not content.endswith("\n"):
        content += "\n"
    with open(path, "w", encoding="utf-8") as file:
        file.write("".join([*old[: start - 1], content, *after]))
    new = _read_lines(path)  # the content may hold several lines: count them as written
    first, last = _edit_view(len(old), len(new), start, end)
    snippet = _numbered(new, first, last)
    return _answer(f"Write {path} successfully. The new content snippet:\n```\n{snippet}```")


def _insert_text_file(file_path: str, content: str, line_number: int) -> ToolResponse:
    """``insert_text_file``'s work, in a worker thread."""
    if line_number <= 0:
        return _answer(
            f"InvalidArgumentsError: The line number {line_number} is invalid. ", error=True
        )
    path = os.path.expanduser(file_path)
    if not os.path.exists(path):
        return _answer(
            f"InvalidArgumentsError: The target file {path} does not exist. ", error=True
        )
    old = _read_lines(path)
    if line_number > len(old) + 1:
        return _answer(
            f"InvalidArgumentsError: The given line_number ({line_number}) is not in the "
            f"valid range [1, {len(old) + 1}].",
            error=True,
        )
    if line_number == len(old) + 1:  # appended: the last line ends before the new text
        ends_open = bool(old) and not old[-1].endswith("\n")
        lines = [*old, ("\n" if ends_open else "") + content]
    else:
        lines = [*old[: line_number - 1], content + "\n", *old[line_number - 1 :]]
    with open(path, "w", encoding="utf-8") as file:
        file.write("".join(lines))
    new = _read_lines(path)
    first, last = _edit_view(len(old), len(new), line_number, line_number)
    shown = _numbered(new, first, last)
    return _answer(
        f"Insert content into {path} at line {line_number} successfully. The new content "
        f"between lines {first}-{last} is:\n```\n{shown}```"
    )


@tool_kind("reads", path_args=["file_path"])
async def view_text_file(file_path: str, ranges: list[int] | None = None) -> ToolResponse:
    """View the file content in the specified range with line numbers. If `ranges` is not provided, the entire file will be returned.

    Args:
        file_path: The target file path.
        ranges: The range of lines to be viewed (e.g. lines 1 to 100: [1, 100]), inclusive. If not provided, the entire file will be returned. To view the last 100 lines, use [-100, -1].

    Returns:
        The tool response containing the file content or an error message.
    """  # noqa: E501 - the model reads the first line as the tool's description
    return await asyncio.to_thread(_view_text_file, file_path, ranges)


@tool_kind("edits", path_args=["file_path"])
async def write_text_file(
    file_path: str, content: str, ranges: list[int] | None = None
) -> ToolResponse:
    """Create/Replace/Overwrite content in a text file. When `ranges` is provided, the content will be replaced in the specified range. Otherwise, the entire file (if exists) will be overwritten.

    Args:
        file_path: The target file path.
        content: The content to be written.
        ranges: The range of lines to be replaced. If `None`, the entire file will be overwritten.

    Returns:
        The tool response containing the result of the writing operation.
    """  # noqa: E501 - the model reads the first line as the tool's description
    return await asyncio.to_thread(_write_text_file, file_path, content, ranges)


@tool_kind("edits", path_args=["file_path"])
async def insert_text_file(file_path: str, content: str, line_number: int) -> ToolResponse:
    """Insert the content at the specified line number in a text file.

    Args:
        file_path: The target file path.
        content: The content to be inserted.
        line_number: The line number at which the content should be inserted, starting from 1. If exceeds the number of lines in the file, it will be appended to the end of the file.

    Returns:
        The tool response containing the result of the insertion operation.
    """  # noqa: E501 - the model reads the first line as the tool's description
    return await asyncio.to_thread(_insert_text_file, file_path, content, line_number)
