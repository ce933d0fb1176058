"""Where a page gets a panel's front-end module: inline, or by URL from the Jupyter server.

anywidget imports a model's ``_esm``. When it is the module's source (what ``static_file``
gives, and the only way in marimo, VS Code or Colab), every new model is imported again from
a new blob URL: a round trip through the browser and a wait behind the page's other work, 20-35
ms of a new panel's first paint on the bench machine (``bench/first_paint.py --breakdown``),
though the page imported the same module for the previous panel. When it is an ``http(s)``
URL, the browser imports it once per page and every later panel of that kind reuses it.

nb_hitl's Jupyter server extension serves the bundles by URL (``server_extension.py``) and
names their path in the page's config. A panel's page tells the kernel that URL when it draws
a panel that came inline (``{t: "modules", base}``, ``js/src/shared/modules.js``); from then
on this kernel gives every new panel its module as ``<base><file>?v=<digest>`` (the digest of
the file: a rebuilt bundle is a new URL). So the first panel of a kernel comes inline, and
the rest by URL. Without the extension (marimo, VS Code, Colab, a server without nb_hitl) the
page says nothing and every panel stays inline. While developing with anywidget's hot reload
(``ANYWIDGET_HMR=1``) panels stay inline too, so an edited bundle reaches them.

One base per kernel, the last one a page told: pages of one kernel come from one server
(another host name of it still works: the server allows any origin for these files).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

logger = logging.getLogger("nb_hitl.widgets")

MODULES_PATH = "/nb_hitl/static/"
"""How the base URL a page tells must end (``server_extension.MODULES_PATH``)."""

_BASE: list[str | None] = [None]
"""The base URL the bundles are served at, once a page has said so."""


def module_base() -> str | None:
    """The base URL this kernel's pages import panel modules from; ``None``: inline."""
    return _BASE[0]


def set_module_base(base: Any) -> bool:
    """Take the base URL a page told (``{t: "modules", base}``); ``None`` forgets it.

    Returns:
        Whether it was taken. Anything but an ``http(s)`` URL with a host whose path ends in
        ``/nb_hitl/static/`` (and no query or fragment) is refused and logged: new panels then
        stay as they were.
    """
    if base is None:
        _BASE[0] = None
        return True
    parts = urlsplit(base) if isinstance(base, str) else None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.netloc
        or not parts.path.endswith(MODULES_PATH)
        or parts.query
        or parts.fragment
    ):
        logger.warning(
            "a page named %r as the panels' module URL; expected http(s)://host/.../nb_hitl"
            "/static/ (panels stay inline)",
            base,
        )
        return False
    _BASE[0] = base
    return True


def module_url(path: Path) -> str | None:
    """The URL of bundle ``path`` for a new panel, or ``None`` to send it inline."""
    base = _BASE[0]
    if base is None or os.environ.get("ANYWIDGET_HMR") == "1":
        return None
    return f"{base}{path.name}?v={_digest(path, path.stat().st_mtime_ns)}"


@functools.cache
def _digest(path: Path, _mtime_ns: int) -> str:  # a rebuilt bundle: a new key, a new URL
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


__all__ = ["module_base", "module_url", "set_module_base"]
