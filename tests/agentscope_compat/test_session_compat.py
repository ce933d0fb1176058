"""AgentScope 1.x session code (``JSONSession``, ``StateModule``) run after renaming the imports.

Written from AgentScope 1.0.21's documented behaviour, in its calling style. Differences kept on
purpose are marked ``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.exceptions import SessionError
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.module import StateModule
from nb_hitl.session import JSONSession, SessionBase, load_session, save_session
from nb_hitl.testing import wait_for_event
from nb_hitl.tool import Toolkit


class Notebook(StateModule):
    """A user module: two plain states, one converted state and a nested memory."""

    def __init__(self) -> None:
        super().__init__()
        self.title = "Trip"
        self.pages = ["day 1"]
        self.tags = {"travel"}
        self.memory = InMemoryMemory()
        self.register_state("title")
        self.register_state("pages")
        self.register_state("tags", custom_to_json=sorted, custom_from_json=set)


class Shelf(StateModule):
    """Modules nest inside modules."""

    def __init__(self) -> None:
        super().__init__()
        self.label = "A"
        self.book = Notebook()
        self.register_state("label")


def react_agent(**kwargs: Any) -> ReActAgent:
    # differs on purpose: AgentScope's tests build DashScopeChatModel(api_key="xxx", ...);
    # the offline ScriptedModel keeps the suite network-free.
    return ReActAgent(
        name="Friday",
        sys_prompt="A helpful assistant.",
        model=ScriptedModel(["Hello!"], tokens_per_second=1e6),
        toolkit=Toolkit(),
        memory=InMemoryMemory(),
        **kwargs,
    )


# -- StateModule ---------------------------------------------------------------------------------
async def test_state_dict_holds_nested_modules_then_registered_attributes() -> None:
    book = Notebook()
    await book.memory.add(Msg("Alice", "Hi!", "user"))

    state = book.state_dict()

    assert list(state) == ["memory", "title", "pages", "tags"]
    assert state["title"] == "Trip"
    assert state["tags"] == ["travel"]
    assert [m["content"] for m, _marks in state["memory"]["content"]] == ["Hi!"]
    json.dumps(state)  # JSON-able as it is


async def test_load_state_dict_restores_attributes_nested_modules_and_converters() -> None:
    shelf = Shelf()
    await shelf.book.memory.add(Msg("Alice", "Hi!", "user"))
    saved = shelf.state_dict()

    other = Shelf()
    other.label = "B"
    other.book.title = "Changed"
    other.load_state_dict(json.loads(json.dumps(saved)))

    assert other.label == "A"
    assert other.book.title == "Trip"
    assert other.book.tags == {"travel"}  # custom_from_json ran
    assert [m.content for m in other.book.memory.messages] == ["Hi!"]


def test_load_state_dict_strict_raises_keyerror_for_a_missing_key() -> None:
    book = Notebook()
    state = book.state_dict()
    del state["pages"]
    book.title = "Changed"

    with pytest.raises(KeyError, match="pages"):
        book.load_state_dict(state)
    # differs on purpose: nothing changed (AgentScope loads keys one by one up to the error).
    assert book.title == "Changed"

    book.load_state_dict(state, strict=False)
    assert book.title == "Trip"
    assert book.pages == ["day 1"]


def test_register_state_refuses_what_cannot_be_saved() -> None:
    book = Notebook()
    book.handle = object()
    with pytest.raises(TypeError, match="custom_to_json"):
        book.register_state("handle")
    with pytest.raises(ValueError, match="nested"):
        book.register_state("memory")
    with pytest.raises(AttributeError, match=r"set self\.missing first"):
        book.register_state("missing")


def test_deleting_an_attribute_stops_saving_it() -> None:
    book = Notebook()
    del book.pages
    del book.memory
    assert list(book.state_dict()) == ["title", "tags"]


def test_a_replaced_nested_module_is_saved_and_loaded_as_it_is_now() -> None:
    book = Notebook()
    saved = book.state_dict()
    fresh = InMemoryMemory()
    book.memory = fresh
    book.memory.add_sync(Msg("Bob", "late", "user"))
    book.load_state_dict(saved)
    # differs on purpose: AgentScope would load into the memory first assigned.
    assert book.memory is fresh
    assert fresh.messages == []


# -- JSONSession ---------------------------------------------------------------------------------
async def test_save_then_load_session_state_round_trips_several_modules(tmp_path: Path) -> None:
    session = JSONSession(save_dir=str(tmp_path))
    agent = react_agent()
    await agent(Msg("user", "Hi", "user"))
    book = Notebook()
    await book.memory.add(Msg("Alice", "note", "user"))

    await session.save_session_state(session_id="user_1", agent1=agent, notebook=book)

    # The file is AgentScope's layout: the keyword names mapped to the state dicts.
    on_disk = json.loads((tmp_path / "user_1.json").read_text(encoding="utf-8"))
    assert set(on_disk) == {"agent1", "notebook"}
    assert on_disk["notebook"] == book.state_dict()

    agent.sys_prompt = "Changed prompt"
    await agent.memory.clear()
    book.title = "Changed"
    await book.memory.clear()

    await session.load_session_state(session_id="user_1", agent1=agent, notebook=book)

    assert agent.sys_prompt == "A helpful assistant."
    assert [m.get_text_content() for m in agent.memory.messages] == ["Hi", "Hello!"]
    assert book.title == "Trip"
    assert [m.content for m in book.memory.messages] == ["note"]
    # the restored agent answers on from where it was
    agent.model = ScriptedModel(["Again."], tokens_per_second=1e6)
    reply = await agent(Msg("user", "More", "user"))
    assert reply.get_text_content() == "Again."


async def test_user_id_prefixes_the_file_name(tmp_path: Path) -> None:
    session = JSONSession(save_dir=str(tmp_path / "new_folder"))
    await session.save_session_state("s1", user_id="alice", notebook=Notebook())
    assert (tmp_path / "new_folder" / "alice_s1.json").is_file()

    book = Notebook()
    book.title = "Changed"
    await session.load_session_state("s1", user_id="bob", notebook=book)  # another user's: none
    assert book.title == "Changed"
    await session.load_session_state("s1", user_id="alice", notebook=book)
    assert book.title == "Trip"


async def test_missing_session_loads_nothing_or_raises_valueerror(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    session = JSONSession(save_dir=str(tmp_path))
    book = Notebook()
    book.title = "Mine"
    with caplog.at_level(logging.INFO, logger="nb_hitl.session"):
        await session.load_session_state(session_id="nope", notebook=book)
    assert book.title == "Mine"
    assert any("does not exist" in r.getMessage() for r in caplog.records)

    with pytest.raises(ValueError, match="save_session_state"):
        await session.load_session_state(session_id="nope", allow_not_exist=False, notebook=book)


async def test_names_missing_from_the_file_are_left_alone(tmp_path: Path) -> None:
    session = JSONSession(save_dir=str(tmp_path))
    await session.save_session_state("s", notebook=Notebook())
    other = Notebook()
    other.title = "Untouched"
    await session.load_session_state("s", other=other)
    assert other.title == "Untouched"


async def test_saving_again_overwrites_the_previous_state(tmp_path: Path) -> None:
    session = JSONSession(save_dir=str(tmp_path))
    book = Notebook()
    await session.save_session_state("s", notebook=book)
    book.title = "Second"
    await session.save_session_state("s", notebook=book)
    book.title = "Garbage"
    await session.load_session_state("s", notebook=book)
    assert book.title == "Second"
    assert [p.name for p in await asyncio.to_thread(tmp_path.iterdir)] == ["s.json"]  # no tmp


async def test_a_custom_session_class_implements_session_base(tmp_path: Path) -> None:
    class DictSession(SessionBase):
        def __init__(self) -> None:
            self.store: dict[str, Any] = {}

        async def save_session_state(
            self, session_id: str, user_id: str = "", **state_modules_mapping: Any
        ) -> None:
            self.store[session_id] = {k: v.state_dict() for k, v in state_modules_mapping.items()}

        async def load_session_state(
            self,
            session_id: str,
            user_id: str = "",
            allow_not_exist: bool = True,
            **state_modules_mapping: Any,
        ) -> None:
            for name, module in state_modules_mapping.items():
                module.load_state_dict(self.store[session_id][name])

    session = DictSession()
    book = Notebook()
    await session.save_session_state("s", book=book)
    book.title = "x"
    await session.load_session_state("s", book=book)
    assert book.title == "Trip"
    with pytest.raises(TypeError):
        SessionBase()  # type: ignore[abstract]


# -- differences kept on purpose -------------------------------------------------------------------
class Vault(StateModule):
    def __init__(self, api_key: str) -> None:
        super().__init__()
        self.api_key = api_key
        self.register_state("api_key")


async def test_no_secret_goes_into_a_session_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # differs on purpose: nb_hitl never writes a secret to disk; AgentScope writes anything.
    session = JSONSession(save_dir=str(tmp_path))
    await session.save_session_state("s", notebook=Notebook())
    before = (tmp_path / "s.json").read_bytes()

    with pytest.raises(SessionError, match=r"Vault\.api_key"):
        await session.save_session_state("s", vault=Vault("sk-live-1234567890"))

    monkeypatch.setenv("EXAMPLE_API_KEY", "sk-env-abcdefghij")
    agent = react_agent()
    await agent.memory.add(Msg("user", "my key is sk-env-abcdefghij", "user"))
    with pytest.raises(SessionError, match="EXAMPLE_API_KEY"):
        await session.save_session_state("s", agent=agent)

    book = Notebook()
    book.pages = ["sk-env-abcdefghij"]  # also inside a nested or plain module
    with pytest.raises(SessionError, match="EXAMPLE_API_KEY"):
        await session.save_session_state("s", notebook=book)

    leaky = Notebook()
    leaky.api_key = "sk-frag-abcdefghijkl"  # not registered, so not saved itself...
    leaky.pages = ["pasted: sk-frag-abcd"]  # ...but its first characters would be
    with pytest.raises(SessionError, match=r"Notebook\.api_key"):
        await session.save_session_state("s", notebook=leaky)

    assert (tmp_path / "s.json").read_bytes() == before


async def test_secrets_on_an_agents_model_are_refused(tmp_path: Path) -> None:
    class KeyedModel(ScriptedModel):
        def __init__(self) -> None:
            super().__init__(["ok"], tokens_per_second=1e6)
            self.api_key = "sk-model-0987654321"

    agent = react_agent()
    agent.model = KeyedModel()
    await agent.memory.add(Msg("user", "key: sk-model-0987654321", "user"))
    with pytest.raises(SessionError, match=r"model\.api_key"):
        await JSONSession(save_dir=str(tmp_path)).save_session_state("s", agent=agent)
    assert not (tmp_path / "s.json").exists()


async def test_loading_is_all_or_nothing(tmp_path: Path) -> None:
    # differs on purpose: AgentScope loads module by module and stops half-way on an error.
    session = JSONSession(save_dir=str(tmp_path))
    await session.save_session_state("s", first=Notebook(), second=Notebook())
    doc = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    doc["second"]["memory"] = {"messages": [{"not": "a message"}]}
    (tmp_path / "s.json").write_text(json.dumps(doc), encoding="utf-8")

    first, second = Notebook(), Notebook()
    first.title, second.title = "first live", "second live"
    first.memory.add_sync(Msg("Bob", "keep me", "user"))
    with pytest.raises(SessionError, match=r"'second'.*Nothing was changed"):
        await session.load_session_state("s", first=first, second=second)
    assert first.title == "first live"
    assert [m.content for m in first.memory.messages] == ["keep me"]
    assert second.title == "second live"


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
async def test_a_corrupted_file_is_a_clear_error(tmp_path: Path, content: str) -> None:
    # differs on purpose: a SessionError naming the file, not a bare JSONDecodeError.
    (tmp_path / "s.json").write_text(content, encoding="utf-8")
    book = Notebook()
    with pytest.raises(SessionError, match="corrupted"):
        await JSONSession(save_dir=str(tmp_path)).load_session_state("s", notebook=book)
    assert book.title == "Trip"


async def test_a_save_session_file_points_to_load_session(tmp_path: Path) -> None:
    agent = react_agent()
    save_session(agent, tmp_path / "s.json")
    with pytest.raises(SessionError, match=r"agent\.load_session"):
        await JSONSession(save_dir=str(tmp_path)).load_session_state("s", agent=agent)


@pytest.mark.parametrize("session_id", ["../escape", "a/b", "a\\b", ".."])
async def test_ids_cannot_leave_the_folder(tmp_path: Path, session_id: str) -> None:
    # differs on purpose: AgentScope would write outside save_dir.
    session = JSONSession(save_dir=str(tmp_path / "inside"))
    with pytest.raises(ValueError, match="leave the session folder"):
        await session.save_session_state(session_id, notebook=Notebook())
    assert not (tmp_path / "escape.json").exists()


async def test_an_agent_mid_reply_is_neither_saved_nor_loaded(tmp_path: Path) -> None:
    # differs on purpose: a reply in progress has half-written memory.
    session = JSONSession(save_dir=str(tmp_path))
    agent = react_agent()
    await session.save_session_state("s", agent=agent)
    agent.model = ScriptedModel(["a long answer " * 50], tokens_per_second=50)
    task = asyncio.create_task(agent(Msg("user", "Hi", "user")))
    await wait_for_event(agent, lambda e: e.kind == "message_updated")
    with pytest.raises(SessionError, match="middle of a reply"):
        await session.save_session_state("s", agent=agent)
    with pytest.raises(SessionError, match="replying"):
        await session.load_session_state("s", agent=agent)
    await agent.interrupt()
    await task
    await session.save_session_state("s", agent=agent)  # interrupted: fine


async def test_nb_hitl_own_sessions_keep_working_next_to_json_session(tmp_path: Path) -> None:
    agent = react_agent()
    await agent(Msg("user", "Hi", "user"))
    save_session(agent, tmp_path / "own.json")
    await JSONSession(save_dir=str(tmp_path)).save_session_state("as", agent=agent)
    fresh = react_agent()
    load_session(fresh, tmp_path / "own.json")
    assert [m.get_text_content() for m in fresh.memory.messages] == ["Hi", "Hello!"]
    assert await asyncio.to_thread((tmp_path / "as.json").is_file)


@pytest.mark.parametrize("attr", ["hf_token", "api_token", "client_auth", "db_passwd"])
async def test_every_secret_looking_state_name_is_refused(tmp_path: Path, attr: str) -> None:
    # differs on purpose: one rule (model._secrets.is_secret_name) for sessions, JSONSession
    # and saved settings; JSONSession's own narrower rule let an hf_token through.
    class Holder(StateModule):
        def __init__(self) -> None:
            super().__init__()
            setattr(self, attr, "hf_abcdefghijklmnop")
            self.register_state(attr)

    session = JSONSession(save_dir=str(tmp_path))
    with pytest.raises(SessionError, match=rf"Holder\.{attr}"):
        await session.save_session_state("s", holder=Holder())
    assert not (tmp_path / "s.json").exists()
