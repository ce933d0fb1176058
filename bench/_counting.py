"""The comm the kernel-side benches put in ipykernel's place: it records what it would publish.

``install()`` makes ``comm.create_comm`` (what ipywidgets calls to open each widget's comm)
return a ``CountingComm``, so widgets built afterwards publish into ``PUBLISHED`` instead of a
kernel's iopub: one ``Published`` per message, with its time, size in bytes (JSON data plus
buffers) and, for a ``comm_open``, the model it opens. Import and install it before nb_hitl.
"""

from __future__ import annotations

import json
import time
from typing import Any, NamedTuple

import comm
from comm.base_comm import BaseComm


class Published(NamedTuple):
    """One comm message a kernel would have put on iopub."""

    at: float
    """``time.monotonic()`` when it was published."""
    size: int
    """Bytes: its JSON data and its buffers."""
    msg_type: str
    """``comm_open``, ``comm_msg`` or ``comm_close``."""
    model: str
    """The model a ``comm_open`` opens (``_model_name``); "" for other messages."""


PUBLISHED: list[Published] = []
"""Every message published since the last ``PUBLISHED.clear()``, in order."""


class CountingComm(BaseComm):
    """A comm that records what it would send on iopub instead of sending it."""

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        size = len(json.dumps(data or {}, default=str)) + sum(len(b) for b in buffers or [])
        model = ""
        if msg_type == "comm_open":
            model = str((data or {}).get("state", {}).get("_model_name"))
        PUBLISHED.append(Published(time.monotonic(), size, msg_type, model))


def install() -> None:
    """Open every widget comm from now on as a ``CountingComm``."""
    comm.create_comm = CountingComm
