"""Provider-reported usage next to nb_hitl's own token count (for the memory inspector).

``ReActAgent`` stores the usage of the last chunk of each model call in the assistant message's
``metadata["usage"]`` (a ``ChatUsage`` dump). Its ``input_tokens`` is what the provider counted
for the whole prompt of that call: system prompt, history and tool schemas. Counting the same
prompt with nb_hitl's ``TokenCounter`` and showing both tells a user whether the chosen encoding
matches the model (a few percent is normal for chat-format overhead; 20-40 % means another
tokenizer, e.g. a Llama or Qwen model counted with an OpenAI encoding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nb_hitl.message import MetaKey, Msg

from ._base import ChatUsage

__all__ = ["PromptTokenCheck", "check_prompt_tokens", "reported_usage"]


def reported_usage(msg: Msg) -> ChatUsage | None:
    """The usage a provider reported for the call that produced ``msg``, if it reported any."""
    raw = msg.usage if msg.usage is not None else msg.metadata.get(MetaKey.USAGE)  # older
    if not isinstance(raw, dict):
        return None
    try:
        usage = ChatUsage.model_validate(raw)
    except ValueError:
        return None
    return usage if usage.input_tokens > 0 else None


@dataclass(frozen=True)
class PromptTokenCheck:
    """The provider's prompt-token count next to nb_hitl's count of the same prompt."""

    reported: int
    """Prompt tokens the provider billed (``usage.prompt_tokens``)."""
    counted: int
    """nb_hitl's count of the prompt: system message, earlier messages and tool schemas."""
    encoding: str
    """The encoding nb_hitl counted with."""
    exact: bool
    """False when the counter fell back to an approximation."""

    @property
    def difference(self) -> int:
        """``counted - reported`` (negative: nb_hitl counts fewer tokens)."""
        return self.counted - self.reported

    @property
    def relative(self) -> float:
        """The difference as a fraction of the reported count."""
        return self.difference / self.reported if self.reported else 0.0

    def label(self) -> str:
        """A short line for display, e.g. ``provider 1,204 · nb_hitl 1,187 (-1.4%)``."""
        approx = "" if self.exact else " approx."
        return (
            f"provider {self.reported:,} · nb_hitl {self.counted:,}{approx} "
            f"({self.relative:+.1%}, {self.encoding})"
        )


def check_prompt_tokens(agent: Any, msg: Msg, counter: Any = None) -> PromptTokenCheck | None:
    """Compare the provider's prompt tokens for ``msg`` with nb_hitl's count of that prompt.

    The prompt is rebuilt as the agent would send it before ``msg``: its system message, the
    messages in memory before ``msg`` that are not compressed, and its tool schemas (memory as it
    stands now, so a compression after the call shifts the comparison).

    Args:
        agent: a ``ReActAgent`` (anything with ``memory``, ``formatter``, ``system_msg()`` and
            ``toolkit``).
        msg: an assistant message from that agent's memory.
        counter: a ``nb_hitl.token.TokenCounter`` (default: one for the default encoding).

    Returns:
        ``None`` when the provider reported no usage for ``msg`` or ``msg`` is not in memory.
    """
    usage = reported_usage(msg)
    if usage is None:
        return None
    from nb_hitl.memory import COMPRESSED

    memory = agent.memory
    before: list[Msg] = []
    for item in memory.messages:
        if item.id == msg.id:
            break
        if COMPRESSED not in memory.marks_of(item.id):
            before.append(item)
    else:
        return None
    if counter is None:
        from nb_hitl.token import TokenCounter

        counter = TokenCounter()
    # Per-message counts are cached by the counter, so checking every row of a long memory
    # encodes each message once, not once per row.
    formatter = agent.formatter
    tools = agent.toolkit.get_json_schemas() or None
    counted = counter.count_sync([], tools)  # reply priming and tool schemas
    counted += counter.count_system(agent.system_msg().get_text_content() or "", formatter)
    counted += sum(entry.tokens for entry in counter.msg_counts(before, formatter))
    return PromptTokenCheck(
        reported=usage.input_tokens,
        counted=counted,
        encoding=counter.encoding_name,
        exact=counter.exact,
    )
