"""The hostile-input suite reuses the widget helpers (and tests/conftest.py's fake server)."""

from __future__ import annotations

import sys
from pathlib import Path

WIDGET_TESTS = str(Path(__file__).resolve().parent.parent / "widgets")
if WIDGET_TESTS not in sys.path:
    sys.path.append(WIDGET_TESTS)
