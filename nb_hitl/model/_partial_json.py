"""Best-effort reading of a JSON object that is still streaming in.

``parse_partial_object('{"city": "Par')`` is ``{"city": "Par"}``: an open string is closed,
a key still waiting for its value is left out, and open arrays and objects are closed. Used
for AgentScope's ``stream_tool_parsing``: a tool call's ``input`` shows the arguments received
so far while they stream.
"""

from __future__ import annotations

import json
from typing import Any

_OPEN = {"{": "}", "[": "]"}


def _scan(text: str) -> tuple[str | None, list[int]]:
    """``text`` closed into complete JSON (``None`` if it cannot be closed by appending), and
    the positions of the commas outside strings."""
    stack: list[str] = []
    commas: list[int] = []
    in_string = escaped = False
    for i, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _OPEN:
            stack.append(_OPEN[char])
        elif char in "}]":
            if not stack or stack.pop() != char:
                return None, commas
        elif char == ",":
            commas.append(i)
    if in_string:
        text = (text[:-1] if escaped else text) + '"'  # a cut escape is left out
    text = text.rstrip()
    if text.endswith((":", ",")) or (stack and stack[-1] == "}" and _dangling_key(text)):
        return None, commas
    return text + "".join(reversed(stack)), commas


def _dangling_key(text: str) -> bool:
    """True when ``text`` (inside an object) ends with a key that has no ``:`` yet."""
    if not text.endswith('"'):
        return False
    i = len(text) - 2
    while i >= 0 and not (text[i] == '"' and (i == 0 or text[i - 1] != "\\")):
        i -= 1
    before = text[:i].rstrip()
    return before.endswith(("{", ","))


def parse_partial_object(text: str, attempts: int = 4) -> dict[str, Any]:
    """The object ``text`` holds so far (``{}`` when nothing can be read yet).

    Args:
        text: the start of a JSON object, as received.
        attempts: how many times to cut back to an earlier comma when the end cannot be
            closed (a half-written number or literal such as ``tr``).
    """
    candidate = text.strip()
    if not candidate.startswith("{"):
        return {}
    for _ in range(attempts):
        completed, commas = _scan(candidate)
        if completed is not None:
            try:
                value = json.loads(completed)
            except json.JSONDecodeError:
                pass
            else:
                return value if isinstance(value, dict) else {}
        if not commas:
            break
        candidate = candidate[: commas[-1]]
    return {}
