"""The transcript's window slides in steps: a new row leaves the rows drawn before it in place.

ipywidgets' Box keeps the views its new children list starts with and draws every row after
the first change anew, so taking the oldest row out for each new one redrew the whole window
on every row (a hub past its 80 rows fell seconds behind: bench/hub_stop_in_browser.py).
"""

from __future__ import annotations

from nb_hitl.message import Msg
from nb_hitl.widgets._transcript import Entry, Transcript


def _add(transcript: Transcript, i: int) -> None:
    msg = Msg("User", f"message {i}", "user")
    transcript.add(Entry(msg.id, msg))


def test_new_rows_keep_the_drawn_rows_until_half_a_window_more_then_trim_together() -> None:
    transcript = Transcript(8)
    for i in range(8):
        _add(transcript, i)
    assert len(transcript.rows) == 8
    trims = 0
    for i in range(8, 68):
        before = transcript.rows
        _add(transcript, i)
        after = transcript.rows
        if after[: len(before)] == before:  # only appended: the front end draws one row
            assert len(after) == len(before) + 1 <= 8 + 4
        else:  # the oldest went, all at once, down to the window
            trims += 1
            assert len(before) == 12 and after == [*before[5:], after[-1]]
    assert trims == 60 // 5  # one trim per half a window of new rows, not one per row
    assert "message 67" in transcript.rows[-1].value


def test_the_window_still_starts_exact_and_show_earlier_and_clear_still_work() -> None:
    transcript = Transcript(5)
    for i in range(12):
        transcript.add(Entry(f"k{i}", Msg("User", f"message {i}", "user")), render=False)
    transcript.render()
    assert len(transcript.rows) == 5 and "message 7" in transcript.rows[0].value
    assert "7 hidden" in transcript.earlier.description
    transcript.show_earlier()
    assert len(transcript.rows) == 10 and "message 2" in transcript.rows[0].value
    transcript.remove("k11")  # rows removed: the window is exact again
    assert len(transcript.rows) == 10 and "message 1" in transcript.rows[0].value
    transcript.clear()
    assert transcript.rows == [] and transcript.earlier.layout.display == "none"
