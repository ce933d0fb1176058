"""Model errors from a real HTTP exchange show in the chat transcript, actionable and key-free."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any

import ipywidgets as w
from fake_openai_server import FakeOpenAIServer, Scenario, Sse, text_chunks

from nb_hitl.agent import ReActAgent
from nb_hitl.model import OpenAIChatModel
from nb_hitl.testing import assert_history_valid
from nb_hitl.widgets import ChatWidget

KEY = "sk-proj-TRANSCRIPT-0a1b2c3d4e5f6a7b8c9d"
MakeModel = Callable[..., OpenAIChatModel]


async def until(cond: Callable[[], Any], what: str, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():  # widgets expose no awaitable for their state
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


def walk(widget: w.Widget) -> Iterator[w.Widget]:
    stack, seen = [widget], set()
    while stack:
        cur = stack.pop()
        if id(cur) not in seen:
            seen.add(id(cur))
            yield cur
            stack.extend(getattr(cur, "children", ()) or ())


def html(widget: w.Widget) -> str:
    """Every HTML under ``widget``; LiveMessage rows as the page draws them."""
    return "\n".join(
        x.value if isinstance(x, w.HTML) else x.drawn_html()
        for x in walk(widget)
        if isinstance(x, w.HTML) or hasattr(x, "drawn_html")
    )


def state(widget: w.Widget) -> str:
    return "\n".join(json.dumps(x.get_state(), default=str) for x in walk(widget))


async def test_a_refused_key_shows_in_the_transcript_naming_the_variable(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["never"]))], api_key="sk-the-right-one-9"))
    agent = ReActAgent("Friday", "", make_model(name, api_key=KEY))
    chat = ChatWidget(agent)
    chat.send("hello")
    await until(lambda: chat.state == "error", "the error state")
    shown = html(chat.rows[-1])
    assert "ModelAuthError" in shown and "OPENAI_API_KEY" in shown and "HTTP 401" in shown
    assert KEY not in state(chat) and KEY not in html(chat)
    assert_history_valid(agent.memory.messages)


async def test_a_stream_that_breaks_keeps_the_partial_text_and_shows_the_error(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    events = text_chunks(["The answer", " is"], finish=None)
    name = fake_server.add(Scenario([Sse(events, ending="break"), Sse(text_chunks(["Again."]))]))
    agent = ReActAgent("Friday", "", make_model(name))
    chat = ChatWidget(agent)
    chat.send("question")
    await until(lambda: chat.state == "error", "the error state")
    assert "broke after" in html(chat.rows[-1])
    assert "The answer is" in html(chat)
    assert_history_valid(agent.memory.messages)
    chat.send("try again")  # the widget and the agent stay usable
    await until(lambda: chat.state == "idle" and "Again." in html(chat), "the second reply")
