"""Lazy re-exports for package ``__init__`` modules (PEP 562 ``__getattr__`` / ``__dir__``).

A package lists which of its public names come from which module; the module is imported the
first time one of its names is read (``from nb_hitl import ReActAgent`` or ``nb_hitl.Msg``),
so ``import nb_hitl`` stays cheap. The package also imports the same names under
``if TYPE_CHECKING:`` so type checkers and IDEs see them as usual.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def attach(
    package: str,
    exports: Mapping[str, Iterable[str]],
    submodules: Iterable[str] = (),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Build the ``__getattr__`` and ``__dir__`` of ``package``.

    Args:
        package: the package's ``__name__``.
        exports: module name (absolute, or relative to ``package`` with a leading dot) ->
            the names the package re-exports from it.
        submodules: subpackages that ``package.<name>`` imports on first use, as if they had
            been imported with the package.

    Returns:
        ``(__getattr__, __dir__)`` to assign at the package's module level.
    """
    origin = {name: module for module, names in exports.items() for name in names}
    lazy_modules = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        module = origin.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module, package), name)
        elif name in lazy_modules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *origin, *lazy_modules})

    return __getattr__, __dir__


class LazyAttribute:
    """A class attribute that is ``getattr(import_module(module), name)``, imported when first
    read (on the class or an instance), e.g. ``ReActAgent.CompressionConfig``."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        return getattr(importlib.import_module(self.module), self.name)
