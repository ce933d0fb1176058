"""The panel in marimo (``marimo run`` + Debian's Chromium): ``nb_hitl.show(agent)`` in a
marimo cell draws the panel natively (one ``PanelModel`` through ``mo.ui.anywidget``, in its
shadow root: no ``MarimoHost``); a reply streams, Stop mid-stream paints the interrupted
style and memory (the inspector's table) ends with the interrupted message, Continue with a
typed instruction resumes the same answer; Ctrl+Enter sends and Escape stops (the chat's
keys, drawn by the panel's module); an approval card approves; the buttons' and the
transcript's icons are drawn (no Font Awesome in marimo, no internet: nb_hitl's own
drawings); and the look in light and dark at 600, 800 and 1,400 px: every visible text at
4.5:1, nothing clipped, no word wrapped inside itself (``look_checks``);
``nb_hitl.show(hub)`` (one ``PanelModel`` too) runs a round and Stop pauses it (dark,
800 px). ``marimo run`` shows the app alone, with no side bar to open or close (unlike
JupyterLab and Notebook 7), so its look matrix is theme x width. Screenshots go to
``test-artifacts/marimo-*.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from look_checks import look_problems

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

CHAT = ".nb-hitl-chat"
BOX = f"{CHAT} textarea"
STATUS = ".nb-hitl-status"
INTERRUPTED = f"{CHAT} .nb-hitl-msg.nb-hitl-interrupted"
HOST = ".nbh-agent-panel"
"""The agent panel's front end (one ``PanelModel``, drawn natively in marimo's shadow root)."""
NO_HOST = ".nb-hitl-marimo"
"""The emulating host's root, which no panel needs any more."""
HUB = ".nbh-hub"
"""The hub panel's front end (one ``PanelModel``, drawn natively in marimo's shadow root)."""
INSTRUCTION = "Continue, but keep it to one short paragraph."


def open_app(
    browser: Any,
    server: Any,
    case: str,
    scheme: str = "light",
    width: int = 1400,
    ready: str = BOX,
) -> Any:
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.page_url(case))
    page.wait_for_selector(ready, timeout=90_000)
    page.errors = errors  # type: ignore[attr-defined]
    return page


def wait_status(page: Any, state: str, timeout: float = 60.0) -> None:
    page.wait_for_selector(f"{STATUS}[data-state='{state}']", timeout=timeout * 1000)


def table_rows(page: Any) -> list[str]:
    """The inspector's memory table, one text per row (it is drawn from the agent's memory)."""
    return [t.strip() for t in page.locator(".nb-hitl-table tbody tr").all_inner_texts()]


def test_reply_streams_stop_interrupts_and_continue_resumes(
    browser: Any, marimo_server: Any, artifacts: Path
) -> None:
    page = open_app(browser, marimo_server, "chat")
    page.locator(BOX).fill("How does interrupting work?")
    page.locator(BOX).press("Control+Enter")  # the chat's keys, in the panel's module
    wait_status(page, "running")
    live = page.locator(f"{CHAT} .nb-hitl-live")
    live.filter(has_text="background task").first.wait_for(timeout=60_000)
    first = live.first.inner_text()
    page.wait_for_function(  # still streaming: the live row grows
        "([sel, n]) => { const h = document.querySelector('marimo-anywidget');"
        " const e = h && h.shadowRoot.querySelector(sel); return e && e.innerText.length > n; }",
        arg=[f"{CHAT} .nb-hitl-live", len(first)],
        timeout=30_000,
    )
    page.screenshot(path=str(artifacts / "marimo-streaming.png"))
    assert not page.locator(NO_HOST).count(), "the panel is one PanelModel: marimo's native route"
    page.locator(f"{CHAT} button.nb-hitl-stop").click()
    page.locator(INTERRUPTED).first.wait_for(timeout=10_000)
    wait_status(page, "idle")
    assert "interrupted" in page.locator(STATUS).first.inner_text()
    page.wait_for_function(
        "() => { const h = document.querySelector('marimo-anywidget');"
        " const rows = h.shadowRoot.querySelectorAll('.nb-hitl-table tbody tr');"
        " return rows.length && /interrupted/.test(rows[rows.length - 1].innerText); }",
        timeout=20_000,
    )
    rows = table_rows(page)
    assert "[Interrupted]" in rows[-1] and "interrupted" in rows[-1], rows[-1]
    page.screenshot(path=str(artifacts / "marimo-stopped.png"))

    page.locator(BOX).fill(INSTRUCTION)
    page.locator(f"{CHAT} button:has-text('Continue')").click()
    wait_status(page, "running")
    assert page.locator(BOX).input_value() == ""  # the instruction went with Continue
    wait_status(page, "idle", timeout=120)
    seam = page.locator(f"{CHAT} .nb-hitl-seam")
    seam.first.wait_for(timeout=10_000)
    assert INSTRUCTION in seam.first.inner_text() or INSTRUCTION in page.locator(CHAT).inner_text()
    page.wait_for_function(
        "(t) => { const h = document.querySelector('marimo-anywidget');"
        " return h.shadowRoot.querySelector('.nb-hitl-table').innerText.includes(t); }",
        arg=INSTRUCTION[:30],
        timeout=20_000,
    )
    page.screenshot(path=str(artifacts / "marimo-resumed.png"))
    assert not page.errors, page.errors  # type: ignore[attr-defined]
    page.context.close()


def drive(page: Any) -> None:
    """A tool call, a model error, a reply stopped with Escape mid-stream, then an approval."""

    def send(text: str) -> None:
        page.locator(BOX).fill(text)
        page.locator(f"{CHAT} button.nb-hitl-send").click()

    send("What is 3 * (4 + 5)?")
    page.locator(f"{CHAT} .nb-hitl-msg", has_text="It is 27").first.wait_for(timeout=60_000)
    wait_status(page, "idle")
    send("And again?")
    wait_status(page, "error")
    send("Tell me everything.")
    page.locator(f"{CHAT} .nb-hitl-live", has_text="word40").first.wait_for(timeout=60_000)
    page.locator(BOX).press("Escape")  # Stop from the keyboard
    page.locator(INTERRUPTED).first.wait_for(timeout=10_000)
    wait_status(page, "idle")
    send("Deploy it.")
    wait_status(page, "waiting")
    page.locator(".nb-hitl-approval button:has-text('Approve')").first.wait_for(timeout=30_000)


def icon_paints(icon: Any) -> bool:
    """Whether an icon element paints something: it has a box, and a screenshot of that box
    changes when the icon alone is hidden."""
    box = icon.bounding_box()
    if box is None or box["width"] < 4 or box["height"] < 4:
        return False
    page = icon.page
    shown = page.screenshot(clip=box, animations="disabled")
    icon.evaluate("e => { e.style.visibility = 'hidden'; }")
    try:
        return bool(page.screenshot(clip=box, animations="disabled") != shown)
    finally:
        icon.evaluate("e => { e.style.visibility = ''; }")


ICONS = {
    "Approve": f"{CHAT} .nb-hitl-approval button:has-text('Approve') i.fa-check",
    "Edit": f"{CHAT} .nb-hitl-approval button:has-text('Edit') i.fa-pencil",
    "Deny": f"{CHAT} .nb-hitl-approval button:has-text('Deny') i.fa-times",
    "Send": f"{CHAT} button.nb-hitl-send i.fa-paper-plane",
    "Export": f"{CHAT} button.nb-hitl-export i.fa-download",
    "the tool mark": f"{CHAT} .nb-hitl-msg i.fa-wrench",
    "a message's Copy": f"{CHAT} .nb-hitl-msg .nb-hitl-copy i.fa-copy",
}
"""Icons drawn in the look case once its approval card waits (as JupyterLab draws them)."""


def test_look_in_light_and_dark_at_600_800_and_1400_icons_and_approval(
    browser: Any, marimo_server: Any, artifacts: Path
) -> None:
    page = open_app(browser, marimo_server, "look")
    drive(page)
    missing = []
    for name, selector in ICONS.items():
        icon = page.locator(selector).first
        if not icon.count():
            missing.append(f"{name}: no icon element ({selector})")
            continue
        icon.scroll_into_view_if_needed()
        if name == "a message's Copy":
            icon.locator("xpath=ancestor::*[contains(@class, 'nb-hitl-msg')][1]").hover()
        if not icon_paints(icon):
            missing.append(f"{name}: its icon paints nothing ({selector})")
    assert not missing, "\n".join(missing)
    page.locator(".nb-hitl-approval").first.screenshot(
        path=str(artifacts / "marimo-icons-approval.png")
    )
    # Back to the newest row (the icons above are in the oldest): the transcript's scroll is a
    # column-reverse box, whose 0 is the bottom.
    page.locator(f"{CHAT} .nb-hitl-transcript").first.evaluate("e => { e.scrollTop = 0; }")
    page.mouse.move(0, 0)  # no hover (marimo's cell menu) in the pictures
    found: dict[str, list[str]] = {}
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.wait_for_selector(
            f"{HOST}[data-nbh-theme='{scheme}']", state="attached", timeout=20_000
        )
        for width in (600, 800, 1400):
            page.set_viewport_size({"width": width, "height": 2400})  # the whole panel
            page.wait_for_timeout(500)  # a relayout
            state = f"{scheme}-{width}"
            page.locator(HOST).first.screenshot(path=str(artifacts / f"marimo-look-{state}.png"))
            found[state] = look_problems(page, HOST)
    bad = {k: v for k, v in found.items() if v}
    assert not bad, "\n".join(f"{k}: {p}" for k, v in bad.items() for p in v[:12])

    page.locator(".nb-hitl-approval button:has-text('Approve')").first.click()
    page.locator(f"{CHAT} .nb-hitl-msg", has_text="Deployed.").first.wait_for(timeout=30_000)
    wait_status(page, "idle")
    assert "deployed to production-eu-west-1" in page.locator(CHAT).inner_text()
    assert not page.errors, page.errors  # type: ignore[attr-defined]
    page.context.close()


def test_hub_panel_runs_a_round_and_stops_in_marimo(
    browser: Any, marimo_server: Any, artifacts: Path
) -> None:
    page = open_app(browser, marimo_server, "hub", scheme="dark", width=800,
                    ready=".nb-hitl-hub button:has-text('Start')")  # fmt: skip
    page.locator(".nb-hitl-hub button:has-text('Start')").first.click()
    page.locator(".nb-hitl-hub .nb-hitl-msg", has_text="one keystroke").first.wait_for(
        timeout=60_000
    )
    page.locator(".nb-hitl-hub button.nb-hitl-hub-stop").click()  # mid-stream
    page.locator(".nb-hitl-hub >> text=/Paused/").first.wait_for(timeout=30_000)
    page.locator(".nb-hitl-hub .nb-hitl-msg.nb-hitl-interrupted").first.wait_for(timeout=10_000)
    assert not page.locator(NO_HOST).count(), "the hub is one PanelModel: marimo's native route"
    page.locator(f"{HUB}[data-nbh-theme='dark']").first.wait_for(state="attached")
    page.set_viewport_size({"width": 800, "height": 2400})  # the whole panel in the picture
    page.wait_for_timeout(300)
    page.locator(HUB).first.screenshot(path=str(artifacts / "marimo-hub-dark-800.png"))
    assert look_problems(page, HUB) == []
    assert not page.errors, page.errors  # type: ignore[attr-defined]
    page.context.close()
