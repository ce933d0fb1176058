"""Permissions, questions and background tasks in real JupyterLab and Chromium: the approval
card's suggested rule in its box (text that is no rule refused in the card, then a rule typed
by hand with Enter: Allow similar for this session), the rule list and Revoke, the mode in
the status line, an ask_user form answered with the keyboard only (arrow keys, Space, typing,
Enter), and a background task's Stop. Screenshots at 1,400 and 800 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lab_page import CHAT, SEND, open_and_run_all, wait_status
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]

HOSTILE = "<img src=x onerror=alert(1)>"
SETUP = f"""\
import os, tempfile
os.environ["NB_HITL_CONFIG_DIR"] = tempfile.mkdtemp()  # "always" rules stay out of $HOME
import asyncio, json
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel, Toolkit, ask_user
from nb_hitl.model import ScriptedToolCall, ScriptedTurn

searched = []
def search_notes(query: str) -> str:
    '''Search the notes.

    Args:
        query: what to look for.
    '''
    searched.append(query)
    return f"found {{query}}"

async def crawl(site: str) -> str:
    '''Crawl a site (slow).

    Args:
        site: which.
    '''
    await asyncio.sleep(600)
    return "crawled"

toolkit = Toolkit()
toolkit.register_tool_function(search_notes, needs_approval=True, read_only=True)
toolkit.register_tool_function(crawl, async_execution=True)
toolkit.register_tool_function(ask_user)
questions = [
    {{"question": "Which database?", "header": "Storage",
      "options": [{{"label": "PostgreSQL", "description": "relational"}}, "SQLite", {HOSTILE!r}]}},
    {{"question": "Which features?", "options": ["auth", "search", "export"],
      "multi_select": True}},
]
def call(name, call_id, **args):
    return ScriptedTurn(tool_calls=[ScriptedToolCall(name, args, id=call_id)])
agent = ReActAgent("Friday", "T.", ScriptedModel([
    call("search_notes", "s1", query="alpha"), call("search_notes", "s2", query="beta"),
    "Searched twice.",
    call("ask_user", "q1", questions=questions), "Thanks for answering.",
    call("crawl", "c1", site="example.org"), "Crawling in the background.",
], tokens_per_second=300), toolkit=toolkit)
panel = nb_hitl.show(agent, session=None)
panel"""
FIRST = 'panel.chat.send("Search my notes.")'
PERMISSIONS = ".nb-hitl-permissions"
INPUT = f"{CHAT} .nb-hitl-input textarea"
OVERRUN = """form => [...form.querySelectorAll(
    '.nb-hitl-question-other, .nb-hitl-question-other input')]
  .filter(e => e.getClientRects().length)
  .map(e => {
    const box = e.parentElement, s = getComputedStyle(box);
    const edge = box.getBoundingClientRect().right - parseFloat(s.borderRightWidth)
      - parseFloat(s.paddingRight);
    return Math.ceil(e.getBoundingClientRect().right - edge);
  })
  .filter(px => px > 0)"""
"""JavaScript: by how many px each "Other" box (and its input) sticks out of the box it sits in."""


CARD_BOX = ".nb-hitl-rule-text"
look_problems_js = """(card, sel) => [...card.querySelectorAll(sel)].flatMap(box => {
  const s = getComputedStyle(box), c = document.createElement('canvas').getContext('2d');
  c.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
  const room = box.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  const need = c.measureText(box.value).width;
  const out = box.getBoundingClientRect().right - card.getBoundingClientRect().right;
  return [need > room + 1 ? `clipped ${need} > ${room}` : null, out > 1 ? `out ${out}` : null]
    .filter(Boolean);
})"""
"""JavaScript: the rule box's text fits in it, and the box stays inside its card."""


def form_fits_at_800(page: Any, form: Any, path: Path) -> None:
    """At 800 px the "Other" boxes stay inside the form (they ran past its edge: issue 35)."""
    page.set_viewport_size({"width": 800, "height": 1200})
    page.wait_for_timeout(300)
    form.scroll_into_view_if_needed()
    page.screenshot(path=str(path), full_page=True)
    assert form.evaluate(OVERRUN) == []
    page.set_viewport_size({"width": 1400, "height": 1200})


def test_rules_questions_and_background_stop(browser: Any, lab: LabServer, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    page = context.new_page()
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        open_and_run_all(page, lab.write_notebook("permissions.ipynb", [SETUP, FIRST]))
        card = page.locator(f"{CHAT} .nb-hitl-approval").first
        card.wait_for(timeout=90_000)
        wait_status(page, "waiting")
        status = page.locator(f"{CHAT} .nb-hitl-status-line")
        assert "ask" in status.locator(".nb-hitl-permission-mode").inner_text()
        # The suggested rule, the narrowest (this query's first word), in an editable box.
        assert "Or allow" in card.inner_text()
        box = card.locator("input.nb-hitl-rule-text")
        assert box.input_value() == "search_notes(query: re:^alpha\\b)"
        page.screenshot(path=str(artifacts / "permissions-card-1400.png"), full_page=True)
        card.scroll_into_view_if_needed()
        card.screenshot(path=str(artifacts / "permissions-card-rule-1400.png"))
        assert card.evaluate(look_problems_js, CARD_BOX) == []  # the box fits its rule

        # Text that is no rule: said in the card (as text), nothing decided, the text kept.
        box.fill(HOSTILE)
        card.locator("button.nb-hitl-allow-similar").click()
        error = card.locator(".nb-hitl-approval-error")
        error.wait_for(timeout=30_000)
        assert "does not read" in error.inner_text() and HOSTILE in error.inner_text()
        assert card.locator("img").count() == 0
        assert card.locator("input.nb-hitl-rule-text").input_value() == HOSTILE
        page.set_viewport_size({"width": 800, "height": 1200})
        page.wait_for_timeout(300)
        card.scroll_into_view_if_needed()
        card.screenshot(path=str(artifacts / "permissions-card-error-800.png"))
        assert card.evaluate(look_problems_js, CARD_BOX) == []
        page.set_viewport_size({"width": 1400, "height": 1200})
        wait_status(page, "waiting")

        # Widened by hand to the whole tool, for this session, Enter in the box: the second
        # search (another first word) runs without a card.
        card.locator(".nb-hitl-rule-scope select").select_option(label="for this session")
        box = card.locator("input.nb-hitl-rule-text")
        box.fill("search_notes")
        box.press("Enter")
        page.wait_for_selector(f"{CHAT} .nb-hitl-msg >> text=Searched twice.", timeout=60_000)
        wait_status(page, "idle")
        assert page.locator(f"{CHAT} .nb-hitl-approval:not(.nb-hitl-question)").count() == 1
        rules = page.locator(f"{PERMISSIONS} .nb-hitl-rule")
        rules.first.wait_for(timeout=30_000)
        rule = rules.first.inner_text()
        assert "allow `search_notes` with" in rule and "for this session" in rule
        assert "(this session)" in rule  # where it came from: a decision

        # A question form, answered with the keyboard only.
        page.locator(INPUT).fill("Ask me something.")
        page.locator(SEND).click()
        form = page.locator(f"{CHAT} .nb-hitl-question").first
        form.wait_for(timeout=60_000)
        wait_status(page, "waiting")
        assert HOSTILE in form.inner_text() and form.locator("img").count() == 0
        page.screenshot(path=str(artifacts / "permissions-form-1400.png"), full_page=True)
        form_fits_at_800(page, form, artifacts / "permissions-form-800.png")
        page.locator(".lm-MenuBar-itemLabel", has_text="Settings").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
        page.locator(".lm-Menu-itemLabel", has_text="JupyterLab Dark").first.click()
        page.wait_for_function(
            "() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000
        )
        page.screenshot(path=str(artifacts / "permissions-form-dark-1400.png"), full_page=True)
        form_fits_at_800(page, form, artifacts / "permissions-form-dark-800.png")
        title = form.locator(".nb-hitl-question-header").first
        colour = title.evaluate("e => getComputedStyle(e).color")
        assert colour not in ("rgb(0, 0, 0)", "rgba(0, 0, 0, 0)"), colour  # readable on dark
        choices = form.locator("button.nb-hitl-choice")
        choices.first.focus()
        page.keyboard.press("Space")  # PostgreSQL
        page.keyboard.press("Tab")
        page.keyboard.press("Space")  # SQLite: PostgreSQL is unpicked
        page.wait_for_function(
            "() => !document.querySelector('.nb-hitl-question button.nb-hitl-choice')"
            ".classList.contains('mod-active')",
            timeout=30_000,
        )
        boxes = form.locator("input[type=checkbox]")
        boxes.nth(1).focus()
        page.keyboard.press("Space")  # search
        other = form.locator(".nb-hitl-question-other input").nth(1)
        other.focus()
        page.keyboard.type("audit log")
        page.keyboard.press("Enter")  # sends the answers
        page.wait_for_selector(f"{CHAT} .nb-hitl-msg >> text=Thanks for answering.", timeout=60_000)
        answered = form.inner_text()
        assert "Answered" in answered and "SQLite" in answered and "search, audit log" in answered

        # A background task, listed with Stop under the chat, stopped on its own.
        page.locator(INPUT).fill("Crawl the site.")
        page.locator(SEND).click()
        page.wait_for_selector(
            f"{CHAT} .nb-hitl-msg >> text=Crawling in the background.", timeout=60_000
        )
        task_row = page.locator(f"{PERMISSIONS} .nb-hitl-task")
        task_row.first.wait_for(timeout=30_000)
        assert "background crawl" in task_row.first.inner_text()
        page.set_viewport_size({"width": 800, "height": 1200})
        page.screenshot(path=str(artifacts / "permissions-panel-800.png"), full_page=True)
        task_row.first.locator("button.nb-hitl-stop-task").click()
        page.wait_for_function(
            f"() => document.querySelectorAll('{PERMISSIONS} .nb-hitl-task').length === 0",
            timeout=30_000,
        )

        # Revoke the rule; the list says the mode decides again.
        rules.first.locator("button.nb-hitl-revoke").click()
        page.wait_for_selector(f"{PERMISSIONS} >> text=No permission rules", timeout=30_000)
        assert errors == [] and dialogs == []
    finally:
        context.close()
