"""Sessions: round trips (parked approvals included), atomic writes, bad files, no secrets."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.events import ApprovalDecided, ApprovalRequested, Event
from nb_hitl.exceptions import ApprovalError, SessionError
from nb_hitl.memory import PINNED
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.session import SCHEMA_VERSION, load_session, read_session, save_session
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.token import TokenCounter
from nb_hitl.tool import Toolkit


def user(text: str) -> Msg:
    """A user message."""
    return Msg("User", text, "user")


REPO = Path(__file__).resolve().parents[2]


class Tools:
    def __init__(self) -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []

    def toolkit(self) -> Toolkit:
        toolkit = Toolkit()

        def send_email(to: str, body: str) -> str:
            """Send an email.

            Args:
                to: the address.
                body: the text.
            """
            self.ran.append(("send_email", {"to": to, "body": body}))
            return f"sent to {to}"

        def lookup(word: str) -> str:
            """Look a word up.

            Args:
                word: the word.
            """
            self.ran.append(("lookup", {"word": word}))
            return f"{word}: a word"

        toolkit.register_tool_function(send_email, needs_approval=True)
        toolkit.register_tool_function(lookup)
        return toolkit


def make(tools: Tools, script: list[Any], **kwargs: Any) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=5000)
    return ReActAgent("Friday", "You help with email.", model, toolkit=tools.toolkit(), **kwargs)


def dump(agent: ReActAgent) -> list[dict[str, Any]]:
    return [m.to_dict() for m in agent.memory.messages]


def state_of(agent: ReActAgent) -> str:
    return json.dumps(agent.state_dict(), sort_keys=True)


PARKING_TURN = ScriptedTurn(
    text="I will email both and look one thing up.",
    tool_calls=[
        ScriptedToolCall("send_email", {"to": "ann@example.com", "body": "hi"}, id="e1"),
        ScriptedToolCall("lookup", {"word": "hello"}, id="l1"),
        ScriptedToolCall("send_email", {"to": "bob@example.com", "body": "yo"}, id="e2"),
    ],
)


async def park(agent: ReActAgent, text: str = "Email Ann and Bob.") -> asyncio.Task[Msg]:
    task = asyncio.create_task(agent(user(text)))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    await asyncio.sleep(0)
    return task


async def test_round_trip_keeps_memory_marks_summary_settings_and_allow_list(
    tmp_path: Path,
) -> None:
    tools = Tools()
    agent = make(tools, ["Hello there.", "Second answer."], max_iters=4)
    await agent(user("Hi"))
    await agent(user("Again"))
    first = agent.memory.messages[0]
    agent.memory.update_marks_sync(PINNED, msg_ids=[first.id])
    agent.memory.summary = "Earlier we talked about email."
    agent.always_allowed.add("lookup")
    path = save_session(agent, tmp_path / "s.json")

    other = make(Tools(), [])
    info = other.load_session(path)
    assert dump(other) == dump(agent)
    assert other.memory.marks_of(first.id) == {PINNED}
    assert other.memory.summary == "Earlier we talked about email."
    assert other.max_iters == 4 and other.sys_prompt == "You help with email."
    assert other.always_allowed == {"lookup"}
    assert (info.agent_name, info.pending_approvals, info.parked_calls) == ("Friday", 0, 0)
    assert read_session(path)["schema_version"] == SCHEMA_VERSION
    # the loaded conversation goes on, and the model sees the old context
    other.model.script.append(ScriptedTurn(text="Third."))  # type: ignore[attr-defined]
    assert (await other(user("And now?"))).get_text_content() == "Third."
    prompt = other.model.calls[-1].messages  # type: ignore[attr-defined]
    assert [m["content"] for m in prompt if m["role"] == "assistant"] == [
        "Hello there.",
        "Second answer.",
    ]
    assert "Earlier we talked about email." in prompt[0]["content"]


async def test_a_schema_1_file_with_the_older_memory_shape_still_loads(tmp_path: Path) -> None:
    agent = make(Tools(), ["Hello there."])
    await agent(user("Hi"))
    first = agent.memory.messages[0]
    agent.memory.update_marks_sync(PINNED, msg_ids=[first.id])
    doc = json.loads(save_session(agent, tmp_path / "s.json").read_text(encoding="utf-8"))
    state = doc["agent"]["state"]["memory"]
    doc["schema_version"] = 1
    doc["agent"]["state"]["memory"] = {  # what nb_hitl wrote before schema 2
        "messages": [m for m, _marks in state["content"]],
        "marks": {first.id: [PINNED]},
        "summary": "old summary",
    }
    other = make(Tools(), [])
    other.load_session(write(tmp_path / "old.json", doc))
    assert dump(other) == dump(agent)
    assert other.memory.marks_of(first.id) == {PINNED}
    assert other.memory.summary == "old summary"


async def test_pending_approvals_survive_a_restart_and_approving_after_load_resumes(
    tmp_path: Path,
) -> None:
    tools = Tools()
    agent = make(tools, [PARKING_TURN])
    task = await park(agent)
    agent.deny("e2", "Bob is on holiday")  # one decision made before the save
    path = agent.save_session(tmp_path / "parked.json")  # saving while parked is allowed
    saved = read_session(path)["agent"]["state"]["approvals"]["parked"]
    assert [p["call"]["id"] for p in saved] == ["e1", "l1", "e2"]
    assert [p["needs_approval"] for p in saved] == [True, False, True]
    assert saved[2]["decision"]["kind"] == "denied"
    await agent.interrupt()  # the old kernel goes away
    await task

    new_tools = Tools()
    restarted = make(new_tools, ["Emailed Ann; Bob is on holiday."])
    events: list[Event] = []
    restarted.subscribe(events.append)
    info = restarted.load_session(path)
    assert (info.pending_approvals, info.parked_calls) == (1, 3)
    assert [p.call_id for p in restarted.pending_approvals] == ["e1"]
    assert restarted.is_waiting_for_approval and not restarted.is_replying
    with pytest.raises(ApprovalError, match="already decided: denied at"):
        restarted.approve("e2")
    restarted.approve("e1", {"to": "ann@example.com", "body": "hello Ann"})
    reply = await restarted.resume_pending()
    assert reply.get_text_content() == "Emailed Ann; Bob is on holiday."
    assert new_tools.ran == [
        ("send_email", {"to": "ann@example.com", "body": "hello Ann"}),
        ("lookup", {"word": "hello"}),
    ]
    model = restarted.model
    assert isinstance(model, ScriptedModel) and len(model.calls) == 1  # no repeat of the turn
    tool_msgs = {
        m["tool_call_id"]: m["content"] for m in model.calls[0].messages if m["role"] == "tool"
    }
    assert tool_msgs == {
        "e1": "sent to ann@example.com",
        "l1": "hello: a word",
        "e2": "denied by the user: Bob is on holiday",
    }
    assert not restarted.is_waiting_for_approval
    assert_history_valid(restarted.memory.messages)
    await asyncio.sleep(0)
    assert [e.decision for e in events if isinstance(e, ApprovalDecided)] == ["edited"]


async def saved_while_parked(path: Path) -> Path:
    """Save a session while a reply is parked on approvals, then stop that reply."""
    agent = make(Tools(), [PARKING_TURN])
    task = await park(agent)
    saved = agent.save_session(path)
    await agent.interrupt()
    await task
    return saved


async def test_resuming_undecided_calls_parks_again_and_asks_again(tmp_path: Path) -> None:
    path = await saved_while_parked(tmp_path / "parked.json")

    tools = Tools()
    restarted = make(tools, ["Done."])
    with pytest.raises(ApprovalError, match="Nothing to resume"):
        await restarted.resume_pending()
    restarted.load_session(path)
    resumed = asyncio.create_task(restarted.resume_pending())  # what a widget does after Load
    asked = await wait_for_event(restarted, lambda e: isinstance(e, ApprovalRequested))
    assert asked.tool_use.id == "e1"  # type: ignore[attr-defined]
    assert restarted.is_replying and tools.ran == []
    restarted.approve_all()
    assert (await resumed).get_text_content() == "Done."
    assert [name for name, _ in tools.ran] == ["send_email", "lookup", "send_email"]
    assert_history_valid(restarted.memory.messages)


async def test_a_new_message_after_load_closes_parked_calls_unrun(tmp_path: Path) -> None:
    path = await saved_while_parked(tmp_path / "parked.json")

    tools = Tools()
    restarted = make(tools, ["Sure, something else."])
    restarted.load_session(path)
    reply = await restarted(user("Forget the emails."))
    assert reply.get_text_content() == "Sure, something else."
    assert tools.ran == []
    results = [b for m in restarted.memory.messages for b in m.get_content_blocks("tool_result")]
    assert {r.id for r in results} == {"e1", "l1", "e2"}
    assert all(r.is_interrupted and "[Not run]" in r.output_text() for r in results)
    with pytest.raises(ApprovalError, match="discarded because a new message was sent"):
        restarted.approve("e1")
    assert_history_valid(restarted.memory.messages)


GHOST_TURN = ScriptedTurn(
    text="I will email Ann and ask a tool I do not have.",
    tool_calls=[
        ScriptedToolCall("send_email", {"to": "ann@example.com", "body": "hi"}, id="e1"),
        ScriptedToolCall("ghost_tool", {"x": 1}, id="g1"),
    ],
)


async def test_a_parked_turn_with_a_call_of_an_unknown_tool_saves_and_loads(
    tmp_path: Path,
) -> None:
    # the running agent: parks on e1, and answers g1 with the toolkit's error result
    running = make(Tools(), [GHOST_TURN, "Emailed Ann."])
    task = await park(running)
    path = running.save_session(tmp_path / "parked.json")
    running.approve("e1")
    assert (await task).get_text_content() == "Emailed Ann."
    ran = {b.id: b for m in running.memory.messages for b in m.get_content_blocks("tool_result")}
    assert ran["g1"].is_error and "ghost_tool" in ran["g1"].output_text()

    tools = Tools()
    restarted = make(tools, ["Emailed Ann."])
    info = restarted.load_session(path)  # what saves must load into the agent it came from
    assert (info.pending_approvals, info.parked_calls) == (1, 2)
    assert [p.call_id for p in restarted.pending_approvals] == ["e1"]
    restarted.approve("e1")
    reply = await restarted.resume_pending()
    assert reply.get_text_content() == "Emailed Ann."
    assert tools.ran == [("send_email", {"to": "ann@example.com", "body": "hi"})]
    msgs = restarted.memory.messages
    loaded = {b.id: b for m in msgs for b in m.get_content_blocks("tool_result")}
    assert loaded["g1"].model_dump() == ran["g1"].model_dump()  # answered as the running agent did
    assert loaded["e1"].output_text() == "sent to ann@example.com"
    assert_history_valid(restarted.memory.messages)
    # sending a new message instead closes both unrun, as for any parked call
    other = make(Tools(), ["Something else."])
    other.load_session(path)
    await other(user("Never mind."))
    closed = [b for m in other.memory.messages for b in m.get_content_blocks("tool_result")]
    assert {b.id for b in closed} == {"e1", "g1"} and all(b.is_interrupted for b in closed)
    assert_history_valid(other.memory.messages)


async def test_saving_mid_reply_is_refused_and_loading_into_a_busy_agent_too(
    tmp_path: Path,
) -> None:
    agent = make(Tools(), [" ".join(["word"] * 300)])
    agent.model.tokens_per_second = 200  # type: ignore[attr-defined]
    task = asyncio.create_task(agent(user("Talk.")))
    await wait_for_event(agent, lambda e: e.kind == "message_updated")
    with pytest.raises(SessionError, match="middle of a reply"):
        agent.save_session(tmp_path / "x.json")
    with pytest.raises(SessionError, match="is replying"):
        agent.load_session(tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
    await agent.interrupt()
    await task
    agent.save_session(tmp_path / "x.json")  # fine once interrupted
    assert load_session(make(Tools(), []), tmp_path / "x.json").agent_name == "Friday"


# -- bad files leave the agent unchanged --------------------------------------------------------
async def loaded_agent(tmp_path: Path) -> tuple[ReActAgent, Path]:
    agent = make(Tools(), [PARKING_TURN])
    task = await park(agent)
    agent.approve("e1")
    good = agent.save_session(tmp_path / "good.json")
    await agent.interrupt()
    await task
    live = make(Tools(), [])
    live.load_session(good)
    return live, good


def write(path: Path, doc: Any) -> Path:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda text, doc: text[: len(text) // 2], "corrupted: not valid JSON"),
        (lambda text, doc: "", "corrupted: not valid JSON"),
        (lambda text, doc: [1, 2], "not an nb_hitl session file"),
        (lambda text, doc: {**doc, "format": "other"}, "not an nb_hitl session file"),
        (
            lambda text, doc: {**doc, "schema_version": "1"},
            "schema_version: Input should be a valid integer",
        ),
        (lambda text, doc: {**doc, "agent": {"name": "x"}}, "agent.state: Field required"),
        (lambda text, doc: {**doc, "schema_version": SCHEMA_VERSION + 1}, "newer nb_hitl"),
    ],
)
async def test_bad_files_raise_a_clear_error_and_change_nothing(
    tmp_path: Path, mutate: Any, message: str
) -> None:
    live, good = await loaded_agent(tmp_path)
    before = state_of(live)
    text = good.read_text(encoding="utf-8")
    bad = write(tmp_path / "bad.json", mutate(text, json.loads(text)))
    with pytest.raises(SessionError, match=message):
        live.load_session(bad)
    assert state_of(live) == before
    assert [p.call_id for p in live.pending_approvals] == ["e2"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        # memory that holds one message twice: fails halfway through loading
        (
            lambda st: st["memory"]["content"].append(st["memory"]["content"][0]),
            "same message id twice",
        ),
        # a parked call of a tool this agent does not have
        (
            lambda st: st["approvals"]["parked"][0]["call"].update(name="rm_rf"),
            "toolkit does not have",
        ),
        # a parked call that memory already answered
        (
            lambda st: st["approvals"]["parked"].append(
                {
                    "call": {"type": "tool_use", "id": "zz", "name": "lookup"},
                    "needs_approval": False,
                }
            ),
            "not an unanswered tool call",
        ),
        (
            lambda st: st["approvals"]["parked"][0].update(decision={"kind": "maybe"}),
            r"agent\.state\.approvals\.parked\[0\]\.decision\.kind: Input should be 'approved'",
        ),
    ],
)
async def test_files_that_do_not_fit_roll_back_completely(
    tmp_path: Path, mutate: Any, message: str
) -> None:
    live, good = await loaded_agent(tmp_path)
    live.memory.summary = "live summary"
    live.always_allowed.add("lookup")
    before = state_of(live)
    before_msgs = dump(live)
    doc = json.loads(good.read_text(encoding="utf-8"))
    doc["agent"]["state"]["memory"]["_compressed_summary"] = "file summary"
    mutate(doc["agent"]["state"])
    with pytest.raises(SessionError, match=message):
        live.load_session(write(tmp_path / "bad.json", doc))
    assert state_of(live) == before and dump(live) == before_msgs
    assert live.memory.summary == "live summary" and live.always_allowed == {"lookup"}
    assert [p.call_id for p in live.pending_approvals] == ["e2"]


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    agent = make(Tools(), [])
    with pytest.raises(SessionError, match="No session file at"):
        agent.load_session(tmp_path / "nope.json")
    with pytest.raises(SessionError, match=r"folder .* does not exist"):
        agent.save_session(tmp_path / "no" / "such" / "dir.json")
    assert agent.memory.messages == []


# -- atomic writes ----------------------------------------------------------------------------
CRASHING_SAVER = textwrap.dedent(
    """
    import asyncio, os, sys, time
    from nb_hitl.agent import CompressionConfig, ReActAgent
    from nb_hitl.message import Msg
    from nb_hitl.model import ScriptedModel

    path = sys.argv[1]
    agent = ReActAgent("Friday", "Test.", ScriptedModel([]))
    asyncio.run(agent.observe(Msg("User", "second version " * 2000, "user")))

    def replace_then_hang(src, dst):
        # the temporary file is written and fsynced; the rename has not happened
        print("READY", src, flush=True)
        time.sleep(600)

    os.replace = replace_then_hang
    agent.save_session(path)
    print("UNREACHABLE", flush=True)
    """
)


def test_a_crash_between_write_and_rename_leaves_the_previous_file_intact(
    tmp_path: Path,
) -> None:
    agent = make(Tools(), [])
    agent.memory.add_sync(user("first version"))
    path = agent.save_session(tmp_path / "s.json")
    original = path.read_bytes()

    script = tmp_path / "saver.py"
    script.write_text(CRASHING_SAVER, encoding="utf-8")
    with subprocess.Popen(
        [sys.executable, str(script), str(path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    ) as proc:
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("READY "), line
            tmp_file = Path(line.split(" ", 1)[1].strip())
            assert tmp_file.parent == tmp_path and tmp_file.exists()
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    # the new content was fully written to the temporary file, never to the target
    assert "second version" in tmp_file.read_text(encoding="utf-8")
    assert path.read_bytes() == original
    fresh = make(Tools(), [])
    fresh.load_session(path)
    assert [m.get_text_content() for m in fresh.memory.messages] == ["first version"]
    # The next save clears the crashed save's leftover once it is old enough.
    agent.save_session(path)
    assert tmp_file.exists()  # recent: another save could still be writing it
    old = time.time() - 3600
    os.utime(tmp_file, (old, old))
    agent.save_session(path)
    assert not tmp_file.exists()


def test_a_failed_write_removes_its_temporary_file(tmp_path: Path) -> None:
    agent = make(Tools(), [])
    path = tmp_path / "s.json"
    path.mkdir()  # renaming a file over a folder fails
    with pytest.raises(SessionError, match="Cannot write the session"):
        agent.save_session(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


# -- no secrets -------------------------------------------------------------------------------
SECRET = "sk-test-THIS-IS-A-SECRET-0123456789"


async def test_no_key_or_client_reaches_the_session_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nb_hitl.model import OpenAIChatModel

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    model = OpenAIChatModel(model_name="gpt-test", api_key=SECRET, base_url="http://127.0.0.1:9")
    agent = ReActAgent("Friday", "Test.", model, toolkit=Tools().toolkit())
    await agent.observe(user("hello"))
    path = agent.save_session(tmp_path / "s.json")
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text
    assert "api_key" not in text and "base_url" not in text and "127.0.0.1" not in text
    assert SECRET not in repr(agent) and SECRET not in repr(model)

    # a key that made its way into the conversation is refused, naming where it came from
    await agent.observe(user(f"my key is {SECRET}"))
    with pytest.raises(SessionError, match=r"model\.api_key") as excinfo:
        agent.save_session(path)
    assert SECRET not in str(excinfo.value)
    assert path.read_text(encoding="utf-8") == text  # the previous file is untouched


async def test_compression_settings_are_saved_without_the_token_counter(tmp_path: Path) -> None:
    counter = TokenCounter()
    agent = make(Tools(), [])
    agent.compression_config = CompressionConfig(
        enable=True, trigger_threshold=1234, keep_recent=5, agent_token_counter=counter
    )
    path = agent.save_session(tmp_path / "s.json")
    saved = read_session(path)["compression"]
    assert saved["trigger_threshold"] == 1234 and saved["keep_recent"] == 5
    assert saved["enable"] is True and "agent_token_counter" not in saved
    assert "summary_schema" not in saved
    assert "TokenCounter" not in path.read_text(encoding="utf-8")

    other = make(Tools(), [])
    other_counter = TokenCounter()
    other.compression_config = CompressionConfig(
        enable=False, trigger_threshold=10, keep_recent=1, agent_token_counter=other_counter
    )
    assert other.load_session(path).compression_applied
    config = other.compression_config
    assert config is not None
    assert (config.enable, config.trigger_threshold, config.keep_recent) == (True, 1234, 5)
    assert config.agent_token_counter is other_counter  # the live counter stays

    bare = make(Tools(), [])
    assert bare.compression_config is None
    bare.load_session(path)
    assert bare.compression_config is not None
    assert bare.compression_config.trigger_threshold == 1234


async def test_invalid_compression_settings_roll_back(tmp_path: Path) -> None:
    agent = make(Tools(), [])
    agent.compression_config = CompressionConfig(trigger_threshold=100)
    path = agent.save_session(tmp_path / "s.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["compression"]["trigger_threshold"] = -5
    doc["agent"]["state"]["memory"]["_compressed_summary"] = "from the file"
    live = make(Tools(), [])
    live.compression_config = CompressionConfig(trigger_threshold=777)
    with pytest.raises(SessionError, match="trigger_threshold"):
        live.load_session(write(tmp_path / "bad.json", doc))
    assert live.compression_config.trigger_threshold == 777
    assert live.memory.summary == ""


async def test_secret_named_compression_settings_stay_out_of_the_file(tmp_path: Path) -> None:
    class KeyedConfig(CompressionConfig):
        summary_api_token: str = "tok-abcdefghijklmnop"
        summary_max_tokens: int = 321

    agent = make(Tools(), [])
    agent.compression_config = KeyedConfig(trigger_threshold=1234)
    path = agent.save_session(tmp_path / "s.json")
    saved = read_session(path)["compression"]
    assert "summary_api_token" not in saved
    assert "tok-abcdefghijklmnop" not in path.read_text(encoding="utf-8")
    assert saved["summary_max_tokens"] == 321  # a number named like a token count is kept
