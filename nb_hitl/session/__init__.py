"""Sessions: save an agent to a file and load it after a kernel restart.

    agent.save_session("chat.json")          # or nb_hitl.session.save_session(agent, path)
    agent.load_session("chat.json")

``_session.py`` saves and loads one agent (atomic writes, all-or-nothing loads), checked
against the file schema in ``_schema.py``; ``_compression.py`` keeps a file's compression
settings plain; ``_json_session.py`` is AgentScope's ``JSONSession`` / ``SessionBase``,
``_redis_session.py`` its ``RedisSession``.
May import message, model, tool, memory and compression; never agent or anything above it.

Besides ``__all__``, ``check_agent_settings`` (the schema's rule for an agent's settings, which
``AgentBase.load_state_dict`` checks first) is importable here for nb_hitl's agents.
"""

from __future__ import annotations

from ._json_session import JSONSession, SessionBase, SessionNotFoundError
from ._redis_session import RedisSession
from ._schema import check_agent_settings as check_agent_settings  # for agents (docstring)
from ._session import (
    SCHEMA_VERSION,
    SessionInfo,
    atomic_write_text,
    compression_settings,
    load_session,
    read_session,
    save_session,
    session_document,
)

__all__ = [
    "SCHEMA_VERSION",
    "JSONSession",
    "RedisSession",
    "SessionBase",
    "SessionInfo",
    "SessionNotFoundError",
    "atomic_write_text",
    "compression_settings",
    "load_session",
    "read_session",
    "save_session",
    "session_document",
]
