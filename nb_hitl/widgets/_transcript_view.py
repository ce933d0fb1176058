"""TranscriptView: every row of a transcript drawn by one front-end model (a ``PanelModel``).

One ``ipywidgets.HTML`` per row opened a comm per row (a 200-message history: hundreds of
comm opens on page load; under ``commsOverSubshells=perComm`` a kernel thread each). The
transcript is one anywidget model instead (``js/src/chat/transcript.js`` draws it): its state
is ``rows``, the drawn rows in reading order, keyed by message id, and ``earlier``, the label
of "Show earlier messages" (``""``: hidden). A row is

- ``{id, cls, html, buttons?}``: a finished row (a message, an approval card, an ``ask_user``
  form, a note, a branch switcher, a compression): HTML rendered and escaped by the kernel
  (``nb_hitl._render``), and buttons the front end draws after it (``Undo``, ``Show all``),
  each sending an action;
- ``{id, cls, live}``: a streaming message (``RowDeltas`` state: the plain-text tail is drawn
  as a text node, finished paragraphs once as escaped HTML), changed by the streaming rows'
  keyed ``live`` op (``_row_deltas.live_op``, the hub's feed speaks it too);
- ``{id, widget}``: any other widget (``ChatWidget.append_widget``), drawn by the notebook's
  widget manager.

A change is a batch of keyed ops (``PanelModel``: insert / replace / remove, and ``live``, the
streaming row's delta and classes) with a sequence number; a late view or a gap syncs from the
snapshot. Stop's interrupted style is one small ``live`` op, sent at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._model import PanelModel, apply_op, static_file
from ._row_deltas import LIVE, apply_live, live_op

Item = dict[str, Any]


def diff_rows(old: Sequence[Item], new: Sequence[Item], key: str = "rows") -> list[Item]:
    """The ops that turn the row list ``old`` into ``new`` (keyed by ``id``, applied in order
    by the front end): removes, then inserts / moves and replaces."""
    keep = {r["id"] for r in new}
    ops: list[Item] = [
        {"op": "remove", "key": key, "id": r["id"]} for r in old if r["id"] not in keep
    ]
    drawn = {r["id"]: r for r in old if r["id"] in keep}
    cur = [r["id"] for r in old if r["id"] in keep]
    for i, row in enumerate(new):
        if i < len(cur) and cur[i] == row["id"]:
            if drawn[row["id"]] != row:
                ops.append({"op": "replace", "key": key, "item": row})
            continue
        before = cur[i] if i < len(cur) else None
        if row["id"] in drawn:
            cur.remove(row["id"])
        cur.insert(i, row["id"])
        ops.append({"op": "insert", "key": key, "item": row, "before": before})
    return ops


class TranscriptView(PanelModel):
    """The rows of a transcript, drawn by one front-end model (see module doc).

    Args:
        **kwargs: passed to ``PanelModel`` (``bridge``...).
    """

    _esm = static_file("transcript.js")
    _css = static_file("transcript.css")

    def __init__(self, rows: Sequence[Item] = (), earlier: str = "", **kwargs: Any) -> None:
        super().__init__({"rows": list(rows), "earlier": earlier}, **kwargs)
        self.add_class("nb-hitl-transcript-view")

    def _snapshot(self) -> dict[str, Any]:
        # The ops never change a part in place (each op makes new lists and items), so the
        # snapshot shares the parts: no deep copy of every row on every batch.
        return {"v": 1, "seq": self.seq, "state": dict(self._state)}

    _fresh_ops = True
    """Every op is built afresh (``diff_rows``, ``live``): sent as it is, not copied."""

    def _apply_to(self, state: dict[str, Any], op: Mapping[str, Any]) -> None:
        """The shared ops and ``live`` (also on a host's copy of the rows: ``embed``)."""
        if op.get("op") == LIVE:
            apply_live(state, op)
        else:
            apply_op(state, op)

    def state_part(self, key: str) -> Any:
        """One part of the state as the page holds it (do not change it)."""
        return self._state.get(key)

    @property
    def rows(self) -> list[Item]:
        """The rows as the page holds them (do not change them)."""
        return list(self._state.get("rows") or [])

    def set_rows(self, rows: Sequence[Item], earlier: str = "") -> list[Item]:
        """Make the view hold ``rows`` and the "Show earlier" label ``earlier``: one batch of
        the ops that get there (nothing sent when nothing changed); returns the ops."""
        ops = diff_rows(self.rows, rows)
        if earlier != self._state.get("earlier"):
            ops.append({"op": "set", "key": "earlier", "value": earlier})
        return self.apply_ops(ops)

    def live(
        self, row_id: str, msg: Mapping[str, Any] | None = None, cls: str | None = None
    ) -> None:
        """Send the streaming row ``row_id`` its row message ``msg`` and / or classes ``cls``."""
        self.apply_ops([live_op(row_id, msg, cls)])

    def drawn_html(self) -> str:
        """Every row's HTML as the page draws it, in order (tests, exports)."""
        return "\n".join(row_html(r) for r in self.rows)


def row_html(item: Mapping[str, Any]) -> str:
    """What the page shows of one row, as HTML: a streaming row's tail escaped as text."""
    from nb_hitl._render import esc

    live = item.get("live")
    if isinstance(live, Mapping):
        if live.get("done"):
            return str(live.get("html") or "")
        blocks = "".join(live.get("blocks") or [])
        tail = esc(live.get("tail") or "")
        return f"{live.get('head') or ''}{blocks}<div>{tail}</div>{live.get('extras') or ''}"
    return str(item.get("html") or "")


__all__ = ["TranscriptView", "diff_rows", "row_html"]
