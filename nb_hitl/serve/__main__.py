"""``python -m nb_hitl.serve module:factory --host 127.0.0.1 --port 8000 [--token T]``."""

from __future__ import annotations

import sys

from nb_hitl.serve._cli import main

if __name__ == "__main__":
    sys.exit(main())
