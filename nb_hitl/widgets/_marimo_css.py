"""The marimo host's stylesheet, made from the theme's colours (``nb_hitl._render._theme``).

The host's ES module is ``js/src/marimo_host.js`` (bundled into ``static/marimo_host.js``): it
draws the HTML the kernel sends (``_marimo_html.py``), applies its patches, sends clicks and
edits back as the ipywidgets messages a real front end would send, and mounts each anywidget
of the tree with that widget's own ES module. The page's theme (marimo's ``light`` / ``dark``
class) becomes ``data-theme`` on the host's root, which switches the variables below.
"""

from __future__ import annotations

from nb_hitl._render import BUTTONS, DARK, DARK_SPEAKERS, INK, LIGHT, NEUTRAL, SPEAKERS

from ._marimo_icons import ICON_CSS


def _vars(accents: dict[str, str], speakers: tuple[str, ...], ink: str) -> str:
    out = "".join(f"--nb-hitl-{k}: {v}; " for k, v in accents.items())
    out += "".join(f"--nb-hitl-speaker-{i}: {c}; " for i, c in enumerate(speakers))
    return out + f"--nb-hitl-ink: {ink}; "


_NEUTRAL = "".join(f"--nb-hitl-{k}: {v}; " for k, v in NEUTRAL.items())
_NEUTRAL += "".join(f"--nb-hitl-button-{k}: {v}; " for k, v in BUTTONS.items())
_NEUTRAL += f"--nb-hitl-button-ink: {INK['light']}; "
_LIGHT_JP = (
    "--jp-ui-font-color1: #1f2933; --jp-layout-color0: #ffffff; --jp-layout-color1: #ffffff; "
    "--jp-layout-color2: #eef0f3; --jp-border-color1: #8a96a3; "
    "--jp-border-color2: rgba(127, 127, 127, 0.25); "
)
_DARK_JP = (
    "--jp-ui-font-color1: #e7eae8; --jp-layout-color0: #181c1a; --jp-layout-color1: #1f2421; "
    "--jp-layout-color2: #353b38; --jp-border-color1: #7c8781; "
    "--jp-border-color2: rgba(200, 200, 200, 0.22); "
)

BASE_CSS = (
    ".nb-hitl-marimo { " + _LIGHT_JP + _NEUTRAL + _vars(LIGHT, SPEAKERS, INK["light"]) + "}\n"
    '.nb-hitl-marimo[data-theme="dark"] { '
    + _DARK_JP
    + _vars(DARK, DARK_SPEAKERS, INK["dark"])
    + "}\n"
    + """
@supports (color: color-mix(in srgb, red, blue)) { .nb-hitl-marimo {
  --nb-hitl-muted: color-mix(in srgb, var(--nb-hitl-fg) 72%, var(--nb-hitl-bg)); } }
.nb-hitl-marimo { background: var(--nb-hitl-bg); color: var(--nb-hitl-fg);
  font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: 13px;
  line-height: 1.3; padding: 4px; box-sizing: border-box; max-width: 100%; }
.nb-hitl-marimo *, .nb-hitl-marimo *::before, .nb-hitl-marimo *::after { box-sizing: border-box; }
.nb-hitl-marimo .widget-box { display: flex; margin: 0; min-width: 0; }
.nb-hitl-marimo .widget-hbox { flex-direction: row; }
.nb-hitl-marimo .widget-vbox { flex-direction: column; }
.nb-hitl-marimo .widget-inline-hbox { display: flex; flex-direction: row; align-items: baseline;
  margin: 2px; min-width: 0; }
.nb-hitl-marimo .widget-html { display: block; }
.nb-hitl-marimo .widget-html-content { min-width: 0; }
.nb-hitl-marimo .widget-label { margin-right: 6px; white-space: nowrap; min-width: max-content; }
.nb-hitl-marimo .jupyter-button { font: inherit; height: 28px; padding: 0 10px; margin: 2px;
  border: 0; border-radius: 3px; cursor: pointer; white-space: nowrap;
  background: var(--jp-layout-color2); color: var(--nb-hitl-fg); }
.nb-hitl-marimo .jupyter-button:hover:not(:disabled) { filter: brightness(0.95); }
.nb-hitl-marimo .jupyter-button:disabled { opacity: 0.55; cursor: default; }
.nb-hitl-marimo .jupyter-button.mod-primary { background: var(--nb-hitl-blue);
  color: var(--nb-hitl-ink); }
.nb-hitl-marimo .jupyter-button.mod-danger { background: var(--nb-hitl-red);
  color: var(--nb-hitl-ink); }
.nb-hitl-marimo .jupyter-button.mod-active { box-shadow: inset 0 0 0 2px var(--nb-hitl-blue);
  font-weight: 600; }
.nb-hitl-marimo .btn-group { display: flex; flex-wrap: wrap; }
.nb-hitl-marimo .widget-input, .nb-hitl-marimo select { font: inherit; color: var(--nb-hitl-fg);
  background: var(--jp-layout-color1); border: 1px solid var(--nb-hitl-border);
  border-radius: 2px; padding: 4px 6px; min-width: 0; max-width: 100%; }
.nb-hitl-marimo .widget-textarea { align-items: stretch; }
.nb-hitl-marimo textarea.widget-input { width: 100%; height: 100%; resize: vertical; }
.nb-hitl-marimo .widget-text input { flex: 1 1 auto; }
.nb-hitl-marimo .widget-slider { align-items: center; }
.nb-hitl-marimo .slider-container { flex: 1 1 auto; display: flex; }
.nb-hitl-marimo .widget-range { width: 100%; accent-color: var(--nb-hitl-blue); }
.nb-hitl-marimo .widget-readout { margin-left: 6px; min-width: 3em; text-align: right; }
.nb-hitl-marimo .widget-checkbox label { display: inline-flex; gap: 4px; align-items: center; }
.nb-hitl-marimo a { color: var(--nb-hitl-blue); }
.nb-hitl-marimo code, .nb-hitl-marimo pre { font-family: var(--jp-code-font-family, monospace); }
"""
    + ICON_CSS
)
"""The host's stylesheet: the panel's variables on the host's root (light, and dark under
``data-theme="dark"``) and the ipywidgets look the panel expects (the panel's own rules come
with the panel, in its first child)."""


__all__ = ["BASE_CSS"]
