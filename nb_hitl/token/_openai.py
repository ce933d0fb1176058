"""OpenAITokenCounter: AgentScope's name and calling style on nb_hitl's exact offline counter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._counter import TokenCounter


class OpenAITokenCounter(TokenCounter):
    """Counts an OpenAI-format prompt's tokens: ``await OpenAITokenCounter("gpt-4o").count(msgs)``.

    The same exact, offline count as ``TokenCounter`` (tiktoken's encoding of ``model_name``,
    ``o200k_base`` when tiktoken does not know it), with images counted by OpenAI's tile rule
    and audio estimated (see ``nb_hitl.token._image``).

    Differences kept on purpose from AgentScope: nothing is downloaded (AgentScope fetches web
    images to measure them; here they count as the largest high-detail image), and tool calls
    count 3 tokens plus their name and arguments each (OpenAI publishes no rule; AgentScope
    encodes the JSON of the whole ``tool_calls`` list, ids included).

    Args:
        model_name: the OpenAI model whose encoding and image rule to use.
        **kwargs: ``TokenCounter`` options (``vocab_dir``, ``cache_size``).
    """

    def __init__(self, model_name: str, **kwargs: Any) -> None:
        super().__init__(model=model_name, **kwargs)
        self.model_name = model_name

    async def count(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> int:
        """Tokens of ``messages`` (OpenAI-format dicts, as a formatter returns) and ``tools``."""
        return self.count_sync(messages, tools)


__all__ = ["OpenAITokenCounter"]
