"""CompressionConfig: AgentScope's fields, and invalid values refused with a fix."""

from __future__ import annotations

import pytest
from compression_helpers import make
from pydantic import BaseModel

import nb_hitl
from nb_hitl.agent import CompressionConfig, ReActAgent, SummarySchema
from nb_hitl.exceptions import ConfigError
from nb_hitl.model import ScriptedModel
from nb_hitl.token import TokenCounter


def test_defaults_follow_agentscope() -> None:
    cfg = CompressionConfig(trigger_threshold=3000)
    assert cfg.enable is True
    assert cfg.keep_recent == 3
    assert isinstance(cfg.agent_token_counter, TokenCounter)
    assert cfg.summary_schema is SummarySchema
    assert list(SummarySchema.model_fields) == [
        "task_overview",
        "current_state",
        "important_discoveries",
        "next_steps",
        "context_to_preserve",
    ]
    assert cfg.compression_model is None and cfg.compression_formatter is None
    assert nb_hitl.CompressionConfig is CompressionConfig


def test_issue_example_builds_an_agent() -> None:
    cfg = CompressionConfig(
        enable=True, agent_token_counter=TokenCounter(), trigger_threshold=3000, keep_recent=3
    )
    agent = ReActAgent("Friday", "Hi.", ScriptedModel(["ok"]), compression_config=cfg)
    assert agent.compression_config is cfg


@pytest.mark.parametrize("threshold", [0, -5])
def test_threshold_must_be_positive(threshold: int) -> None:
    with pytest.raises(ConfigError, match="trigger_threshold must be a positive number of tokens"):
        CompressionConfig(trigger_threshold=threshold)


def test_threshold_is_required() -> None:
    with pytest.raises(ConfigError, match=r"trigger_threshold is required \(e.g. trigger_thres"):
        CompressionConfig()  # type: ignore[call-arg]


def test_keep_recent_cannot_be_negative() -> None:
    with pytest.raises(ConfigError, match=r"keep_recent must be 0 or more messages \(got -1\)"):
        CompressionConfig(trigger_threshold=100, keep_recent=-1)
    assert CompressionConfig(trigger_threshold=100, keep_recent=0).keep_recent == 0


def test_template_naming_a_field_the_schema_lacks() -> None:
    with pytest.raises(ConfigError) as info:
        CompressionConfig(trigger_threshold=100, summary_template="Goal: {goal}\n{next_steps}")
    message = str(info.value)
    assert "uses {goal} but summary_schema SummarySchema has no field 'goal'" in message
    assert "{task_overview}" in message and "add the field to the schema" in message


def test_template_with_positional_fields_is_refused() -> None:
    with pytest.raises(ConfigError, match="named fields"):
        CompressionConfig(trigger_threshold=100, summary_template="Summary: {}")


def test_custom_schema_and_template_match() -> None:
    class Notes(BaseModel):
        goal: str
        facts: list[str]

    cfg = CompressionConfig(
        trigger_threshold=100, summary_schema=Notes, summary_template="{goal}\n{facts} {{x}}"
    )
    assert cfg.summary_schema is Notes
    with pytest.raises(ConfigError, match="summary_schema must be a pydantic model class"):
        CompressionConfig(trigger_threshold=100, summary_schema=dict)


def test_wrong_types_are_named() -> None:
    with pytest.raises(ConfigError, match="agent_token_counter"):
        CompressionConfig(trigger_threshold=100, agent_token_counter="gpt-4o")
    with pytest.raises(ConfigError, match="compression_model"):
        CompressionConfig(trigger_threshold=100, compression_model="gpt-4o")


def test_config_errors_are_value_errors_and_assignment_is_checked() -> None:
    cfg = CompressionConfig(trigger_threshold=100)
    with pytest.raises(ValueError, match="positive"):
        cfg.trigger_threshold = 0
    assert cfg.trigger_threshold == 100


def test_agent_accepts_a_dict_and_refuses_other_things() -> None:
    agent = ReActAgent(
        "Friday", "Hi.", ScriptedModel(["ok"]), compression_config={"trigger_threshold": 500}
    )
    assert isinstance(agent.compression_config, CompressionConfig)
    assert agent.compression_config.trigger_threshold == 500
    with pytest.raises(ConfigError, match="must be a CompressionConfig"):
        ReActAgent("Friday", "Hi.", ScriptedModel(["ok"]), compression_config=3000)
    assert make().compression_config is not None


def test_the_contract_names_are_exported() -> None:
    import nb_hitl.agent
    import nb_hitl.events
    import nb_hitl.token

    for name in ("CompressionConfig", "CompressionPlan", "CompressionResult", "plan_compression"):
        assert name in nb_hitl.agent.__all__
    for name in ("CompressionStarted", "CompressionFinished", "CompressionFailed"):
        assert name in nb_hitl.events.__all__
    assert "TokenCounter" in nb_hitl.token.__all__
    assert "CompressionConfig" in nb_hitl.__all__
    for method in ("compression_plan", "compress_memory", "undo_compression", "pin", "unpin"):
        assert callable(getattr(ReActAgent, method))


def test_a_misspelt_setting_is_refused_with_a_did_you_mean_hint() -> None:
    with pytest.raises(ConfigError, match=r"keep_recnt is not a CompressionConfig setting "
                                          r"\(did you mean keep_recent\?\)"):  # fmt: skip
        CompressionConfig(trigger_threshold=100, keep_recnt=0)
    cfg = CompressionConfig(trigger_threshold=100)
    with pytest.raises(ConfigError, match="did you mean trigger_threshold"):
        cfg.trigger_treshold = 5  # type: ignore[attr-defined]


def test_assignments_are_validated_and_raise_config_error() -> None:
    cfg = CompressionConfig(trigger_threshold=100, keep_recent=2)
    with pytest.raises(ConfigError, match="trigger_threshold must be a positive number"):
        cfg.trigger_threshold = -5
    with pytest.raises(ConfigError, match="keep_recent must be 0 or more"):
        cfg.keep_recent = -1
    with pytest.raises(ConfigError, match="summary_template"):
        cfg.summary_template = "{nope}"
    assert (cfg.trigger_threshold, cfg.keep_recent) == (100, 2)  # nothing changed
    assert "{nope}" not in cfg.summary_template
    cfg.trigger_threshold = 50
    assert cfg.trigger_threshold == 50


@pytest.mark.parametrize(
    "template",
    ["{", "}", "{task_overview:>5000000}", "{task_overview!r}", "{task_overview.__class__}",
     "{task_overview[0]}"],
)  # fmt: skip
def test_summary_template_allows_only_plain_placeholders_and_names_the_field(
    template: str,
) -> None:
    with pytest.raises(ConfigError, match=r"^Invalid CompressionConfig: summary_template "):
        CompressionConfig(trigger_threshold=100, summary_template=template)
    ok = CompressionConfig(trigger_threshold=100, summary_template="{{literal}} {next_steps}")
    assert "{next_steps}" in ok.summary_template


async def test_changing_a_setting_tells_the_agent_and_its_views_by_event() -> None:
    import asyncio
    import gc
    import weakref

    from nb_hitl.events import CompressionConfigChanged

    cfg = CompressionConfig(trigger_threshold=5000, keep_recent=0)
    agent = ReActAgent("A", "sys", ScriptedModel(["x"]), compression_config=cfg)
    seen: list[tuple[int | None, int, bool]] = []
    agent.subscribe(
        lambda e: (
            seen.append((e.trigger_threshold, e.keep_recent, e.enable))
            if isinstance(e, CompressionConfigChanged)
            else None
        )
    )
    cfg.trigger_threshold = 7000
    cfg.keep_recent = 8
    cfg.keep_recent = 8  # no change, no event
    cfg.model_copy().keep_recent = 1  # a copy is nobody's settings
    with pytest.raises(ConfigError):
        cfg.keep_recent = -1  # refused: no event either
    agent.compression_config = None
    cfg.keep_recent = 9  # no longer the agent's
    await asyncio.sleep(0)
    assert seen == [(7000, 0, True), (7000, 8, True), (None, 3, False)]
    # The config holds its agent weakly.
    ref = weakref.ref(agent)
    agent.compression_config = cfg
    del agent
    gc.collect()
    assert ref() is None
    cfg.keep_recent = 2
