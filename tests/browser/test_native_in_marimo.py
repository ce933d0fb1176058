"""Panels that are one ``PanelModel`` in marimo, natively (``marimo run`` + Debian's Chromium):
``marimo_panel(panel)`` shows the memory inspector and the compression explorer through
``mo.ui.anywidget``, with no ``MarimoHost``. The inspector draws memory, its what-if slider
asks the kernel for a new plan, *Explore settings* opens an explorer inside it (made by the
click, outside any cell's run: drawn by its host, no comm of its own); the explorer's slider
redraws its curve, the sweep draws its heat map and *Use cheapest* moves the sliders. The look
in light and dark at 600, 800 and 1,400 px: every visible text at 4.5:1, nothing clipped, no
word wrapped inside itself (``look_checks``), the panel's theme following marimo's. Screenshots
go to ``test-artifacts/marimo-native-*.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lab_page import drag_range
from look_checks import look_problems

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

PANEL = "marimo-anywidget .nbh-panel"


def open_app(browser: Any, server: Any, case: str, ready: str, scheme: str = "light") -> Any:
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1400, "height": 1400})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.page_url(case))
    page.wait_for_selector(ready, timeout=90_000)
    page.errors = errors  # type: ignore[attr-defined]
    return page


def wait_changed(page: Any, selector: str, attribute: str, old: str | None) -> None:
    """Wait until ``selector``'s ``attribute`` (across marimo's shadow root) is not ``old``."""
    from playwright.sync_api import expect

    expect(page.locator(selector).first).not_to_have_attribute(attribute, old or "", timeout=30_000)


def look_matrix(page: Any, name: str, artifacts: Path) -> dict[str, list[str]]:
    """Screenshots and look problems of the panel in light and dark at 600, 800, 1,400 px."""
    found: dict[str, list[str]] = {}
    page.mouse.move(0, 0)  # no hover (marimo's cell menu) in the pictures
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.wait_for_selector(f"{PANEL}[data-nbh-theme='{scheme}']", state="attached",
                               timeout=20_000)  # fmt: skip
        for width in (600, 800, 1400):
            page.set_viewport_size({"width": width, "height": 2400})  # the whole panel
            page.wait_for_timeout(500)  # a relayout
            state = f"{scheme}-{width}"
            page.locator(PANEL).first.screenshot(
                path=str(artifacts / f"marimo-native-{name}-{state}.png")
            )
            found[state] = look_problems(page, ".nbh-panel")  # (it looks into shadow roots)
    return {k: v for k, v in found.items() if v}


def test_inspector_draws_memory_what_if_and_an_explorer_inside_it(
    browser: Any, marimo_server: Any, artifacts: Path
) -> None:
    page = open_app(browser, marimo_server, "inspector", ready=".nb-hitl-table tbody tr")
    # The rows come first; the plan once the tokens are counted (after the cell ran).
    page.wait_for_selector(".nb-hitl-plan[data-compress]", timeout=30_000)
    rows = page.locator(".nb-hitl-table tbody tr")
    assert rows.count() > 20  # long_task_transcript: every message listed
    assert not page.locator(".nb-hitl-marimo").count(), "no MarimoHost: the native route"
    # The what-if threshold over the whole memory: the page's action, a new plan drawn.
    plan = page.locator(".nb-hitl-plan").first
    assert "Over the threshold" in plan.inner_text()
    box = page.locator(".nbh-inspector input[type=number]").first
    box.fill("100000")
    box.press("Enter")
    page.locator(".nb-hitl-plan", has_text="Below the threshold").first.wait_for(timeout=30_000)
    box.fill("12000")
    box.press("Enter")
    page.locator(".nb-hitl-plan", has_text="Over the threshold").first.wait_for(timeout=30_000)
    # Explore settings: the explorer is made by the click and drawn inside the inspector.
    page.locator(".nbh-inspector button.nbh-explore").click()
    page.locator(".nbh-inspector-explorer .nb-hitl-explorer-curve").first.wait_for(timeout=60_000)
    bad = look_matrix(page, "inspector", artifacts)
    assert not bad, "\n".join(f"{k}: {p}" for k, v in bad.items() for p in v[:12])
    assert not page.errors, page.errors  # type: ignore[attr-defined]
    page.context.close()


def test_explorer_slider_redraws_the_curve_and_the_sweep_picks_the_cheapest(
    browser: Any, marimo_server: Any, artifacts: Path
) -> None:
    page = open_app(browser, marimo_server, "explorer", ready=".nb-hitl-explorer-curve",
                    scheme="dark")  # fmt: skip
    curve = page.locator(".nb-hitl-curve").first
    before = curve.get_attribute("points")
    marks = page.locator(".nb-hitl-explorer-curve").first
    compressions = marks.get_attribute("data-compressions")
    slider = page.locator(".nb-hitl-explorer input[type=range]").first
    drag_range(page, slider, 0.15, steps=10)
    wait_changed(page, ".nb-hitl-curve", "points", before)
    value = int(page.locator(".nb-hitl-explorer input[type=number]").first.input_value())
    assert value < 12000
    assert int(str(marks.get_attribute("data-compressions"))) > int(str(compressions))
    title = page.locator(".nb-hitl-explorer-curve .nb-hitl-compression-mark title").first
    assert "folded" in str(title.text_content())
    page.locator(".nb-hitl-explorer button:has-text('Run sweep')").click()
    page.locator(".nb-hitl-cheapest").first.wait_for(timeout=60_000)
    best = page.locator(".nb-hitl-cheapest").first
    threshold, keep = best.get_attribute("data-threshold"), best.get_attribute("data-keep")
    page.locator(".nb-hitl-explorer button:has-text('Use cheapest')").click()
    from playwright.sync_api import expect

    boxes = page.locator(".nb-hitl-explorer input[type=number]")
    expect(boxes.first).to_have_value(str(threshold), timeout=30_000)
    assert boxes.nth(1).input_value() == str(keep)
    assert 'data-fits="1"' in page.locator(".nb-hitl-explorer-totals").first.evaluate(
        "e => e.outerHTML"
    )
    bad = look_matrix(page, "explorer", artifacts)
    assert not bad, "\n".join(f"{k}: {p}" for k, v in bad.items() for p in v[:12])
    assert not page.errors, page.errors  # type: ignore[attr-defined]
    page.context.close()
