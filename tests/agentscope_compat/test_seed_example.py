"""The seed's complete example, an AgentScope 1.x script, run after renaming the package.

``SEED`` is written exactly as an AgentScope 1.x user writes it (ReActAgent + DashScopeChatModel,
interrupt a streaming answer, resume it, then the quickstart's user loop, ``asyncio.run(main())``).
The test changes one thing in the text: ``agentscope`` becomes ``nb_hitl``. The model is not
touched either: ``DashScopeChatModel`` talks to a real local HTTP server speaking the
OpenAI-compatible protocol, selected through ``DASHSCOPE_BASE_URL`` (the only way the test
differs from the real service), and the person's input comes from stdin, as in a terminal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fake_openai_server import FakeOpenAIServer, Scenario, Sse, text_chunks

SEED = """
import asyncio
import os

from agentscope.agent import ReActAgent, UserAgent
from agentscope.formatter import DashScopeChatFormatter
from agentscope.memory import InMemoryMemory
from agentscope.message import Msg
from agentscope.model import DashScopeChatModel
from agentscope.tool import Toolkit


async def main():
    toolkit = Toolkit()

    agent = ReActAgent(
        name="Friday",
        sys_prompt="You're a helpful assistant named Friday.",
        model=DashScopeChatModel(
            model_name="qwen-max",
            api_key=os.environ["DASHSCOPE_API_KEY"],
            stream=True,
        ),
        memory=InMemoryMemory(),
        formatter=DashScopeChatFormatter(),
        toolkit=toolkit,
    )

    # Start a long answer, interrupt it half-way, then resume the conversation.
    task = asyncio.create_task(
        agent(Msg("user", "Explain how interrupting an agent works.", "user"))
    )
    await asyncio.sleep(1)
    await agent.interrupt()
    msg = await task
    print("interrupted:", msg.metadata.get("_is_interrupted"))

    user = UserAgent(name="user")

    msg = Msg("user", "Please continue where you left off.", "user")
    while True:
        msg = await agent(msg)
        msg = await user(msg)
        if msg.get_text_content() == "exit":
            break


asyncio.run(main())
"""

LONG = Sse(text_chunks([f"part {i} of a long explanation. " for i in range(400)]), delay=0.05)
RESUMED = Sse(text_chunks(["Picking up ", "where I left off: ", "the end."]))


class ByLastMessage(list):  # type: ignore[type-arg]
    """The server's answers for "qwen-max": the long answer to the question, the short one to
    "Please continue". Chosen by the request itself, because the seed's ``sleep(1)`` may end
    before the first request is even sent on a busy machine (the interrupt then lands before
    the first step, which is fine, and there is one request less)."""

    def __init__(self, server: FakeOpenAIServer) -> None:
        super().__init__([LONG, RESUMED])
        self.server = server

    def __getitem__(self, index: object) -> Sse:  # type: ignore[override]
        last = self.server.requests_for("qwen-max")[-1].body["messages"][-1]
        return RESUMED if "Please continue" in json.dumps(last) else LONG


def test_the_seed_example_runs_unchanged_after_renaming_the_package(
    fake_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_server.add(Scenario(ByLastMessage(fake_server)), name="qwen-max")
    script = tmp_path / "seed.py"
    script.write_text(SEED.replace("agentscope", "nb_hitl"), encoding="utf-8")
    env = {
        **os.environ,
        "DASHSCOPE_API_KEY": "sk-local-test-key-not-real",
        "DASHSCOPE_BASE_URL": fake_server.base_url,
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("NB_HITL_DISABLE_CONSOLE_OUTPUT", None)
    env.pop("AGENTSCOPE_DISABLE_CONSOLE_OUTPUT", None)

    run = subprocess.run(
        [sys.executable, str(script)],
        input="exit\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )

    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert (
        "Friday: [Interrupted] The agent was interrupted by the user.\ninterrupted: True\n" in out
    )
    assert "Friday: Picking up where I left off: the end.\n" in out  # printed as it streamed
    assert out.endswith("user: exit\n")  # the person's turn, read from stdin
    assert "sk-local-test-key-not-real" not in out + run.stderr
    requests = fake_server.requests_for("qwen-max")
    resumed = requests[-1].body
    assert resumed["stream"] is True
    # The resumed request carries the interrupted turn: the question, the partial answer (if
    # any had streamed), the interrupted message, then the new instruction.
    texts = [json.dumps(m.get("content")) for m in resumed["messages"]]
    assert "Explain how interrupting" in texts[1]
    assert "Interrupted" in texts[-2]
    assert "Please continue where you left off." in texts[-1]
    if len(requests) == 2:  # the interrupt landed while the first answer streamed
        assert not requests[0].completed  # and closed that stream
    else:
        assert len(requests) == 1
