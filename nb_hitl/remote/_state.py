"""``STATE_DELTA``: a JSON Patch (RFC 6902) applied to a copy of the remote state.

AG-UI sends state changes as JSON Patch operations: dicts on the wire, objects once
``ag-ui-protocol`` 1.0 has parsed them (``ReplaceOperation(op='replace', path=...)``); both are
taken. Only what a state view needs is applied
(``add``, ``replace``, ``remove``, ``move``, ``copy``, ``test``); anything malformed raises
``ValueError`` and the state is left as it was (the patch is applied to a copy).
"""

from __future__ import annotations

import copy
from typing import Any


def _pointer(path: Any) -> list[str]:
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise ValueError(f"not a JSON pointer: {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]


def _parent(doc: Any, parts: list[str]) -> tuple[Any, str]:
    node = doc
    for part in parts[:-1]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise ValueError(f"no such path: /{'/'.join(parts)}")
    return node, parts[-1]


def _get(doc: Any, parts: list[str]) -> Any:
    if not parts:
        return doc
    node, key = _parent(doc, parts)
    if isinstance(node, dict) and key in node:
        return node[key]
    if isinstance(node, list) and key.isdigit() and int(key) < len(node):
        return node[int(key)]
    raise ValueError(f"no such path: /{'/'.join(parts)}")


def _remove(doc: Any, parts: list[str]) -> Any:
    node, key = _parent(doc, parts)
    value = _get(doc, parts)
    if isinstance(node, dict):
        del node[key]
    else:
        del node[int(key)]
    return value


def _add(doc: Any, parts: list[str], value: Any) -> Any:
    if not parts:
        return value
    node, key = _parent(doc, parts)
    if isinstance(node, dict):
        node[key] = value
    elif isinstance(node, list) and (key == "-" or (key.isdigit() and int(key) <= len(node))):
        node.insert(len(node) if key == "-" else int(key), value)
    else:
        raise ValueError(f"cannot add at /{'/'.join(parts)}")
    return doc


def apply_patch(state: Any, operations: Any) -> Any:
    """``state`` with ``operations`` applied (a new object); ``ValueError`` if any is bad."""
    if not isinstance(operations, list):
        raise ValueError("a state delta must be a list of JSON Patch operations")
    doc = copy.deepcopy(state)
    for op in operations[:10_000]:
        if hasattr(op, "model_dump"):  # the SDK's parsed operation (AddOperation, ...)
            op = op.model_dump(by_alias=True, mode="json")
        if not isinstance(op, dict):
            raise ValueError(f"not a JSON Patch operation: {op!r}"[:120])
        kind, parts = op.get("op"), _pointer(op.get("path"))
        if kind in ("add", "replace"):
            if kind == "replace":
                _get(doc, parts)
                if parts:
                    _remove(doc, parts)
            doc = _add(doc, parts, copy.deepcopy(op.get("value")))
        elif kind == "remove":
            _remove(doc, parts)
        elif kind in ("move", "copy"):
            source = _pointer(op.get("from"))
            value = _remove(doc, source) if kind == "move" else copy.deepcopy(_get(doc, source))
            doc = _add(doc, parts, value)
        elif kind == "test":
            if _get(doc, parts) != op.get("value"):
                raise ValueError(f"test failed at {op.get('path')!r}")
        else:
            raise ValueError(f"unknown JSON Patch op {kind!r}"[:80])
    return doc


__all__ = ["apply_patch"]
