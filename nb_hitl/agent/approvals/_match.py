"""How a rule's pattern matches an argument: globs, regular expressions, paths, commands.

- A **glob** (``"notes/*"``) matches the whole text, gitignore-style: ``*`` and ``?`` stay within
  one ``/``-separated segment, ``**`` crosses segments (``notes/**`` is everything under
  ``notes``; ``**/x`` is ``x`` in any folder), ``[abc]`` / ``[!abc]`` are character classes.
- A **regular expression** (``"re:^SELECT\\b"``) *searches* the text, like ``re.search`` and
  ``grep``: it is anchored only where it says so, by ``^`` (start) and ``$`` or ``\\Z`` (end).
  ``re:DROP`` matches ``x; DROP TABLE t``; ``re:^SELECT 1$`` matches only ``SELECT 1``.
- A **path** is normalised before matching: ``.`` and repeated ``/`` go, ``..`` climbs
  (``notes/../secret/key`` is ``secret/key``), for every argument whose glob has a ``/`` and
  every argument the tool declares a path (``path_args``); for those, symlinks are resolved too
  (a relative path stays relative to the working directory when it resolves inside it).
- A **command prefix** (``"npm test:*"``, rule specifiers only) matches the command itself or
  the command followed by a space and more. An allow rule never matches a command that chains
  others (``;``, ``&``, ``|``, backticks, ``$(``, redirections, new lines); a deny rule matches
  if any command of the chain starts with the prefix.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from typing import Any

from nb_hitl.exceptions import ConfigError

Memo = dict[tuple[str, bool], str]
"""Normalised argument texts of one call, by (text, resolved): one verdict fills it."""

_CHAIN = re.compile(r"[;&|`\n<>]|\$\(")
_SEGMENTS = re.compile(r"&&|\|\||[;&|\n]")


def text_of(value: Any) -> str:
    """An argument as text: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


_cwd: tuple[str, str] = ("", "")
"""The working directory and its real path, as last seen (the real path walks every folder
of it, the slowest part of a path verdict; it changes only with the working directory)."""


def _real_cwd() -> str:
    global _cwd
    cwd = os.getcwd()
    if _cwd[0] != cwd:
        _cwd = (cwd, os.path.realpath(cwd))
    return _cwd[1]


def normalise_path(text: str, *, resolve: bool = False) -> str:
    """``text`` as a clean path: no ``.``, no repeated ``/``, ``..`` applied; with ``resolve``
    symlinks followed too (relative paths inside the working directory stay relative)."""
    if not text:
        return text
    if resolve:
        real = os.path.realpath(text)
        if os.path.isabs(text):
            text = real
        else:
            cwd = _real_cwd()
            rel = os.path.relpath(real, cwd)
            text = real if rel == ".." or rel.startswith("../") else rel
    clean = posixpath.normpath(text.replace(os.sep, "/") if os.sep != "/" else text)
    if clean.startswith("//"):  # POSIX keeps a leading '//'; nothing here means it
        clean = "/" + clean.lstrip("/")
    return "" if clean == "." else clean


def glob_regex(pattern: str) -> str:
    """The regular expression (whole-text) of a gitignore-style glob."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**/", i):
                out.append("(?:.*/)?")
                i += 3
                continue
            if pattern.startswith("**", i):
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                raise ConfigError(
                    f"The glob {pattern!r} has an unclosed '['. Write '[[]' for a literal '['."
                )
            body = pattern[i + 1 : j].replace("\\", "\\\\")
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "(?s:" + "".join(out) + r")\Z"


class ArgPattern:
    """One compiled argument pattern (a glob or ``re:`` regular expression)."""

    __slots__ = ("is_regex", "pathlike", "regex", "text")

    def __init__(self, name: str, pattern: Any) -> None:
        if not isinstance(pattern, str) or not pattern:
            raise ConfigError(
                f"The pattern for argument {name!r} must be a non-empty string (a glob such as "
                f"'notes/*', or 're:<regular expression>'), got {pattern!r}."
            )
        self.text = pattern
        self.is_regex = pattern.startswith("re:")
        if self.is_regex:
            try:
                self.regex = re.compile(pattern[3:], re.DOTALL)
            except re.error as exc:
                raise ConfigError(
                    f"The regular expression for argument {name!r} is malformed ({exc}): "
                    f"{pattern[3:]!r}. Fix it, or write a glob without the 're:' prefix."
                ) from None
            self.pathlike = False
            return
        self.pathlike = "/" in pattern
        glob = pattern
        if self.pathlike:
            glob = normalise_path(pattern) or pattern
            if pattern.endswith("/") and not glob.endswith("/"):
                glob += "/**"  # "notes/" means everything in the folder, as in gitignore
        try:
            self.regex = re.compile(glob_regex(glob))
        except ConfigError:
            raise ConfigError(
                f"The glob for argument {name!r} has an unclosed '[': {pattern!r}. Write "
                "'[[]' for a literal '['."
            ) from None

    def matches(self, value: Any, *, is_path: bool = False, memo: Memo | None = None) -> bool:
        """Whether the argument ``value`` fits (``is_path``: the tool says it is a path;
        ``memo``: normalised paths of this call, shared by the rules that look at it)."""
        text = text_of(value)
        if is_path or (self.pathlike and isinstance(value, str)):
            key = (text, is_path)
            known = memo.get(key) if memo is not None else None
            if known is None:
                known = normalise_path(text, resolve=is_path)
                if memo is not None:
                    memo[key] = known
            text = known
        if self.is_regex:
            return self.regex.search(text) is not None
        return self.regex.match(text) is not None


class Specifier:
    """A rule specifier, ``tool(<specifier>)``: a command prefix ``"npm test:*"``, a regular
    expression ``"re:..."`` or a glob, matched against the argument the tool chooses."""

    __slots__ = ("pattern", "prefix", "text")

    def __init__(self, text: str) -> None:
        if not text:
            raise ConfigError("A rule specifier between '(' and ')' must not be empty.")
        self.text = text
        self.prefix: str | None = None
        self.pattern: ArgPattern | None = None
        if text.endswith(":*"):
            self.prefix = text[:-2].strip()
            if not self.prefix:
                raise ConfigError(f"The command prefix in {text!r} is empty; write 'git log:*'.")
        else:
            self.pattern = ArgPattern("specifier", text)

    def matches(
        self, value: Any, *, is_path: bool, allowing: bool, memo: Memo | None = None
    ) -> bool:
        """Whether ``value`` fits; ``allowing``: the rule allows (chained commands never do)."""
        if self.pattern is not None:
            return self.pattern.matches(value, is_path=is_path, memo=memo)
        text = text_of(value).strip()
        assert self.prefix is not None
        if allowing:
            return not _CHAIN.search(text) and _starts(text, self.prefix)
        return any(_starts(part.strip(), self.prefix) for part in _SEGMENTS.split(text))


def _starts(command: str, prefix: str) -> bool:
    return command == prefix or command.startswith(prefix + " ")


__all__ = ["ArgPattern", "Memo", "Specifier", "glob_regex", "normalise_path", "text_of"]
