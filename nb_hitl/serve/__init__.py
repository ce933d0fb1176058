"""Serve nb_hitl agents over AG-UI: ``nb_hitl.serve(make_agent, host="127.0.0.1", port=8000)``.

    import nb_hitl
    nb_hitl.serve(make_agent, port=8000)          # blocks; in a notebook: returns a RunningServer
    app = nb_hitl.serve.create_app(make_agent)    # the Starlette (ASGI) app, to embed
    # python -m nb_hitl.serve my_agents:make_agent --port 8000 [--token T] [--redis URL]

A run (``POST /`` with an AG-UI ``RunAgentInput``) streams AG-UI events mapped from the agent's
own events; Stop (``POST /threads/{id}/interrupt``, or the client going away) is
``agent.interrupt()``; a parked approval or ``ask_user`` question ends the run with an
``interrupt`` outcome and the next run's ``resume`` answers it; ``POST /threads/{id}/steer``
steers; ``GET /threads/{id}/messages`` is the history. One agent per thread id, saved in a
session store after every run. docs/serve.md has the whole contract.

Layout: ``_convert.py`` (messages, interrupts), ``_translate.py`` (events), ``_state.py``,
``_threads.py`` (agents per thread, the store), ``_cluster.py`` (run locks and stops among
workers sharing a Redis), ``_input.py`` (checking a run's input), ``_run.py`` (one run),
``_server.py`` (``AgentServer``), ``_app.py`` (Starlette routes, token, CORS, size limit),
``_serve.py`` (``serve()``), ``_cli.py``. May import agent, pipeline and everything below;
never widgets or extension. Needs the ``serve`` extra: ``pip install "nb-hitl[serve]"``.
"""

from __future__ import annotations

import sys
import types
from typing import Any

try:
    import ag_ui.core  # noqa: F401
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised without the serve extra
    raise ImportError(
        f'nb_hitl.serve needs the serve extra ({exc.name} is missing): pip install "nb-hitl[serve]"'
    ) from exc

from ._app import DEFAULT_MAX_BODY, create_app
from ._convert import APPROVAL_REASON, QUESTION_REASON, messages_to_agui, pending_interrupts
from ._serve import RunningServer, serve
from ._server import AgentServer
from ._state import agent_state
from ._translate import RunTranslator

__all__ = [
    "APPROVAL_REASON",
    "DEFAULT_MAX_BODY",
    "QUESTION_REASON",
    "AgentServer",
    "RunTranslator",
    "RunningServer",
    "agent_state",
    "create_app",
    "messages_to_agui",
    "pending_interrupts",
    "serve",
]

app = create_app
"""``nb_hitl.serve.app(...)``: the same as ``create_app``."""


class _CallableModule(types.ModuleType):
    """``nb_hitl.serve(...)`` calls ``serve(...)``: the package is the function too."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return serve(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
