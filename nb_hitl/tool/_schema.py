"""Tool schemas: Google-style docstrings and signatures to OpenAI function schemas.

The text goes where AgentScope 1.x puts it, so schemas match its output: the description is the
docstring's first line, then (``include_long_description``) the rest of the text before the
first section, joined by one newline; an argument's text is its ``Args:`` entry with
continuation lines joined by newlines, the ``(type)`` part left out. Titles are removed
throughout, and no ``additionalProperties`` is added (extra arguments are still refused when a
call is validated).
"""

from __future__ import annotations

import inspect
import itertools
import re
from collections.abc import Callable
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

_SECTIONS = (
    "Args",
    "Arguments",
    "Parameters",
    "Params",
    "Raises",
    "Exceptions",
    "Except",
    "Attributes",
    "Example",
    "Examples",
    "Returns",
    "Yields",
)
_PARAM_SECTIONS = frozenset({"Args", "Arguments", "Parameters", "Params"})
_TITLE_RE = re.compile(r"^(" + "|".join(_SECTIONS) + r")\s*:[ \t]*$", re.MULTILINE)
_ENTRY_START_RE = re.compile(r"^\S", re.MULTILINE)
_TYPED_NAME_RE = re.compile(r"\s*(.+?)\s*\(\s*(.*\S)\s*\)")


def _entry_text(raw: str) -> str:
    """An entry's text after its colon: first line, then the dedented rest, newline-joined."""
    if raw.startswith(" "):
        raw = raw[1:]
    if "\n" in raw:
        first, rest = raw.split("\n", 1)
        raw = first + "\n" + inspect.cleandoc(rest)
    return raw.strip("\n").strip()


def parse_docstring(doc: str | None) -> tuple[str, str, dict[str, str]]:
    """Split a Google-style docstring into (first line, long description, argument texts).

    Argument names keep their ``*``/``**`` prefix, as written.
    """
    text = inspect.cleandoc(doc or "")
    titles = list(_TITLE_RE.finditer(text))
    head = text[: titles[0].start()] if titles else text
    short, _, long = head.partition("\n")
    params: dict[str, str] = {}
    for i, title in enumerate(titles):
        if title.group(1) not in _PARAM_SECTIONS:
            continue
        end = titles[i + 1].start() if i + 1 < len(titles) else len(text)
        body = inspect.cleandoc(text[title.end() : end])
        starts = [m.start() for m in _ENTRY_START_RE.finditer(body)] + [len(body)]
        for a, b in itertools.pairwise(starts):
            entry = body[a:b]
            if ":" not in entry:
                continue
            before, after = entry.split(":", 1)
            typed = _TYPED_NAME_RE.fullmatch(before)
            name = (typed.group(1) if typed else before).strip()
            params[name] = _entry_text(after)
    return short.strip(), long.strip(), params


def describe(func: Callable[..., Any], include_long_description: bool = True) -> str:
    """The tool description from ``func``'s docstring ("" when it has none)."""
    short, long, _ = parse_docstring(func.__doc__)
    parts = [short] if short else []
    if include_long_description and long:
        parts.append(long)
    return "\n".join(parts)


def strip_titles(schema: Any) -> None:
    """Remove pydantic's ``title`` keys in place (they only mislead a model)."""
    if not isinstance(schema, dict):
        return
    schema.pop("title", None)
    for key in ("properties", "$defs"):
        for sub in (schema.get(key) or {}).values():
            strip_titles(sub)
    for key in ("items", "additionalProperties"):
        strip_titles(schema.get(key))
    for key in ("anyOf", "allOf", "oneOf"):
        for sub in schema.get(key) or []:
            strip_titles(sub)


def build_args_model(
    func: Callable[..., Any],
    name: str,
    skip: set[str],
    include_var_positional: bool = False,
    include_var_keyword: bool = False,
) -> type[BaseModel]:
    """A pydantic model of ``func``'s arguments, ``skip`` (preset ones) left out.

    Extra arguments are refused unless ``func`` takes ``**kwargs``. Annotations are resolved
    with ``typing.get_type_hints`` (so ``from __future__ import annotations`` works).
    """
    _, _, docs = parse_docstring(func.__doc__)
    try:
        hints = get_type_hints(func)
    except (NameError, TypeError, AttributeError, SyntaxError):
        hints = {}  # unresolvable or malformed forward refs: the raw annotations serve
    fields: dict[str, Any] = {}
    takes_kwargs = False
    for pname, param in inspect.signature(func).parameters.items():
        if pname in skip or pname in ("self", "cls"):
            continue
        annotation = hints.get(pname, param.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = Any
        if param.kind is param.VAR_KEYWORD:
            takes_kwargs = True
            if include_var_keyword:
                text = docs.get(f"**{pname}", docs.get(pname))
                fields[pname] = (dict[str, annotation], Field({}, description=text))  # type: ignore[valid-type]
            continue
        if param.kind is param.VAR_POSITIONAL:
            if include_var_positional:
                text = docs.get(f"*{pname}", docs.get(pname))
                fields[pname] = (list[annotation], Field([], description=text))  # type: ignore[valid-type]
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (annotation, Field(default, description=docs.get(pname)))
    config = ConfigDict(extra="allow" if takes_kwargs else "forbid", arbitrary_types_allowed=True)
    return create_model(f"{name}_args", __config__=config, **fields)


def function_schema(name: str, description: str, args_model: type[BaseModel]) -> dict[str, Any]:
    """The OpenAI function-tool schema, shaped as AgentScope 1.x writes it."""
    params = args_model.model_json_schema()
    strip_titles(params)
    if params.get("additionalProperties") in (False, True):
        params.pop("additionalProperties")
    params.setdefault("properties", {})
    function: dict[str, Any] = {"name": name, "parameters": params}
    if description:
        function["description"] = description
    return {"type": "function", "function": function}
