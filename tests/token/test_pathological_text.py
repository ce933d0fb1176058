"""Texts that make tiktoken panic are still counted, and a tokenizer failure is a clear error."""

from __future__ import annotations

import pytest

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.exceptions import TokenCountError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.token import TokenCounter, load_offline_encoding
from nb_hitl.token._safe import measure, split_long_runs

MILLION_SPACES = " " * 1_000_000


@pytest.mark.parametrize("char", [" ", "\t"])
def test_a_million_whitespace_characters_are_counted(char: str) -> None:
    counter = TokenCounter()
    n = counter.count_text("start" + char * 1_000_000 + "end")
    assert counter.exact
    # The pieces add up like ten 100,000-character runs (which tiktoken encodes whole).
    assert abs(n - 10 * counter.count_text(char * 100_000)) <= 25


def test_split_long_runs_keeps_every_character() -> None:
    text = "a" + " " * 120 + "b\n" + "\t" * 30 + "c"
    pieces = split_long_runs(text, run=50)
    assert "".join(pieces) == text
    assert all(len(p) <= 50 for p in pieces if not p.strip())


def test_a_tokenizer_panic_becomes_a_token_count_error() -> None:
    encode = load_offline_encoding("o200k_base").encode_ordinary
    try:
        n = measure(lambda t: len(encode(t)), MILLION_SPACES)
    except TokenCountError as exc:  # tiktoken 0.x panics here (pyo3_runtime.PanicException)
        assert "1,000,000 characters" in str(exc)
        assert "shorten or clean up" in str(exc)
        assert exc.__cause__ is not None
    else:  # a tiktoken that no longer panics simply counts it
        assert n > 0


class Panic(BaseException):
    """Like ``pyo3_runtime.PanicException``: a ``BaseException``, not an ``Exception``."""


def test_measure_turns_any_tokenizer_failure_into_a_token_count_error() -> None:
    # The test above meets a real panic only with a tiktoken that still panics; this one
    # checks the translation whatever tiktoken is installed.
    def panics(text: str) -> int:
        raise Panic("called `Result::unwrap()` on an `Err` value")

    with pytest.raises(TokenCountError, match="1,000,000 characters") as info:
        measure(panics, MILLION_SPACES)
    assert "Panic: called `Result::unwrap()`" in str(info.value)
    assert isinstance(info.value.__cause__, Panic)

    def interrupted(text: str) -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # a person's Ctrl+C is not a tokenizer failure
        measure(interrupted, "text")


async def test_compression_counting_a_huge_whitespace_message_does_not_wedge_the_agent() -> None:
    config = CompressionConfig(
        enable=True, agent_token_counter=TokenCounter(), trigger_threshold=10**9, keep_recent=2
    )
    agent = ReActAgent("Friday", "sys", ScriptedModel(["ok"]), compression_config=config)
    reply = await agent(Msg("User", "look:" + MILLION_SPACES, "user"))
    assert reply.get_text_content() == "ok"
    assert agent.compression_plan().total_tokens > 7_000
