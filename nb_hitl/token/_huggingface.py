"""``HuggingFaceTokenCounter``: counts with a model's own tokenizer and chat template, offline.

AgentScope 1.x's counter for models whose vendor has no counting API (DashScope's Qwen, local
models): the formatted messages go through the model's chat template and its tokenizer, and the
count is the number of token ids. The tokenizer is read from a local folder, or from the
Hugging Face cache when given a hub name (``Qwen/Qwen2.5-VL-3B-Instruct``) that was downloaded
before; nothing is ever downloaded here (AgentScope downloads it at construction).

With ``transformers`` installed its ``AutoTokenizer`` is used (``local_files_only=True``), as in
AgentScope; otherwise ``tokenizers`` reads ``tokenizer.json`` and the chat template of
``tokenizer_config.json`` is rendered with Jinja2 the way transformers renders it
(``pip install "nb-hitl[huggingface]"``).
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from nb_hitl.exceptions import ConfigError

from ._foreign import TokenCounterBase

INSTALL_HINT = (
    'HuggingFaceTokenCounter needs the tokenizers package: pip install "nb-hitl[huggingface]" '
    "(or install transformers)."
)


def hub_cache() -> Path:
    """Where the Hugging Face hub keeps downloaded models (its own environment variables)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"
    )
    return Path(home, "hub")


def find_tokenizer(name_or_path: str) -> Path:
    """The folder holding the tokenizer of ``name_or_path`` (a folder, or a cached hub name).

    Raises:
        ConfigError: it is neither a folder with ``tokenizer.json`` nor in the hub cache.
    """
    path = Path(os.path.expanduser(name_or_path))
    if path.is_file():
        return path.parent
    if path.is_dir():
        return path
    snapshots = hub_cache() / f"models--{name_or_path.replace('/', '--')}" / "snapshots"
    if snapshots.is_dir():
        found = sorted(
            (p.parent for p in snapshots.glob("*/tokenizer.json")),
            key=lambda p: p.stat().st_mtime,
        )
        if found:
            return found[-1]
    raise ConfigError(
        f"No tokenizer for {name_or_path!r}: it is not a folder, and the Hugging Face cache "
        f"({hub_cache()}) does not hold it. nb_hitl never downloads it; fetch it once with "
        f"`hf download {name_or_path} tokenizer.json tokenizer_config.json` (huggingface_hub) "
        "and pass the name again, or pass the folder that holds tokenizer.json."
    )


class _JinjaChat:
    """A ``tokenizers`` tokenizer with the chat template of its ``tokenizer_config.json``."""

    def __init__(self, folder: Path) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise ImportError(INSTALL_HINT) from None
        file = folder / "tokenizer.json"
        if not file.is_file():
            raise ConfigError(f"{folder} holds no tokenizer.json.")
        self.tokenizer = Tokenizer.from_file(str(file))
        config_file = folder / "tokenizer_config.json"
        config = json.loads(config_file.read_text("utf-8")) if config_file.is_file() else {}
        template = config.get("chat_template")
        if isinstance(template, list):  # named templates: the default one
            named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
            template = named.get("default")
        self.chat_template: str | None = template if isinstance(template, str) else None
        self.special = {
            key: _token_text(config.get(key))
            for key in ("bos_token", "eos_token", "unk_token", "pad_token")
        }

    def count(self, messages: list[dict[str, Any]], tools: Any, **kwargs: Any) -> int:
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        def raise_exception(message: str) -> None:
            raise ValueError(message)

        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        env.filters["tojson"] = lambda value, indent=None, **_: json.dumps(
            value, ensure_ascii=False, indent=indent
        )
        env.globals.update(
            raise_exception=raise_exception,
            strftime_now=lambda fmt: datetime.now().strftime(fmt),
        )
        assert self.chat_template is not None
        text = env.from_string(self.chat_template).render(
            messages=messages,
            tools=tools,
            add_generation_prompt=False,
            **{**self.special, **kwargs},
        )
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)


def _token_text(value: Any) -> str | None:
    if isinstance(value, dict):  # {"content": "<s>", ...} in older configs
        value = value.get("content")
    return value if isinstance(value, str) else None


class HuggingFaceTokenCounter(TokenCounterBase):
    """Token counts from a Hugging Face tokenizer and its chat template (AgentScope's class).

    Args:
        pretrained_model_name_or_path: a folder with ``tokenizer.json`` (and
            ``tokenizer_config.json`` for the chat template), or a hub name found in the
            Hugging Face cache.
        use_mirror: accepted for AgentScope's code; nothing is downloaded, so it changes nothing.
        use_fast: passed to transformers' ``AutoTokenizer`` when it is used.
        trust_remote_code: passed to transformers' ``AutoTokenizer`` when it is used.
        **kwargs: more arguments for ``AutoTokenizer.from_pretrained``.

    Raises:
        ImportError: neither transformers nor tokenizers is installed (with the command).
        ConfigError: the tokenizer is not on this machine (with how to fetch it).
        ValueError: the tokenizer has no chat template (AgentScope's message).
    """

    def __init__(
        self,
        pretrained_model_name_or_path: str,
        use_mirror: bool = False,
        use_fast: bool = False,
        trust_remote_code: bool = False,
        **kwargs: Any,
    ) -> None:
        self.pretrained_model_name_or_path = pretrained_model_name_or_path
        folder = find_tokenizer(pretrained_model_name_or_path)
        try:
            from transformers import AutoTokenizer
        except ImportError:
            self.tokenizer: Any = _JinjaChat(folder)
        else:
            self.tokenizer = AutoTokenizer.from_pretrained(
                str(folder),
                use_fast=use_fast,
                trust_remote_code=trust_remote_code,
                local_files_only=True,
                **kwargs,
            )
        if self.tokenizer.chat_template is None:
            raise ValueError(
                f"The tokenizer for model {pretrained_model_name_or_path} in transformers does "
                "not have chat template."
            )

    async def count(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> int:
        """Tokens of ``messages`` (formatted chat messages) and ``tools`` through the chat
        template; ``kwargs`` go to the template (e.g. ``chat_template`` with transformers)."""
        if isinstance(self.tokenizer, _JinjaChat):
            return self.tokenizer.count(messages, tools, **kwargs)
        ids = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=False, tokenize=True, tools=tools, **kwargs
        )
        if isinstance(ids, dict) or hasattr(ids, "keys"):  # a BatchEncoding in newer releases
            ids = ids["input_ids"]
        return len(ids)
