"""The hostile-input suite reuses the widget helpers and the fake OpenAI server."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in ("widgets", "model"):
    path = str(HERE.parent / folder)
    if path not in sys.path:
        sys.path.append(path)
