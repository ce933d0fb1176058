"""Real database servers for the tests: Redis and PostgreSQL on free loopback ports.

Each is started from Debian's package (``redis-server``, ``postgresql``: ``scripts/test``
installs both as root) in a temporary folder, and stopped by its PID. PostgreSQL refuses to run
as root, so as root it runs as the ``postgres`` user the package creates. When a binary is
missing the fixtures skip, saying how to install it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

INSTALL = "as root: apt-get install redis-server postgresql (scripts/test does it)"


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float) -> None:
    """Until ``port`` accepts connections; a server that exits first is an error."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on port {port} within {timeout} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server by its PID (SIGTERM, then SIGKILL after 10 s)."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)


class RedisServer:
    """``redis-server`` on 127.0.0.1 and a free port, persisting nothing."""

    def __init__(self) -> None:
        self.binary = shutil.which("redis-server")
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.folder = ""

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        """Start it; raises FileNotFoundError when redis-server is not installed."""
        if self.binary is None:
            raise FileNotFoundError(f"redis-server is not installed ({INSTALL})")
        self.folder = tempfile.mkdtemp(prefix="nb_hitl-redis-")
        self.port = free_port()
        args = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", ""]
        args += ["--appendonly", "no", "--dir", self.folder, "--protected-mode", "yes"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.proc, "redis-server", 20)
        return self

    def stop(self) -> None:
        """Stop the server by PID and remove its folder."""
        if self.proc is not None:
            stop(self.proc)
        shutil.rmtree(self.folder, ignore_errors=True)


def _postgres_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


class PostgresServer:
    """A PostgreSQL cluster made by ``initdb`` in a temporary folder, on a free port."""

    def __init__(self) -> None:
        self.initdb = _postgres_bin("initdb")
        self.postgres = _postgres_bin("postgres")
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.folder = ""
        self.user: str | None = "postgres" if os.geteuid() == 0 else None

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of its ``postgres`` database, through asyncpg."""
        return f"postgresql+asyncpg://nb_hitl@127.0.0.1:{self.port}/postgres"

    def start(self) -> PostgresServer:
        """initdb, then start it; raises FileNotFoundError when postgresql is not installed."""
        if self.initdb is None or self.postgres is None:
            raise FileNotFoundError(f"PostgreSQL's initdb/postgres are not installed ({INSTALL})")
        self.folder = tempfile.mkdtemp(prefix="nb_hitl-postgres-")
        data, sockets = Path(self.folder, "data"), Path(self.folder, "run")
        data.mkdir()
        sockets.mkdir()
        if self.user is not None:  # root: the cluster belongs to the postgres user
            shutil.chown(self.folder, self.user)
            shutil.chown(data, self.user)
            shutil.chown(sockets, self.user)
        subprocess.run(
            [self.initdb, "-D", str(data), "-U", "nb_hitl", "--auth=trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
            user=self.user,
        )
        self.port = free_port()
        args = [self.postgres, "-D", str(data), "-p", str(self.port), "-k", str(sockets)]
        args += ["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]
        self.proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, user=self.user
        )
        wait_for_port(self.port, self.proc, "postgres", 60)
        ready = _postgres_bin("pg_isready")
        deadline = time.monotonic() + 60
        while ready is not None and time.monotonic() < deadline:  # listening is not ready
            check = [ready, "-h", "127.0.0.1", "-p", str(self.port), "-U", "nb_hitl"]
            if subprocess.run(check, capture_output=True, check=False).returncode == 0:
                break
            time.sleep(0.1)
        return self

    def stop(self) -> None:
        """Stop the server by PID (a fast shutdown) and remove its cluster."""
        if self.proc is not None:
            stop(self.proc)
        shutil.rmtree(self.folder, ignore_errors=True)
