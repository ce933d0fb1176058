"""The committed front-end bundles (nb_hitl/widgets/static) equal a fresh build of js/src.

Users installing from git get the bundles without Node.js, so they are committed; this test
(and ``npm run check-build`` in ``scripts/test``) fails the moment they drift from the source.
It needs Node.js and ``npm ci`` in ``js/`` (``scripts/test`` does both); it never skips.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "js"


def test_committed_bundles_equal_a_fresh_build():
    node = shutil.which("node") or shutil.which("nodejs")
    assert node is not None, "Node.js is missing: apt-get install nodejs npm (scripts/test does)"
    assert (JS / "node_modules" / "esbuild").is_dir(), "run `npm ci` in js/ (scripts/test does)"
    done = subprocess.run(
        [node, "build.mjs", "--check"], cwd=JS, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_panel_bundle_a_widget_names_exists():
    from nb_hitl.widgets._model import STATIC

    sources = sorted(p.stem for p in (JS / "src").glob("*.js"))
    built = sorted(p.stem for p in STATIC.glob("*.js")) if STATIC.is_dir() else []
    assert built == sources
