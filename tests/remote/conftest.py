"""The remote-agent tests use the headless widget helpers (tests/widgets/widget_helpers.py)."""

from __future__ import annotations

import sys
from pathlib import Path

_WIDGETS = str(Path(__file__).resolve().parents[1] / "widgets")
if _WIDGETS not in sys.path:
    sys.path.insert(0, _WIDGETS)
