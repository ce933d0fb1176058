"""PermissionsView: the permission mode, the active rules (each with Revoke) and the running
background tool tasks (each with Stop), kept up to date; a row of the ``AgentPanel``.

The mode picker sets ``agent.permissions.mode``. Each rule is listed in words ("allow
`search_notes` with any query for this session") with its scope and where it came from
(``SOURCE_TEXT``: in code, this session, a policy, project or user file); Revoke removes it (an
``always`` rule from the user's ``permissions.json`` too). Each background task started with
``async_execution=True`` is listed with its tool and age; Stop cancels it alone (its result
says it was cancelled). Every click hops onto the agent's loop through a ``LoopBridge``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl._render import esc
from nb_hitl.agent.approvals import MODE_TEXT, MODES, SOURCE_TEXT
from nb_hitl.events import Event, ReplyFinished, ReplyStarted, ToolResultReady
from nb_hitl.exceptions import ConfigError

from ._invisible import show_invisible
from ._look import look
from ._loop import LoopBridge

if TYPE_CHECKING:
    from nb_hitl.agent.approvals import ApprovalMethods

VIEW_CSS = """
<style>
.nb-hitl-permissions { font-size: 12px; margin-top: 4px; }
.nb-hitl-permissions .nb-hitl-rule, .nb-hitl-permissions .nb-hitl-task { align-items: center; }
.nb-hitl-permissions .nb-hitl-rule-text { margin-right: 6px; }
.nb-hitl-permissions .widget-button { height: 24px; line-height: 22px; }
</style>
"""


class PermissionsView(w.VBox):
    """Mode, rules and background tasks of one agent (see the module docstring).

    Args:
        agent: an agent with a permission policy (``ReActAgent``).
        bridge: the loop bridge for clicks.
    """

    def __init__(self, agent: ApprovalMethods, bridge: LoopBridge | None = None) -> None:
        self.agent = agent
        self._bridge = bridge or LoopBridge()
        self.mode_picker = w.Dropdown(
            options=[(m.replace("_", " "), m) for m in MODES],
            value=agent.permissions.mode,
            description="Permissions",
            **look(w.Dropdown, layout={"width": "230px"}),
        )
        self.mode_picker.add_class("nb-hitl-permission-mode-picker")
        self.mode_text = w.HTML(**look(w.HTML))
        self.rules_box = w.VBox(**look(w.VBox))
        self.rules_box.add_class("nb-hitl-rules")
        self.tasks_box = w.VBox(**look(w.VBox))
        self.tasks_box.add_class("nb-hitl-tasks")
        self.note = w.HTML(**look(w.HTML))
        self.note.add_class("nb-hitl-approval-error")
        self.revoke_buttons: dict[str, w.Button] = {}
        """Revoke buttons by rule id."""
        self.stop_buttons: dict[str, w.Button] = {}
        """Stop buttons by background task id."""
        super().__init__(
            children=[
                w.HTML(VIEW_CSS, **look(w.HTML)),
                w.HBox([self.mode_picker, self.mode_text], **look(w.HBox)),
                self.rules_box,
                self.tasks_box,
                self.note,
            ]
        )
        self.add_class("nb-hitl-permissions")
        on = self._bridge.callback
        self.mode_picker.observe(on(self._pick_mode), names="value")
        self._unwatch = [
            agent.permissions.watch(on(self.refresh)),
            agent.toolkit.watch_background(on(self.refresh)),
        ]
        self._sub = agent.subscribe(on(self._on_event))
        self.refresh()

    def _on_event(self, event: Event) -> None:
        if isinstance(event, (ReplyStarted, ReplyFinished, ToolResultReady)):
            self.refresh()

    def _pick_mode(self, change: dict[str, Any]) -> None:
        try:
            self.agent.permissions.mode = change["new"]
        except ConfigError as exc:
            self.note.value = esc(str(exc))

    def refresh(self) -> None:
        """Redraw the mode, the rules and the background tasks from the agent."""
        policy = self.agent.permissions
        if self.mode_picker.value != policy.mode:
            self.mode_picker.value = policy.mode
        self.mode_text.value = (
            f'<span class="nb-hitl-permission-mode" data-mode="{esc(policy.mode)}">'
            f"{esc(MODE_TEXT[policy.mode])}</span>"
        )
        self.note.value = esc(policy.file_error)
        rows: list[w.Widget] = []
        self.revoke_buttons = {}
        for rule in policy.rules:
            text = w.HTML(
                f'<span class="nb-hitl-badge nb-hitl-badge-other">{esc(rule.behavior)}</span> '
                f"{esc(show_invisible(rule.describe(self.agent.toolkit)))}"
                + (f" &middot; <i>{esc(show_invisible(rule.note))}</i>" if rule.note else "")
                + f' <span class="nb-hitl-rule-source" title="{esc(rule.source_path or "")}">'
                f"({esc(SOURCE_TEXT.get(rule.source, rule.source))})</span>",
                **look(w.HTML),
            )
            text.add_class("nb-hitl-rule-text")
            button = w.Button(
                description="Revoke", icon="times", tooltip="Remove this rule", **look(w.Button)
            )
            button.add_class("nb-hitl-revoke")
            button.on_click(self._bridge.callback(lambda _b, rid=rule.id: self.revoke(rid)))
            self.revoke_buttons[rule.id] = button
            row = w.HBox([text, button], **look(w.HBox))
            row.add_class("nb-hitl-rule")
            rows.append(row)
        if not rows:
            rows.append(w.HTML("<i>No permission rules: the mode decides.</i>", **look(w.HTML)))
        self.rules_box.children = tuple(rows)
        tasks: list[w.Widget] = []
        self.stop_buttons = {}
        now = time.time()
        for task in self.agent.toolkit.background_tasks:
            label = w.HTML(
                f"&#9881; background <code>{esc(show_invisible(task.tool_name))}</code> "
                f"running for {max(0, int(now - task.started_at))} s"
                + (" (outlives its reply)" if task.outlive_reply else ""),
                **look(w.HTML),
            )
            stop = w.Button(
                description="Stop", icon="stop", button_style="warning", **look(w.Button)
            )
            stop.add_class("nb-hitl-stop-task")
            stop.on_click(self._bridge.callback(lambda _b, tid=task.task_id: self.stop(tid)))
            self.stop_buttons[task.task_id] = stop
            row = w.HBox([label, stop])
            row.add_class("nb-hitl-task")
            tasks.append(row)
        self.tasks_box.children = tuple(tasks)
        # An agent without tools has nothing to permit: the row stays out of the way.
        shown = bool(self.agent.toolkit.tools or policy.rules or tasks)
        self.layout.display = "" if shown else "none"

    def revoke(self, rule_id: str) -> None:
        """Revoke a rule (the Revoke button's twin)."""
        try:
            self.agent.permissions.revoke(rule_id)
        except ConfigError as exc:
            self.note.value = esc(str(exc))
        self.refresh()

    def stop(self, task_id: str) -> None:
        """Stop one background task (the Stop button's twin)."""
        self.agent.toolkit.stop_background(task_id)
        self.refresh()

    def close(self) -> None:
        """Stop listening and close the widget."""
        for unwatch in self._unwatch:
            unwatch()
        self._sub.close()
        super().close()


__all__ = ["PermissionsView"]
