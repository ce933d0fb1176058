"""The ``SteeringInbox`` part alone: queued once, taken in order, marked where."""

from __future__ import annotations

import pytest

from nb_hitl.agent._steering import SteeringInbox, parse_queue, steer_message
from nb_hitl.message import MetaKey, Msg


def never(_msg_id: str) -> bool:
    return False


def test_a_message_is_queued_once_and_never_when_recorded() -> None:
    inbox = SteeringInbox()
    first, second = Msg("user", "a", "user"), Msg("user", "b", "user")
    inbox.put(first, never)
    inbox.put(first, never)
    inbox.put(second, lambda msg_id: msg_id == second.id)
    assert [m.id for m in inbox.pending] == [first.id]


def test_take_marks_where_and_skips_what_was_recorded_meanwhile() -> None:
    inbox = SteeringInbox()
    kept, recorded = Msg("user", "a", "user"), Msg("user", "b", "user")
    inbox.put(kept, never)
    inbox.put(recorded, never)
    taken = inbox.take("step boundary", lambda msg_id: msg_id == recorded.id)
    assert taken == [kept] and len(inbox) == 0
    assert kept.metadata[MetaKey.STEERED] is True
    assert kept.metadata[MetaKey.STEERED_AT] == "step boundary"


def test_drop_copy_and_state_round_trip() -> None:
    inbox = SteeringInbox()
    a, b = Msg("user", "a", "user"), Msg("user", "b", "user")
    inbox.put(a, never)
    inbox.put(b, never)
    saved = inbox.copy()
    inbox.drop([a])
    assert [m.id for m in inbox.pending] == [b.id]
    assert [m.id for m in saved.pending] == [a.id, b.id]
    assert [m.id for m in parse_queue(saved.state())] == [a.id, b.id]


def test_bad_input_is_refused_with_a_hint() -> None:
    assert steer_message("go on").role == "user"
    with pytest.raises(TypeError, match="steer\\(\\) takes a Msg or a str"):
        steer_message(3)
    with pytest.raises(ValueError, match="steering must be a list"):
        parse_queue({"not": "a list"})
    assert parse_queue(None) == []
