"""The stylesheet of every nb_hitl widget and of ``Msg._repr_html_`` (one ``<style>`` block).

Class names start with ``nb-hitl-``; the interrupted and error styles use ``!important`` so
that no other colour (a hub speaker's, for one) hides them.
"""

from __future__ import annotations

CSS = """
<style>
.nb-hitl-chat, .nb-hitl-inspector { font-family: var(--jp-ui-font-family, sans-serif); }
.nb-hitl-chat .widget-html-content, .nb-hitl-inspector .widget-html-content {
  line-height: 1.4; }
.nb-hitl-inspector details summary { cursor: pointer; font-size: 12px; }
.nb-hitl-transcript { max-height: 520px; overflow-y: auto;
  flex-direction: column-reverse !important; }
.nb-hitl-transcript > *, .nb-hitl-transcript .widget-box > * { flex-shrink: 0 !important; }
.nb-hitl-msg { border-left: 4px solid #9aa5b1; padding: 2px 8px; margin: 4px 0;
  border-radius: 3px; background: rgba(127,127,127,0.04); }
.nb-hitl-msg p { margin: 2px 0; }
.nb-hitl-msg { position: relative; }
.nb-hitl-copy { position: absolute; top: 2px; right: 4px; border: none; background: none;
  cursor: pointer; color: inherit; opacity: 0.45; padding: 0 4px; font-size: 12px; }
.nb-hitl-msg:hover .nb-hitl-copy, .nb-hitl-copy:focus { opacity: 1; }
.nb-hitl-copy.nb-hitl-copied { opacity: 1; color: var(--jp-success-color1, #27ae60); }
.nb-hitl-head { font-size: 12px; color: #52606d; }
.nb-hitl-role-user { border-left-color: #2f80ed; background: rgba(47,128,237,0.06); }
.nb-hitl-role-assistant { border-left-color: #27ae60; }
.nb-hitl-role-system, .nb-hitl-role-tool { border-left-color: #9aa5b1; font-size: 12px; }
.nb-hitl-live { border-left-style: dashed; }
.nb-hitl-interrupted, .nb-hitl-stopping { border-left-color: #e67e22 !important;
  background: rgba(230,126,34,0.10) !important; }
.nb-hitl-error { border-left-color: #d0021b !important;
  background: rgba(208,2,27,0.08) !important; }
.nb-hitl-badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px;
  background: #e67e22; color: white; margin-left: 6px; }
.nb-hitl-badge-error { background: #d0021b; }
.nb-hitl-badge-pinned { background: #6f42c1; }
.nb-hitl-badge-compressed { background: #7b8794; }
.nb-hitl-badge-recent { background: #27ae60; }
.nb-hitl-badge-question { background: #2f80ed; }
.nb-hitl-badge-partner { background: #16a085; }
.nb-hitl-badge-compress { background: #e67e22; }
.nb-hitl-badge-other { background: #52606d; }
.nb-hitl-badge-steered { background: #8e44ad; }
.nb-hitl-steered { border-left-style: double; border-left-width: 5px; }
.nb-hitl-badge-resumed { background: #1d6f42; }
.nb-hitl-row-actions { display: flex; justify-content: flex-end; gap: 4px; margin-top: 2px; }
.nb-hitl-action { font-size: 11px; line-height: 1.4; padding: 0 6px; border-radius: 3px;
  cursor: pointer; color: var(--jp-ui-font-color1, #1f2933);
  background: var(--jp-layout-color1, #fff);
  border: 1px solid var(--jp-border-color1, #9aa5b1); opacity: 0.7; white-space: nowrap; }
.nb-hitl-msg:hover .nb-hitl-action, .nb-hitl-action:focus { opacity: 1; }
.nb-hitl-action:disabled { opacity: 0.35; cursor: default; }
.nb-hitl-branch-switch { display: flex; align-items: center; gap: 6px; margin: 2px 0 0 12px;
  font-size: 12px; color: var(--jp-ui-font-color1, #1f2933); }
.nb-hitl-branch-switch .nb-hitl-action { opacity: 1; font-size: 13px; padding: 0 8px; }
.nb-hitl-branch-label { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.nb-hitl-seam { display: inline; font-size: 11px; margin: 0 4px; padding: 0 6px;
  border-radius: 8px; white-space: normal; -webkit-box-decoration-break: clone;
  box-decoration-break: clone;
  border: 1px dashed var(--jp-warn-color1, #b45309);
  color: var(--jp-ui-font-color1, #1f2933);
  background: rgba(230,126,34,0.14); }
.nb-hitl-row-recent td:first-child { border-left: 3px solid #27ae60; }
.nb-hitl-tool { font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.nb-hitl-tool summary { cursor: pointer; }
.nb-hitl-status { font-size: 12px; color: #52606d; }
.nb-hitl-status-running { color: #27ae60; }
.nb-hitl-status-stopping { color: #e67e22; }
.nb-hitl-status-waiting { color: #2f80ed; }
.nb-hitl-status-error { color: #d0021b; }
.nb-hitl-gauge { font-size: 12px; color: var(--jp-ui-font-color2, #52606d); margin-left: 8px;
  white-space: nowrap; }
.nb-hitl-gauge-bar { display: inline-block; width: 60px; height: 7px; border-radius: 4px;
  background: rgba(127,127,127,0.25); margin-right: 4px; vertical-align: middle;
  overflow: hidden; }
.nb-hitl-gauge-bar > span { display: block; height: 100%; background: #27ae60; }
.nb-hitl-gauge-near .nb-hitl-gauge-bar > span { background: #e67e22; }
.nb-hitl-gauge-over .nb-hitl-gauge-bar > span { background: #d0021b; }
.nb-hitl-undone { text-decoration: line-through; opacity: 0.7; }
.nb-hitl-compression-row, .nb-hitl-cleared { align-items: flex-start; flex-wrap: wrap; }
.nb-hitl-compression-row > .widget-html, .nb-hitl-cleared > .widget-html {
  flex: 1 1 240px; min-width: 0; }
.nb-hitl-compression-row > .widget-button, .nb-hitl-cleared > .widget-button,
.nb-hitl-chat-tools .widget-button, .nb-hitl-hub-runs .widget-button {
  flex: 0 0 auto; width: auto; }
.nb-hitl-chat-tools, .nb-hitl-hub-runs { flex-wrap: wrap; }
.nb-hitl-table { border-collapse: collapse; font-size: 12px; width: 100%; }
.nb-hitl-table td, .nb-hitl-table th { border-bottom: 1px solid rgba(127,127,127,0.2);
  padding: 1px 4px; text-align: left; vertical-align: top; }
.nb-hitl-row-compress { background: rgba(230,126,34,0.12); }
.nb-hitl-row-compressed { color: #7b8794; }
.nb-hitl-row-summary { background: rgba(111,66,193,0.08); }
.nb-hitl-note { font-size: 12px; color: #8a6d3b; }
.nb-hitl-image { max-width: 100%; }
.nb-hitl-media { max-width: 100%; }
.nb-hitl-image-link { font-size: 12px; }
.nb-hitl-msg, .nb-hitl-approval, .nb-hitl-plan, .nb-hitl-note, .nb-hitl-table td {
  overflow-wrap: anywhere; }
.nb-hitl-msg pre { white-space: pre-wrap; }
.nb-hitl-transcript { overflow-x: hidden; }
.nb-hitl-chat .widget-button, .nb-hitl-inspector .widget-button,
.nb-hitl-session-bar .widget-button, .nb-hitl-approval .widget-button,
.nb-hitl-inspector .widget-toggle-button {
  width: auto; min-width: 0; max-width: 100%; flex-shrink: 0; }
.nb-hitl-chat-buttons .widget-button { width: auto; align-self: stretch; }
.nb-hitl-inspector .widget-hbox, .nb-hitl-approval .widget-hbox { flex-wrap: wrap; }
.nb-hitl-inspector .widget-hslider { width: auto; min-width: 0; flex: 1 1 160px; }
.nb-hitl-approval .widget-textarea, .nb-hitl-session-bar .widget-text {
  max-width: calc(100% - 2 * var(--jp-widgets-margin, 2px)); min-width: 0; }
</style>
"""


__all__ = ["CSS"]
