"""Panel modules by URL: once a page says nb_hitl's server serves the bundles, new panels get
their module as a URL (the page imports it once for every panel of that kind), and the
server extension serves exactly those files."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from pathlib import Path

import comm
import pytest
import tornado.httpclient
import tornado.httpserver
import tornado.netutil
import tornado.web
from widget_helpers import RecordingComm, until

from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.server_extension import MODULES_KEY, STATIC, module_routes
from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._inspector import MemoryInspector
from nb_hitl.widgets._modules import module_base, set_module_base

BASE = "http://127.0.0.1:8888/nb_hitl/static/"


@pytest.fixture(autouse=True)
def inline_again(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    monkeypatch.delenv("ANYWIDGET_HMR", raising=False)
    set_module_base(None)
    yield
    set_module_base(None)  # the base is the kernel's: never leak it into other tests


def agent() -> ReActAgent:
    return ReActAgent("Friday", "sys", ScriptedModel(["Hi."]))


def digest(name: str) -> str:
    return hashlib.sha256((STATIC / name).read_bytes()).hexdigest()[:16]


async def test_after_the_page_names_the_server_new_panels_come_by_url() -> None:
    first = ChatWidget(agent())
    assert first._esm == (STATIC / "chat.js").read_text(encoding="utf-8")  # inline: the source
    first.page_message({"t": "modules", "base": BASE})
    assert module_base() == BASE
    second = ChatWidget(agent())
    assert second._esm == f"{BASE}chat.js?v={digest('chat.js')}"
    inspector = MemoryInspector(agent())
    assert inspector._esm == f"{BASE}inspector.js?v={digest('inspector.js')}"
    assert second.get_state()["_esm"] == second._esm  # what the page's model gets
    assert first._esm != second._esm  # a panel drawn already keeps its module
    # The panel works as before: its view state and actions do not depend on where the
    # module came from.
    second.send("hello")
    texts = lambda: [m.get_text_content() for m in second.agent.memory.messages]  # noqa: E731
    await until(lambda: texts() == ["hello", "Hi."] and second.state == "idle")


@pytest.mark.parametrize(
    "bad",
    [
        "javascript:alert(1)//nb_hitl/static/",
        "file:///etc/nb_hitl/static/",
        "http:///nb_hitl/static/",
        "http://evil.example/other/",
        "http://127.0.0.1:8888/nb_hitl/static/?x=1",
        "http://127.0.0.1:8888/nb_hitl/static/#x",
        42,
        ["http://127.0.0.1:8888/nb_hitl/static/"],
    ],
)
def test_a_bad_base_is_refused_and_logged(bad: object, caplog: pytest.LogCaptureFixture) -> None:
    chat = ChatWidget(agent())
    with caplog.at_level(logging.WARNING, logger="nb_hitl.widgets"):
        chat.page_message({"t": "modules", "base": bad})
    assert module_base() is None
    assert "panels stay inline" in caplog.text
    assert not ChatWidget(agent())._esm.startswith("http")


def test_hot_reload_keeps_panels_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    set_module_base(BASE)
    monkeypatch.setenv("ANYWIDGET_HMR", "1")
    assert not ChatWidget(agent())._esm.startswith("http")


def test_a_rebuilt_bundle_gets_a_new_url(tmp_path: Path) -> None:
    from nb_hitl.widgets._modules import module_url

    bundle = tmp_path / "x.js"
    bundle.write_text("export default {};")
    set_module_base(BASE)
    before = module_url(bundle)
    bundle.write_text("export default { render() {} };")
    import os

    os.utime(bundle, ns=(1, 2))  # a new modification time, whatever the clock's resolution
    assert module_url(bundle) != before


# -- the server extension's handler, on a real tornado server on loopback ---------------------
@pytest.fixture
async def static_server() -> object:
    sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
    port = sockets[0].getsockname()[1]
    app = tornado.web.Application(module_routes("/base/"))
    server = tornado.httpserver.HTTPServer(app)
    server.add_sockets(sockets)
    yield f"http://127.0.0.1:{port}/base/"
    server.stop()
    await server.close_all_connections()


async def fetch(url: str) -> tornado.httpclient.HTTPResponse:
    client = tornado.httpclient.AsyncHTTPClient()
    return await client.fetch(url, raise_error=False)


async def test_the_server_serves_the_bundles_and_nothing_else(static_server: str) -> None:
    assert MODULES_KEY == "nbHitlModules"
    response = await fetch(f"{static_server}nb_hitl/static/chat.js?v={digest('chat.js')}")
    assert response.code == 200
    assert response.headers["Content-Type"].startswith("text/javascript")
    assert response.body == (STATIC / "chat.js").read_bytes()
    assert "max-age" in response.headers.get("Cache-Control", "")  # versioned: cached for good
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    css = await fetch(f"{static_server}nb_hitl/static/chat.css")
    assert css.code == 200 and css.headers["Content-Type"].startswith("text/css")
    for path in ("../_model.py", "..%2F_model.py", "chat.py", "sub/chat.js", "missing.js"):
        assert (await fetch(f"{static_server}nb_hitl/static/{path}")).code == 404, path
