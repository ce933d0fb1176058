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
- **Allow similar** approves it and adds a rule covering calls like it, for the scope picked
  next to it: this reply, this session (saved with it) or always (a settings file). The rule
  box holds the narrowest suggestion in the text form a person reads and types
  (``search_notes(query: re:^lunch\\b)``, ``run_shell(npm test:*)``,
  ``write_file(notes/sub/*)``); what the person typed is read with ``PermissionRule.parse``.
  Text that is no rule, or a rule that does not cover this call, is said in the card and
  nothing is decided. A tool registered ``always_ask=True`` gets no rule row and no Always
  allow: only a decision on that call runs it.

``CARD_KEYS`` are the cards' keyboard bindings (Enter in the deny reason denies, Enter in the
rule box allows similar): the chat, the hub and ``ApprovalBox`` all bind them.

Once decided (or closed by Stop) the buttons go and the card states the decision. A card is
no widget: it is a row of the transcript's front end (``_card.CardRow``, drawn by the rows
segment it sits in; no comm of its own), whose clicks arrive through the panel's keyboard
anywidget and a ``LoopBridge``, so they reach the agent on its event loop even when JupyterLab
runs comm handlers on another thread. Without a chat, ``ApprovalBox(agent)`` shows the cards
alone.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast

import ipywidgets as w

from nb_hitl._render import CARD_CSS, TOOL_GLYPH, esc
from nb_hitl.agent.approvals import PermissionRule
from nb_hitl.events import ApprovalDecided, ApprovalRequested, Event, ReplyFinished
from nb_hitl.exceptions import ApprovalError, ConfigError
from nb_hitl.message import ToolUseBlock

from ._card import CARD_ACTION, CardRow, Control, button, select, text_area, text_box
from ._invisible import show_invisible, unshow_invisible
from ._keys import KeyBindings
from ._loop import LoopBridge
from ._transcript_view import TranscriptView

if TYPE_CHECKING:
    from nb_hitl.agent.approvals import ApprovalMethods


RuleScope = Literal["reply", "session", "always"]
"""The scopes "Allow similar" offers (``agent.decide(..., rule=...)``)."""

CARD_KEYS: tuple[dict[str, Any], ...] = (
    {"key": "Enter", "within": ".nb-hitl-deny-reason", "near": ".nb-hitl-approval",
     "click": ".nb-hitl-deny-ok"},
    {"key": "Enter", "within": ".nb-hitl-rule-text", "near": ".nb-hitl-approval",
     "click": ".nb-hitl-allow-similar"},
)  # fmt: skip
"""The keys of an approval card's controls (``KeyBindings`` bindings), named once: Enter in
the deny reason presses "Deny with reason", Enter in the rule box presses "Allow similar"."""


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


class ApprovalCard(CardRow):
    """One tool call waiting for a decision: a card drawn inside the transcript (no widget).

    Its controls (``approve_button``, ``edit_button``, ``edit_area``, ``edit_ok``,
    ``deny_button``, ``reason``, ``deny_ok``, ``always_button``, ``rule_scope``,
    ``rule_button``...) are ``Control`` objects: ``card.approve_button.click()`` does what a
    click in the page does (``_card.py``).

    Args:
        agent: the agent whose reply is parked on this call.
        call: the ``tool_use`` block waiting for approval.
        bridge: the loop bridge every click goes through (default: the current loop).
    """

    def __init__(
        self, agent: ApprovalMethods, call: ToolUseBlock, bridge: LoopBridge | None = None
    ) -> None:
        super().__init__(f"approval-{call.id}-{uuid.uuid4().hex[:8]}", "nb-hitl-approval")
        self.agent = agent
        self.call = call
        self.call_id = call.id
        self.tool_name = call.name
        self.decision = ""
        """``""`` while waiting, then the decision kind (``approved``, ``denied``...)."""
        self._bridge = bridge or LoopBridge()
        self.mode = ""
        """``""``, ``"edit"`` (the arguments open as JSON text) or ``"deny"`` (a reason box)."""
        waiting = lambda: not self.decision  # noqa: E731
        name = esc(show_invisible(call.name))
        self.header = Control(
            self,
            value=f"<b>{TOOL_GLYPH} Approval needed:</b> <code>{name}</code> "
            '<span class="nb-hitl-status nb-hitl-status-waiting">waiting for you</span>',
        )
        self.arguments_view = Control(self, value=f"<pre>{esc(pretty_arguments(call.input))}</pre>")
        self.actions = Control(self, shown=waiting)
        self.approve_button = Control(self, "approve", description="Approve")
        self.edit_button = Control(self, "edit", description="Edit")
        self.deny_button = Control(self, "deny", description="Deny")
        self.always_button = Control(
            self,
            "always",
            description="Always allow",
            tooltip=f"Never ask again for {show_invisible(call.name)}",
        )
        tool = getattr(getattr(agent, "toolkit", None), "tools", {}).get(call.name)
        self.insists = bool(getattr(tool, "always_ask", False))
        """The tool always asks: no rule (nor Always allow) is offered, only this decision."""
        written, words = "", "No rule can name this tool"
        if not self.insists:
            try:
                suggestion = agent.permissions.suggest(call.name, call.input)
            except ConfigError:  # a name no rule can hold (a remote server's tool name)
                pass
            else:
                written = suggestion.written or suggestion.text
                words = f"Or {suggestion.describe(agent.toolkit).rsplit(' for ', 1)[0]}"
        self.rule_row = Control(self, shown=lambda: waiting() and not self.insists)
        self.rule_text = Control(self, value=esc(show_invisible(words)))
        """The suggested rule in words (the rule box's tooltip)."""
        self.rule_box = self.field(
            "rule",
            Control(self, value=show_invisible(written), tooltip=show_invisible(words)),
        )
        """The rule "Allow similar" adds, in the text form: the suggestion, editable."""
        self.rule_scope = self.field(
            "scope",
            Control(
                self,
                value="session",
                options=[
                    ("for this reply", "reply"),
                    ("for this session", "session"),
                    ("always", "always"),
                ],
            ),
        )
        self.rule_button = Control(
            self,
            "similar",
            description="Allow similar",
            tooltip="Approve and add this rule (the panel's rule list can revoke it)",
        )
        no_rules = (getattr(agent, "unsupported", None) or {}).get("rules")
        if no_rules:  # a remote agent: the server keeps its rules; said, not hidden
            for control in (self.always_button, self.rule_box, self.rule_scope, self.rule_button):
                control.disabled = True
                control.tooltip = no_rules
        self._no_rule = not written
        if not written and not no_rules:
            self.rule_box.disabled = self.rule_scope.disabled = self.rule_button.disabled = True
        self.edit_box = Control(self, shown=lambda: waiting() and self.mode == "edit")
        self.edit_area = self.field("arguments", Control(self, value=pretty_arguments(call.input)))
        self.edit_ok = Control(self, "approve_edited", description="Approve edited")
        self.edit_cancel = Control(self, "cancel", description="Cancel")
        self.deny_box = Control(self, shown=lambda: waiting() and self.mode == "deny")
        self.reason = self.field("reason", Control(self))
        self.deny_ok = Control(
            self, "deny_ok", description="Deny with reason", tooltip="Deny (Enter)"
        )
        self.deny_cancel = Control(self, "cancel", description="Cancel")
        self.error = Control(self)
        self.result = Control(self)
        self.html = self.render()

    # -- actions (run on the agent's loop) -----------------------------------------------------
    def press(self, verb: str) -> None:
        """Do what the button ``verb`` does (a click in the page, or ``control.click()``)."""
        agent, call = self.agent, self.call
        if verb in ("edit", "deny", "cancel"):
            if self.decision:
                return  # decided already: nothing to open
            self.mode = "" if verb == "cancel" else verb
            self.error.value = ""
            self.refresh()
        elif verb == "approve":
            self._decide(lambda: agent.approve(call.id))
        elif verb == "approve_edited":
            self._decide(lambda: agent.approve(call.id, self.edit_area.value))
        elif verb == "deny_ok":
            self._decide(lambda: agent.deny(call.id, self.reason.value))
        elif verb == "always":
            if not (self.insists or self.always_button.disabled):  # not offered: nothing
                self._decide(lambda: agent.always_allow(call.name))
        elif verb == "similar":
            if not (self.insists or self.rule_button.disabled):
                self._allow_similar()

    def _allow_similar(self) -> None:
        """Approve with the rule the box holds, once it reads and covers this call."""
        agent, call = self.agent, self.call
        scope = self.rule_scope.value
        picked = cast("RuleScope", scope if scope in ("reply", "session", "always") else "session")
        text = self.rule_box.value
        try:
            rule = PermissionRule.parse(unshow_invisible(text), scope=picked)
            rule.check(agent.toolkit)
        except ConfigError as exc:
            said = f"The rule does not read: {exc} Nothing was decided."
            self.error.value = esc(show_invisible(said))
            self.refresh()
            return
        tool = agent.toolkit.tools.get(call.name)
        if not rule.matches(call.name, call.input, tool):
            self.error.value = esc(
                show_invisible(
                    f"The rule {text.strip()} does not cover this call, so it would not let it "
                    "run: widen it, or press Approve for this call alone. Nothing was decided."
                )
            )
            self.refresh()
            return
        self._decide(lambda: agent.decide(call.id, "approve", rule=rule))

    def _decide(self, action: Callable[[], object]) -> None:
        try:
            action()
        except (ApprovalError, ConfigError) as exc:
            self.error.value = esc(str(exc))
        else:
            self.error.value = ""
        self.refresh()

    # -- drawing -----------------------------------------------------------------------------
    def render(self) -> str:
        """The card's HTML: the call, and while it waits its controls (escaped)."""
        parts = [
            f'<div class="nb-hitl-card-head">{self.header.value}</div>',
            self.arguments_view.value,
        ]
        if not self.decision:
            always = (
                ""
                if self.insists
                else button(self, self.always_button, "nb-hitl-always", icon="unlock")
            )
            parts.append(
                '<div class="nb-hitl-card-buttons">'
                + button(self, self.approve_button, "nb-hitl-approve", "success", "check")
                + button(self, self.edit_button, "nb-hitl-edit", icon="pencil")
                + button(self, self.deny_button, "nb-hitl-deny", "danger", "times")
                + always
                + "</div>"
            )
            if self.insists:
                name = esc(show_invisible(self.tool_name))
                parts.append(
                    f'<div class="nb-hitl-approval-rule nb-hitl-insists"><code>{name}</code> '
                    "always asks a person: no rule can allow it, only a decision on this "
                    "call.</div>"
                )
            else:
                parts.append(self._rule_row())
            if self.mode == "edit":
                area = text_area("arguments", self.edit_area, "nb-hitl-edit-arguments", 6,
                                 "The call's arguments as JSON")  # fmt: skip
                parts.append(
                    f'<div class="nb-hitl-card-edit">{area}<div class="nb-hitl-card-buttons">'
                    + button(self, self.edit_ok, "nb-hitl-edit-ok", "success")
                    + button(self, self.edit_cancel, "nb-hitl-edit-cancel")
                    + "</div></div>"
                )
            if self.mode == "deny":
                box = text_box("reason", self.reason, "nb-hitl-deny-reason",
                               "Why not? (the model sees this)")  # fmt: skip
                parts.append(
                    f'<div class="nb-hitl-card-buttons nb-hitl-card-deny">{box}'
                    + button(self, self.deny_ok, "nb-hitl-deny-ok", "danger")
                    + button(self, self.deny_cancel, "nb-hitl-deny-cancel")
                    + "</div>"
                )
        if self.error.value:
            parts.append(
                f'<div class="nb-hitl-approval-error" role="alert">{self.error.value}</div>'
            )
        if self.result.value:
            parts.append(f'<div class="nb-hitl-approval-result">{self.result.value}</div>')
        return (
            f'<div class="nb-hitl-card" data-nb-hitl-card="{esc(self.key)}">{"".join(parts)}</div>'
        )

    def _rule_row(self) -> str:
        """The "Allow similar" row: the rule box (the suggestion, editable), scope, button."""
        box = self.rule_box
        # Wide enough for the whole rule (the look checks find a clipped value); the row
        # wraps and the box never gets wider than the card.
        width = min(max(len(box.value) + 3, 24), 120)
        title = f' title="{esc(box.tooltip)}"' if box.tooltip else ""
        off = " disabled" if box.disabled else ""
        # no rule to offer (a name no rule can hold): the words say so
        label = self.rule_text.value if self._no_rule else "Or allow"
        field = (
            f'<input type="text" class="widget-input nb-hitl-rule-text" name="rule" '
            f'value="{esc(box.value)}" style="width: {width}ch" spellcheck="false" '
            f'autocomplete="off" aria-label="Rule to add: tool(argument: pattern)"{title}{off}>'
        )
        return (
            '<div class="nb-hitl-card-buttons nb-hitl-card-rule">'
            f'<span class="nb-hitl-approval-rule">{label}</span>'
            + field
            + '<span class="nb-hitl-rule-scope">'
            + select("scope", self.rule_scope, "widget-dropdown", "Rule scope")
            + "</span>"
            + button(self, self.rule_button, "nb-hitl-allow-similar", icon="check-double")
            + "</div>"
        )

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
        self.error.value = ""
        self.mode = ""
        self.add_class("nb-hitl-approval-decided")
        self.refresh()


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
        add_row: Callable[[ApprovalCard], Any],
        set_status: Callable[[str, str], Any] | None = None,
        bridge: LoopBridge | None = None,
        *,
        insert_row: Callable[[ApprovalCard, str], Any] | None = None,
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

    def _draw_decided(self, insert_row: Callable[[ApprovalCard, str], Any]) -> None:
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
            self.cards[call_id] = card
            key = insert_row(card, anchors.get(msg_id, msg_id))
            anchors[msg_id] = key if isinstance(key, str) else msg_id

    @property
    def waiting(self) -> list[ApprovalCard]:
        """Cards still waiting for a decision."""
        return [c for c in self.cards.values() if not c.decision]

    def _card_for(self, call: ToolUseBlock) -> ApprovalCard:
        card = self.cards.get(call.id)
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
    """Approval cards and a status line on their own (without a chat).

    The cards are rows of one transcript model (``box.rows``, a ``TranscriptView``) and a
    keyboard anywidget sends their clicks: three comms however many cards there are.
    """

    def __init__(self, agent: ApprovalMethods, bridge: LoopBridge | None = None) -> None:
        self._bridge = bridge or LoopBridge()
        self.status = w.HTML()
        self.rows = TranscriptView(bridge=self._bridge)
        self._drawn: list[ApprovalCard] = []
        self.shortcuts = KeyBindings(
            "nb-hitl-approval-box",
            list(CARD_KEYS),
            self._bridge,
            inactive_scope="",
            action_buttons="[data-nb-hitl-action]",
        )  # fmt: skip
        self.shortcuts.on_form_action(CARD_ACTION, self._act)
        super().__init__(children=[w.HTML(CARD_CSS), self.rows, self.status, self.shortcuts])
        self.add_class("nb-hitl-approval-box")
        self.cards = ApprovalCards(agent, self._add, self._set_status, self._bridge)

    def _add(self, card: ApprovalCard) -> None:
        card.attach(self._render)
        self._drawn.append(card)
        self._render()

    def _render(self) -> None:
        self.rows.set_rows([card.item() for card in self._drawn])

    def _act(self, text: str, form: dict[str, Any]) -> None:
        key, _, verb = text.partition(" ")
        for card in self._drawn:
            if card.key == key:
                card.act(verb, form)

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
    "CARD_KEYS",
    "ApprovalBox",
    "ApprovalCard",
    "ApprovalCards",
    "pretty_arguments",
    "takes_decisions",
]
