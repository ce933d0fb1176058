"""StateModule: objects whose registered attributes and nested modules save as one JSON dict.

AgentScope 1.x's ``agentscope.module.StateModule``, for code that ports by renaming the package:

    class Counter(StateModule):
        def __init__(self) -> None:
            super().__init__()
            self.count = 0
            self.memory = InMemoryMemory()     # nested: saved under "memory"
            self.register_state("count")

    Counter().state_dict()   # {"memory": {...}, "count": 0}

An attribute holding another module is nested automatically. Besides ``StateModule``
instances, nb_hitl's own stateful objects count as modules (anything with ``state_dict()``
and ``load_state_dict()``, e.g. ``InMemoryMemory`` and agents).

Differences kept on purpose (AgentScope 1.0.21 behaves otherwise):

- ``load_state_dict`` is all or nothing: every key is checked and every custom converter run
  before anything changes, and nested modules already loaded are put back if a later one
  fails. AgentScope changes attributes one by one and leaves a half-loaded module behind.
- ``strict`` is passed on to nested modules (AgentScope always loads them strictly).
- A nested module is loaded into the object the attribute holds *now*; AgentScope loads into
  the object it held when first assigned, even after the attribute was replaced.
- Setting a nested module before ``super().__init__()`` works instead of raising.
"""

from __future__ import annotations

import inspect
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class _Converters:
    to_json: Callable[[Any], Any] | None = None
    from_json: Callable[[Any], Any] | None = None


_PLAIN = frozenset({type(None), str, int, float, bool, bytes, tuple, list, dict, set})
"""Exact builtin types: no value of one has ``state_dict`` (subclasses are checked)."""


def is_state_module(value: Any) -> bool:
    """True for objects that nest into a parent's state: they can save and load themselves."""
    if isinstance(value, StateModule):
        return True
    if isinstance(value, type):
        return False
    return callable(getattr(value, "state_dict", None)) and callable(
        getattr(value, "load_state_dict", None)
    )


class StateModule:
    """An object whose registered attributes and nested modules form its ``state_dict()``."""

    _module_dict: OrderedDict[str, Any]
    _attribute_dict: OrderedDict[str, _Converters]

    def __init__(self) -> None:
        self._ensure_state_tables()

    def _ensure_state_tables(self) -> None:
        # Created lazily too, so a subclass may set a nested module before super().__init__().
        if "_module_dict" not in self.__dict__:
            object.__setattr__(self, "_module_dict", OrderedDict())
        if "_attribute_dict" not in self.__dict__:
            object.__setattr__(self, "_attribute_dict", OrderedDict())

    def __setattr__(self, key: str, value: Any) -> None:
        # Most assignments are of None or a builtin (an agent's ``_where``, ``_live = None``,
        # on every step and on the interrupt path): those are never state modules, and
        # ``is_state_module`` would pay two failing ``getattr`` calls to find out.
        if (
            type(value) not in _PLAIN
            and not key.startswith("__")
            and is_state_module(value)
            and value is not self
        ):
            self._ensure_state_tables()
            if key not in self._attribute_dict:
                self._module_dict[key] = None  # the live value is read from the attribute
        super().__setattr__(key, value)

    def __delattr__(self, key: str) -> None:
        self._ensure_state_tables()
        self._module_dict.pop(key, None)
        self._attribute_dict.pop(key, None)
        super().__delattr__(key)

    # -- registering ---------------------------------------------------------------------------
    def register_state(
        self,
        attr_name: str,
        custom_to_json: Callable[[Any], Any] | None = None,
        custom_from_json: Callable[[Any], Any] | None = None,
    ) -> None:
        """Track the attribute ``attr_name`` in ``state_dict()``.

        Args:
            attr_name: the attribute; it must exist already.
            custom_to_json: turns the value into something JSON-able (needed when the value
                itself is not).
            custom_from_json: turns the saved JSON back into the value on loading.

        Raises:
            AttributeError: there is no such attribute yet (set it first).
            TypeError: the value is not JSON-able and no ``custom_to_json`` was given.
            ValueError: the attribute holds a nested module (it is saved already).
        """
        self._ensure_state_tables()
        if not hasattr(self, attr_name):
            raise AttributeError(
                f"{type(self).__name__} has no attribute {attr_name!r} to register: set "
                f"self.{attr_name} first, then call self.register_state({attr_name!r})."
            )
        if attr_name in self._module_dict:
            raise ValueError(
                f"Attribute {attr_name!r} holds a nested state module, which is saved "
                "already; do not register it as a state too."
            )
        if custom_to_json is None:
            try:
                json.dumps(getattr(self, attr_name), allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise TypeError(
                    f"Attribute {attr_name!r} of {type(self).__name__} is not JSON-able "
                    f"({exc}). Pass custom_to_json= (and custom_from_json=) to "
                    "register_state to convert it."
                ) from exc
        self._attribute_dict[attr_name] = _Converters(custom_to_json, custom_from_json)

    def _nested_modules(self) -> list[tuple[str, Any]]:
        self._ensure_state_tables()
        found = []
        for key in self._module_dict:
            value = getattr(self, key, None)
            if is_state_module(value):
                found.append((key, value))
        return found

    def _optional_state_keys(self) -> set[str]:
        """Keys ``load_state_dict(strict=True)`` accepts as missing (none by default)."""
        return set()

    # -- saving and loading ---------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The nested modules' states, then the registered attributes (JSON-able values)."""
        state: dict[str, Any] = {}
        for key, module in self._nested_modules():
            state[key] = module.state_dict()
        for key, conv in self._attribute_dict.items():
            value = getattr(self, key)
            state[key] = conv.to_json(value) if conv.to_json is not None else value
        return state

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> None:
        """Load a ``state_dict()`` result: nested modules, then registered attributes.

        Args:
            state_dict: the saved state.
            strict: raise if a nested module or registered attribute has no key in
                ``state_dict``; with ``False`` those are left as they are.

        Raises:
            TypeError: ``state_dict`` is not a dict.
            KeyError: ``strict`` and a key is missing. Nothing was changed.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(
                f"{type(self).__name__}.load_state_dict expects the dict state_dict() "
                f"returned, got {type(state_dict).__name__}."
            )
        modules = self._nested_modules()
        wanted = [key for key, _ in modules] + list(self._attribute_dict)
        optional = self._optional_state_keys()
        missing = [key for key in wanted if key not in state_dict and key not in optional]
        if strict and missing:
            raise KeyError(
                f"Key {missing[0]!r} not found in the state_dict for {type(self).__name__} "
                f"(it holds {sorted(state_dict)}). Pass a complete state_dict, or "
                "strict=False to keep the current value of missing keys."
            )
        values = {}
        for key, conv in self._attribute_dict.items():  # convert first: may raise, no change
            if key in state_dict:
                raw = state_dict[key]
                values[key] = conv.from_json(raw) if conv.from_json is not None else raw
        loaded: list[tuple[Any, dict[str, Any]]] = []
        try:
            for key, module in modules:
                if key in state_dict:
                    before = module.state_dict()
                    _load(module, state_dict[key], strict)
                    loaded.append((module, before))
        except BaseException:
            for module, before in reversed(loaded):
                _load(module, before, False)
            raise
        for key, value in values.items():
            setattr(self, key, value)


def _load(module: Any, state: Any, strict: bool) -> None:
    if _takes_strict(module.load_state_dict):
        module.load_state_dict(state, strict=strict)
    else:  # a third-party module whose load_state_dict has no strict argument
        module.load_state_dict(state)


def _takes_strict(method: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "strict" or p.kind is p.VAR_KEYWORD for p in params)
