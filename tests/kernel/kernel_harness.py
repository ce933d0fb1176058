"""A real ipykernel driven through jupyter_client, as a front end would drive it.

``KernelHarness`` starts a kernel from a given Python, runs cells, sends comm messages (a
button click is ``{"method": "custom", "content": {"event": "click"}}``, a panel's action
``{"method": "custom", "content": {"t": "action", "name", "args"}}``), optionally on a
subshell (what JupyterLab's commsOverSubshells does), and watches iopub for widget updates.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

REPO = Path(__file__).resolve().parents[2]


class KernelHarness:
    """One kernel, its client, and an iopub log."""

    def __init__(self, python: str) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="nb-hitl-kspec-")
        spec_dir = Path(self._dir.name) / "nbhitl"
        spec_dir.mkdir()
        argv = [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        spec = {"argv": argv, "display_name": "nb_hitl test", "language": "python"}
        (spec_dir / "kernel.json").write_text(json.dumps(spec))
        ksm = KernelSpecManager(kernel_dirs=[self._dir.name])
        self.km = KernelManager(kernel_name="nbhitl", kernel_spec_manager=ksm)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        self.km.start_kernel(env=env, cwd=str(REPO))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.log: list[tuple[float, dict[str, Any]]] = []

    # -- cells -------------------------------------------------------------------------------
    def execute(self, code: str, timeout: float = 60.0) -> str:
        """Run a cell to completion; return its stdout; raise on an error."""
        msg_id = self.kc.execute(code)
        out: list[str] = []
        error: str | None = None
        end = time.monotonic() + timeout
        while True:
            msg = self._next(end)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind == "error":
                error = "\n".join(content["traceback"])
            elif kind == "status" and content["execution_state"] == "idle":
                break
        if error:
            raise AssertionError(f"cell failed:\n{error}")
        return "".join(out)

    def execute_nowait(self, code: str) -> str:
        """Start a cell and return its msg_id without waiting."""
        return str(self.kc.execute(code))

    # -- comms -------------------------------------------------------------------------------
    def send_comm(
        self, comm_id: str, data: dict[str, Any], subshell_id: str | None = None
    ) -> float:
        """Send a comm message on the shell channel; returns the send time."""
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        if subshell_id is not None:
            msg["header"]["subshell_id"] = subshell_id
        sent = time.perf_counter()
        self.kc.shell_channel.send(msg)
        return sent

    def click(self, comm_id: str, subshell_id: str | None = None) -> float:
        """Click a button widget, as the browser does."""
        return self.send_comm(
            comm_id, {"method": "custom", "content": {"event": "click"}}, subshell_id
        )

    def act(
        self,
        comm_id: str,
        name: str,
        args: dict[str, Any] | None = None,
        subshell_id: str | None = None,
    ) -> float:
        """Send a panel's action as its page does (``{t: "action", name, args}``): the chat's
        Send is ``act(part_id(chat, "controls"), "send", {"text": "hi"})``, the box's text
        with it. A part drawn inside its host (``"<host id>/<part>"``) gets it as the host's
        action named after the part, ``{name, args}``, as the host's page sends it; a part of
        a part (``"<panel id>/chat/controls"``: the agent panel's chat's controls) the same
        way, one level per part."""
        host, *path = comm_id.split("/")
        outer, outer_args = name, args or {}
        for part in reversed(path):
            outer, outer_args = part, {"name": outer, "args": outer_args}
        content: dict[str, Any] = {"t": "action", "name": outer, "args": outer_args}
        return self.send_comm(host, {"method": "custom", "content": content}, subshell_id)

    def press_key(
        self, keys_id: str, action: str, text: str = "", subshell_id: str | None = None
    ) -> float:
        """A bound key pressed in the page: the chat's part ``keys`` gets ``press``."""
        return self.act(keys_id, "press", {"action": action, "text": text}, subshell_id)

    def press_card(
        self,
        keys_id: str,
        card_key: str,
        verb: str,
        form: dict[str, Any] | None = None,
        subshell_id: str | None = None,
    ) -> float:
        """Press a card's button as the page does: approval cards are rows of the transcript's
        front end, and the chat's keys (``keys_id``: ``"<chat id>/keys"``) send the press with
        the card's form (``{action: "card", text: "<card key> <verb>", form}``)."""
        args = {"action": "card", "text": f"{card_key} {verb}", "form": form or {}}
        return self.act(keys_id, "press", args, subshell_id)

    def set_value(self, comm_id: str, state: dict[str, Any]) -> float:
        """Change widget traits, as the browser does."""
        return self.send_comm(comm_id, {"method": "update", "state": state, "buffer_paths": []})

    def sync(self, comm_id: str, state: dict[str, Any], subshell_id: str | None = None) -> None:
        """Change widget traits as the browser does, and wait until the kernel has taken them.

        A front end syncs what is typed on every keystroke, long before the click that uses
        it. A test that sends both at once must wait in between: ipykernel 7.4 hands a comm's
        message to the thread of that comm's last publish, whatever the header's subshell, so
        an input's update and a button's click can be handled on two threads in either order.
        The kernel echoes the update (``echo_update``) as it sets the traits, on the same thread
        and before anything else that thread runs.
        """
        host, _, part = comm_id.partition("/")
        if part:  # a part drawn inside its host has no traits: an update of the host's routes
            comm_id, state = host, {"tabbable": None}
        self.send_comm(
            comm_id, {"method": "update", "state": state, "buffer_paths": []}, subshell_id
        )
        self.wait_comm(
            lambda m: (
                m["content"].get("comm_id") == comm_id
                and m["content"].get("data", {}).get("method") == "echo_update"
                and all(m["content"]["data"].get("state", {}).get(k) == v for k, v in state.items())
            ),
            timeout=30,
        )

    def create_subshell(self) -> str:
        """Ask the kernel for a subshell (ipykernel 7+); returns its id."""
        msg = self.kc.session.msg("create_subshell_request", {})
        self.kc.control_channel.send(msg)
        # Its own reply (not an earlier request's), given time: the kernel starts a thread for
        # it, on 2 cores shared with the rest of a full run (10 s once ran out: queue.Empty).
        end = time.monotonic() + 60
        while True:
            reply = self.kc.control_channel.get_msg(timeout=max(0.1, end - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                break
        assert reply["content"].get("status") == "ok", reply["content"]
        return str(reply["content"]["subshell_id"])

    def subshell_for(self, comm_id: str, trait: str, value: Any) -> str:
        """A new subshell that the widget ``comm_id``'s messages are handled on; returns its id.

        ipykernel 7.4 routes a comm's messages to the subshell its last publish came from; a
        front-end update of ``trait`` to ``value`` sent on the subshell (echoed back from
        there) makes that the subshell.
        """
        subshell = self.create_subshell()
        self.sync(comm_id, {trait: value}, subshell)  # a part's: its host's comm (``sync``)
        return subshell

    def shell_replies(self, timeout: float = 0.2) -> list[dict[str, Any]]:
        """Drain replies on the shell channel."""
        out = []
        while True:
            try:
                out.append(self.kc.shell_channel.get_msg(timeout=timeout))
            except queue.Empty:
                return out

    # -- iopub -------------------------------------------------------------------------------
    def _next(self, end: float) -> dict[str, Any]:
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError("no kernel message in time")
        msg = self.kc.get_iopub_msg(timeout=left)
        self.log.append((time.perf_counter(), msg))
        return msg

    def wait_comm(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 30.0
    ) -> tuple[float, dict[str, Any]]:
        """Read iopub until a comm_open or comm_msg matches; returns (receive time, msg)."""
        end = time.monotonic() + timeout
        while True:
            msg = self._next(end)
            if msg["msg_type"] in ("comm_open", "comm_msg") and predicate(msg):
                return time.perf_counter(), msg

    def close(self) -> None:
        """Shut the kernel down."""
        try:
            self.kc.stop_channels()
        finally:
            self.km.shutdown_kernel(now=True)
            self._dir.cleanup()


def comm_text(msg: dict[str, Any]) -> str:
    """The JSON of a comm message's whole data (a trait update, or a custom message such as
    a rows segment's ops)."""
    return json.dumps(msg["content"].get("data", {}))


def state_text(msg: dict[str, Any]) -> str:
    """The JSON of a comm message's widget state (update or opening)."""
    return json.dumps(msg["content"].get("data", {}).get("state", {}))


_DELTA_TEXT = ("html", "text", "tail", "after")
"""The fields of a streaming row's delta ops that carry what it draws."""
_STREAMED: dict[tuple[str, str], dict[str, str]] = {}
"""(comm id, row id) -> (message id -> what each delta of that streaming row added), in order."""


def _transcript_ops(ops: list[Any]) -> list[dict[str, Any]]:
    """A batch's ops with a chat's transcript ops (its part ``transcript``: ``child`` ops, and
    the agent panel's part ``chat`` around them) taken out of their wrapping."""
    out: list[dict[str, Any]] = []
    for op in ops:
        if not isinstance(op, dict):
            continue
        if op.get("op") == "child" and op.get("key") in ("transcript", "chat"):
            out.extend(_transcript_ops(op.get("ops") or []))
        else:
            out.append(op)
    return out


def _transcript_content(msg: dict[str, Any]) -> tuple[list[Any], list[dict[str, Any]]]:
    """(the row items a comm message of a transcript model draws whole: its state, a snapshot,
    the items its ops insert or replace; its ``live`` ops). Other widgets: ([], [])."""
    data = msg["content"].get("data", {})
    snapshot = data.get("state", {}).get("snapshot")
    content = data.get("content") if data.get("method") == "custom" else None
    if isinstance(content, dict) and isinstance(content.get("snapshot"), dict):
        snapshot = content["snapshot"]
    if isinstance(snapshot, dict):
        state = snapshot.get("state") or {}
        state = state.get("chat") or state  # the agent panel's chat
        rows = state.get("rows", (state.get("transcript") or {}).get("rows"))  # a chat's part
        return (list(rows) if isinstance(rows, list) else []), []
    if isinstance(content, dict) and content.get("t") == "ops":
        ops = _transcript_ops(content.get("ops", []))
        ops = [op for op in ops if op.get("key") == "rows"]
        items = [op["item"] for op in ops if isinstance(op.get("item"), dict)]
        return items, [op for op in ops if op.get("op") == "live"]
    return [], []


def _item_html(item: Any) -> str:
    if not isinstance(item, dict):
        return ""
    live = item.get("live")
    if isinstance(live, dict):  # a streaming row: what it drew so far
        return "".join([live.get("head", ""), *live.get("blocks", []), live.get("tail", "")])
    return str(item.get("html", ""))


def chat_text(msg: dict[str, Any]) -> str:
    """The HTML a comm message draws in the chat transcript ("" for other widgets).

    The inspector's table also quotes message text and marks interrupted rows, so tests that
    wait for the chat must not match it. A streaming row's delta counts as the row's text so
    far (every delta of it seen before, in order).
    """
    data = msg["content"].get("data", {})
    value = data.get("state", {}).get("value")
    items, live = _transcript_content(msg)
    if items or live:
        parts = [_item_html(item) for item in items]
        for op in live:
            row = op.get("msg") if isinstance(op.get("msg"), dict) else {}
            snap = row.get("row") if isinstance(row.get("row"), dict) else {}
            added = "".join(
                [str(o.get(k, "")) for o in row.get("ops", []) for k in _DELTA_TEXT]
                + [*snap.get("blocks", []), snap.get("tail", "")]
            )
            seen = _STREAMED.setdefault((msg["content"].get("comm_id", ""), str(op.get("id"))), {})
            seen.setdefault(msg["header"].get("msg_id", ""), added)
            parts.append("".join(seen.values()))
        value = "".join(parts)
    if not isinstance(value, str) or "nb-hitl-table" in value or "nb-hitl-plan" in value:
        return ""
    return value


def segment_rows(msg: dict[str, Any]) -> list[str]:
    """The rows (HTML) a comm message draws whole in a transcript model: its opening state,
    the rows its ops insert or replace, a snapshot's rows ([] for other messages)."""
    items, _live = _transcript_content(msg)
    return [_item_html(item) for item in items]


def chat_interrupted(msg: dict[str, Any]) -> bool:
    """The chat drew a row in the interrupted style (a live row's class, or a new row)."""
    state = msg["content"].get("data", {}).get("state", {})
    if "nb-hitl-interrupted" in (state.get("_dom_classes") or []):
        return True
    items, live = _transcript_content(msg)
    if any("nb-hitl-interrupted" in str(op.get("cls", "")).split() for op in live):
        return True
    rows = [_item_html(item) for item in items] or [chat_text(msg)]
    return any(
        r.startswith('<div class="nb-hitl-msg') and "nb-hitl-interrupted" in r[:120] for r in rows
    )


def ipykernel6_python() -> str:
    """A venv with ipykernel 6.x, ipywidgets and this project, made once and cached.

    Lives under ``$NB_HITL_TEST_CACHE`` (default ``~/.cache/nb_hitl-tests``) and is rebuilt when
    pyproject.toml changes; pip's cache makes a rebuild quick.
    """
    base = Path(os.environ.get("NB_HITL_TEST_CACHE", Path.home() / ".cache" / "nb_hitl-tests"))
    stamp_value = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()[:16]
    venv = base / "ipykernel6-venv"
    python = venv / "bin" / "python"
    stamp = venv / "nb_hitl.stamp"
    if python.exists() and stamp.exists() and stamp.read_text() == stamp_value:
        return str(python)
    base.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run(
        [
            str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
            "ipykernel>=6.29,<7", "ipywidgets>=8.1", "-e", str(REPO),
        ],
        check=True,
    )  # fmt: skip
    stamp.write_text(stamp_value)
    return str(python)
