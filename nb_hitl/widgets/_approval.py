"""Approval cards: a tool call waiting for a person, decided with buttons in the transcript.

``ApprovalCards`` listens to an agent's ``ApprovalRequested`` / ``ApprovalDecided`` events and
adds one ``ApprovalCard`` per waiting call through a hook (``ChatWidget.append_widget``), and
sets the status to "waiting for you" while any call waits. A card shows the tool name and the
arguments (pretty-printed JSON, escaped) with four actions:

- **Approve** runs the call as the model asked;
- **Edit** opens the arguments as JSON text; they are checked (valid JSON, the tool's schema)
  before the call is approved, with a clear error shown in the card otherwise;
- **Deny** asks for a reason, which the model receives as ``denied by the user: <reason>``;
- **Always allow** approves this call and stops asking about the tool for the session;
- **Allow similar** approves it and adds the suggested rule that covers calls like it
  ("allow `search_notes` with any query") for the scope picked next to it: this reply, this
  session (saved with it) or always (the user's ``permissions.json``).

Once decided (or closed by Stop) the buttons go and the card states the decision. Clicks go
through a ``LoopBridge``, so they reach the agent on its event loop even when JupyterLab runs
comm handlers on another thread. Without a chat, ``ApprovalBox(agent)`` shows the cards alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import ipywidgets as w

from nb_hitl._render import TOOL_GLYPH, esc
from nb_hitl._render._css import CARD_CSS
from nb_hitl.events import ApprovalDecided, ApprovalRequested, Event, ReplyFinished
from nb_hitl.exceptions import ApprovalError, ConfigError
from nb_hitl.message import ToolUseBlock

from ._invisible import show_invisible
from ._look import look, set_display
from ._loop import LoopBridge

if TYPE_CHECKING:
    from nb_hitl.agent.approvals import ApprovalMethods


def _icon(name: str) -> str:
    # The icon font the buttons use: symbols such as U+23F9 are missing from many fonts and
    # showed as an empty box.
    return f'<i class="fa fa-{name}" aria-hidden="true"></i>'


_DECISION_TEXT = {
    "approved": f"{_icon('check')} Approved",
    "edited": f"{_icon('pencil')} Approved with edited arguments",
    "denied": f"{_icon('times')} Denied",
    "interrupted": f"{_icon('ban')} Not run: the reply was stopped before a decision",
    "discarded": f"{_icon('ban')} Not run: a new message was sent instead",
}


def pretty_arguments(arguments: Any) -> str:
    """The arguments as indented JSON text (not HTML-escaped), bidi controls and zero-width
    characters shown as ``\\uXXXX`` (the same characters to a JSON parser)."""
    try:
        text = json.dumps(arguments, indent=2, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(arguments)
    return show_invisible(text)


def takes_decisions(agent: Any) -> bool:
    """Whether ``agent`` parks on decisions it did not make itself: a remote agent whose
    server asks (``agent.remote_decisions``), drawn with the same cards as a local one."""
    return bool(getattr(agent, "remote_decisions", False))


class ApprovalCard(w.VBox):
    """One tool call waiting for a decision.

    Args:
        agent: the agent whose reply is parked on this call.
        call: the ``tool_use`` block waiting for approval.
        bridge: the loop bridge every click goes through (default: the current loop).
    """

    def __init__(
        self, agent: ApprovalMethods, call: ToolUseBlock, bridge: LoopBridge | None = None
    ) -> None:
        self.agent = agent
        self.call = call
        self.call_id = call.id
        self.tool_name = call.name
        self.decision = ""
        """``""`` while waiting, then the decision kind (``approved``, ``denied``...)."""
        self._bridge = bridge or LoopBridge()
        self.header = w.HTML(
            f"<b>{TOOL_GLYPH} Approval needed:</b> <code>{esc(show_invisible(call.name))}</code> "
            '<span class="nb-hitl-status nb-hitl-status-waiting">waiting for you</span>',
            **look(w.HTML),
        )
        self.arguments_view = w.HTML(
            f"<pre>{esc(pretty_arguments(call.input))}</pre>", **look(w.HTML)
        )
        self.approve_button = w.Button(
            description="Approve", button_style="success", icon="check", **look(w.Button)
        )
        self.edit_button = w.Button(description="Edit", icon="pencil", **look(w.Button))
        self.deny_button = w.Button(
            description="Deny", button_style="danger", icon="times", **look(w.Button)
        )
        self.always_button = w.Button(
            description="Always allow",
            icon="unlock",
            tooltip=f"Never ask again for {show_invisible(call.name)}",
            **look(w.Button),
        )
        try:
            suggestion = agent.permissions.suggest(call.name, call.input)
            rule = f"Or {suggestion.describe(agent.toolkit).rsplit(' for ', 1)[0]}"
        except ConfigError:  # a name no rule can hold (a remote server's tool name)
            rule = "No rule can name this tool"
        self.rule_text = w.HTML(esc(show_invisible(rule)), **look(w.HTML))
        self.rule_text.add_class("nb-hitl-approval-rule")
        self.rule_scope = w.Dropdown(
            options=[
                ("for this reply", "reply"),
                ("for this session", "session"),
                ("always", "always"),
            ],
            value="session",
            **look(w.Dropdown, layout={"width": "150px"}),
        )
        self.rule_scope.add_class("nb-hitl-rule-scope")
        self.rule_button = w.Button(
            description="Allow similar",
            icon="check-double",
            tooltip="Approve and add this rule (the panel's rule list can revoke it)",
            **look(w.Button),
        )
        self.rule_button.add_class("nb-hitl-allow-similar")
        self.rule_row = w.HBox([self.rule_text, self.rule_scope, self.rule_button], **look(w.HBox))
        no_rules = (getattr(agent, "unsupported", None) or {}).get("rules")
        if no_rules:  # a remote agent: the server keeps its rules; said, not hidden
            for control in (self.always_button, self.rule_scope, self.rule_button):
                control.disabled = True
                control.tooltip = no_rules
        self.edit_area = w.Textarea(
            value=pretty_arguments(call.input),
            rows=6,
            **look(w.Textarea, layout={"width": "100%"}),
        )
        self.edit_ok = w.Button(
            description="Approve edited", button_style="success", **look(w.Button)
        )
        self.edit_cancel = w.Button(description="Cancel", **look(w.Button))
        self.reason = w.Text(
            placeholder="Why not? (the model sees this)", **look(w.Text, layout={"flex": "1"})
        )
        self.deny_ok = w.Button(
            description="Deny with reason",
            button_style="danger",
            tooltip="Deny (Enter)",
            **look(w.Button),
        )
        self.reason.add_class("nb-hitl-deny-reason")  # Enter in it presses deny_ok (_keys.py)
        self.deny_ok.add_class("nb-hitl-deny-ok")
        self.deny_cancel = w.Button(description="Cancel", **look(w.Button))
        self.error = w.HTML(**look(w.HTML))
        self.error.add_class("nb-hitl-approval-error")
        self.result = w.HTML(**look(w.HTML))
        self.actions = w.HBox(
            [self.approve_button, self.edit_button, self.deny_button, self.always_button],
            **look(w.HBox),
        )
        hidden = {"display": "none", "flex": "0 0 auto"}  # shown by ``_open`` (``set_display``)
        self.edit_box = w.VBox(
            [self.edit_area, w.HBox([self.edit_ok, self.edit_cancel], **look(w.HBox))],
            **look(w.VBox, layout=hidden),
        )
        self.deny_box = w.HBox(
            [self.reason, self.deny_ok, self.deny_cancel], **look(w.HBox, layout=hidden)
        )
        super().__init__(
            children=[
                self.header,
                self.arguments_view,
                self.actions,
                self.rule_row,
                self.edit_box,
                self.deny_box,
                self.error,
                self.result,
            ],
            # A row of a scrolling transcript: its natural height, never squeezed.
            **look(w.VBox, layout={"flex": "0 0 auto"}),
        )
        self.add_class("nb-hitl-approval")
        on = self._bridge.callback
        self.approve_button.on_click(on(lambda _b: self._decide(lambda: agent.approve(call.id))))
        self.edit_button.on_click(on(lambda _b: self._open(self.edit_box)))
        self.edit_cancel.on_click(on(lambda _b: self._open(None)))
        self.edit_ok.on_click(on(lambda _b: self._approve_edited()))
        self.deny_button.on_click(on(lambda _b: self._open(self.deny_box)))
        self.deny_cancel.on_click(on(lambda _b: self._open(None)))
        self.deny_ok.on_click(
            on(lambda _b: self._decide(lambda: agent.deny(call.id, self.reason.value)))
        )
        self.always_button.on_click(
            on(lambda _b: self._decide(lambda: agent.always_allow(call.name)))
        )
        self.rule_button.on_click(
            on(
                lambda _b: self._decide(
                    lambda: cast("ApprovalMethods", agent).decide(
                        call.id, "approve", rule=self.rule_scope.value
                    )
                )
            )
        )

    # -- actions (run on the agent's loop) -----------------------------------------------------
    def _open(self, box: w.Box | None) -> None:
        self.error.value = ""
        set_display(self.edit_box, "" if box is self.edit_box else "none")
        set_display(self.deny_box, "" if box is self.deny_box else "none")

    def _decide(self, action: Callable[[], object]) -> None:
        try:
            action()
        except (ApprovalError, ConfigError) as exc:
            self.error.value = esc(str(exc))
        else:
            self.error.value = ""

    def _approve_edited(self) -> None:
        self._decide(lambda: self.agent.approve(self.call_id, self.edit_area.value))

    # -- drawing -----------------------------------------------------------------------------
    def show_decision(
        self, decision: str, arguments: dict[str, Any] | None = None, reason: str = ""
    ) -> None:
        """Replace the buttons by the decision (called on ``ApprovalDecided``)."""
        self.decision = decision
        text = _DECISION_TEXT.get(decision, esc(decision))
        if decision == "approved" and reason:
            text += f" ({esc(show_invisible(reason))})"
        if decision == "denied":
            text += f": {esc(show_invisible(reason))}" if reason else " (no reason given)"
        if decision == "edited" and arguments is not None:
            # The call line shows what runs; the model's own arguments stay readable below.
            self.arguments_view.value = f"<pre>{esc(pretty_arguments(arguments))}</pre>"
            text += (
                "<details><summary>the model asked for</summary>"
                f"<pre>{esc(pretty_arguments(self.call.input))}</pre></details>"
            )
        self.result.value = text
        name = esc(show_invisible(self.tool_name))
        self.header.value = f"<b>{TOOL_GLYPH} Tool call:</b> <code>{name}</code>"
        for box in (self.actions, self.rule_row, self.edit_box, self.deny_box):
            set_display(box, "none")
        self.error.value = ""
        self.remove_class("nb-hitl-approval")
        self.add_class("nb-hitl-approval")
        self.add_class("nb-hitl-approval-decided")


class ApprovalCards:
    """Keeps approval cards in step with an agent's events.

    Args:
        agent: the agent to watch.
        add_row: called with each new card (e.g. ``ChatWidget.append_widget``).
        set_status: called as ``set_status(state, detail)``: ``"waiting"`` while calls wait,
            ``"running"`` once all are decided.
        bridge: the loop bridge for clicks and events.
        insert_row: called as ``insert_row(card, after_key)`` to place the cards of calls
            decided earlier (``agent.approval_log``, e.g. after ``load_session``) right after
            the message that asked for them; returns the new row's key. Without it those
            cards are not drawn.
    """

    def __init__(
        self,
        agent: ApprovalMethods,
        add_row: Callable[[w.Widget], Any],
        set_status: Callable[[str, str], Any] | None = None,
        bridge: LoopBridge | None = None,
        *,
        insert_row: Callable[[w.Widget, str], Any] | None = None,
    ) -> None:
        self.agent = agent
        self.add_row = add_row
        self.set_status = set_status
        self.bridge = bridge or LoopBridge()
        self.cards: dict[str, ApprovalCard] = {}
        """Every card shown, by call id."""
        self._sub = agent.subscribe(self.bridge.callback(self.on_event))
        if insert_row is not None:
            self._draw_decided(insert_row)
        for pending in getattr(agent, "pending_approvals", []):  # e.g. after load_session
            self._card_for(pending.call)
        self._update_status()

    def _draw_decided(self, insert_row: Callable[[w.Widget, str], Any]) -> None:
        """Cards of earlier decisions, each after the message whose tool call it decided."""
        latest: dict[str, dict[str, Any]] = {}
        for entry in getattr(self.agent, "approval_log", []):
            latest[str(entry.get("call_id"))] = entry  # the last word on each call
        holder: dict[str, str] = {}
        memory = getattr(self.agent, "memory", None)
        for msg in memory.messages if memory is not None else []:
            for block in msg.get_content_blocks("tool_use"):
                holder[block.id] = msg.id
        anchors: dict[str, str] = {}
        for call_id, entry in latest.items():
            msg_id = holder.get(call_id)
            if msg_id is None or call_id in self.cards:
                continue
            call = ToolUseBlock(
                id=call_id, name=str(entry.get("tool_name", "")), input=entry.get("input") or {}
            )
            card = ApprovalCard(self.agent, call, self.bridge)
            card.show_decision(
                str(entry.get("decision", "")), entry.get("arguments"), str(entry.get("reason", ""))
            )
            if not self.cards:
                self.add_row(w.HTML(CARD_CSS))
            self.cards[call_id] = card
            key = insert_row(card, anchors.get(msg_id, msg_id))
            anchors[msg_id] = key if isinstance(key, str) else msg_id

    @property
    def waiting(self) -> list[ApprovalCard]:
        """Cards still waiting for a decision."""
        return [c for c in self.cards.values() if not c.decision]

    def _card_for(self, call: ToolUseBlock) -> ApprovalCard:
        card = self.cards.get(call.id)
        if not self.cards:
            self.add_row(w.HTML(CARD_CSS))  # the cards' stylesheet, once
        if card is None or card.decision:
            card = ApprovalCard(self.agent, call, self.bridge)
            self.cards[call.id] = card
            self.add_row(card)
        return card

    def on_event(self, event: Event) -> None:
        """Draw a card for each request; show each decision on its card."""
        if isinstance(event, ApprovalRequested) and event.tool_use is not None:
            self._card_for(event.tool_use)
        elif isinstance(event, ApprovalDecided):
            card = self.cards.get(event.call_id)
            if card is not None and not card.decision:
                card.show_decision(event.decision, event.arguments, event.reason)
        elif not isinstance(event, ReplyFinished):
            return
        self._update_status()

    def _update_status(self) -> None:
        if self.set_status is None:
            return
        waiting = self.waiting
        if waiting:
            names = ", ".join(sorted({c.tool_name for c in waiting}))
            self.set_status("waiting", f"approve or deny {names}")
        elif getattr(self.agent, "is_replying", False):
            self.set_status("running", "")

    def close(self) -> None:
        """Stop listening to the agent."""
        self._sub.close()


class ApprovalBox(w.VBox):
    """Approval cards and a status line on their own (without a chat)."""

    def __init__(self, agent: ApprovalMethods, bridge: LoopBridge | None = None) -> None:
        self.status = w.HTML()
        self.rows = w.VBox()
        super().__init__(children=[self.rows, self.status])
        self.cards = ApprovalCards(agent, self._add, self._set_status, bridge)

    def _add(self, card: w.Widget) -> None:
        self.rows.children = (*self.rows.children, card)

    def _set_status(self, state: str, detail: str) -> None:
        label = "waiting for you" if state == "waiting" else state
        text = f"{label} · {detail}" if detail else label
        self.status.value = (
            f'<span class="nb-hitl-status" data-state="{esc(state)}">{esc(text)}</span>'
        )

    def close(self) -> None:
        """Stop listening to the agent and close the widget."""
        self.cards.close()
        super().close()


__all__ = [
    "CARD_CSS",
    "ApprovalBox",
    "ApprovalCard",
    "ApprovalCards",
    "pretty_arguments",
    "takes_decisions",
]
