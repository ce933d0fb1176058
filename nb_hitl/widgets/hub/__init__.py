"""The hub panel: one transcript, Stop and the pause prompt for a multi-agent ``MsgHub``.

``HubPanel`` (``_panel.py``) puts together the transcript fed by every participant
(``_feed.py``), their colours (``_style.py``), the pause prompt (``_pause.py``), the pipeline
run (``_run.py``), the person's input bar (``_input.py``) and one inspector per participant
(``_inspect.py``). May import the other widgets and everything below them (pipeline, agent, ...).
"""

from __future__ import annotations

from ._panel import HubPanel

__all__ = ["HubPanel"]
