"""Agents that run elsewhere: ``RemoteAgent`` drives an AG-UI server from the panel.

``show(RemoteAgent("http://127.0.0.1:8000/", thread_id=...))`` gives the same panel as a local
agent: streaming, Stop (the run's stream closed, the text so far kept and marked), approvals
and questions from the run's interrupts (resumed with ``RunAgentInput.resume``), Continue and
steering where the server has them (nb_hitl's own server does), errors in an error row.
``_agent.py`` is the agent (``AgentBase``'s lifecycle); it owns two parts, ``mirror``
(``MirroredMemory``, ``_memory.py``: memory kept as the server's) and ``decisions``
(``RemoteDecisions``, ``_decisions.py``: the run's interrupts as parked approvals and
questions). ``_client.py`` speaks HTTP/SSE, ``_sse.py`` parses events with the
``ag-ui-protocol`` SDK's types, ``_run.py`` maps a run's events (through the agent's public
``emit``, ``reply_id`` and ``where``), ``_convert.py`` messages both ways. May import agent and
everything below it; never widgets.
"""

from __future__ import annotations

from ._agent import RemoteAgent
from ._limits import UNSUPPORTED

__all__ = ["UNSUPPORTED", "RemoteAgent"]
