"""Hooks: AgentScope 1.x's pre-/post- functions around an agent's reply, print and observe.

    def shout(self, kwargs):                 # a pre hook: (agent, kwargs) -> kwargs or None
        kwargs["msg"].content = kwargs["msg"].get_text_content().upper()
        return kwargs

    agent.register_instance_hook("pre_reply", "shout", shout)
    ReActAgent.register_class_hook("post_reasoning", "log", lambda self, kwargs, out: None)

The semantics are AgentScope's:

- A pre hook gets ``(agent, kwargs)``: the call's arguments bound to the method's signature
  (defaults filled in), as a deep copy. Returning a dict replaces the arguments for the next
  hook and the call; returning ``None`` keeps them (edits to the copy are then dropped).
- A post hook gets ``(agent, kwargs, output)`` (deep copies); returning something other than
  ``None`` replaces the output for the next hook and the caller.
- Hooks may be sync or async. Instance hooks run first, then class hooks from the most
  general class (``AgentBase``) to the agent's own; each set in the order it was registered.
  Registering a name again replaces that hook in place.
- When a subclass's method calls ``super()``'s, the hooks still run once.

Hook types: ``pre_reply``, ``post_reply``, ``pre_print``, ``post_print``, ``pre_observe``,
``post_observe``; ``ReActAgent`` adds ``pre_reasoning``, ``post_reasoning``, ``pre_acting``
and ``post_acting`` (acting hooks run once per tool call, with ``kwargs["tool_call"]``).

Differences kept on purpose (AgentScope 1.0.21 behaves otherwise):

- A class hook belongs to the class it was registered on and applies to its subclasses
  (``AgentBase.register_class_hook`` reaches every agent). AgentScope keeps one dictionary
  shared by ``AgentBase`` and all its subclasses, so a hook registered on one agent class
  fires for every other class too, and ``clear_class_hooks`` on one clears them all.
- An interrupted reply still goes through the ``post_reply`` hooks, with the interrupted
  message as the output (AgentScope skips them, so a hook that records every reply misses
  exactly the interrupted ones).
- A hook that raises stops the call with ``HookError`` naming the hook (the original error
  is its ``__cause__``); memory stays a valid history. An unknown hook type is a
  ``ValueError`` listing the known ones instead of an ``AttributeError``/``AssertionError``.
"""

from __future__ import annotations

import contextvars
import copy
import functools
import inspect
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from nb_hitl.exceptions import HookError

Hook = Callable[..., Any]

logger = logging.getLogger("nb_hitl.agent")

AGENT_HOOK_TYPES = (
    "pre_reply",
    "post_reply",
    "pre_print",
    "post_print",
    "pre_observe",
    "post_observe",
)
REACT_HOOK_TYPES = (
    *AGENT_HOOK_TYPES,
    "pre_reasoning",
    "post_reasoning",
    "pre_acting",
    "post_acting",
)

_WRAPPED = ("observe", "print")
"""Public methods whose hooks run wherever they are called from (``reply`` hooks run in the
reply task itself, so interruption can reach them; see ``AgentBase``)."""

_running: contextvars.ContextVar[frozenset[tuple[int, str]]] = contextvars.ContextVar(
    "nb_hitl_running_hooks", default=frozenset()
)


def _copy(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception as exc:  # an argument that cannot be copied (a lock, a client): as is
        logger.debug(
            "hook argument not deep-copied (%s: %s); passed shallow", type(exc).__name__, exc
        )
        return copy.copy(value) if isinstance(value, dict) else value


def bind_arguments(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """``args``/``kwargs`` of a call to bound method ``func`` as one dict by parameter name."""
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except TypeError as exc:
        name = getattr(func, "__qualname__", repr(func))
        raise TypeError(f"Cannot call {name} with these arguments: {exc}.") from None
    bound.apply_defaults()
    return dict(bound.arguments)


def message_argument(func: Callable[..., Any], arguments: dict[str, Any], default: Any) -> Any:
    """The value of ``func``'s first parameter (the message) in ``arguments``."""
    for name, param in inspect.signature(func).parameters.items():
        if param.kind is param.VAR_POSITIONAL:
            values = arguments.get(name, ())
            return values[0] if values else default
        if param.kind is param.VAR_KEYWORD:
            break
        return arguments.get(name, default)
    return default


async def call_with_arguments(func: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    """Call ``func`` with a dict from ``bind_arguments`` (possibly changed by hooks)."""
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    params = inspect.signature(func).parameters
    for name, param in params.items():
        if name not in arguments:
            continue
        value = arguments[name]
        if param.kind is param.POSITIONAL_ONLY:
            positional.append(value)
        elif param.kind is param.VAR_POSITIONAL:
            positional.extend(value)
        elif param.kind is param.VAR_KEYWORD:
            keywords.update(value)
        else:
            keywords[name] = value
    if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
        extra = set(arguments) - set(params)
        if extra:  # a pre hook added an argument the method does not take
            raise TypeError(
                f"{getattr(func, '__qualname__', func)} got unexpected argument(s) "
                f"{sorted(extra)} from a pre hook."
            )
    result = func(*positional, **keywords)
    if inspect.isawaitable(result):
        result = await result
    return result


async def _call_hook(hook: Hook, *args: Any) -> Any:
    result = hook(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


def _check_type(cls: type[Any], hook_type: str) -> None:
    supported = cls.supported_hook_types
    if hook_type not in supported:
        raise ValueError(
            f"Unknown hook type {hook_type!r} for {cls.__name__}; use one of "
            f"{', '.join(supported)}."
        )


def _check_hook(cls: type, hook_type: str, hook_name: str, hook: Any) -> None:
    _check_type(cls, hook_type)
    if not callable(hook):
        raise TypeError(f"The {hook_type} hook {hook_name!r} must be callable, got {hook!r}.")


_CLASS_HAS_HOOKS: dict[tuple[type, str], bool] = {}
"""``_class_has_hooks`` answers, cleared by every change of class hooks."""


def _class_has_hooks(cls: type, name: str) -> bool:
    """Whether ``cls`` or a class it derives from has a ``pre_``/``post_`` hook of ``name``.

    Asked several times per reply (``print`` and ``reply`` hooks, on the interrupt path too),
    so cached; every change of class hooks goes through ``register_class_hook`` & co, which
    clear the cache.
    """
    key = (cls, name)
    found = _CLASS_HAS_HOOKS.get(key)
    if found is None:
        attrs = (f"_class_pre_{name}_hooks", f"_class_post_{name}_hooks")
        found = any(klass.__dict__.get(attr) for klass in cls.__mro__ for attr in attrs)
        _CLASS_HAS_HOOKS[key] = found
    return found


def _wrap(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    async def hooked(self: Any, *args: Any, **kwargs: Any) -> Any:
        return await self._call_hooked(name, functools.partial(method, self), *args, **kwargs)

    hooked.__nb_hitl_hooked__ = True  # type: ignore[attr-defined]
    return hooked


# What ``AgentBase``'s hook methods do (each of them one line calling a function below): the
# class-level hooks live on each class, the instance hooks in the agent's ``__dict__``.


def prepare_class(cls: type) -> None:
    """Give ``cls`` hooks of its own (``AgentBase.__init_subclass__``), and make its own
    ``observe``/``print`` run the hooks too."""
    for hook_type in REACT_HOOK_TYPES:  # each class has its own class-level hooks
        setattr(cls, f"_class_{hook_type}_hooks", OrderedDict())
    for name in _WRAPPED:  # a subclass's own observe/print runs the hooks too
        method = cls.__dict__.get(name)
        if inspect.iscoroutinefunction(method) and not hasattr(method, "__nb_hitl_hooked__"):
            setattr(cls, name, _wrap(name, method))


# -- registering ------------------------------------------------------------------------------
def instance_hooks(agent: Any, hook_type: str) -> OrderedDict[str, Hook]:
    """``agent``'s own hooks of ``hook_type`` (made on first use: AgentScope subclasses need
    not call ``super().__init__()`` first)."""
    attr = f"_instance_{hook_type}_hooks"
    hooks = agent.__dict__.get(attr)
    if hooks is None:
        hooks = OrderedDict()
        object.__setattr__(agent, attr, hooks)
    return hooks


def register_instance_hook(agent: Any, hook_type: str, hook_name: str, hook: Hook) -> None:
    _check_hook(type(agent), hook_type, hook_name, hook)
    instance_hooks(agent, hook_type)[hook_name] = hook


def remove_instance_hook(agent: Any, hook_type: str, hook_name: str) -> None:
    _check_type(type(agent), hook_type)
    hooks = instance_hooks(agent, hook_type)
    if hook_name not in hooks:
        raise ValueError(
            f"No {hook_type} hook named {hook_name!r} on this {type(agent).__name__}; "
            f"registered: {list(hooks) or 'none'}."
        )
    del hooks[hook_name]


def clear_instance_hooks(agent: Any, hook_type: str | None = None) -> None:
    types = type(agent).supported_hook_types if hook_type is None else (hook_type,)
    for typ in types:
        _check_type(type(agent), typ)
        instance_hooks(agent, typ).clear()


def register_class_hook(cls: type, hook_type: str, hook_name: str, hook: Hook) -> None:
    _check_hook(cls, hook_type, hook_name, hook)
    getattr(cls, f"_class_{hook_type}_hooks")[hook_name] = hook
    _CLASS_HAS_HOOKS.clear()


def remove_class_hook(cls: type, hook_type: str, hook_name: str) -> None:
    _check_type(cls, hook_type)
    hooks = getattr(cls, f"_class_{hook_type}_hooks")
    if hook_name not in hooks:
        raise ValueError(
            f"No {hook_type} hook named {hook_name!r} registered on class {cls.__name__}; "
            f"registered: {list(hooks) or 'none'}."
        )
    del hooks[hook_name]
    _CLASS_HAS_HOOKS.clear()


def clear_class_hooks(cls: type[Any], hook_type: str | None = None) -> None:
    types = cls.supported_hook_types if hook_type is None else (hook_type,)
    for typ in types:
        _check_type(cls, typ)
        getattr(cls, f"_class_{typ}_hooks").clear()
    _CLASS_HAS_HOOKS.clear()


def hooks_of(agent: Any, hook_type: str) -> list[tuple[str, Hook]]:
    """The hooks of ``hook_type`` that run for ``agent``, in order: its own, then its classes'
    from the most general one."""
    found = list(agent.__dict__.get(f"_instance_{hook_type}_hooks", {}).items())
    for klass in reversed(type(agent).__mro__):  # the most general class first
        hooks = klass.__dict__.get(f"_class_{hook_type}_hooks")
        if hooks:
            found.extend(hooks.items())
    return found


def has_hooks(agent: Any, name: str) -> bool:
    own = agent.__dict__
    if own.get(f"_instance_pre_{name}_hooks") or own.get(f"_instance_post_{name}_hooks"):
        return True
    return _class_has_hooks(type(agent), name)


# -- running ----------------------------------------------------------------------------------
async def run_pre_hooks(agent: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    hook_type = f"pre_{name}"
    for hook_name, hook in hooks_of(agent, hook_type):
        try:
            changed = await _call_hook(hook, agent, _copy(arguments))
        except Exception as exc:
            raise HookError(hook_type, hook_name, exc) from exc
        if changed is not None:
            if not isinstance(changed, dict):
                raise HookError(
                    hook_type,
                    hook_name,
                    TypeError(
                        f"a pre hook returns the keyword-argument dict or None, got "
                        f"{type(changed).__name__}"
                    ),
                )
            arguments = changed
    return arguments


async def run_post_hooks(agent: Any, name: str, arguments: dict[str, Any], output: Any) -> Any:
    hook_type = f"post_{name}"
    for hook_name, hook in hooks_of(agent, hook_type):
        try:
            changed = await _call_hook(hook, agent, _copy(arguments), _copy(output))
        except Exception as exc:
            raise HookError(hook_type, hook_name, exc) from exc
        if changed is not None:
            output = changed
    return output


async def call_hooked(
    agent: Any, name: str, func: Callable[..., Any], *args: Any, **kwargs: Any
) -> Any:
    """``await func(*args, **kwargs)`` with ``agent``'s ``pre_<name>`` / ``post_<name>`` hooks."""
    key = (id(agent), name)
    running = _running.get()
    if key in running or not has_hooks(agent, name):  # a super() call, or nothing to run
        result = func(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result
    token = _running.set(running | {key})
    try:
        arguments = await run_pre_hooks(agent, name, bind_arguments(func, args, kwargs))
        output = await call_with_arguments(func, arguments)
    finally:
        _running.reset(token)
    return await run_post_hooks(agent, name, arguments, output)
