"""The stylesheet of every nb_hitl widget and of ``Msg._repr_html_`` (one ``<style>`` block).

Class names start with ``nb-hitl-``; the interrupted and error styles use ``!important`` so
that no other colour (a hub speaker's, for one) hides them. Every colour is a variable of
``_theme.py`` (JupyterLab's own ``--jp-*`` or an ``--nb-hitl-*`` accent switched per theme).

Layout: the panel's two columns (``nb-hitl-columns``) sit side by side when the cell is wide and
stack when it is narrow (flex-wrap on minimum widths, no fixed widths); rows of controls wrap;
buttons never shrink below their label; badges and table cells never break inside a word;
a narrow inspector (a container query) draws each memory row on two lines.
"""

from __future__ import annotations

from ._theme import BUTTONS, SPEAKERS, variables

_BADGES = {
    "": "orange",
    "error": "red",
    "pinned": "purple",
    "compressed": "grey",
    "recent": "green",
    "question": "blue",
    "partner": "teal",
    "compress": "orange",
    "other": "grey",
    "steered": "violet",
    "resumed": "green",
}


def _badges() -> str:
    rules = []
    for name, colour in _BADGES.items():
        sel = ".nb-hitl-badge" + (f".nb-hitl-badge-{name}" if name else "")
        rules.append(f"{sel} {{ background: var(--nb-hitl-{colour}); }}")
    return "\n".join(rules)


def _buttons() -> str:
    roots = (".nb-hitl-panel", ".nb-hitl-chat", ".nb-hitl-inspector", ".nb-hitl-explorer",
             ".nb-hitl-hub", ".nb-hitl-approval")  # fmt: skip
    rules = []
    for style in BUTTONS:
        sel = ", ".join(f"{r} .jupyter-button.mod-{style}" for r in roots)
        rules.append(
            f"{sel} {{ background-color: var(--nb-hitl-button-{style}); "
            "color: var(--nb-hitl-button-ink); }"
        )
    return "\n".join(rules)


def _speakers() -> str:
    rules = []
    for i in range(len(SPEAKERS)):
        c, col = f"nb-hitl-speaker-{i}", f"var(--nb-hitl-speaker-{i})"
        rules.append(
            f".{c}.nb-hitl-msg, .{c} .nb-hitl-msg {{ border-left-color: {col}; }}\n"
            f".{c} .nb-hitl-head b, .nb-hitl-chip.{c} {{ color: {col}; }}\n"
            f".nb-hitl-chip.{c}.nb-hitl-speaking {{ background: {col}; "
            "color: var(--nb-hitl-ink); }"
        )
    return "\n".join(rules)


RULES = """
.nb-hitl-panel, .nb-hitl-chat, .nb-hitl-inspector, .nb-hitl-explorer, .nb-hitl-hub {
  font-family: var(--jp-ui-font-family, sans-serif); color: var(--nb-hitl-fg); }
.nb-hitl-chat .widget-html-content, .nb-hitl-inspector .widget-html-content,
.nb-hitl-explorer .widget-html-content, .nb-hitl-hub .widget-html-content { line-height: 1.4; }

/* Two columns side by side when there is room, stacked when there is not. */
.nb-hitl-columns { flex-wrap: wrap; align-items: flex-start; width: 100%; gap: 0 8px; }
.nb-hitl-column-main { flex: 3 1 360px; min-width: min(360px, 100%); }
.nb-hitl-column-side { flex: 2 1 380px; min-width: min(380px, 100%); }
.nb-hitl-inspector, .nb-hitl-explorer { container-type: inline-size; }

/* Transcript. */
.nb-hitl-inspector details summary { cursor: pointer; font-size: 12px; }
.nb-hitl-transcript { max-height: 520px; overflow-y: auto; overflow-x: hidden;
  flex-direction: column-reverse !important; }
.nb-hitl-transcript > *, .nb-hitl-transcript .widget-box > * { flex-shrink: 0 !important; }
.nb-hitl-msg { border-left: 4px solid var(--nb-hitl-grey); padding: 2px 8px; margin: 4px 0;
  border-radius: 3px; background: rgba(127, 127, 127, 0.05); }
.nb-hitl-msg p { margin: 2px 0; }
.nb-hitl-head { font-size: 12px; color: var(--nb-hitl-muted); }
.nb-hitl-role-user { border-left-color: var(--nb-hitl-blue);
  background: rgba(47, 128, 237, 0.07); }
.nb-hitl-role-assistant { border-left-color: var(--nb-hitl-green); }
.nb-hitl-role-system, .nb-hitl-role-tool { border-left-color: var(--nb-hitl-grey);
  font-size: 12px; }
.nb-hitl-live { border-left-style: dashed; }
.nb-hitl-interrupted, .nb-hitl-stopping { border-left-color: var(--nb-hitl-orange) !important;
  background: rgba(230, 126, 34, 0.10) !important; }
.nb-hitl-error { border-left-color: var(--nb-hitl-red) !important;
  background: rgba(208, 2, 27, 0.08) !important; }
.nb-hitl-steered { border-left-style: double; border-left-width: 5px; }
.nb-hitl-msg { position: relative; }
.nb-hitl-copy { position: absolute; top: 2px; right: 4px; border: none; background: none;
  cursor: pointer; color: inherit; opacity: 0.45; padding: 0 4px; font-size: 12px; }
.nb-hitl-msg:hover .nb-hitl-copy, .nb-hitl-copy:focus { opacity: 1; }
.nb-hitl-copy.nb-hitl-copied { opacity: 1; color: var(--nb-hitl-green); }
.nb-hitl-row-actions { display: flex; justify-content: flex-end; gap: 4px; margin-top: 2px;
  flex-wrap: wrap; }
.nb-hitl-action { font-size: 11px; line-height: 1.4; padding: 0 6px; border-radius: 3px;
  cursor: pointer; color: var(--nb-hitl-fg); background: var(--nb-hitl-surface);
  border: 1px solid var(--nb-hitl-border); opacity: 0.7; white-space: nowrap; }
.nb-hitl-msg:hover .nb-hitl-action, .nb-hitl-action:focus { opacity: 1; }
.nb-hitl-action:disabled { opacity: 0.35; cursor: default; }
.nb-hitl-branch-switch { display: flex; align-items: center; gap: 6px; margin: 2px 0 0 12px;
  font-size: 12px; color: var(--nb-hitl-fg); }
.nb-hitl-branch-switch .nb-hitl-action { opacity: 1; font-size: 13px; padding: 0 8px; }
.nb-hitl-branch-label { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.nb-hitl-seam { display: inline; font-size: 11px; margin: 0 4px; padding: 0 6px;
  border-radius: 8px; white-space: normal; -webkit-box-decoration-break: clone;
  box-decoration-break: clone; border: 1px dashed var(--nb-hitl-orange);
  color: var(--nb-hitl-fg); background: rgba(230, 126, 34, 0.14); }
.nb-hitl-undone { text-decoration: line-through; opacity: 0.7; }
.nb-hitl-compression-row, .nb-hitl-cleared { align-items: flex-start; flex-wrap: wrap; }
.nb-hitl-compression-row > .widget-html, .nb-hitl-cleared > .widget-html {
  flex: 1 1 240px; min-width: 0; }
.nb-hitl-compression-row > .widget-button, .nb-hitl-cleared > .widget-button,
.nb-hitl-chat-tools .widget-button, .nb-hitl-hub-runs .widget-button {
  flex: 0 0 auto; width: auto; }
.nb-hitl-chat-tools, .nb-hitl-hub-runs { flex-wrap: wrap; }
.nb-hitl-tool { font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.nb-hitl-tool summary { cursor: pointer; }
.nb-hitl-msg pre { white-space: pre-wrap; }
.nb-hitl-image, .nb-hitl-media { max-width: 100%; }
.nb-hitl-image-link { font-size: 12px; }
.nb-hitl-msg, .nb-hitl-approval, .nb-hitl-plan, .nb-hitl-note { overflow-wrap: anywhere; }

/* Badges: one piece each, never broken inside a word. */
.nb-hitl-badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px;
  color: var(--nb-hitl-ink); margin: 1px 0 1px 6px; white-space: nowrap; line-height: 1.5; }
td .nb-hitl-badge { margin-left: 0; margin-right: 4px; }
@BADGES@

/* Status line and notes. */
.nb-hitl-status { font-size: 12px; color: var(--nb-hitl-muted); }
.nb-hitl-status-running { color: var(--nb-hitl-green); }
.nb-hitl-status-stopping { color: var(--nb-hitl-orange); }
.nb-hitl-status-waiting { color: var(--nb-hitl-blue); }
.nb-hitl-status-error, .nb-hitl-bad { color: var(--nb-hitl-red); }
.nb-hitl-gauge { font-size: 12px; color: var(--nb-hitl-muted); margin-left: 8px;
  white-space: nowrap; }
.nb-hitl-gauge-bar { display: inline-block; width: 60px; height: 7px; border-radius: 4px;
  background: rgba(127, 127, 127, 0.25); margin-right: 4px; vertical-align: middle;
  overflow: hidden; }
.nb-hitl-gauge-bar > span { display: block; height: 100%; background: var(--nb-hitl-green); }
.nb-hitl-gauge-near .nb-hitl-gauge-bar > span { background: var(--nb-hitl-orange); }
.nb-hitl-gauge-over .nb-hitl-gauge-bar > span { background: var(--nb-hitl-red); }
.nb-hitl-good { color: var(--nb-hitl-green); }
.nb-hitl-explorer-totals, .nb-hitl-explorer-pick { font-size: 13px; }
.nb-hitl-note { font-size: 12px; color: var(--nb-hitl-brown); }
.nb-hitl-status-inactive { color: var(--nb-hitl-brown); }
.nb-hitl-inactive-note { margin: 4px 0; padding: 4px 8px; font-size: 12px;
  border-left: 3px solid var(--nb-hitl-brown); background: rgba(138, 109, 59, 0.10);
  color: var(--nb-hitl-brown); }

/* The memory table: words stay whole; only the preview may break a long token. */
.nb-hitl-table-box { max-height: 560px; overflow-y: auto; overflow-x: hidden; }
.nb-hitl-table { border-collapse: collapse; font-size: 12px; width: 100%; }
.nb-hitl-table td, .nb-hitl-table th { border-bottom: 1px solid var(--nb-hitl-rule);
  padding: 1px 4px; text-align: left; vertical-align: top; overflow-wrap: break-word; }
.nb-hitl-table th { position: sticky; top: 0; background: var(--nb-hitl-bg); z-index: 1; }
.nb-hitl-table td:nth-child(1), .nb-hitl-table td:nth-child(2),
.nb-hitl-table td:nth-child(5), .nb-hitl-table th { white-space: nowrap; }
.nb-hitl-table td:nth-child(4) { overflow-wrap: anywhere; width: 60%; }
.nb-hitl-table td.nb-hitl-num { text-align: right; }
.nb-hitl-row-recent td:first-child { border-left: 3px solid var(--nb-hitl-green); }
.nb-hitl-row-compress { background: rgba(230, 126, 34, 0.12); }
.nb-hitl-row-compressed { color: var(--nb-hitl-muted); }
.nb-hitl-row-summary { background: rgba(111, 66, 193, 0.08); }
.nb-hitl-pre { white-space: pre-wrap; }
/* A narrow inspector: each row on two lines (number, role, name, tokens; then the preview and
   the marks), so that no column is squeezed to a sliver. */
@container (max-width: 480px) {
  .nb-hitl-table thead { display: none; }
  .nb-hitl-table tr { display: grid; grid-template-columns: 2.4em auto 1fr auto;
    border-bottom: 1px solid var(--nb-hitl-rule); }
  .nb-hitl-table td { border-bottom: 0; grid-row: 1; }
  .nb-hitl-table td:nth-child(1) { grid-column: 1; }
  .nb-hitl-table td:nth-child(2) { grid-column: 2; }
  .nb-hitl-table td:nth-child(3) { grid-column: 3; }
  .nb-hitl-table td:nth-child(5) { grid-column: 4; }
  .nb-hitl-table td:nth-child(4) { grid-column: 2 / -1; grid-row: 2; width: auto; }
  .nb-hitl-table td:nth-child(6) { grid-column: 2 / -1; grid-row: 3; }
  .nb-hitl-table td[colspan] { grid-column: 2 / 4; }
  .nb-hitl-table td:nth-child(5):not(:empty)::after { content: " tokens"; }
  .nb-hitl-table td:empty { display: none; } }

/* Charts: text in the page's colour, series in the accents. */
.nb-hitl-chart, .nb-hitl-bar, .nb-hitl-explorer-curve, .nb-hitl-explorer-sweep {
  color: var(--nb-hitl-fg); display: block; overflow: visible; }
/* Charts keep their shape when the column is narrow (no letterbox around a shrunk chart). */
.nb-hitl-chart, .nb-hitl-explorer-curve, .nb-hitl-explorer-sweep { height: auto;
  max-height: 420px; }
.nb-hitl-legend { display: flex; flex-wrap: wrap; gap: 2px 14px; font-size: 12px;
  margin: 2px 0 2px 4px; color: var(--nb-hitl-fg); }
.nb-hitl-legend > span { white-space: nowrap; display: inline-flex; align-items: center; }
.nb-hitl-swatch { display: inline-block; width: 12px; height: 12px; margin-right: 4px;
  vertical-align: middle; }
.nb-hitl-swatch-line { height: 0; width: 16px; border-top: 2px solid; }
.nb-hitl-swatch-dash { height: 0; width: 16px; border-top: 2px dashed; }
.nb-hitl-swatch-dot { width: 10px; height: 10px; border-radius: 50%; }
.nb-hitl-swatch-tick { width: 3px; }
.nb-hitl-swatch-tri { width: 0; height: 0; border: 5px solid transparent; border-top: 0;
  border-bottom: 9px solid currentColor; }
.nb-hitl-caption { font-size: 12px; color: var(--nb-hitl-muted); margin: 0 0 4px 4px; }
/* The explorer's charts are 640 units wide: bigger labels when they are drawn narrower. */
@container (max-width: 700px) {
  .nb-hitl-explorer-curve text, .nb-hitl-explorer-sweep text { font-size: 15px; } }
@container (max-width: 520px) {
  .nb-hitl-explorer-curve text, .nb-hitl-explorer-sweep text { font-size: 19px; } }

/* Controls: rows wrap, buttons keep their labels, sliders keep a usable track. */
.nb-hitl-panel .widget-button, .nb-hitl-chat .widget-button, .nb-hitl-inspector .widget-button,
.nb-hitl-explorer .widget-button, .nb-hitl-hub .widget-button,
.nb-hitl-session-bar .widget-button, .nb-hitl-approval .widget-button,
.nb-hitl-inspector .widget-toggle-button {
  width: auto; min-width: max-content; max-width: 100%; flex-shrink: 0; }
.nb-hitl-chat-buttons .widget-button { width: auto; align-self: stretch; }
@BUTTONS@
.nb-hitl-chat .widget-hbox, .nb-hitl-inspector .widget-hbox, .nb-hitl-explorer .widget-hbox,
.nb-hitl-approval .widget-hbox, .nb-hitl-session-bar, .nb-hitl-hub .widget-hbox {
  flex-wrap: wrap; max-width: 100%; }
/* (flex bases only inside rows: in a column a basis is a height) */
.nb-hitl-inspector .widget-hbox > .widget-hslider,
.nb-hitl-explorer .widget-hbox > .widget-hslider {
  width: auto; min-width: min(250px, 100%); flex: 1 1 250px; }
.nb-hitl-inspector .widget-hslider .slider-container,
.nb-hitl-explorer .widget-hslider .slider-container { min-width: 90px; }
.nb-hitl-explorer .widget-dropdown, .nb-hitl-hub .widget-dropdown { max-width: 100%; }
.nb-hitl-explorer .widget-hbox > .widget-dropdown,
.nb-hitl-hub .widget-hbox > .widget-dropdown {
  width: auto; min-width: min(300px, 100%); flex: 1 1 300px; }
.nb-hitl-explorer .widget-dropdown > select, .nb-hitl-hub .widget-dropdown > select {
  min-width: 0; }
.nb-hitl-explorer .widget-text, .nb-hitl-inspector .widget-text { min-width: 0; max-width: 100%; }
.nb-hitl-panel ::placeholder, .nb-hitl-chat ::placeholder, .nb-hitl-inspector ::placeholder,
.nb-hitl-explorer ::placeholder, .nb-hitl-hub ::placeholder {
  color: var(--nb-hitl-muted); opacity: 1; }
.nb-hitl-approval .widget-textarea, .nb-hitl-session-bar .widget-text {
  max-width: calc(100% - 2 * var(--jp-widgets-margin, 2px)); min-width: 0; }
/* The text box and its button column stay side by side (the chat's and the hub's). */
.nb-hitl-chat-bar, .widget-hbox:has(> .nb-hitl-chat-buttons) { flex-wrap: nowrap !important; }
.nb-hitl-chat-bar .widget-textarea, .widget-hbox:has(> .nb-hitl-chat-buttons) > .widget-textarea {
  flex: 1 1 auto; min-width: 0; }
.nb-hitl-chat .widget-toggle-buttons .widget-toggle-button { width: auto; }
.nb-hitl-chat .widget-toggle-buttons .btn-group { flex-wrap: wrap; }

@CARDS@
/* The hub: speakers' chips and colours, the pause prompt. */
.nb-hitl-chip { display: inline-block; font-size: 12px; padding: 0 8px; margin: 0 4px 2px 0;
  border: 1px solid currentColor; border-radius: 10px; white-space: nowrap; }
.nb-hitl-chip.nb-hitl-speaking { font-weight: bold; }
.nb-hitl-now { font-size: 12px; color: var(--nb-hitl-muted); }
.nb-hitl-hub-pause { border-left: 4px solid var(--nb-hitl-orange); padding: 4px 8px; margin: 4px 0;
  background: rgba(230, 126, 34, 0.08); }
.nb-hitl-hub .widget-textarea { max-width: calc(100% - 4px); min-width: 0; }
@SPEAKERS@
"""
"""The stylesheet's rules (``@BADGES@``, ``@CARDS@`` and ``@SPEAKERS@`` are filled in ``CSS``)."""

CARD_RULES = """
/* Approval cards. */
.nb-hitl-approval { border: 1px solid var(--nb-hitl-blue); border-left-width: 4px;
  border-radius: 4px; padding: 4px 8px; margin: 4px 0; background: rgba(47, 128, 237, 0.05); }
.nb-hitl-approval pre { margin: 2px 0; white-space: pre-wrap; font-size: 12px; }
.nb-hitl-approval-decided { border-color: var(--nb-hitl-grey);
  background: rgba(127, 127, 127, 0.04); }
.nb-hitl-approval-error { color: var(--nb-hitl-red); font-size: 12px; }
.nb-hitl-approval-rule { font-size: 12px; opacity: 0.85; align-self: center; margin-right: 4px; }
/* A card is a row of the transcript's front end: native controls, drawn like the widgets'. */
.nb-hitl-card-buttons { display: flex; flex-wrap: wrap; align-items: center; gap: 4px;
  margin: 2px 0; }
.nb-hitl-card-buttons .jupyter-button { margin: 0; flex: 0 0 auto; width: auto; }
.nb-hitl-card .widget-input, .nb-hitl-card select { font: inherit; font-size: 13px;
  color: var(--nb-hitl-fg); background: var(--jp-layout-color1, transparent);
  border: 1px solid var(--nb-hitl-border); border-radius: 2px; padding: 3px 6px;
  box-sizing: border-box; min-width: 0; max-width: 100%; }
.nb-hitl-card select { width: auto; }
.nb-hitl-card textarea.widget-input { width: 100%; resize: vertical;
  font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.nb-hitl-card-deny .widget-input { flex: 1 1 12em; }
/* The rule box: as wide as its rule (set on the box), never wider than the card; the row wraps. */
.nb-hitl-card-rule .nb-hitl-rule-text { flex: 0 0 auto; max-width: 100%;
  font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.nb-hitl-card .jupyter-button:focus-visible, .nb-hitl-card .widget-input:focus-visible,
.nb-hitl-card select:focus-visible { outline: 2px solid var(--nb-hitl-blue);
  outline-offset: 1px; }

"""
"""The approval cards' rules (also in ``CSS``; ``CARD_CSS`` for a card list shown on its own)."""

QUESTION_RULES = """
/* ask_user forms (a card: native controls; picking a choice is drawn by the page). */
.nb-hitl-question .nb-hitl-question-header { font-size: 11px; text-transform: uppercase;
  letter-spacing: 0.04em; opacity: 0.75; }
.nb-hitl-question-field { margin: 2px 0 6px 0; min-width: 0; }
.nb-hitl-choices { display: flex; flex-wrap: wrap; gap: 4px; margin: 2px 0; }
.nb-hitl-choices .jupyter-button { margin: 0; width: auto; max-width: 100%; height: auto;
  min-height: 28px; white-space: normal; overflow-wrap: anywhere; }
.nb-hitl-question-box { display: flex; gap: 4px; align-items: center; margin: 2px 0; }
.nb-hitl-question-other { display: flex; margin: 2px 0; min-width: 0; }
.nb-hitl-question-other .widget-input { flex: 1 1 auto; width: 100%; }
.nb-hitl-question-hint { font-size: 12px; opacity: 0.75; }
"""
"""The question forms' rules (also in ``CSS``)."""

FILLED_RULES = (
    RULES.replace("@BADGES@", _badges())
    .replace("@BUTTONS@", _buttons())
    .replace("@CARDS@", CARD_RULES + QUESTION_RULES)
    .replace("@SPEAKERS@", _speakers())
)
"""Every rule of the stylesheet, without the variables' definitions."""

CSS = "\n<style>\n" + variables() + FILLED_RULES + "</style>\n"
"""The widgets' whole stylesheet, as a ``<style>`` element (one per displayed panel)."""


CARD_CSS = f"<style>{CARD_RULES}</style>"
"""The approval cards' rules as a ``<style>`` element."""


__all__ = ["CARD_CSS", "CARD_RULES", "CSS", "FILLED_RULES", "QUESTION_RULES", "RULES"]
