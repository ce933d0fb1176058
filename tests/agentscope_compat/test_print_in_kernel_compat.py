"""``agent.print`` in a real ipykernel: off by default, once per message when turned on.

AgentScope prints every streamed chunk to the console. In a notebook a reply usually runs as a
background task, so that output would land in whichever cell runs at the time and, per chunk,
flood the iopub channel; nb_hitl keeps console output off inside a kernel (the widgets show the
reply) and, when turned on, prints each message once, complete.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernel"))
from kernel_harness import KernelHarness

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = """
from nb_hitl.agent import ReActAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
TEXT = " ".join(f"word{i}" for i in range(200))
agent = ReActAgent(name="Friday", sys_prompt="Test.",
                   model=ScriptedModel([TEXT, TEXT], tokens_per_second=5000))
seen = []
agent.register_instance_hook("pre_print", "count", lambda self, kwargs: seen.append(kwargs["last"]))
"""


def test_console_output_in_a_kernel() -> None:
    kernel = KernelHarness(sys.executable)
    try:
        kernel.execute(SETUP)
        # differs on purpose: off by default in a kernel (AgentScope prints every chunk).
        out = kernel.execute("reply = await agent(Msg('user', 'hi', 'user'))")
        assert out == ""
        assert kernel.execute("print(len(seen) > 10, seen.count(True))") == "True 1\n"
        msg_id = kernel.kc.execute(
            "agent.set_console_output_enabled(True)\n"
            "reply = await agent(Msg('user', 'again', 'user'))"
        )
        out = kernel.execute("print('end')")
        streams = [
            m["content"]["text"]
            for _, m in kernel.log
            if m["msg_type"] == "stream" and m["parent_header"].get("msg_id") == msg_id
        ]
        text = " ".join(f"word{i}" for i in range(200))
        assert "".join(streams) == f"Friday: {text}\n"
        assert len(streams) <= 2  # one message, not one per chunk
        assert out == "end\n"
    finally:
        kernel.close()
