"""Memory compression settings: ``CompressionConfig``, the summary schema and its template.

A config is checked whole when it is made and on every change (``ConfigError`` names the
field and the fix). What it would compress now is ``plan_compression()`` (``_plan.py``);
doing the compression lives in ``nb_hitl/agent/_compression_agent.py``.
"""

from __future__ import annotations

import string
import weakref
from collections.abc import Callable
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from nb_hitl.exceptions import ConfigError
from nb_hitl.model import ChatModelBase
from nb_hitl.token import TokenCounter, as_token_counter

DEFAULT_COMPRESSION_PROMPT = (
    "You compress the earlier part of a conversation between a user and an AI agent, so the "
    "agent can go on with its task in a shorter context. The summary replaces those messages: "
    "keep every fact, decision, name, number, file, tool result and open question the agent "
    "still needs. If a previous summary is given, fold all of its facts into the new one."
)

DEFAULT_SUMMARY_TEMPLATE = """<system-info>Summary of the earlier conversation (older messages \
were compressed into it):
# Task overview
{task_overview}
# Current state
{current_state}
# Important discoveries
{important_discoveries}
# Next steps
{next_steps}
# Context to preserve
{context_to_preserve}
</system-info>"""

SUMMARY_RATIO = 4
"""The plan's after-estimate assumes a summary about 1/SUMMARY_RATIO of what it replaces."""


class SummarySchema(BaseModel):
    """The structured summary a compression asks the model for (AgentScope's fields)."""

    model_config = ConfigDict(defer_build=True)

    task_overview: str = Field(description="The user's task and its goal, in a few sentences.")
    """The user's task and its goal."""
    current_state: str = Field(description="What has been done so far and where the work is.")
    """What has been done so far."""
    important_discoveries: str = Field(
        description="Facts, results, errors and decisions found so far that still matter."
    )
    """Facts and results that still matter."""
    next_steps: str = Field(description="What is left to do, in order.")
    """What is left to do."""
    context_to_preserve: str = Field(
        description="Exact details to keep verbatim: names, numbers, paths, ids, user preferences."
    )
    """Details to keep verbatim."""


def template_fields(template: str) -> list[str]:
    """Names of the ``{fields}`` a summary template uses."""
    names = []
    for _, field, _, _ in string.Formatter().parse(template):
        if field is not None:
            names.append(field.split(".", 1)[0].split("[", 1)[0])
    return names


def check_summary_template(template: str) -> None:
    """Raise ``ValueError`` unless ``template`` uses only plain ``{field}`` placeholders.

    Format specs and conversions (``{task_overview:>5000000}``, ``{x!r}``), attribute and
    index access are refused: a template loaded from a file must not be able to pad a summary
    to megabytes or reach into objects.
    """
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(
            f"summary_template is not a valid template ({exc}); write literal braces as "
            "{{ and }}, and fields as {task_overview}."
        ) from None
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if not field or field.isdigit():
            raise ValueError(
                "summary_template must use named fields such as {task_overview}, not {} "
                "or {0}; write literal braces as {{ and }}."
            )
        if spec or conversion or not field.isidentifier():
            shown = "{" + field + (f"!{conversion}" if conversion else "")
            shown += (f":{spec}" if spec else "") + "}"
            raise ValueError(
                f"summary_template may only use plain placeholders such as {{task_overview}}; "
                f"{shown[:60]!s} has a format spec, conversion, index or attribute. Remove "
                "it (write literal braces as {{ and }})."
            )


class CompressionConfig(BaseModel):
    """When and how a ``ReActAgent`` summarises old memory (AgentScope's field names).

    Invalid values raise ``ConfigError`` at construction, saying what to change.
    """

    model_config = ConfigDict(
        arbitrary_types_allowed=True, validate_assignment=True, extra="forbid", defer_build=True
    )

    enable: bool = True
    """Compress automatically before a reasoning step when the plan triggers."""
    agent_token_counter: TokenCounter = Field(default_factory=TokenCounter)
    """Counts the prompt (default: exact ``o200k_base`` counts)."""
    trigger_threshold: int
    """Compress when the prompt (system, summary, history, tool schemas) passes this many tokens."""
    keep_recent: int = 3
    """How many of the latest uncompressed messages always stay verbatim."""
    compression_prompt: str = DEFAULT_COMPRESSION_PROMPT
    """Instructions given to the compression model."""
    summary_template: str = DEFAULT_SUMMARY_TEMPLATE
    """How the structured summary is written into the system prompt (``{field}`` per field)."""
    summary_schema: type[BaseModel] = SummarySchema
    """The pydantic model the compression model must fill."""
    compression_model: ChatModelBase | None = None
    """The model that writes summaries (default: the agent's model)."""
    compression_formatter: Any = None
    """The formatter of the compression prompt (default: the agent's formatter)."""

    _watchers: list[weakref.WeakMethod[Callable[[CompressionConfig], None]]] = PrivateAttr(
        default_factory=list
    )

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(_explain(exc)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        # Assignments are validated like the constructor, with the same clear error; a
        # refused value is never left behind (pydantic sets it before "after" validators run).
        before = dict(self.__dict__)
        try:
            super().__setattr__(name, value)
        except ValidationError as exc:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise ConfigError(_explain(exc)) from None
        if not name.startswith("_") and before.get(name) != self.__dict__.get(name):
            self._notify()

    def __copy__(self) -> CompressionConfig:
        new = super().__copy__()
        new._watchers = []  # a copy is nobody's settings until an agent takes it
        return new

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> CompressionConfig:
        watchers, self._watchers = self._watchers, []  # weak references do not deep-copy
        try:
            return super().__deepcopy__(memo)
        finally:
            self._watchers = watchers

    def watch(self, callback: Callable[[CompressionConfig], None]) -> None:
        """Call the bound method ``callback(config)`` after every change of a setting (held
        weakly: an agent watching its config is not kept alive by it)."""
        self._watchers.append(weakref.WeakMethod(callback))

    def unwatch(self, callback: Callable[[CompressionConfig], None]) -> None:
        """Stop calling ``callback``."""
        self._watchers = [w for w in self._watchers if w() not in (None, callback)]

    def _notify(self) -> None:
        for ref in list(self._watchers):
            callback = ref()
            if callback is not None:
                callback(self)

    @field_validator("summary_template")
    @classmethod
    def _plain_template(cls, value: str) -> str:
        check_summary_template(value)
        return value

    @field_validator("trigger_threshold")
    @classmethod
    def _positive_threshold(cls, value: int) -> int:
        if value <= 0:
            raise ValueError(
                f"trigger_threshold must be a positive number of tokens (got {value}); "
                "e.g. trigger_threshold=3000, below the model's context window."
            )
        return value

    @field_validator("keep_recent")
    @classmethod
    def _non_negative_keep(cls, value: int) -> int:
        if value < 0:
            raise ValueError(
                f"keep_recent must be 0 or more messages (got {value}); the default is 3."
            )
        return value

    @field_validator("agent_token_counter", mode="before")
    @classmethod
    def _any_counter(cls, value: Any) -> TokenCounter:
        # AgentScope's counters (CharTokenCounter, your TokenCounterBase subclass) are adapted.
        try:
            return as_token_counter(value)
        except TypeError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("summary_schema", mode="before")
    @classmethod
    def _schema_is_model(cls, value: Any) -> type[BaseModel]:
        if not (isinstance(value, type) and issubclass(value, BaseModel)):
            raise ValueError(f"summary_schema must be a pydantic model class, got {value!r}.")
        return value

    @model_validator(mode="after")
    def _template_matches_schema(self) -> CompressionConfig:
        known = list(self.summary_schema.model_fields)
        for name in template_fields(self.summary_template):
            if not name or name.isdigit():
                raise ValueError(
                    "summary_template must use named fields such as {task_overview}, not {} "
                    "or {0}; write literal braces as {{ and }}."
                )
            if name not in known:
                raise ValueError(
                    f"summary_template uses {{{name}}} but summary_schema "
                    f"{self.summary_schema.__name__} has no field {name!r}. Use one of "
                    f"{', '.join('{' + k + '}' for k in known)}, or add the field to the schema."
                )
        return self


def _explain(exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = f"{where} is required (e.g. {where}=3000)"
        elif err["type"] in ("extra_forbidden", "no_such_attribute"):
            known = [n for n in CompressionConfig.model_fields]
            import difflib  # only for the error's hint

            close = difflib.get_close_matches(where, known, n=1)
            hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(known)}"
            msg = f"{where} is not a CompressionConfig setting ({hint})"
        elif err["type"] == "is_instance_of":
            msg = f"{where} has the wrong type: {msg}"
        elif where and not msg.startswith(where):
            msg = f"{where}: {msg}"
        problems.append(msg)
    return "Invalid CompressionConfig: " + "; ".join(problems)


_default_counter: TokenCounter | None = None


def default_counter() -> TokenCounter:
    """The process-wide counter used when an agent has no ``CompressionConfig``."""
    global _default_counter
    if _default_counter is None:
        _default_counter = TokenCounter()
    return _default_counter
