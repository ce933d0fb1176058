"""A corpus of malformed session files: each is a ``SessionError`` naming what is wrong, and
the live agent and the panel showing it are exactly as before.

Saving is refused just as cleanly: an unpaired surrogate in memory, a NUL byte in the path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from widget_helpers import act, all_html

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.exceptions import SessionError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit
from nb_hitl.widgets import AgentPanel

Doc = dict[str, Any]


def toolkit() -> Toolkit:
    kit = Toolkit()

    def lookup(word: str) -> str:
        """Look a word up.

        Args:
            word: the word.
        """
        return f"{word}: found"

    kit.register_tool_function(lookup)
    return kit


def make_agent(script: list[Any] | None = None) -> ReActAgent:
    agent = ReActAgent(
        "Friday",
        "You are the live agent.",
        ScriptedModel(script or [], tokens_per_second=5000),
        toolkit=toolkit(),
        compression_config=CompressionConfig(trigger_threshold=777, keep_recent=2),
    )
    return agent


def fingerprint(agent: ReActAgent) -> str:
    """Everything a load could change."""
    cfg = agent.compression_config
    return json.dumps(
        {
            "state": agent.state_dict(),
            "log": agent.approval_log,
            "allowed": sorted(agent.always_allowed),
            "compression": None if cfg is None else [cfg.trigger_threshold, cfg.keep_recent,
                                                      cfg.summary_template],
            "settings": [agent.sys_prompt, agent.max_iters, agent.interrupt_text,
                         agent.parallel_tool_calls],
        },
        sort_keys=True,
    )  # fmt: skip


@pytest.fixture
async def good_file(tmp_path: Path) -> Path:
    """A valid session saved by an agent that talked and used a tool."""
    agent = make_agent(
        [ScriptedTurn(text="Looking.", tool_calls=[ScriptedToolCall("lookup", {"word": "x"})]),
         "Done."]
    )  # fmt: skip
    await agent(Msg("User", "look x up", "user"))
    agent.approval_log.append(
        {"call_id": "c0", "tool_name": "lookup", "input": {"word": "x"}, "decision": "approved",
         "arguments": None, "reason": ""}
    )  # fmt: skip
    return agent.save_session(tmp_path / "good.json")


def set_path(doc: Doc, dotted: str, value: Any) -> Doc:
    node: Any = doc
    *parents, last = dotted.split(".")
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


def edit(dotted: str, value: Any) -> Callable[[str], str]:
    return lambda text: json.dumps(set_path(json.loads(text), dotted, value))


def raw(text: str) -> Callable[[str], str]:
    return lambda _good: text


HUGE_INT = "9" * 5000
CORPUS: list[tuple[str, Callable[[str], str], str]] = [
    ("deep nesting", raw("[" * 100_000), "nested too deeply"),
    ("deep nesting inside", lambda t: t[:-2] + ', "x": ' + "[" * 100_000 + "}", "too deeply"),
    ("huge integer", lambda t: t.rstrip()[:-1] + f', "n": {HUGE_INT}}}', "over 4,300 digits"),
    ("NaN", lambda t: t.rstrip()[:-1] + ', "n": NaN}', "NaN"),
    ("empty", raw(""), "not valid JSON"),
    ("a list", raw("[1, 2]"), "not an nb_hitl session file"),
    ("null", raw("null"), "not an nb_hitl session file"),
    # the field then ": " (every message ends "The agent is unchanged": "agent" alone is in all)
    ("no agent", edit("agent", None), "agent: "),
    ("approvals 5", edit("transcript.approvals", 5), "transcript.approvals"),
    ("approvals of ints", edit("transcript.approvals", [1, 2]), "transcript.approvals[0]"),
    ("approvals abc", edit("transcript.approvals", "abc"), "transcript.approvals"),
    ("approval entry typed wrong", edit("transcript.approvals.0.call_id", 7), "call_id"),
    ("transcript abc", edit("transcript", "abc"), "transcript: "),
    ("transcript list", edit("transcript", [1, 2]), "transcript: "),
    ("interrupt_text 42", edit("agent.state.interrupt_text", 42), "agent.state.interrupt_text"),
    ("sys_prompt dict", edit("agent.state.sys_prompt", {"a": 1}), "agent.state.sys_prompt"),
    ("max_iters 0", edit("agent.state.max_iters", 0), "agent.state.max_iters"),
    ("max_iters text", edit("agent.state.max_iters", "10"), "agent.state.max_iters"),
    ("max_iters huge", edit("agent.state.max_iters", True), "agent.state.max_iters"),
    ("parallel yes", edit("agent.state.parallel_tool_calls", "yes"), "parallel_tool_calls"),
    ("content abc", edit("agent.state.memory.content", "abc"), "agent.state.memory.content"),
    ("bad role", edit("agent.state.memory.content.0.0.role", "wizard"), "content[0][0].role"),
    ("content int", edit("agent.state.memory.content.1.0.content", 5), "content[1][0].content"),
    ("summary int", edit("agent.state.memory._compressed_summary", 5),
     "agent.state.memory._compressed_summary"),
    ("marks text", edit("agent.state.memory.content.0.1", "x"), "content[0][1]"),
    ("old shape: marks list", edit("agent.state.memory", {"messages": [], "marks": ["x"]}),
     "agent.state.memory.marks"),
    ("allowed text", edit("agent.state.approvals.always_allowed", "lookup"), "always_allowed"),
    ("parked abc", edit("agent.state.approvals.parked", "abc"), "approvals.parked"),
    ("template padding", edit("compression.summary_template", "{task_overview:>5000000}"),
     "compression.summary_template"),
    ("template attribute", edit("compression.summary_template", "{task_overview.__class__}"),
     "compression.summary_template"),
    ("template brace", edit("compression.summary_template", "{"),
     "compression.summary_template"),
    ("threshold text", edit("compression.trigger_threshold", "100"),
     "compression.trigger_threshold"),
    ("threshold negative", edit("compression.trigger_threshold", -5),
     "compression.trigger_threshold"),
    ("compression list", edit("compression", [1]), "compression: "),
    ("schema bool", edit("schema_version", True), "schema_version"),
    ("surrogate", lambda t: t.replace("look x up", "look \\udcff up"), "unpaired surrogate"),
]  # fmt: skip


def write_bad(good: Path, bad: Path, mutate: Callable[[str], str]) -> None:
    bad.write_text(mutate(good.read_text("utf-8")), "utf-8")


@pytest.mark.parametrize(("mutate", "where"), [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS])
async def test_a_malformed_file_is_refused_naming_the_field_and_nothing_changes(
    good_file: Path, tmp_path: Path, mutate: Callable[[str], str], where: str
) -> None:
    live = make_agent(["Live reply."])
    await live(Msg("User", "live question", "user"))
    live.approval_log.append({"call_id": "live", "tool_name": "lookup", "input": {},
                              "decision": "denied", "arguments": None, "reason": "no"})  # fmt: skip
    panel = AgentPanel(live, inspector=False, session=tmp_path / "bad.json")
    assert panel.session is not None
    before, chat, html_before = fingerprint(live), panel.chat, all_html(panel.chat)
    write_bad(good_file, tmp_path / "bad.json", mutate)

    with pytest.raises(SessionError) as info:
        live.load_session(tmp_path / "bad.json")
    assert where in str(info.value) and "unchanged" in str(info.value)
    assert fingerprint(live) == before

    for confirm in (False, True):  # Load, and Load confirmed over the conversation
        assert panel.session.load(confirm=confirm) is None
        assert "nb-hitl-approval-error" in panel.session.note
        assert fingerprint(live) == before
    assert panel.chat is chat and all_html(panel.chat) == html_before
    panel.close()


async def test_the_good_file_of_the_corpus_loads(good_file: Path) -> None:
    live = make_agent()
    info = live.load_session(good_file)
    assert [m.get_text_content() for m in live.memory.messages][-1] == "Done."
    assert info.transcript["approvals"][0]["call_id"] == "c0"
    assert live.approval_log[0]["call_id"] == "c0"


async def test_a_lone_surrogate_in_memory_is_a_clear_save_error(tmp_path: Path) -> None:
    kit = Toolkit()

    def listing() -> str:
        """List a folder whose file name is not valid UTF-8."""
        return b"bad\xffname".decode("utf-8", "surrogateescape")

    kit.register_tool_function(listing)
    agent = ReActAgent(
        "Friday",
        "sys",
        ScriptedModel([ScriptedTurn(tool_calls=[ScriptedToolCall("listing", {})]), "Listed."]),
        toolkit=kit,
    )
    await agent(Msg("User", "list", "user"))
    target = tmp_path / "s.json"
    target.write_text("previous", "utf-8")
    with pytest.raises(SessionError, match="unpaired surrogate") as info:
        agent.save_session(target)
    assert "memory.content[" in str(info.value)  # names the message
    assert target.read_text("utf-8") == "previous"
    panel = AgentPanel(agent, inspector=False, session=target)
    assert panel.session is not None and panel.session.save() is False
    assert "unpaired surrogate" in panel.session.note
    panel.close()


@pytest.mark.parametrize("action", ["save", "load"])
async def test_a_nul_byte_in_the_path_is_a_clear_error_in_the_bar(
    tmp_path: Path, action: str
) -> None:
    agent = make_agent()
    before = fingerprint(agent)
    bad = str(tmp_path / "a\x00b.json")
    with pytest.raises(SessionError, match="NUL character"):
        getattr(agent, f"{action}_session")(bad)
    panel = AgentPanel(agent, inspector=False, session=bad)
    assert panel.session is not None
    act(panel.parts, "session", name=action)
    assert "NUL character" in panel.session.note
    assert fingerprint(agent) == before
    panel.close()


@pytest.mark.parametrize("text", ["[" * 100_000, '{"agent": ' + "9" * 5000 + "}"])
async def test_json_session_refuses_unreadable_json_cleanly(tmp_path: Path, text: str) -> None:
    from nb_hitl.session import JSONSession

    (tmp_path / "s1.json").write_text(text, "utf-8")
    agent = make_agent()
    before = fingerprint(agent)
    with pytest.raises(SessionError, match="corrupted"):
        await JSONSession(save_dir=str(tmp_path)).load_session_state("s1", agent=agent)
    assert fingerprint(agent) == before


@pytest.mark.parametrize(
    ("field", "value"),
    [("interrupt_text", 42), ("sys_prompt", {"a": 1}), ("max_iters", 0), ("max_iters", "10")],
)
async def test_json_session_refuses_wrong_typed_agent_settings(
    tmp_path: Path, field: str, value: Any
) -> None:
    from nb_hitl.session import JSONSession

    agent = make_agent()
    session = JSONSession(save_dir=str(tmp_path))
    await session.save_session_state("s1", agent=agent)
    path = tmp_path / "s1.json"
    doc = json.loads(path.read_text("utf-8"))
    doc["agent"][field] = value
    path.write_text(json.dumps(doc), "utf-8")
    before = fingerprint(agent)
    with pytest.raises(SessionError, match=field):
        await session.load_session_state("s1", agent=agent)
    assert fingerprint(agent) == before


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
async def test_json_session_refuses_what_it_never_writes(tmp_path: Path, constant: str) -> None:
    from nb_hitl.module import StateModule
    from nb_hitl.session import JSONSession

    class Gauge(StateModule):
        def __init__(self) -> None:
            super().__init__()
            self.level = 1.0
            self.register_state("level")

    gauge, session = Gauge(), JSONSession(save_dir=str(tmp_path))
    await session.save_session_state("s1", gauge=gauge)
    (tmp_path / "s1.json").write_text(f'{{"gauge": {{"level": {constant}}}}}', "utf-8")
    with pytest.raises(SessionError, match=f"the number {constant} is not allowed"):
        await session.load_session_state("s1", gauge=gauge)
    assert gauge.level == 1.0
    await session.save_session_state("s1", gauge=gauge)  # and saving still works
