"""PermissionsView: the permission mode, the active rules (each with Revoke) and the running
background tool tasks (each with Stop), kept up to date; a part of the ``AgentPanel``.

The mode picker sets ``agent.permissions.mode``. Each rule is listed in words ("allow
`search_notes` with any query for this session") with its scope and where it came from
(``SOURCE_TEXT``: in code, this session, a policy, project or user file);
Revoke removes it (an ``always`` rule from the user's ``permissions.json`` too). Each
background task started with ``async_execution=True`` is listed with its tool and age; Stop
cancels it alone (its result says it was cancelled).

The list is one ``PanelModel`` (``js/src/views/permissions.js`` draws it): inside an
``AgentPanel`` it is a part of the panel's front end (no comm of its own); shown on its own it
is one model. The page sends actions (``mode`` with a value, ``revoke`` and ``stop`` with an
id); each runs on the agent's loop.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from nb_hitl._render import esc
from nb_hitl.agent.approvals import MODE_TEXT, MODES, SOURCE_TEXT
from nb_hitl.events import Event, ReplyFinished, ReplyStarted, ToolResultReady
from nb_hitl.exceptions import ConfigError

from ._invisible import show_invisible
from ._loop import LoopBridge
from ._model import PanelModel, page_css, static_file

if TYPE_CHECKING:
    from nb_hitl.agent.approvals import ApprovalMethods


class PermissionsView(PanelModel):
    """Mode, rules and background tasks of one agent (see the module docstring).

    Args:
        agent: an agent with a permission policy (``ReActAgent``).
        bridge: the loop bridge for clicks.
        css: include the stylesheet (a host that draws the list includes it once).
    """

    _esm = static_file("permissions.js")
    _css = static_file("permissions.css")

    def __init__(
        self, agent: ApprovalMethods, bridge: LoopBridge | None = None, *, css: bool = True
    ) -> None:
        self.agent = agent
        super().__init__(
            {"css": page_css(css), "note": ""},
            bridge=bridge or LoopBridge(),
        )
        self._bridge = self.bridge
        self.add_class("nb-hitl-permissions")
        self.on_action("mode", lambda value="": self.set_mode(str(value)))
        self.on_action("revoke", lambda id="": self.revoke(str(id)))
        self.on_action("stop", lambda id="": self.stop(str(id)))
        on = self._bridge.callback
        self._unwatch = [
            agent.permissions.watch(on(self.refresh)),
            agent.toolkit.watch_background(on(self.refresh)),
        ]
        self._sub = agent.subscribe(on(self._on_event))
        self.refresh()

    @property
    def rule_ids(self) -> list[str]:
        """The ids of the rules listed (each row has Revoke)."""
        return [r["id"] for r in self._state.get("rules") or []]

    @property
    def task_ids(self) -> list[str]:
        """The ids of the background tasks listed (each row has Stop)."""
        return [t["id"] for t in self._state.get("tasks") or []]

    @property
    def shown(self) -> bool:
        """Whether the list is drawn (an agent without tools or rules has nothing to permit)."""
        return bool((self._state.get("controls") or {}).get("shown"))

    @property
    def note(self) -> str:
        """The error the list shows (a bad ``permissions.json``, a refused mode), escaped."""
        return str(self._state.get("note") or "")

    def _on_event(self, event: Event) -> None:
        if isinstance(event, (ReplyStarted, ReplyFinished, ToolResultReady)):
            self.refresh()

    def set_mode(self, mode: str) -> None:
        """Set the permission mode (the picker's twin); a refused one shows in the note."""
        try:
            policy: Any = self.agent.permissions  # the setter refuses a mode it does not know
            policy.mode = mode
        except ConfigError as exc:
            self.refresh()
            self.set_view(note=esc(str(exc)))
            return
        self.refresh()

    def refresh(self) -> None:
        """Redraw the mode, the rules and the background tasks from the agent."""
        policy = self.agent.permissions
        rules = []
        for rule in policy.rules:
            rules.append(
                {
                    "id": rule.id,
                    "html": (
                        f'<span class="nb-hitl-badge nb-hitl-badge-other">{esc(rule.behavior)}'
                        f"</span> {esc(show_invisible(rule.describe(self.agent.toolkit)))}"
                        + (
                            f" &middot; <i>{esc(show_invisible(rule.note))}</i>"
                            if rule.note
                            else ""
                        )
                        + f' <span class="nb-hitl-rule-source" '
                        f'title="{esc(rule.source_path or "")}">'
                        f"({esc(SOURCE_TEXT.get(rule.source, rule.source))})</span>"
                    ),
                }
            )
        tasks = []
        now = time.time()
        for task in self.agent.toolkit.background_tasks:
            tasks.append(
                {
                    "id": task.task_id,
                    "html": (
                        f"&#9881; background <code>{esc(show_invisible(task.tool_name))}</code> "
                        f"running for {max(0, int(now - task.started_at))} s"
                        + (" (outlives its reply)" if task.outlive_reply else "")
                    ),
                }
            )
        # An agent without tools has nothing to permit: the list stays out of the way.
        shown = bool(self.agent.toolkit.tools or policy.rules or tasks)
        modes = [[m, m.replace("_", " ")] for m in MODES]
        self.set_view(
            controls={"mode": policy.mode, "modes": modes, "shown": shown},
            mode_html=(
                f'<span class="nb-hitl-permission-mode" data-mode="{esc(policy.mode)}">'
                f"{esc(MODE_TEXT[policy.mode])}</span>"
            ),
            rules=rules,
            tasks=tasks,
            note=esc(policy.file_error),
        )

    def revoke(self, rule_id: str) -> None:
        """Revoke a rule (the Revoke button's twin)."""
        try:
            self.agent.permissions.revoke(rule_id)
        except ConfigError as exc:
            self.refresh()
            self.set_view(note=esc(str(exc)))
            return
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
