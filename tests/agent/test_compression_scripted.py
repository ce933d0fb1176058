"""ScriptedModel's deterministic structured summaries, which make compression work offline."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from nb_hitl.agent import SummarySchema
from nb_hitl.model import ScriptedModel
from nb_hitl.model._scripted import structured_summary


async def collect(model: ScriptedModel, messages: list[dict[str, Any]], **kw: Any) -> str:
    last = None
    async for chunk in model(messages, **kw):
        last = chunk
    assert last is not None and last.is_last
    return last.content[0].text  # type: ignore[union-attr]


async def test_structured_calls_get_valid_json_and_do_not_use_up_the_script() -> None:
    model = ScriptedModel(["first scripted turn"], tokens_per_second=1e6)
    prompt = [
        {"role": "system", "content": "Summarise. (instructions are not facts)"},
        {"role": "user", "content": "<conversation>\n[user U]: the key is 42\n</conversation>"},
    ]
    text = await collect(model, prompt, structured_model=SummarySchema)
    summary = SummarySchema.model_validate_json(text)
    assert summary.task_overview == "[user U]: the key is 42"
    assert "instructions" not in text and "<conversation>" not in text
    assert await collect(model, [{"role": "user", "content": "hi"}]) == "first scripted turn"
    assert [c.kwargs.get("structured_model") for c in model.calls] == [SummarySchema, None]


async def test_long_structured_answers_stream_in_about_twenty_chunks() -> None:
    model = ScriptedModel(tokens_per_second=1e6)
    facts = "\n".join(f"fact number {i} is worth keeping" for i in range(200))
    chunks = [
        c async for c in model([{"role": "user", "content": facts}], structured_model=SummarySchema)
    ]
    assert 2 <= len(chunks) <= 22


def test_facts_of_a_previous_summary_are_carried_over_once() -> None:
    class Notes(BaseModel):
        goal: str
        context: list[str]
        count: int = 0

    prompt = [
        {
            "role": "user",
            "content": "<previous-summary>\n# Facts\nalpha\nbeta\n</previous-summary>",
        },
        {"role": "user", "content": "beta\ngamma"},
    ]
    values = structured_summary(prompt, Notes)
    assert values == {"goal": "alpha", "context": ["alpha", "beta", "gamma"]}
    assert Notes.model_validate(values).count == 0
    assert json.dumps(structured_summary([], SummarySchema))  # empty prompts still give JSON


async def test_a_structured_responder_can_script_bad_answers() -> None:
    model = ScriptedModel(structured_responder=lambda messages, schema: "not json")
    assert await collect(model, [], structured_model=SummarySchema) == "not json"
