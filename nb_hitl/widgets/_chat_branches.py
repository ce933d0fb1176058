"""The chat's rewind-and-fork controls: Edit, Regenerate and the branch switcher at work.

``_branch_view`` draws the buttons; this part acts on them for one ``ChatWidget``: Edit puts
the message's text in the box and makes the next Send an ``edit_and_resend`` (Cancel, or
Escape with nothing running, leaves it); Regenerate and edit are queued like messages (they
wait for a running reply, and their errors show in the transcript like any other); checking
out a branch, or making one, redraws the transcript from memory with the switchers.
"""

from __future__ import annotations

from typing import Any

from nb_hitl._render import esc
from nb_hitl.events import BranchCheckedOut, BranchCreated, Event

from ._branch_view import (
    action_button,
    supports_branches,
    switch_points,
    switcher_html,
    with_row_actions,
)
from ._resume import EditRequest, RegenerateRequest
from ._row import Row
from ._transcript import Entry

EDITING_NOTE = (
    "Editing an earlier message: Send re-sends it as a new branch from there (the current "
    "branch is kept; switch back with the arrows)."
)
NOT_IDLE_NOTE = "Wait for the reply to finish (or Stop it) before switching branches."


class BranchControls:
    """Edit / Regenerate / branch switching for one chat (a no-op for agents without forks)."""

    def __init__(self, chat: Any) -> None:  # a ChatWidget (not imported: no import cycle)
        self.chat = chat
        self.enabled = supports_branches(chat.agent)
        self.editing: str | None = None
        """The id of the user message being edited (the next Send re-sends it)."""
        if self.enabled:
            chat.transcript.row_actions = with_row_actions
            keys = chat.shortcuts
            keys.on_action("edit", lambda msg_id: self.edit(msg_id))
            keys.on_action("cancel_edit", lambda _arg: self.cancel_edit())
            keys.on_action("regenerate", lambda msg_id: self.regenerate(msg_id))
            keys.on_action("checkout", lambda branch: self.checkout(branch) if branch else None)

    # -- the actions ---------------------------------------------------------------------------
    def edit(self, msg_id: str, text: str | None = None) -> bool:
        """Start editing the user message ``msg_id``: its text (or ``text``) goes in the box.

        With ``text`` given, the edit is sent at once. Returns False for an unknown message.
        """
        chat = self.chat
        msg = chat.agent.memory.get(msg_id) if self.enabled else None
        if msg is None or msg.role != "user":
            chat.say("Only a message you sent on this branch can be edited.")
            return False
        self.editing = msg_id
        if text is not None:
            return self.send_edit(text)
        chat.input.value = msg.get_text_content() or ""
        cancel = action_button("cancel_edit", "", "Cancel", "Cancel the edit")
        chat._note.value = f'<span class="nb-hitl-note">{esc(EDITING_NOTE)}</span> {cancel}'
        chat.send_button.description = "Resend"
        return True

    def cancel_edit(self) -> None:
        """Leave edit mode (the box keeps its text)."""
        if self.editing is not None:
            self.editing = None
            self.chat._note.value = ""
            self.chat.send_button.description = "Send"

    def send_edit(self, text: str) -> bool:
        """Re-send the message being edited with ``text`` (``edit_and_resend``)."""
        msg_id, self.editing = self.editing, None
        self.chat._note.value = ""
        self.chat.send_button.description = "Send"
        if msg_id is None:
            return False
        return self.chat._queue_request(EditRequest(msg_id, text), "re-sending…")

    def regenerate(self, msg_id: str) -> bool:
        """Answer the answer ``msg_id``'s question again, on a new branch."""
        if not self.enabled:
            return False
        return self.chat._queue_request(RegenerateRequest(msg_id), "regenerating…")

    def checkout(self, branch: Any) -> bool:
        """Switch to ``branch`` (an id, a name or a ``BranchInfo``); False while a reply runs."""
        chat = self.chat
        if not self.enabled:
            return False
        if chat.agent.is_replying:
            chat.say(NOT_IDLE_NOTE)
            return False
        self.cancel_edit()
        try:
            chat.agent.checkout(branch)
        except Exception as exc:  # BranchError: said where the person looks; nothing changed
            chat.say(f"{type(exc).__name__}: {exc}")
            return False
        self.redraw()  # at once; the BranchCheckedOut event redraws nothing twice
        return True

    # -- drawing -------------------------------------------------------------------------------
    def on_event(self, ev: Event) -> None:
        """A branch was made or checked out: memory holds another conversation now."""
        if self.enabled and isinstance(ev, (BranchCreated, BranchCheckedOut)):
            self.redraw()

    def redraw(self) -> None:
        """The transcript from memory, with a switcher wherever branches part."""
        chat = self.chat
        messages = list(chat.agent.memory.messages)
        chat.transcript.reset(messages)
        for msg in messages:
            chat.transcript.fold_continued(msg)
        ids = [m.id for m in messages]
        for point in switch_points(chat.agent):
            key = f"branch-switch-{point.fork_point}"
            row = Row(key, switcher_html(point), "nb-hitl-row")
            after = point.fork_point if point.fork_point in ids else None
            entry = Entry(key, None, row)
            if after is None and ids:  # before the first message
                chat.transcript.insert_at(0, entry)
            else:
                chat.transcript.insert_after(entry, after)
        chat.transcript.render()


__all__ = ["EDITING_NOTE", "NOT_IDLE_NOTE", "BranchControls"]
