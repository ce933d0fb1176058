"""Assistant-prefix continuation over the OpenAI protocol: which request shape each server takes.

``agent.resume()`` asks a model that supports it to continue a partial answer: the messages
end with ``{"role": "assistant", "content": <partial text>}`` and the call carries
``continue_final_message=True`` (``nb_hitl.model._continuation``). OpenAI-compatible servers
differ in how they must be told (``OpenAIChatModel(assistant_prefix=...)``):

=========================  =================================================================
``"continue_final_message"``  vLLM, SGLang, Aphrodite, llama.cpp's ``llama-server`` (2026+):
                           ``continue_final_message: true, add_generation_prompt: false``
``"prefix"``               DeepSeek (``base_url`` ``https://api.deepseek.com/beta``), Mistral:
                           ``"prefix": true`` on the last (assistant) message
``"partial"``              DashScope / Qwen (Model Studio's partial mode):
                           ``"partial": true`` on the last (assistant) message
``"plain"``                servers that continue a final assistant message by themselves:
                           ``llama-server`` (assistant prefill, on by default since 2025),
                           Ollama
``"completions"``          llama-cpp-python's server, whose chat endpoint answers a final
                           assistant message from scratch: a raw ``/v1/completions`` request
                           whose prompt is the chat template (``chat_template``, ChatML by
                           default) ending in the partial answer, which the model continues
=========================  =================================================================

``"auto"`` (the default) picks ``"prefix"`` for DeepSeek's beta URL and Mistral, ``"partial"``
for DashScope, and none (the prompt form) elsewhere: OpenAI's own API, for one, treats a final
assistant message as a finished turn. A server that refuses the shape (HTTP 400/422...) makes
the agent fall back to the prompt form once, and remember it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from nb_hitl.exceptions import ConfigError

COMPLETIONS = "__nb_hitl_completion__"
"""Request key under which ``OpenAIChatModel`` carries a raw-completion continuation."""

PREFIX_STYLES = ("continue_final_message", "prefix", "partial", "plain", "completions")
"""The request shapes ``OpenAIChatModel(assistant_prefix=...)`` knows."""

ChatTemplate = Callable[[list[dict[str, Any]]], str]
"""Renders chat messages, the last one an open assistant message, as one prompt string."""


def check_prefix_style(style: str | None, base_url: str) -> str | None:
    """The request shape to use: ``style`` checked, ``"auto"`` resolved for ``base_url``."""
    if style is None or style in PREFIX_STYLES:
        return style
    if style == "auto":
        return auto_prefix_style(base_url)
    raise ConfigError(
        f"assistant_prefix={style!r} is not a request shape nb_hitl knows; use one of "
        f"{', '.join(repr(s) for s in PREFIX_STYLES)}, 'auto' or None (the prompt form)."
    )


def auto_prefix_style(base_url: str) -> str | None:
    """The shape a well-known host takes (None: unknown, use the prompt form)."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if host == "api.deepseek.com" and parts.path.rstrip("/").endswith("/beta"):
        return "prefix"
    if host == "api.mistral.ai":
        return "prefix"
    if host.endswith("dashscope.aliyuncs.com") or host.endswith("dashscope-intl.aliyuncs.com"):
        return "partial"
    return None


def prefix_request(
    style: str, messages: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The messages and extra request fields that ask ``style``'s server to continue the last
    (assistant) message."""
    last = messages[-1] if messages else {}
    if last.get("role") != "assistant":
        raise ValueError("a continuation request must end with the assistant message to continue")
    if style == "continue_final_message":
        return messages, {"continue_final_message": True, "add_generation_prompt": False}
    if style in ("prefix", "partial"):
        return [*messages[:-1], {**last, style: True}], {}
    return messages, {}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def chatml(messages: list[dict[str, Any]]) -> str:
    """ChatML (SmolLM2, Qwen, many others), the last message left open to be continued.

    Tool calls are written as JSON lines after the assistant's text and tool results as
    ``tool`` turns: enough context for a continuation, which needs no tool syntax of its own.
    """
    parts: list[str] = []
    for i, message in enumerate(messages):
        role = str(message.get("role", "user"))
        body = _text(message.get("content"))
        for call in message.get("tool_calls") or []:
            function = call.get("function", {}) if isinstance(call, dict) else {}
            body += ("\n" if body else "") + json.dumps(
                {"name": function.get("name"), "arguments": function.get("arguments")}
            )
        if i == len(messages) - 1:
            parts.append(f"<|im_start|>{role}\n{body}")
        else:
            parts.append(f"<|im_start|>{role}\n{body}<|im_end|>\n")
    return "".join(parts)


TEMPLATES: dict[str, ChatTemplate] = {"chatml": chatml}
"""Chat templates by name, for ``assistant_prefix="completions"``."""


def check_template(template: str | ChatTemplate) -> ChatTemplate:
    """A template function: a known name or a callable."""
    if callable(template):
        return template
    if template in TEMPLATES:
        return TEMPLATES[template]
    raise ConfigError(
        f"chat_template={template!r} is unknown; give one of {sorted(TEMPLATES)} or a function "
        "(messages) -> prompt text that leaves the last message open."
    )


COMPLETION_FIELDS = frozenset(
    {
        "max_tokens",
        "temperature",
        "top_p",
        "seed",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "stream",
        "stream_options",
        "extra_body",
        "n",
        "logit_bias",
        "user",
    }
)
"""Fields a chat request shares with a ``/v1/completions`` request."""


def completion_request(chat_request: dict[str, Any], template: ChatTemplate) -> dict[str, Any]:
    """A ``/v1/completions`` request continuing the chat request's last message."""
    request = {k: v for k, v in chat_request.items() if k in COMPLETION_FIELDS}
    request["model"] = chat_request["model"]
    request["prompt"] = template(chat_request["messages"])
    stop = request.get("stop")
    if template is chatml and not stop:
        request["stop"] = ["<|im_end|>"]
    return request


def completion_as_chat(chunk: Any) -> dict[str, Any]:
    """A completions chunk (or whole response) in the shape of a chat-completion chunk."""

    def read(obj: Any, name: str) -> Any:
        return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)

    choices = []
    for choice in read(chunk, "choices") or []:
        choices.append(
            {
                "index": read(choice, "index") or 0,
                "delta": {"content": read(choice, "text") or ""},
                "finish_reason": read(choice, "finish_reason"),
            }
        )
    out: dict[str, Any] = {"id": read(chunk, "id"), "choices": choices}
    usage = read(chunk, "usage")
    if usage is not None:
        out["usage"] = usage if isinstance(usage, dict) else usage.model_dump()
    return out


class CompletionStream:
    """A streamed ``/v1/completions`` response whose chunks read as chat-completion chunks,
    closed the way the SDK's chat streams are (``close()``)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._iterator = self._chunks()

    async def _chunks(self) -> Any:
        async for chunk in self._inner:
            yield completion_as_chat(chunk)

    def __aiter__(self) -> Any:
        return self._iterator

    async def close(self) -> None:
        """Close the response (the server sees the disconnect) and its reader."""
        await self._inner.close()
        inner = getattr(self._inner, "_iterator", None)
        if inner is not None and hasattr(inner, "aclose"):
            await inner.aclose()


__all__ = [
    "COMPLETIONS",
    "COMPLETION_FIELDS",
    "PREFIX_STYLES",
    "TEMPLATES",
    "ChatTemplate",
    "CompletionStream",
    "auto_prefix_style",
    "chatml",
    "check_prefix_style",
    "check_template",
    "completion_as_chat",
    "completion_request",
    "prefix_request",
]
