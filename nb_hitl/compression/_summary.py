"""Writing a summary: the compression prompt, the model call, and checking its structured answer.

The messages to compress are sent as a plain-text transcript inside one user message (after
the previous summary, so a new summary folds the old one in). A transcript, unlike chat
messages, stays a valid request whatever was cut: a tool result whose call was compressed
earlier, a partial message. Models that declare ``supports_structured_model`` get
``structured_model=schema`` (AgentScope's convention); all get the JSON schema in the
instructions, and the answer is parsed leniently (code fences and surrounding prose allowed).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from nb_hitl.exceptions import ModelError
from nb_hitl.message import Msg, TextBlock

SUMMARIZE_PROMPT = (
    "You have failed to finish within the maximum number of reasoning steps. Now reply "
    "directly, without calling tools: summarise what you did, what you found, and what is left."
)
"""What ``ReActAgent`` asks its model when ``max_iters`` runs out (the replay counts it too)."""


def render_transcript(msgs: list[Msg]) -> str:
    """The messages to compress as plain text, one line per block."""
    lines = []
    for msg in msgs:
        who = f"{msg.role} {msg.name}"
        for block in msg.get_content_blocks():
            if block.type == "text" and block.text:
                lines.append(f"[{who}]: {block.text}")
            elif block.type == "tool_use":
                args = (
                    block.raw_input
                    if block.raw_input is not None
                    else json.dumps(block.input, ensure_ascii=False)
                )
                lines.append(f"[{who} called tool {block.name}({args}), call {block.id}]")
            elif block.type == "tool_result":
                status = " (error)" if block.is_error else ""
                status = " (interrupted)" if block.is_interrupted else status
                lines.append(f"[result of {block.name}, call {block.id}{status}]: ")
                lines[-1] += block.output_text()
    return "\n".join(lines)


def render_summary(template: str, summary: BaseModel) -> str:
    """Write a structured summary into ``template`` (lists become bullet lines)."""
    values = {}
    for name, value in summary.model_dump(mode="json").items():
        if isinstance(value, list):
            value = "\n".join(f"- {v}" for v in value)
        values[name] = value
    return template.format(**values)


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def parse_structured(text: str, metadata: dict[str, Any], schema: type[BaseModel]) -> BaseModel:
    """Validate the model's structured output (``metadata`` as AgentScope, or JSON text)."""
    if metadata:
        try:
            return schema.model_validate(metadata)
        except ValidationError:
            pass  # metadata may be other data; fall back to the text
    raw = _FENCE.sub("", text.strip())
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        start, end = raw.find("{"), raw.rfind("}")
        try:  # JSON wrapped in prose
            data = json.loads(raw[start : end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            data = None
        if data is None:
            raise ValueError(
                f"the compression model did not answer with JSON ({exc}); got {text[:80]!r}"
            ) from None
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'summary'}: {e['msg']}" for e in exc.errors()
        )
        raise ValueError(f"the summary does not fit {schema.__name__}: {problems}") from None


@functools.lru_cache(maxsize=32)
def _schema_json(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema(), ensure_ascii=False)


def summary_request(
    msgs: list[Msg], previous: str, instructions: str, schema: type[BaseModel]
) -> list[Msg]:
    """The two messages a compression sends: instructions with the schema, then the transcript."""
    schema_json = _schema_json(schema)
    system = (
        f"{instructions}\n\nAnswer with one JSON object, and nothing else, that matches "
        f"this JSON schema:\n{schema_json}"
    )
    body = f"<conversation>\n{render_transcript(msgs)}\n</conversation>"
    if previous:
        body = f"<previous-summary>\n{previous}\n</previous-summary>\n\n{body}"
    return [Msg("system", system, "system"), Msg("user", body, "user")]


async def _last_chunk(stream: Any) -> Any:
    last = None
    try:
        async for chunk in stream:
            last = chunk
    finally:
        await stream.aclose()
    return last


async def summarize(
    msgs: list[Msg],
    previous: str,
    *,
    model: Any,
    formatter: Any,
    instructions: str,
    schema: type[BaseModel],
    template: str,
) -> tuple[BaseModel, str]:
    """Ask ``model`` for the structured summary of ``msgs`` and ``previous``; return it rendered.

    Raises:
        ValueError: the answer is empty, not JSON, or does not fit ``schema``.
        Exception: whatever the model call raised (with ``structured_model``, whatever the
            retry without it raised after an HTTP 400/422 answer).
    """
    prompt = await formatter.format(summary_request(msgs, previous, instructions, schema))
    if getattr(model, "supports_structured_model", False):
        try:
            last = await _last_chunk(model(prompt, structured_model=schema))
        except ModelError as exc:
            if exc.status_code not in (400, 422):
                raise
            # A server without tool calls rejects the forced tool of structured output; the
            # instructions ask for the same JSON as text, so ask once more without it.
            last = await _last_chunk(model(prompt))
    else:
        last = await _last_chunk(model(prompt))
    if last is None:
        raise ValueError("the compression model returned nothing")
    text = "".join(b.text for b in last.content if isinstance(b, TextBlock))
    structured = parse_structured(text, last.metadata, schema)
    return structured, render_summary(template, structured)
