"""A real JupyterLab loads nb_hitl's server extension from the file the wheel installs, and a
kernel websocket it serves has TCP_NODELAY set (read back from the server's own socket) and
carries kernel messages as before.

Without it the kernel's answer to a click waited up to ~40 ms in the server (Nagle's algorithm
against the browser's delayed ACK; ``bench/stop_in_browser.py`` measures Stop with and without
it, ``--nagle``). No timing here: what is asserted is the socket option.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid

import pytest
from lab_server import LabServer

from nb_hitl.server_extension import LOADED_NOTE

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def _wait_log(lab: LabServer, text: str, timeout: float = 30.0) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        log = lab.read_log()
        if text in log:
            return log
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not in the server log:\n{lab.read_log()[-3000:]}")


def test_kernel_websockets_have_tcp_nodelay(lab: LabServer) -> None:
    import websocket  # websocket-client, a dependency of jupyter_server

    assert lab.server_extension
    _wait_log(lab, LOADED_NOTE)
    request = urllib.request.Request(
        f"{lab.url}/api/kernels?token={lab.token}", data=b"{}", method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as resp:
        kernel_id = json.loads(resp.read())["id"]
    ws_url = lab.url.replace("http", "ws", 1)
    ws = websocket.create_connection(
        f"{ws_url}/api/kernels/{kernel_id}/channels?token={lab.token}&session_id=t",
        timeout=60,
    )
    try:
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "kernel_info_request", "username": "t",
                       "session": "t", "date": "", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "content": {}, "channel": "shell",
        }))  # fmt: skip
        while True:  # the wrapped connection still carries the kernel's messages
            reply = json.loads(ws.recv())
            mine = reply.get("parent_header", {}).get("msg_id") == msg_id
            if mine and reply["msg_type"] == "kernel_info_reply":
                break
        assert reply["content"]["status"] == "ok"
        _wait_log(lab, f"nb_hitl: kernel {kernel_id} websocket TCP_NODELAY on")
    finally:
        ws.close()


def test_the_panels_modules_are_served_and_named_in_the_page(lab: LabServer) -> None:
    from nb_hitl.server_extension import MODULES_KEY, STATIC

    with urllib.request.urlopen(f"{lab.url}/lab?token={lab.token}", timeout=60) as resp:
        page = resp.read().decode()
    config = json.loads(page.split('id="jupyter-config-data"', 1)[1].split(">", 1)[1].split("<")[0])
    assert config[MODULES_KEY] == "/nb_hitl/static/"
    # No login needed (a module import sends no token), as for Jupyter's own /static/.
    with urllib.request.urlopen(f"{lab.url}/nb_hitl/static/chat.js?v=1", timeout=60) as resp:
        assert resp.headers["Content-Type"].startswith("text/javascript")
        assert resp.read() == (STATIC / "chat.js").read_bytes()
    for path in ("chat.py", "..%2F_model.py", "missing.js"):
        with pytest.raises(urllib.error.HTTPError) as failed:
            urllib.request.urlopen(f"{lab.url}/nb_hitl/static/{path}", timeout=60)
        failed.value.close()
        assert failed.value.code == 404, path
