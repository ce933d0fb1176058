"""``%load_ext nb_hitl`` in a real ipykernel (6.x and 7.x): Kernel ▸ Interrupt, magics, the
seed's ``asyncio.run(main())`` script, and unloading.

``KernelManager.interrupt_kernel()`` is exactly what JupyterLab's ■ (and ``I,I``) sends.
"""

from __future__ import annotations

import json
import time

import pytest
from kernel_harness import KernelHarness, chat_interrupted, chat_text

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = """
%load_ext nb_hitl
import asyncio, json
from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.widgets import AgentPanel
LONG = " ".join(f"word{i}" for i in range(3000))
agent = ReActAgent("Friday", "You are a test agent.",
                   ScriptedModel([LONG, "Resumed fine."], tokens_per_second=100))
"""

START_PANEL_REPLY = """
panel = AgentPanel(agent, session=None)
chat = panel.chat
chat.send("tell me a long story")
"""

MEMORY_VALID = """
m = agent.memory.messages
last = m[-1]
print(json.dumps({"n": len(m), "question": m[0].get_text_content(),
                  "partial": m[1].metadata.get("_partial"), "interrupted": last.is_interrupted,
                  "by": last.metadata.get("interrupted_by"),
                  "replying": agent.is_replying}))
"""


START_BACKGROUND = "task = asyncio.get_running_loop().create_task(agent(Msg('User', 'go', 'user')))"


def streaming(msg: dict) -> bool:
    return "word5 " in chat_text(msg)


def interrupts_seen(k: KernelHarness) -> int:
    out = k.execute("from nb_hitl.extension import _LOADED\nprint(_LOADED[id(get_ipython())]"
                    ".interrupt.interrupts)")  # fmt: skip
    return int(out.strip())


def wait_until(k: KernelHarness, expr: str, timeout: float = 30.0) -> None:
    """Poll a Python expression in the kernel until it is true (cells run between polls)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if k.execute(f"print(bool({expr}))").strip() == "True":
            return
        time.sleep(0.2)
    raise AssertionError(f"never true: {expr}")


def test_kernel_interrupt_while_idle_stops_a_background_reply(kernel: KernelHarness) -> None:
    kernel.execute(SETUP + START_PANEL_REPLY)
    kernel.wait_comm(streaming, timeout=30)
    kernel.km.interrupt_kernel()  # the notebook's ■ while no cell runs
    kernel.wait_comm(chat_interrupted, timeout=30)  # the panel shows it
    wait_until(kernel, "not agent.is_replying")
    state = json.loads(kernel.execute(MEMORY_VALID).strip())
    assert state == {"n": 3, "question": "tell me a long story", "partial": True,
                     "interrupted": True, "by": "kernel", "replying": False}  # fmt: skip
    assert kernel.execute("print(chat.state, chat.continue_button.disabled)").split() == [
        "idle",
        "False",
    ]
    # The agent resumes as after Stop.
    kernel.execute("chat.resume()")
    kernel.wait_comm(lambda m: "Resumed fine." in chat_text(m), timeout=30)


def test_kernel_interrupt_with_nothing_running_is_harmless_and_repeatable(
    kernel: KernelHarness,
) -> None:
    kernel.execute(SETUP)
    for _ in range(3):
        kernel.km.interrupt_kernel()
        time.sleep(0.3)
    end = time.monotonic() + 30
    while interrupts_seen(kernel) < 3:  # the handler really ran, three times
        assert time.monotonic() < end, "the kernel interrupts never reached nb_hitl's handler"
        time.sleep(0.2)
    assert kernel.execute("print(agent.is_replying, len(agent.memory.messages))").split() == [
        "False",
        "0",
    ]
    # Twice during one reply: exactly one interrupted message, the kernel still fine.
    kernel.execute(
        "task = asyncio.get_running_loop().create_task(agent(Msg('User', 'go', 'user')))"
    )
    wait_until(kernel, "agent._where == 'streaming'")
    kernel.km.interrupt_kernel()
    kernel.km.interrupt_kernel()
    wait_until(kernel, "task.done()")
    out = kernel.execute(
        "print(sum(m.is_interrupted for m in agent.memory.messages), task.result().metadata"
        "['interrupted_by'], task.exception() is None)"
    )
    assert out.split() == ["1", "kernel", "True"]
    assert interrupts_seen(kernel) >= 4  # two signals close together may arrive as one


def test_interrupt_while_a_cell_awaits_the_agent_cancels_the_cell(kernel: KernelHarness) -> None:
    kernel.execute(SETUP)
    cell = kernel.execute_nowait("reply = await agent(Msg('User', 'go', 'user'))")
    time.sleep(1.5)  # the awaiting cell is running; the reply streams
    kernel.km.interrupt_kernel()
    errors = []
    end = time.monotonic() + 30
    while time.monotonic() < end:
        msg = kernel._next(end)
        if msg["parent_header"].get("msg_id") != cell:
            continue
        if msg["msg_type"] == "error":
            errors.append(msg["content"]["ename"])
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    assert errors and errors[0] in ("KeyboardInterrupt", "CancelledError"), errors
    wait_until(kernel, "not agent.is_replying")
    out = kernel.execute(
        "last = agent.memory.messages[-1]\n"
        "print(last.is_interrupted, last.metadata['interrupted_by'], len(agent.memory.messages))"
    )
    assert out.split() == ["True", "cancelled", "3"]


SEED = """
import asyncio

from nb_hitl.agent import ReActAgent, UserAgent, ScriptedInput
from nb_hitl.formatter import DashScopeChatFormatter
from nb_hitl.memory import InMemoryMemory
from nb_hitl.model import ScriptedModel
from nb_hitl.tool import Toolkit


async def main():
    toolkit = Toolkit()
    agent = ReActAgent(
        name="Friday",
        sys_prompt="You're a helpful assistant named Friday.",
        model=ScriptedModel(["Hi, I am Friday.", "Bye."], tokens_per_second=200),
        memory=InMemoryMemory(),
        formatter=DashScopeChatFormatter(),
        toolkit=toolkit,
    )
    user = UserAgent(name="user", input_source=ScriptedInput(["Who are you?", "exit"]))
    msg = None
    while True:
        msg = await agent(msg)
        print(f"{agent.name}: {msg.get_text_content()}")
        msg = await user(msg)
        if msg.get_text_content() == "exit":
            break

asyncio.run(main())
"""


def test_the_seed_script_runs_in_a_cell_and_unload_undoes_everything(
    kernel: KernelHarness,
) -> None:
    before = kernel.execute(
        "import asyncio, signal\nk = get_ipython().kernel\n"
        "print(asyncio.run is asyncio.runners.run, k.saved_sigint_handler == signal.SIG_IGN,"
        " 'post_handler_hook' in vars(k))"
    )
    assert before.split() == ["True", "True", "False"]
    with pytest.raises(AssertionError, match="cannot be called from a running event loop"):
        kernel.execute(SEED)
    loaded = "from nb_hitl.extension import is_loaded\nprint(is_loaded(get_ipython()))"
    assert kernel.execute(loaded).strip() == "False"
    kernel.execute("%load_ext nb_hitl")
    assert kernel.execute(loaded).strip() == "True"
    out = kernel.execute(SEED)
    assert out.splitlines() == ["Friday: Hi, I am Friday.", "Friday: Bye."]
    # run_until_complete on the kernel's loop works too; other threads and loops are untouched.
    out = kernel.execute(
        "from concurrent.futures import ThreadPoolExecutor\n"
        "async def two():\n    await asyncio.sleep(0.01)\n    return 2\n"
        "print(asyncio.get_event_loop().run_until_complete(two()))\n"
        "with ThreadPoolExecutor(1) as pool:\n"
        "    print(pool.submit(asyncio.run, two()).result())\n"
        "own = asyncio.new_event_loop()\n"
        "print(type(own).run_until_complete is asyncio.BaseEventLoop.run_until_complete,"
        " 'run_until_complete' in vars(own), type(own).__name__)\nown.close()"
    )
    assert out.split() == ["2", "2", "True", "False", "_UnixSelectorEventLoop"]
    # Outside a cell's own code (a background task) asyncio.run is the real one.
    out = kernel.execute(
        "async def bg():\n"
        "    try:\n        asyncio.run(two())\n"
        "    except RuntimeError as e:\n        return str(e)\n"
        "print(await asyncio.get_running_loop().create_task(bg()))"
    )
    assert "cannot be called from a running event loop" in out
    kernel.execute("%unload_ext nb_hitl")
    assert kernel.execute(loaded).strip() == "False"
    after = kernel.execute(
        "print(asyncio.run is asyncio.runners.run, k.saved_sigint_handler == signal.SIG_IGN,"
        " 'post_handler_hook' in vars(k), 'run_until_complete' in vars(asyncio.get_event_loop()),"
        " type(asyncio.get_event_loop()).__name__)"
    )
    assert after.split() == ["True", "True", "False", "False", "_UnixSelectorEventLoop"]
    with pytest.raises(AssertionError, match="cannot be called from a running event loop"):
        kernel.execute(SEED)
    assert "UsageError" in cell_stderr(kernel, "%agents")
    # And the kernel interrupt no longer touches background replies.
    kernel.execute(SETUP.replace("%load_ext nb_hitl", "") + START_BACKGROUND)
    wait_until(kernel, "agent._where == 'streaming'")
    kernel.km.interrupt_kernel()
    time.sleep(1.0)
    assert kernel.execute("print(agent.is_replying)").strip() == "True"
    kernel.execute("await agent.interrupt()")


BLOCKING = """
async def main():
    first = await agent(Msg("User", "tell me a long story", "user"))
    print("first:", first.metadata.get("interrupted_by"))
    second = await agent(Msg("User", "go on", "user"))
    print("second:", second.get_text_content())

asyncio.run(main())
"""


def test_kernel_interrupt_during_a_blocking_asyncio_run_interrupts_the_agent(
    kernel: KernelHarness,
) -> None:
    kernel.execute(SETUP)
    cell = kernel.execute_nowait(BLOCKING)
    time.sleep(2.0)  # the script's first reply streams; the cell blocks
    kernel.km.interrupt_kernel()
    out, errors = [], []
    end = time.monotonic() + 60
    while time.monotonic() < end:
        msg = kernel._next(end)
        if msg["parent_header"].get("msg_id") != cell:
            continue
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            errors.append(msg["content"]["ename"])
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    assert not errors
    assert "".join(out).splitlines() == ["first: kernel", "second: Resumed fine."]
    # With no reply running, an interrupt ends the script's coroutine like a normal interrupt.
    cell = kernel.execute_nowait("asyncio.run(asyncio.sleep(30))")
    time.sleep(1.5)
    kernel.km.interrupt_kernel()
    with pytest.raises(AssertionError, match="KeyboardInterrupt"):
        _wait_cell(kernel, cell)
    assert kernel.execute("print('still fine')").strip() == "still fine"


def cell_stderr(k: KernelHarness, code: str) -> str:
    """Run a cell; return what it wrote to stderr (IPython prints a UsageError there)."""
    msg_id = k.execute_nowait(code)
    err: list[str] = []
    end = time.monotonic() + 60
    while True:
        msg = k._next(end)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream" and msg["content"]["name"] == "stderr":
            err.append(msg["content"]["text"])
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return "".join(err)


def _wait_cell(k: KernelHarness, msg_id: str) -> None:
    error = None
    end = time.monotonic() + 60
    while True:
        msg = k._next(end)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "error":
            error = msg["content"]["ename"]
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    if error:
        raise AssertionError(error)


def test_magics(kernel: KernelHarness) -> None:
    kernel.execute(SETUP)
    kernel.execute("%%ask agent\ntell me a long story")
    kernel.wait_comm(streaming, timeout=30)
    listing = kernel.execute("%agents")
    header, row = listing.splitlines()[:2]
    assert header.split()[:4] == ["variable", "name", "state", "tokens"]
    assert row.split()[:3] == ["agent", "Friday", "running"]
    assert kernel.execute("%stop agent").strip() == "Stopping Friday."
    kernel.wait_comm(chat_interrupted, timeout=30)
    wait_until(kernel, "not agent.is_replying")
    assert kernel.execute("%stop").strip() == "No agent is replying: nothing to stop."
    assert kernel.execute("%stop Friday").strip() == "Friday is not replying: nothing to stop."
    row = kernel.execute("%agents").splitlines()[1]
    assert row.split()[:3] == ["agent", "Friday", "idle"]
    assert "[interrupted]" in row
    # A second %%ask re-uses the chat: no second chat is displayed.
    out = kernel.execute("%%ask Friday\nPlease continue.")
    assert "Sent to Friday" in out
    kernel.wait_comm(lambda m: "Resumed fine." in chat_text(m), timeout=30)
    for bad, says in [
        ("%%ask nobody\nhi", "No agent called 'nobody'"),
        ("x = 3\n%stop x", "`x` is a int, not an agent"),
        ("%%ask agent\n   ", "Nothing to send"),
        ("%%ask\nhi", "Name the agent"),
    ]:
        assert says in cell_stderr(kernel, bad)


def test_the_seeds_empty_call_is_interrupted_in_a_cell(kernel7: KernelHarness) -> None:
    """The seed's example in a notebook cell under ``%load_ext nb_hitl``: ``agent()`` with no
    message on the demo model, ``sleep(1)``, ``interrupt()``: the reply is still running."""
    kernel7.execute(
        "%load_ext nb_hitl\n"
        "import asyncio\n"
        "from nb_hitl import Msg, ReActAgent, ScriptedModel\n"
        "agent = ReActAgent(name='Friday', sys_prompt=\"You're a helpful assistant named "
        'Friday.", model=ScriptedModel.demo())'
    )
    out = kernel7.execute(
        "task = asyncio.create_task(agent())\n"
        "await asyncio.sleep(1)\n"
        "await agent.interrupt()\n"
        "msg = await task\n"
        "print(msg.metadata.get('_is_interrupted'))"
    )
    assert out.strip() == "True"
    out = kernel7.execute(
        "msg = await agent(Msg('user', 'Please continue where you left off.', 'user'))\n"
        "print(msg.get_text_content()[:27])"
    )
    assert out.strip() == "Picking up where I left off"
