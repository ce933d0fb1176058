"""The toolkit's parts alone: ``ToolGroups`` (``toolkit.grouping``) on a host that has only
``tools``, ``BackgroundTasks`` (``toolkit.background``) on its own; the toolkit's own tests
cover AgentScope's names, which hand over to them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from nb_hitl.tool import Toolkit, ToolResponse
from nb_hitl.tool._background import BackgroundTasks, background_owner
from nb_hitl.tool._groups import ToolGroups
from nb_hitl.tool._registered import RegisteredTool


def _tool(name: str, group: str) -> RegisteredTool:
    toolkit = Toolkit()
    if group != "basic":
        toolkit.create_tool_group(group, "g")

    def f() -> str:
        """Do it."""
        return "done"

    f.__name__ = name
    return toolkit.register_tool_function(f, group_name=group)


class Tools:
    def __init__(self, *tools: RegisteredTool) -> None:
        self.tools = {t.name: t for t in tools}


def test_groups_switch_offers_and_removing_a_group_removes_its_tools() -> None:
    search, files = _tool("search", "basic"), _tool("read", "files")
    host = Tools(search, files)
    groups = ToolGroups(host)
    groups.create_tool_group("files", "read files", notes="Paths are relative.")
    assert groups.is_offered(search) and not groups.is_offered(files)
    reply = groups.reset_equipped_tools(files=True)
    assert groups.is_offered(files) and "Paths are relative." in reply.get_text()
    groups.remove_tool_groups("files")
    assert list(host.tools) == ["search"] and "files" not in groups.groups


async def test_background_tasks_belong_to_the_reply_that_started_them() -> None:
    tasks = BackgroundTasks()
    assert not tasks and len(tasks) == 0  # what an interrupt checks before any work
    changes: list[int] = []
    unwatch = tasks.watch(lambda: changes.append(len(tasks.running)))

    async def slow() -> AsyncGenerator[ToolResponse, None]:
        await asyncio.sleep(30)
        yield ToolResponse(content=[])

    token = background_owner.set("reply-1")
    try:
        started = tasks.start("slow", slow)
    finally:
        background_owner.reset(token)
    [task] = tasks.running
    assert tasks and len(tasks) == 1
    assert task.owner == "reply-1" and task.task_id in started.get_text()
    assert await tasks.cancel_owned("reply-1") == [task.task_id]
    assert tasks.running == [] and changes == [1, 0] and not tasks
    result = await tasks.view_task(task.task_id)
    assert result.is_interrupted
    unwatch()
