"""Each served agent can keep its permission rules in a file of its own (issue 33)."""

from __future__ import annotations

import json
from pathlib import Path

from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.serve import AgentServer
from nb_hitl.tool import Toolkit


def make_agent(thread_id: str) -> ReActAgent:
    toolkit = Toolkit()

    def deploy(env: str) -> str:
        """Deploy.

        Args:
            env: where.
        """
        return env

    toolkit.register_tool_function(deploy, needs_approval=True)
    return ReActAgent(thread_id, "T.", ScriptedModel([]), toolkit=toolkit)


async def test_each_thread_agent_reads_and_writes_its_own_rules_file(
    tmp_path: Path, user_config_dir: Path
) -> None:
    server = AgentServer(make_agent, permissions_file=lambda t: tmp_path / f"{t}.json")
    try:
        first = (await server.threads.slot("alpha")).agent
        second = (await server.threads.slot("beta")).agent
        first.permissions.allow("deploy", {"env": "staging"}, scope="always")
        saved = json.loads((tmp_path / "alpha.json").read_text("utf-8"))
        assert [r["tool"] for r in saved["rules"]] == ["deploy"]
        assert not (user_config_dir / "permissions.json").exists()  # not the process-wide one
        assert [r.source for r in first.permissions.rules] == ["file"]
        assert second.permissions.rules == []
    finally:
        await server.aclose()
