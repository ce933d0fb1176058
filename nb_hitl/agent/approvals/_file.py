"""Settings files that hold ``always`` permission rules: project, user, or a path given.

- the **user's** file, ``permissions_file()``: ``permissions.json`` in the user's config
  directory (``$NB_HITL_CONFIG_DIR`` overrides the directory; tests point it at a temporary
  one);
- the **project's** file, ``.nb_hitl/permissions.json`` in the working directory (beside the
  notebook: Jupyter starts a notebook's kernel in the notebook's folder);
- a file given to the policy, ``PermissionPolicy(rules_file=path)`` (``nb_hitl.serve`` gives
  each served agent its own this way).

Each is a JSON object ``{"rules": [...]}`` a person can open, edit or delete; it is re-read when
it changes. A file that cannot be read is **never written**: adding or revoking a rule in it
raises ``ConfigError`` and leaves it as it is. Writes take a lock (``<file>.lock``), re-read the
file under it, apply the one change (so rules another process wrote meanwhile are kept), and
replace the file atomically (a temporary file in the same folder, then ``os.replace``).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from nb_hitl.exceptions import ConfigError

from ._rule import PermissionRule

CONFIG_ENV = "NB_HITL_CONFIG_DIR"
PROJECT_DIR = ".nb_hitl"


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
    """The user's JSON file that holds the ``always`` rules (it may not exist yet)."""
    return config_dir() / "permissions.json"


def project_permissions_file(folder: str | os.PathLike[str] | None = None) -> Path:
    """The project's rules file, ``.nb_hitl/permissions.json`` in ``folder`` (default: the
    working directory, which is the notebook's folder in Jupyter)."""
    return _in_folder(os.fspath(folder) if folder is not None else os.getcwd())


@functools.lru_cache(maxsize=64)
def _in_folder(folder: str) -> Path:
    # Every verdict looks for the file: its path is built once per folder.
    return Path(folder) / PROJECT_DIR / "permissions.json"


class RulesFile:
    """One settings file of rules, re-read when it changes.

    Args:
        locate: returns the file's path (called each time: ``$NB_HITL_CONFIG_DIR`` may change).
        source: what its rules say they came from (``user``, ``project`` or ``file``).
    """

    def __init__(self, locate: Callable[[], Path], source: str) -> None:
        self._locate = locate
        self.source = source
        self._stamp: tuple[str, int, int, int] | None = None
        self._rules: list[PermissionRule] = []
        self.error = ""
        """Why the file cannot be read (``""`` when it can, or does not exist)."""

    @property
    def path(self) -> Path:
        """Where the file is (it may not exist)."""
        return self._locate()

    def load(self) -> list[PermissionRule]:
        """The file's rules (``[]`` when it is missing or unreadable: see ``error``)."""
        path = self.path
        try:
            st = path.stat()
        except OSError:
            self._stamp, self._rules, self.error = None, [], ""
            return []
        # The inode too: os.replace within one clock tick keeps mtime and maybe the size.
        stamp = (str(path), st.st_mtime_ns, st.st_size, st.st_ino)
        if stamp == self._stamp:
            return list(self._rules)
        try:
            rules = self._parse(path.read_text(encoding="utf-8"), path)
        except (OSError, ValueError) as exc:
            self.error = (
                f"{path} cannot be read ({exc}); fix or delete the file. Until then every "
                "tool call asks, and no rule is written to it."
            )
            self._stamp, self._rules = stamp, []
            return []
        self._stamp, self._rules, self.error = stamp, rules, ""
        return list(rules)

    def _parse(self, text: str, path: Path) -> list[PermissionRule]:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
            raise ConfigError('it must hold {"rules": [...]}')
        rules = [PermissionRule.from_dict({**r, "scope": "always"}) for r in data["rules"]]
        for rule in rules:
            rule.source, rule.source_path = self.source, str(path)
        return rules

    def update(self, change: Callable[[list[PermissionRule]], list[PermissionRule]]) -> None:
        """Apply ``change`` to the file's current rules and write the result atomically.

        Raises:
            ConfigError: the file cannot be read (it is left as it is), or cannot be written
                (the folder is unusable); nothing changes then.
        """
        path = self.path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with _locked(path):
                try:
                    current = self._parse(path.read_text(encoding="utf-8"), path)
                except FileNotFoundError:
                    current = []
                except (OSError, ValueError) as exc:
                    self._stamp = None
                    raise ConfigError(
                        f"{path} cannot be read ({exc}), so nb_hitl will not write to it (that "
                        "would lose the rules in it). Fix or delete the file, or give the rule "
                        "scope 'session'."
                    ) from None
                rules = change(current)
                text = json.dumps({"rules": [r.to_dict() for r in rules]}, indent=2)
                _replace(path, text + "\n")
        except OSError as exc:
            raise ConfigError(
                f"Cannot write the permission rules to {path} ({exc}); give the rule scope "
                "'session', or fix the folder."
            ) from None
        self._stamp = None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold ``<path>.lock`` exclusively (between processes) while writing ``path``."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: the atomic replace still holds
        yield
        return
    with open(path.with_name(path.name + ".lock"), "a", encoding="utf-8") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _replace(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = [
    "CONFIG_ENV",
    "PROJECT_DIR",
    "RulesFile",
    "config_dir",
    "permissions_file",
    "project_permissions_file",
]
