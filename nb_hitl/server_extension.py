"""The Jupyter server extension: kernel websockets that send each message at once, and the
panels' front-end modules served by URL.

Tornado, the Jupyter server's web framework, leaves Nagle's algorithm on for websockets, and
jupyter_server does not turn it off. So a small message the server writes to the browser while
an earlier one is not yet acknowledged waits for that acknowledgement, which the browser's TCP
stack delays by up to ~40 ms (delayed ACK) when it has nothing to send back. While an answer
streams the server writes small messages all the time, so the kernel's answer to a click
waited there: ``bench/stop_in_browser.py`` saw the kernel's interrupted style reach the page
45-57 ms after the Stop click in every trial, though the kernel had sent it within ~5 ms of the
click; with ``TCP_NODELAY`` on the kernel websockets it arrives as soon as the kernel sends it.

The extension changes that one thing about websockets: the server's kernel websocket
connection class (``ServerApp.kernel_websocket_connection_class``, whichever is configured) is
wrapped so that each connection sets ``TCP_NODELAY`` on its socket when it opens. Nothing else
changes; a message still goes out whole, and nothing is sent that would not have been.

It also serves the panels' built ES modules and stylesheets (``nb_hitl/widgets/static``) at
``<base_url>nb_hitl/static/<file>`` and names that path in the page's config
(``nbHitlModules`` in ``jupyter-config-data``). A panel's page reads it and tells the kernel,
which from then on gives new panels their module by URL (``widgets/_modules.py``): the page
imports it once and every later panel of that kind reuses it, where anywidget otherwise
imports each panel's module from a new blob URL (``bench/first_paint.py``). The files are
the package's own public code, served like Jupyter's ``/static/``: no login needed, cached for
good under a ``?v=`` (the file's digest), any origin allowed (a page opened under another host
name of the same server).

It is enabled when nb_hitl is installed where the Jupyter server runs (the wheel installs
``etc/jupyter/jupyter_server_config.d/nb_hitl.json``); otherwise
``jupyter server extension enable nb_hitl``. The server log says
``nb_hitl: kernel websockets send without Nagle's delay`` when it is loaded.

Imports nothing of nb_hitl: the server process loads it, not the kernel.
"""

from __future__ import annotations

import logging
import re
import socket
from pathlib import Path
from typing import Any

from tornado.web import StaticFileHandler

logger = logging.getLogger("nb_hitl.server_extension")

LOADED_NOTE = "nb_hitl: kernel websockets send without Nagle's delay (TCP_NODELAY)"
"""What the server log says once the extension is loaded."""

MODULES_PATH = "nb_hitl/static/"
"""Where, under the server's ``base_url``, the panels' modules are served."""
MODULES_KEY = "nbHitlModules"
"""The page config key that names that path (``base_url`` included)."""
STATIC = Path(__file__).parent / "widgets" / "static"
"""The built modules and stylesheets (``js/build.mjs`` writes them)."""


class ModuleHandler(StaticFileHandler):
    """Serves one built ``.js`` / ``.css`` file of ``STATIC`` (the route allows no other)."""

    def set_extra_headers(self, path: str) -> None:
        self.set_header("Access-Control-Allow-Origin", "*")
        self.set_header("X-Content-Type-Options", "nosniff")

    def get_content_type(self) -> str:
        path = self.absolute_path or ""
        return "text/javascript; charset=utf-8" if path.endswith(".js") else "text/css"


def module_routes(base_url: str) -> list[tuple[str, type, dict[str, Any]]]:
    """The route of ``ModuleHandler`` under ``base_url``: file names of letters, digits and
    ``_`` ending in ``.js`` or ``.css``, nothing else (no sub-folders, no ``..``)."""
    prefix = re.escape(base_url.rstrip("/") + "/" + MODULES_PATH)
    return [(prefix + r"([A-Za-z0-9_]+\.(?:js|css))", ModuleHandler, {"path": str(STATIC)})]


def no_delay(handler: Any) -> bool:
    """Turn Nagle's algorithm off on a tornado websocket ``handler``'s socket.

    Returns:
        True when the socket now has ``TCP_NODELAY`` set (read back from the socket); False
        when it could not be set (a closed socket, or not a TCP one).
    """
    try:
        handler.set_nodelay(True)
        stream = handler.ws_connection.stream
        sock = stream.socket
        return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
    except (AttributeError, OSError, AssertionError):
        return False


def no_delay_connection_class(base: type) -> type:
    """A subclass of the kernel websocket connection class ``base`` whose connections set
    ``TCP_NODELAY`` when they open (``base`` itself if it does already)."""
    if getattr(base, "nb_hitl_no_delay", False):
        return base

    def connect(self: Any) -> Any:
        handler = self.websocket_handler
        on = no_delay(handler)
        kernel = getattr(self, "kernel_id", "?")
        self.log.info("nb_hitl: kernel %s websocket TCP_NODELAY %s", kernel, "on" if on else "off")
        return base.connect(self)  # type: ignore[attr-defined]

    return type(
        f"NoDelay{base.__name__}",
        (base,),
        {"connect": connect, "nb_hitl_no_delay": True, "__module__": __name__},
    )


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Wrap the server's kernel websocket connection class (see the module doc)."""
    settings = serverapp.web_app.settings
    base = settings.get("kernel_websocket_connection_class")
    if base is None:
        base = serverapp.kernel_websocket_connection_class
    settings["kernel_websocket_connection_class"] = no_delay_connection_class(base)
    serverapp.log.info(LOADED_NOTE)
    base_url = settings.get("base_url") or "/"
    serverapp.web_app.add_handlers(".*$", module_routes(base_url))
    page_config = settings.setdefault("page_config_data", {})
    page_config[MODULES_KEY] = base_url.rstrip("/") + "/" + MODULES_PATH
    serverapp.log.info("nb_hitl: panel modules served at %s", page_config[MODULES_KEY])


__all__ = [
    "LOADED_NOTE",
    "MODULES_KEY",
    "MODULES_PATH",
    "ModuleHandler",
    "module_routes",
    "no_delay",
    "no_delay_connection_class",
]
