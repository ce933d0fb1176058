"""Running a walkthrough as a reader would: Run All in the walkthrough environment's kernel,
then the reader's own use of its panels (send, Stop, Continue, Next round), in the same kernel."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"

WHERE = """
import sys
assert sys.prefix == {prefix!r}, f"not the walkthrough environment: {{sys.prefix}}"
"""

UNTIL = """
async def reader_until(check, timeout=60):
    for _ in range(int(timeout / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise TimeoutError(f"the panel never answered: {check}")


def reader_idle(chat):
    return chat.state == "idle" and not chat.agent.is_replying
"""

READER = {
    "01_interrupt_and_resume.ipynb": """
panel.chat.input.value = "What is steering?"           # typed, then Send
panel.chat.send_button.click()
await reader_until(lambda: reader_idle(panel.chat))
assert panel_agent.memory.messages[-1].get_text_content().startswith("Steering changes")

panel.chat.send("How does interrupting an agent work?")
await wait_for_event(panel_agent, answer_streaming(60))
panel.chat.stop_button.click()                           # Stop
await reader_until(lambda: reader_idle(panel.chat))
assert panel_agent.memory.messages[-1].is_interrupted
panel.chat.continue_button.click()                       # Continue
await reader_until(lambda: reader_idle(panel.chat))
assert panel_agent.memory.messages[-1].metadata["continued_by"] == "assistant_prefix"

reloaded.chat.send("What is steering?")
await reader_until(lambda: reader_idle(reloaded.chat))
assert fresh.memory.messages[-1].get_text_content().startswith("Steering changes")
""",
    "02_tools_and_human_input.ipynb": """
chat.send("What is a reply task?")
await wait_for_event(helper, lambda e: e.kind == "reply_finished", timeout=60)
await reader_until(lambda: reader_idle(chat))
last = helper.memory.messages[-1]
assert last.role == "assistant" and last.get_text_content() and not last.is_interrupted
""",
    "03_compression_explorer.ipynb": """
explorer.threshold = 6_000                               # the explorer's slider
assert explorer.replay.compressions >= 1 and explorer.replay.peak_prompt_tokens <= 12_000
inspector.refresh()
""",
    "04_real_models.ipynb": """
reader_panel = nb_hitl.show(agent, session=None)
reader_panel.chat.send("One more story, please.")
await reader_until(lambda: reader_idle(reader_panel.chat))
last = agent.memory.messages[-1]
assert last.role == "assistant" and last.get_text_content() and not last.is_interrupted
flaky_panel.chat.send("Try again?")                       # the broken stream: an error again
await reader_until(lambda: flaky_panel.chat.state == "error" and not flaky.is_replying)
""",
    "05_approvals_and_sessions.ipynb": """
for reader_panel in (panel, q_panel):                    # their scripts are played out
    reader_panel.chat.send("Thanks! What else can you do?")
    await reader_until(lambda: reader_idle(reader_panel.chat))
    last = reader_panel.agent.memory.messages[-1]
    assert last.role == "assistant" and last.get_text_content(), last
    assert "Error" not in reader_panel.chat.status.text(), reader_panel.chat.status.text()
""",
    "06_multi_agent.ipynb": """
before = {a.name: len(a.memory.messages) for a in participants}
panel.runs.next_button.click()                           # Next round
await panel.wait()
assert panel.outcome == "finished", panel.outcome
spoke = [m.name for m in mia.memory.messages[before["Mia"]:]]
assert {"Ada", "Ben", "Mia"} <= set(spoke), spoke         # each speaks once more
texts = [m.get_text_content() for m in mia.memory.messages[before["Mia"]:]]
assert len(texts) == len(set(texts)), texts               # nobody repeats another's text
""",
    "07_remote_agents.ipynb": """
chars = streamed_chars(again)
again_panel.chat.send("Tell me about interruptions.")   # after Run All the servers still serve
await until(lambda: chars() > 80)
again_panel.chat.stop_button.click()
await settled(again_panel)
assert again.memory.messages[-1].is_interrupted
again_panel.chat.continue_button.click()
await settled(again_panel)
assert again.memory.messages[-1].metadata.get("continued_from")
graph_panel.chat.send("Hello again, graph!")
await settled(graph_panel)
assert graph.memory.messages[-1].get_text_content().startswith("You said: Hello again, graph!")
await stop_servers()                                     # what the reader runs on purpose
""",
}
"""What a reader does with each notebook's panels after Run All (run in the same kernel)."""


def run_walkthrough(name: str, kernel: str, cwd: Path = NOTEBOOKS) -> nbformat.NotebookNode:
    """Run all of ``name`` in ``kernel``, then the reader's use of its panels; the notebook
    with its outputs (an error in any cell fails, naming the cell)."""
    from jupyter_client.kernelspec import KernelSpecManager

    python = Path(KernelSpecManager().get_kernel_spec(kernel).argv[0])
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(WHERE.format(prefix=str(python.parent.parent))))
    nb.cells.append(nbformat.v4.new_code_cell(UNTIL + READER[name]))
    NotebookClient(
        nb, timeout=180, kernel_name=kernel, resources={"metadata": {"path": str(cwd)}}
    ).execute()
    return nb


def outputs_text(nb: nbformat.NotebookNode) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)
