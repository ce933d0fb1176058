"""The README's first command, `bash scripts/walkthrough`, run for real (without a browser).

It must start JupyterLab as root and as a normal user, print the URL to open, skip pip when the
environment is up to date, open a working copy of the notebooks, and leave the checkout clean.
"""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(1500)

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "walkthrough"
FIRST = "01_interrupt_and_resume.ipynb"
USER = "nbhitl-newcomer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def git_status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def run_until_url(cmd: list[str], env: dict[str, str], timeout: float = 600) -> tuple[str, str]:
    """Start the script, read its output until it prints the URL, check that JupyterLab
    serves walkthrough 01 there, then stop the script (SIGTERM).

    Returns the URL and everything the script printed.
    """
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=log, env=env, text=True, start_new_session=True
    )
    lines: list[str] = []
    url = ""
    opened: dict[str, object] = {}
    try:
        assert proc.stdout is not None
        end = time.monotonic() + timeout
        for line in proc.stdout:
            lines.append(line)
            if "Walkthrough 01 is open at:" in line:
                next(proc.stdout)
                url = next(proc.stdout).strip()
                lines.append(url)
                opened = notebook_served(url)
                break
            assert time.monotonic() < end, "".join(lines)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # the script's own process group
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
        log.seek(0)
        errors = log.read().decode(errors="replace")
        log.close()
    assert url, f"no URL printed.\nstdout:\n{''.join(lines)}\nstderr:\n{errors[-3000:]}"
    assert opened.get("name") == FIRST and opened.get("type") == "notebook", opened
    return url, "".join(lines) + errors


def notebook_served(url: str) -> dict[str, object]:
    """What the server at ``url`` says about the notebook the URL opens."""
    base, _, query = url.partition(f"lab/tree/{FIRST}?")
    with urllib.request.urlopen(f"{base}api/contents/{FIRST}?content=0&{query}", timeout=30) as r:
        return dict(json.loads(r.read()))


@pytest.fixture
def venv_env(tmp_path: Path) -> dict[str, str]:
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests do not run in a virtual environment the script could reuse")
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(
        NB_HITL_VENV=sys.prefix,
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
    )
    return env


def test_walkthrough_starts_prints_url_and_leaves_the_checkout_clean(
    venv_env: dict[str, str],
) -> None:
    before = git_status()
    cmd = ["bash", str(SCRIPT), "--no-browser", f"--port={free_port()}",
           "--ServerApp.port_retries=0"]  # fmt: skip
    url, out = run_until_url(cmd, venv_env)
    assert f"lab/tree/{FIRST}?token=" in url
    assert "my-walkthroughs" in out
    assert (REPO / "my-walkthroughs" / FIRST).exists()
    # A session file saved next to the working copy, as walkthrough 05's panel would.
    (REPO / "my-walkthroughs" / "nb_hitl_session_Friday.json").write_text("{}")
    # Second run: the environment is up to date, pip is skipped.
    cmd[3] = f"--port={free_port()}"
    _, out2 = run_until_url(cmd, venv_env)
    assert "up to date (pip skipped)" in out2, out2
    assert "installing" not in out2
    after = git_status()
    assert after == before, f"the walkthrough dirtied the checkout:\n{after}"
    if not before:
        assert after == ""
    (REPO / "my-walkthroughs" / "nb_hitl_session_Friday.json").unlink()


@pytest.fixture
def normal_user(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An unprivileged user with a home of its own (created here, and removed, as root)."""
    if os.geteuid() != 0:
        home = tmp_path / "home"
        home.mkdir()
        yield pwd.getpwuid(os.geteuid()).pw_name, home
        return
    if shutil.which("useradd") is None or shutil.which("runuser") is None:
        pytest.skip("running as root without useradd/runuser: cannot test as a normal user")
    # One user and one cached venv per machine: a second checkout's run of this test (several
    # people on one machine) waits here instead of deleting the user under the first one.
    lock = open(Path(tempfile.gettempdir()) / "nb-hitl-newcomer.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    home = Path(tempfile.mkdtemp(prefix="nbhitl-home-"))
    created = False
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--no-create-home", "--home-dir", str(home), USER], check=True)
        created = True
    os.chown(home, pwd.getpwnam(USER).pw_uid, pwd.getpwnam(USER).pw_gid)
    try:
        yield USER, home
    finally:
        # userdel refuses while a process of the user is still exiting: retry for a while.
        for _ in range(40 if created else 0):
            if subprocess.run(["userdel", USER], check=False).returncode == 0:
                break
            time.sleep(0.5)
        shutil.rmtree(home, ignore_errors=True)
        lock.close()  # releases the lock


def readable_by_others(path: Path) -> bool:
    """Whether another user can reach ``path`` (every folder above it is searchable)."""
    return all(os.stat(p).st_mode & 0o001 for p in Path(path).resolve().parents)


def test_walkthrough_runs_as_a_normal_user(
    venv_env: dict[str, str], normal_user: tuple[str, Path]
) -> None:
    """As root, the script runs as a freshly created user, from root's checkout.

    That user cannot write the checkout, so the working copy goes to its home. When this
    venv's Python is out of the user's reach (a pyenv under /root), the user gets a venv of
    its own, cached between runs in the temporary folder: the first run installs (minutes),
    the next ones find it up to date.
    """
    user, home = normal_user
    env = dict(venv_env, HOME=str(home), USER=user, LOGNAME=user)
    for key in ("JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
        env[key] = str(home / key.lower())
    cmd = ["bash", str(SCRIPT), "--no-browser", f"--port={free_port()}"]
    if os.geteuid() == 0:
        if not readable_by_others(REPO / "scripts"):
            pytest.skip(f"{REPO} is not readable by other users; the checkout must be")
        if not readable_by_others(Path(sys.executable)):
            venv = Path(tempfile.gettempdir()) / "nb-hitl-newcomer-venv"
            venv.mkdir(exist_ok=True)
            uid, gid = pwd.getpwnam(user).pw_uid, pwd.getpwnam(user).pw_gid
            subprocess.run(["chown", "-R", f"{uid}:{gid}", str(venv)], check=True)
            env["NB_HITL_VENV"] = str(venv)
            env["PATH"] = "/usr/local/bin:/usr/bin:/bin"  # root's pyenv is out of reach
        cmd = [
            str(shutil.which("runuser")),
            "-u",
            user,
            "--",
            "env",
            *[f"{k}={v}" for k, v in env.items()],
            *cmd,
        ]
    before = git_status()
    url, out = run_until_url(cmd, env, timeout=1200)
    assert f"lab/tree/{FIRST}?token=" in url
    if os.geteuid() == 0:
        # The checkout is root's: the working copy goes to the user's home instead.
        assert (home / "nb_hitl-walkthroughs" / FIRST).exists(), out
    assert "Running as root" not in out
    assert git_status() == before
