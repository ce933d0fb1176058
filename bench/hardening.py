"""Benchmark: what the hardening costs (redaction, the session secret guard, load validation).

Run: ``python bench/hardening.py [--messages 500] [--repeat 30]``

Printed figures (median and p99, in ms):

- ``redact()`` of a 300-character server message and of 1 MB of text, with 3 secrets
  (fragment-aware: every run of 8+ leading characters of a secret is found);
- the session file's secret guard on a saved session (every secret, fragments included);
- ``load_session`` of a ``--messages``-message session: the whole file checked against the
  pydantic schema, then loaded, next to plain ``json.loads`` of the same text;
- drawing a 1 MB user message collapsed vs. whole.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99, timed

from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.model._secrets import redact
from nb_hitl.session._session import _check_no_secret

SECRETS = ("sk-test-SECRET-MARKER-7f3e9a1b2c4d5e6f", "AIzaURLSECRETMARKER01234", "pw-URL-4242-xyz")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    short = "x" * 270 + f" you sent {SECRETS[0]} which is wrong"
    big = ("lorem ipsum dolor sit amet sk-test- consectetur\n" * 22_000)[:1_000_000]
    print(f"redact, 300-char message:   {median_p99(timed(lambda: redact(short, SECRETS), 200))}")
    print(f"redact, 1 MB text:          {median_p99(timed(lambda: redact(big, SECRETS), 20))}")

    for i, secret in enumerate(SECRETS):  # secrets the guard must look for, fragments too
        os.environ[f"NB_HITL_BENCH_{i}_API_KEY"] = secret
    agent = ReActAgent("Friday", "sys", ScriptedModel([]))
    for i in range(args.messages):
        role = "user" if i % 2 == 0 else "assistant"
        agent.memory.add_sync(Msg(role, f"message {i} " + "word " * 120, role))
    with tempfile.TemporaryDirectory() as folder:
        path = agent.save_session(Path(folder) / "s.json")
        text = path.read_text("utf-8")
        size = len(text.encode()) / 1e6
        guard = timed(lambda: _check_no_secret(agent, text), args.repeat)
        print(f"secret guard, {size:.1f} MB session: {median_p99(guard)}")
        fresh = ReActAgent("Friday", "sys", ScriptedModel([]))
        loads = timed(lambda: json.loads(text), args.repeat)
        load = timed(lambda: fresh.load_session(path), args.repeat)
        print(f"json.loads, {args.messages} messages:  {median_p99(loads)}")
        print(f"load_session (validated):   {median_p99(load)}")

    from nb_hitl._render import msg_html
    from nb_hitl.widgets._collapsed import CollapsedMessage

    paste = Msg("User", big, "user")
    collapsed = timed(lambda: CollapsedMessage(paste).close(), 10)
    whole = timed(lambda: msg_html(paste), 10)
    print(f"1 MB message, collapsed row: {median_p99(collapsed)}")
    print(f"1 MB message, whole HTML:    {median_p99(whole)}")


if __name__ == "__main__":
    main()
