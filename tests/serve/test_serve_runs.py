"""AG-UI runs against a real nb_hitl server (uvicorn, its own process): stream, stop, approve,
answer, continue and steer, with the thread's memory checked after each."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
from agui_agents import LONG, make_agent
from agui_harness import ServeProcess, body, finished, history, kinds, run, streamed_text, user

from nb_hitl.agent import DEFAULT_INTERRUPT_TEXT
from nb_hitl.message import Msg


def _thread(name: str) -> str:
    return f"{name}-{time.monotonic_ns()}"


def _assistant_id(events: list[dict[str, Any]]) -> str:
    return next(e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START")


def test_a_run_streams_the_reply_as_agui_events(agui: ServeProcess) -> None:
    thread = _thread("stream")
    events = run(agui.url, body(thread, user("hello there")))
    assert kinds(events)[:3] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT"]
    assert [k for k in kinds(events) if k != "STATE_DELTA"][3] == "TEXT_MESSAGE_START"
    assert kinds(events)[-3:] == ["MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]
    assert events[0]["threadId"] == thread
    assert [m["content"] for m in events[1]["messages"]] == ["hello there"]
    reply = _assistant_id(events)
    assert streamed_text(events, reply) == "You said: hello there"
    assert kinds(events).count("TEXT_MESSAGE_CONTENT") > 1  # streamed, not sent whole
    end = finished(events)
    assert end["outcome"] == {"type": "success"} and end["result"] == {"messageId": reply}
    saved = history(agui.url, thread)
    assert saved["exists"] and not saved["running"]
    assert [(m["role"], m["content"]) for m in saved["messages"]] == [
        ("user", "hello there"),
        ("assistant", "You said: hello there"),
    ]
    assert saved["messages"] == events[-3]["messages"]
    # the state snapshot, patched by the run's STATE_DELTA events, is the closing snapshot
    state = dict(events[2]["snapshot"])
    deltas = [e for e in events if e["type"] == "STATE_DELTA"]
    assert deltas and len(deltas) < kinds(events).count("TEXT_MESSAGE_CONTENT")  # not per token
    for delta in deltas:
        for op in delta["delta"]:
            state[op["path"].lstrip("/")] = op["value"]
    assert state == events[-2]["snapshot"] and state["memoryMessages"] == 2


def _kernel_interrupted_memory() -> list[Msg]:
    """The same agent, interrupted mid-stream in-process (the kernel's way)."""

    async def go() -> list[Msg]:
        agent = make_agent()
        agent.set_console_output_enabled(False)
        task = asyncio.create_task(agent(Msg("User", "a long answer please", "user")))
        while not any(m.metadata.get("_partial") for m in agent.memory.messages):
            await asyncio.sleep(0.01)
            if agent._reply is not None and agent._reply.state == "running":
                break
        await asyncio.sleep(0.1)
        await agent.interrupt()
        await task
        return list(agent.memory.messages)

    return asyncio.run(go())


def _shape(messages: list[dict[str, Any]]) -> list[tuple[str, tuple[str, ...]]]:
    keys = ("_partial", "_is_interrupted", "interrupted_at", "interrupted_by")
    return [(m["role"], tuple(k for k in keys if k in (m.get("metadata") or {}))) for m in messages]


def test_stop_mid_stream_keeps_the_partial_answer_and_the_interrupted_message(
    agui: ServeProcess,
) -> None:
    thread = _thread("stop")
    seen: list[dict[str, Any]] = []
    stopped: dict[str, Any] = {}

    def on_event(event: dict[str, Any]) -> None:
        seen.append(event)
        if kinds(seen).count("TEXT_MESSAGE_CONTENT") == 5 and not stopped:
            r = httpx.post(f"{agui.url}/threads/{thread}/interrupt", json={}, timeout=30)
            stopped.update(r.json(), status=r.status_code)

    events = run(agui.url, body(thread, user("a long answer please")), on_event=on_event)
    assert stopped["status"] == 200 and stopped["interrupted"] is True
    assert finished(events)["outcome"] == {"type": "cancelled"}
    saved = history(agui.url, thread)["messages"]
    partial, interrupted = saved[1], saved[2]
    # every word streamed before the stop is in memory, and nothing else
    assert partial["metadata"]["_partial"] is True
    assert streamed_text(events, partial["id"]) == partial["content"]
    assert LONG.startswith(partial["content"]) and len(partial["content"]) < len(LONG)
    assert interrupted["metadata"]["_is_interrupted"] is True
    assert interrupted["content"] == DEFAULT_INTERRUPT_TEXT
    start = next(e for e in events if e.get("messageId") == interrupted["id"])
    assert start["type"] == "TEXT_MESSAGE_START" and start["metadata"]["_is_interrupted"]
    # the same memory as an in-kernel interrupt of the same agent
    kernel = _kernel_interrupted_memory()
    kernel_json = [{"role": m.role, "metadata": m.metadata} for m in kernel]
    assert _shape(saved) == _shape(kernel_json)

    # the next run carries the context: the whole thread, then a new answer
    events = run(agui.url, body(thread, *saved, user("and now?")))
    assert [m["id"] for m in events[1]["messages"]][:3] == [m["id"] for m in saved]
    assert finished(events)["outcome"] == {"type": "success"}
    assert history(agui.url, thread)["messages"][-1]["content"] == "You said: and now?"


def test_a_client_that_goes_away_stops_the_reply(agui: ServeProcess) -> None:
    thread = _thread("gone")
    events = run(
        agui.url,
        body(thread, user("long please")),
        on_event=lambda e: e["type"] == "TEXT_MESSAGE_CONTENT",
    )
    assert events[-1]["type"] == "TEXT_MESSAGE_CONTENT"
    deadline = time.monotonic() + 20
    while (saved := history(agui.url, thread))["running"] or len(saved["messages"]) < 3:
        assert time.monotonic() < deadline, saved
        time.sleep(0.05)
    assert saved["messages"][-1]["metadata"]["_is_interrupted"] is True
    assert saved["messages"][-1]["metadata"]["interrupted_by"] == "interrupt"


def test_continue_resumes_the_interrupted_answer_mid_sentence(agui: ServeProcess) -> None:
    thread = _thread("continue")
    seen: list[str] = []

    def stop_after_three(event: dict[str, Any]) -> None:
        seen.append(event["type"])
        if seen.count("TEXT_MESSAGE_CONTENT") == 3:
            httpx.post(f"{agui.url}/threads/{thread}/interrupt", timeout=30)

    run(agui.url, body(thread, user("long one")), on_event=stop_after_three)
    before = history(agui.url, thread)["messages"]
    assert before[-1]["metadata"]["_is_interrupted"]
    events = run(agui.url, body(thread, *before))  # no new message: Continue
    assert finished(events)["outcome"] == {"type": "success"}
    after = history(agui.url, thread)["messages"]
    assert after[-1]["metadata"]["continued_by"]
    assert before[1]["content"] + after[-1]["content"] == LONG or (
        LONG in before[1]["content"] + after[-1]["content"]
    )
    # nothing left to continue: a clear 422
    r = httpx.post(agui.url + "/", json=body(thread, *after), timeout=30)
    assert r.status_code == 422 and r.json()["code"] == "nothing_to_continue"


def test_approval_ends_the_run_with_an_interrupt_and_resume_runs_the_tool(
    agui: ServeProcess,
) -> None:
    thread = _thread("approve")
    events = run(agui.url, body(thread, user("please approve a note")))
    outcome = finished(events)["outcome"]
    assert outcome["type"] == "interrupt"
    (interrupt,) = outcome["interrupts"]
    assert interrupt["reason"] == "tool_approval"
    assert interrupt["id"] == interrupt["toolCallId"] == "call_w1"
    assert interrupt["metadata"]["toolName"] == "write_note"
    assert interrupt["metadata"]["arguments"] == {"text": "note 1"}
    assert "write_note" in interrupt["message"]
    assert ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"] == [
        k for k in kinds(events) if k.startswith("TOOL_CALL")
    ]
    waiting = history(agui.url, thread)
    assert [i["id"] for i in waiting["interrupts"]] == ["call_w1"]

    # a new run without an answer re-sends the pending interrupt
    again = run(agui.url, body(thread))
    assert finished(again)["outcome"]["interrupts"][0]["id"] == "call_w1"

    resume = [
        {
            "interruptId": "call_w1",
            "status": "resolved",
            "payload": {"decision": "edit", "arguments": {"text": "edited"}},
        }
    ]
    events = run(agui.url, body(thread, resume=resume))
    assert finished(events)["outcome"] == {"type": "success"}
    (result,) = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert result["toolCallId"] == "call_w1" and result["content"] == "wrote 'edited'"
    saved = history(agui.url, thread)
    assert saved["interrupts"] == []
    assert saved["messages"][-1]["content"] == "Done: wrote 'edited'"

    r = httpx.post(agui.url + "/", json=body(thread, resume=resume), timeout=30)
    assert r.status_code == 422 and r.json()["code"] == "nothing_to_resume"


def test_denying_reaches_the_model_and_a_bad_decision_changes_nothing(agui: ServeProcess) -> None:
    thread = _thread("deny")
    run(agui.url, body(thread, user("approve this please")))
    bad = [{"interruptId": "call_w1", "status": "resolved", "payload": {"decision": "maybe"}}]
    r = httpx.post(agui.url + "/", json=body(thread, resume=bad), timeout=30)
    assert r.status_code == 422 and r.json()["code"] == "bad_decision"
    assert "approve" in r.json()["error"]
    unknown = [{"interruptId": "nope", "status": "resolved", "payload": {"decision": "approve"}}]
    r = httpx.post(agui.url + "/", json=body(thread, resume=unknown), timeout=30)
    assert r.status_code == 422 and r.json()["code"] == "unknown_interrupt"
    assert [i["id"] for i in history(agui.url, thread)["interrupts"]] == ["call_w1"]
    deny = [
        {
            "interruptId": "call_w1",
            "status": "resolved",
            "payload": {"decision": "deny", "reason": "not today"},
        }
    ]
    events = run(agui.url, body(thread, resume=deny))
    (result,) = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert result["content"] == "denied by the user: not today"
    assert finished(events)["outcome"] == {"type": "success"}


def test_ask_user_ends_the_run_with_the_question_and_resume_answers_it(
    agui: ServeProcess,
) -> None:
    thread = _thread("ask")
    events = run(agui.url, body(thread, user("ask me something")))
    (interrupt,) = finished(events)["outcome"]["interrupts"]
    assert interrupt["reason"] == "ask_user" and interrupt["id"] == "call_q1"
    assert interrupt["message"] == "Which colour?"
    (question,) = interrupt["metadata"]["questions"]
    assert [o["label"] for o in question["options"]] == ["red", "blue"]
    assert question["multiSelect"] is False

    wrong = [
        {
            "interruptId": "call_q1",
            "status": "resolved",
            "payload": {"answers": {"Which colour?": "green"}},
        }
    ]
    r = httpx.post(agui.url + "/", json=body(thread, resume=wrong), timeout=30)
    assert r.status_code == 422 and r.json()["code"] == "bad_answer"
    assert "red" in r.json()["error"]

    right = [
        {
            "interruptId": "call_q1",
            "status": "resolved",
            "payload": {"answers": {"Which colour?": "red"}},
        }
    ]
    events = run(agui.url, body(thread, resume=right))
    assert finished(events)["outcome"] == {"type": "success"}
    assert history(agui.url, thread)["messages"][-1]["content"] == 'Done: {"Which colour?": "red"}'


def test_a_new_message_while_parked_closes_the_waiting_call(agui: ServeProcess) -> None:
    thread = _thread("redirect")
    run(agui.url, body(thread, user("approve it")))
    events = run(agui.url, body(thread, user("never mind, hi")))
    assert finished(events)["outcome"] == {"type": "success"}
    saved = history(agui.url, thread)
    assert saved["interrupts"] == []
    tool = [m for m in saved["messages"] if m["role"] == "tool"]
    assert len(tool) == 1 and tool[0]["toolCallId"] == "call_w1"  # closed, never left open
    assert saved["messages"][-1]["content"] == "You said: never mind, hi"


def test_a_second_run_on_a_busy_thread_is_refused_and_steering_reaches_the_reply(
    agui: ServeProcess,
) -> None:
    thread = _thread("busy")
    seen: list[dict[str, Any]] = []
    answers: dict[str, Any] = {}

    def on_event(event: dict[str, Any]) -> None:
        seen.append(event)
        if event["type"] == "TOOL_CALL_END" and "busy" not in answers:
            r = httpx.post(agui.url + "/", json=body(thread, user("me too")), timeout=30)
            answers["busy"] = (r.status_code, r.json())
            s = httpx.post(
                f"{agui.url}/threads/{thread}/steer", json={"content": "hello steer"}, timeout=30
            )
            answers["steer"] = (s.status_code, s.json())

    events = run(agui.url, body(thread, user("lookup something")), on_event=on_event)
    status, error = answers["busy"]
    assert status == 409 and error["code"] == "busy" and "interrupt" in error["error"]
    status, steered = answers["steer"]
    assert status == 202 and steered["queued"] is True
    steer_start = [
        e for e in events if e["type"] == "TEXT_MESSAGE_START" and e.get("role") == "user"
    ]
    assert steer_start and steer_start[0]["messageId"] == steered["messageId"]
    assert steer_start[0]["metadata"]["_steered"] is True
    assert finished(events)["outcome"] == {"type": "success"}
    saved = history(agui.url, thread)["messages"]
    assert [m["id"] for m in saved].count(steered["messageId"]) == 1
    assert saved[-1]["content"] == "You said: hello steer"  # the reply went on with it
    # between runs there is nothing to steer
    r = httpx.post(f"{agui.url}/threads/{thread}/steer", json={"content": "late"}, timeout=30)
    assert r.status_code == 409 and r.json()["code"] == "no_run"


def test_threads_run_side_by_side(agui: ServeProcess) -> None:
    results: dict[int, list[dict[str, Any]]] = {}

    def one(i: int) -> None:
        results[i] = run(agui.url, body(_thread(f"par{i}"), user(f"hi {i}")))

    workers = [threading.Thread(target=one, args=(i,)) for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    for i, events in results.items():
        assert streamed_text(events, _assistant_id(events)) == f"You said: hi {i}"
    assert len(results) == 4


async def test_serve_inside_a_running_loop_returns_a_running_server(tmp_path: Any) -> None:
    """A notebook cell: ``nb_hitl.serve(...)`` starts uvicorn on the cell's loop and returns."""
    import nb_hitl
    from nb_hitl.serve import RunningServer

    server = nb_hitl.serve(make_agent, port=0, sessions_dir=tmp_path)
    assert isinstance(server, RunningServer)
    await server.started()
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            info = (await client.get(server.url + "info")).json()
            assert info["server"] == "nb_hitl" and info["capabilities"]["persistent"]
            lines = []
            async with client.stream("POST", server.url, json=body("nb", user("hi"))) as r:
                async for line in r.aiter_lines():
                    lines.append(line)
        assert any('"RUN_FINISHED"' in line for line in lines)
        assert list(tmp_path.iterdir())  # the thread was saved
    finally:
        await server.stop()
    assert server.task.done()


async def test_idle_threads_beyond_the_limit_leave_memory_and_load_again(tmp_path: Any) -> None:
    """``max_idle_threads``: older idle threads are dropped from memory, the store keeps them."""
    from ag_ui.core import RunAgentInput

    from nb_hitl.serve import AgentServer
    from nb_hitl.session import JSONSession

    server = AgentServer(make_agent, JSONSession(tmp_path), max_idle_threads=2)
    for i in range(4):
        data = RunAgentInput.model_validate(body(f"idle{i}", user(f"hi {i}")))
        active = await server.start_run(data)
        text = "".join([chunk async for chunk in active.stream()])
        assert '"RUN_FINISHED"' in text
    assert len(server.threads.slots) <= 3
    assert "idle0" not in server.threads.slots
    saved = await server.history("idle0")  # loaded again from the store
    assert [m["content"] for m in saved["messages"]] == ["hi 0", "You said: hi 0"]
    await server.aclose()


def test_a_model_error_ends_the_run_with_run_error_and_the_thread_stays_usable(
    agui: ServeProcess,
) -> None:
    thread = _thread("fail")
    events = run(agui.url, body(thread, user("please fail now")))
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == "ModelStreamError" and "broke" in events[-1]["message"]
    assert "RUN_FINISHED" not in kinds(events)
    saved = history(agui.url, thread)
    assert not saved["running"] and saved["messages"][0]["content"] == "please fail now"
    events = run(agui.url, body(thread, user("hello again")))
    assert finished(events)["outcome"] == {"type": "success"}
    assert history(agui.url, thread)["messages"][-1]["content"] == "You said: hello again"
