"""The memory inspector shows the provider's prompt tokens next to nb_hitl's own count."""

from __future__ import annotations

from typing import Any

from fake_openai_server import FakeOpenAIServer, Scenario, Sse, text_chunks, usage_chunk

from nb_hitl import Msg, ReActAgent
from nb_hitl.model import check_prompt_tokens
from nb_hitl.widgets import MemoryInspector


async def test_inspector_rows_show_provider_usage_drift(
    fake_server: FakeOpenAIServer, make_model: Any
) -> None:
    name = fake_server.add(Scenario([Sse([*text_chunks(["Hi!"]), usage_chunk(31, 2)])]))
    agent = ReActAgent("Friday", "You are helpful.", make_model(name))
    reply = await agent(Msg("User", "Say hi.", "user"))
    inspector = MemoryInspector(agent)
    try:
        inspector.refresh()
        table = inspector.state["table"]
        check = check_prompt_tokens(agent, reply)
        assert check is not None
        row = table.split(f'data-id="{reply.id}"', 1)[1].split("</tr>", 1)[0]
        assert 'class="nb-hitl-provider"' in row
        assert f"provider 31 · nb_hitl {check.counted}" in row
        user_row = table.split(f'data-id="{agent.memory.messages[0].id}"', 1)[1].split("</tr>")[0]
        assert "nb-hitl-provider" not in user_row  # only replies with reported usage
    finally:
        inspector.close()
