"""Compression settings in a session file: what is saved, and what loading would change.

``compression_settings()`` keeps only plain values (numbers, flags, text), never the token
counter or a model. ``compression_update()`` builds the config a file's settings would give an
agent *without applying it*, so ``load_session`` can refuse a bad file before touching anything.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def _is_plain(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    return False


def compression_settings(config: Any) -> dict[str, Any] | None:
    """The plain settings of a compression config (numbers, flags, text), never objects."""
    if config is None:
        return None
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        items = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    elif hasattr(type(config), "model_fields"):
        items = {name: getattr(config, name) for name in type(config).model_fields}
    else:
        items = {k: v for k, v in vars(config).items() if not k.startswith("_")}
    from nb_hitl._secret_names import is_secret_name

    plain = {}
    for name, value in items.items():
        secret_text = is_secret_name(name) and not isinstance(value, (bool, int, float))
        if _is_plain(value) and not secret_text:
            plain[name] = list(value) if isinstance(value, tuple) else value
    return plain


def compression_update(agent: Any, settings: dict[str, Any] | None) -> Any:
    """The compression config ``settings`` would give ``agent``, built without applying it.

    Returns ``KEEP`` when nothing changes, ``NOT_APPLIED`` when the agent takes no config.
    """
    if settings is None:
        return KEEP
    if not hasattr(agent, "compression_config"):
        return NOT_APPLIED
    config = agent.compression_config
    if config is None:
        if not isinstance(getattr(type(agent), "compression_config", None), property):
            return NOT_APPLIED
        from nb_hitl.compression import CompressionConfig

        known = CompressionConfig.model_fields
        return CompressionConfig(**{k: v for k, v in settings.items() if k in known})
    current = compression_settings(config) or {}
    update = {k: v for k, v in settings.items() if k in current}
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return dataclasses.replace(config, **update)
    if hasattr(type(config), "model_fields"):
        fields = {name: getattr(config, name) for name in type(config).model_fields}
        return type(config)(**{**fields, **update})  # validated; keeps the live token counter
    return SettingsUpdate(config, update)


class SettingsUpdate:
    """A plain config object's update, applied only once everything else was checked."""

    def __init__(self, config: Any, update: dict[str, Any]) -> None:
        self.config, self.update = config, update


KEEP = object()
NOT_APPLIED = object()


__all__ = ["KEEP", "NOT_APPLIED", "SettingsUpdate", "compression_settings", "compression_update"]
