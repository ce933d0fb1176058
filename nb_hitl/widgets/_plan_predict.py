"""The exact prompt size after compressing, for agents that summarise with ``ScriptedModel``.

The plan's ``tokens_after_estimate`` assumes a summary 1/4 of what it replaces. When the
compression model is a ``ScriptedModel`` (offline, deterministic), the inspector can do better
at no model cost: write the very summary ``compress_memory()`` would write (the replay's
``ScriptedSummary``) and count it, so the number shown is the number Compress now produces.
"""

from __future__ import annotations

from typing import Any

from nb_hitl.agent import ScriptedSummary, SummaryRequest
from nb_hitl.compression.replay import summary_settings

MAX_FOLDED = 400
"""Above this many folded messages the exact size is not worked out on every refresh (writing
the scripted summary of thousands of messages takes seconds); the plan's estimate is shown."""


def scripted_after(agent: Any, plan: Any, policy: ScriptedSummary) -> int | None:
    """Prompt tokens after compressing as ``plan`` says, or None when it cannot be known.

    Args:
        agent: the ``ReActAgent``.
        plan: the plan shown (its ``compress_ids`` are folded).
        policy: a ``ScriptedSummary`` kept by the caller (it caches summaries it wrote).
    """
    from nb_hitl.model import ScriptedModel

    cfg = getattr(agent, "compression_config", None)
    model = (cfg.compression_model if cfg is not None else None) or getattr(agent, "model", None)
    if not isinstance(model, ScriptedModel) or model.structured_responder is not None:
        return None
    if not plan.compress_ids or cfg is None or len(plan.compress_ids) > MAX_FOLDED:
        return None
    formatter = cfg.compression_formatter or agent.formatter
    wanted = set(plan.compress_ids)
    instructions, schema, template = summary_settings(cfg)
    request = SummaryRequest(
        call=0,
        messages=[m for m in agent.memory.messages if m.id in wanted],
        previous=agent.memory.summary,
        previous_tokens=int(plan.breakdown.get("summary", 0)),
        folded_tokens=sum(int(plan.per_message_tokens.get(i, 0)) for i in plan.compress_ids),
        overhead_tokens=0,
        instructions=instructions,
        schema=schema,
        template=template,
        formatter=formatter,
    )
    text = policy.summarize(request, cfg.agent_token_counter).text or ""
    counter, sys_prompt = cfg.agent_token_counter, agent.sys_prompt
    joined = f"{sys_prompt}\n\n{text}" if sys_prompt and text else (sys_prompt or text)
    new_summary = counter.count_system(joined, agent.formatter) - counter.count_system(
        sys_prompt, agent.formatter
    )
    return int(plan.total_tokens) - request.previous_tokens - request.folded_tokens + new_summary


__all__ = ["scripted_after"]
