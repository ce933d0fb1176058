"""Where the ``always`` permission rules live: ``permissions.json`` in the user's config dir.

``$NB_HITL_CONFIG_DIR`` overrides the directory (tests point it at a temporary one). The file
is a JSON object ``{"rules": [...]}`` the user can open, edit or delete; it is re-read when it
changes and written atomically.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from nb_hitl.exceptions import ConfigError

from ._rule import PermissionRule

CONFIG_ENV = "NB_HITL_CONFIG_DIR"


def config_dir() -> Path:
    """nb_hitl's user config directory: ``$NB_HITL_CONFIG_DIR``, else the platform's own
    (``~/.config/nb_hitl`` on Linux, ``~/Library/Application Support/nb_hitl`` on macOS,
    ``%APPDATA%\\nb_hitl`` on Windows)."""
    given = os.environ.get(CONFIG_ENV)
    if given:
        return Path(given).expanduser()
    try:
        import platformdirs
    except ImportError:  # pragma: no cover - platformdirs ships with Jupyter
        if sys.platform == "win32":
            return Path(os.environ.get("APPDATA", Path.home())) / "nb_hitl"
        if sys.platform == "darwin":
            return Path.home() / "Library" / "Application Support" / "nb_hitl"
        base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
        return Path(base) / "nb_hitl"
    return Path(platformdirs.user_config_dir("nb_hitl", appauthor=False))


def permissions_file() -> Path:
    """The JSON file that holds the ``always`` rules (it may not exist yet)."""
    return config_dir() / "permissions.json"


class UserRules:
    """The ``always`` rules in the user's file, re-read when the file changes."""

    def __init__(self) -> None:
        self._stamp: tuple[str, float, int] | None = None
        self._rules: list[PermissionRule] = []
        self.error = ""

    def load(self) -> list[PermissionRule]:
        path = permissions_file()
        try:
            st = path.stat()
        except OSError:
            self._stamp, self._rules, self.error = None, [], ""
            return []
        stamp = (str(path), st.st_mtime, st.st_size)
        if stamp == self._stamp:
            return list(self._rules)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
                raise ConfigError('it must hold {"rules": [...]}')
            rules = [PermissionRule.from_dict({**r, "scope": "always"}) for r in data["rules"]]
        except (OSError, ValueError) as exc:
            self.error = (
                f"{path} cannot be read ({exc}); fix or delete the file. Until then every "
                "tool call asks."
            )
            self._stamp, self._rules = stamp, []
            return []
        self._stamp, self._rules, self.error = stamp, rules, ""
        return list(rules)

    def write(self, rules: list[PermissionRule]) -> None:
        path = permissions_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"rules": [r.to_dict() for r in rules]}, indent=2, ensure_ascii=False)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        os.replace(tmp, path)
        self._stamp = None


__all__ = ["CONFIG_ENV", "UserRules", "config_dir", "permissions_file"]
