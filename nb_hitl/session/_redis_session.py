"""RedisSession: AgentScope's ``JSONSession`` contract, kept in Redis (``redis.asyncio``).

One key per session, ``{key_prefix}user_id:{user_id}:session:{session_id}:state`` (AgentScope's
layout), holding the same JSON a ``JSONSession`` file holds, with the same guarantees: nothing
secret-looking is written, an agent mid-reply is not saved, and a load is all or nothing.
``pip install "nb-hitl[redis]"`` installs the client.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from nb_hitl.exceptions import SessionError

from ._json_session import SessionBase, SessionNotFoundError, apply_states, encode_states

__all__ = ["RedisSession"]

logger = logging.getLogger("nb_hitl.session")
INSTALL_HINT = 'RedisSession needs the redis client: pip install "nb-hitl[redis]".'


class RedisSession(SessionBase):
    """Sessions saved in Redis (AgentScope 1.x's class and arguments).

    Args:
        host, port, db, password: where the server is, when no ``connection_pool`` is given.
        connection_pool: a ``redis.asyncio.ConnectionPool`` to use instead.
        key_ttl: seconds until a session expires unless saved or loaded again (``None``:
            never), a sliding TTL.
        key_prefix: put before every key (``"prod:"``...).
        **kwargs: more ``redis.asyncio.Redis`` arguments.

    Raises:
        ImportError: the redis client is not installed (with the install command).
    """

    SESSION_KEY = "user_id:{user_id}:session:{session_id}:state"

    def __init__(
        self,
        host: str = "localhost",
        port: int = 6379,
        db: int = 0,
        password: str | None = None,
        connection_pool: Any = None,
        key_ttl: int | None = None,
        key_prefix: str = "",
        **kwargs: Any,
    ) -> None:
        try:
            import redis.asyncio as redis
        except ImportError as exc:  # pragma: no cover - exercised without the redis extra
            raise ImportError(INSTALL_HINT) from exc
        self.key_ttl = key_ttl
        self.key_prefix = key_prefix or ""
        self._client = redis.Redis(
            host=host,
            port=port,
            db=db,
            password=password,
            connection_pool=connection_pool,
            decode_responses=True,
            **kwargs,
        )

    def get_client(self) -> Any:
        """The ``redis.asyncio.Redis`` client."""
        return self._client

    def _get_session_key(self, session_id: str, user_id: str) -> str:
        if not isinstance(session_id, str) or not session_id:
            raise ValueError("The session id must be a non-empty string; name each session.")
        return self.key_prefix + self.SESSION_KEY.format(user_id=user_id, session_id=session_id)

    async def save_session_state(
        self, session_id: str, user_id: str = "default_user", **state_modules_mapping: Any
    ) -> None:
        """Save each keyword argument's ``state_dict()`` under its name, in one ``SET``.

        Raises:
            SessionError: an agent is mid-reply, a state is not JSON-able, the session would
                contain a secret, or Redis refused the write. The saved session is untouched.
        """
        key = self._get_session_key(session_id, user_id)
        text = encode_states(session_id, state_modules_mapping)
        try:
            await self._client.set(key, text, ex=self.key_ttl)
        except Exception as exc:  # redis.RedisError, connection errors
            raise SessionError(f"Cannot save the session to Redis key {key}: {exc}.") from exc
        logger.info("Saved session state to Redis key %s.", key)

    async def load_session_state(
        self,
        session_id: str,
        user_id: str = "default_user",
        allow_not_exist: bool = True,
        **state_modules_mapping: Any,
    ) -> None:
        """Load the saved states into the keyword arguments with the same names.

        Raises:
            SessionNotFoundError: no such session and ``allow_not_exist=False``.
            SessionError: Redis is unreachable, the value is corrupted, an agent is replying,
                or an object rejects its state. Every object is then unchanged.
        """
        key = self._get_session_key(session_id, user_id)
        try:
            if self.key_ttl is not None:  # read and refresh the TTL in one command
                data = await self._client.getex(key, ex=self.key_ttl)
            else:
                data = await self._client.get(key)
        except Exception as exc:
            raise SessionError(f"Cannot read Redis key {key}: {exc}.") from exc
        if data is None:
            if allow_not_exist:
                logger.info("No session at Redis key %s; nothing loaded.", key)
                return
            raise SessionNotFoundError(
                f"No saved session {session_id!r} (Redis key {key}). Save it first with "
                "save_session_state, or pass allow_not_exist=True."
            )
        if isinstance(data, (bytes, bytearray)):
            data = data.decode("utf-8")
        try:
            states = json.loads(data)
        except json.JSONDecodeError as exc:
            raise SessionError(f"Redis key {key} holds no session JSON ({exc}).") from None
        if not isinstance(states, dict):
            raise SessionError(f"Redis key {key} holds a {type(states).__name__}, not a session.")
        apply_states(states, state_modules_mapping, f"Redis key {key}")
        logger.info("Loaded session state from Redis key %s.", key)

    async def close(self) -> None:
        """Close the client."""
        await self._client.aclose()

    async def __aenter__(self) -> RedisSession:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
