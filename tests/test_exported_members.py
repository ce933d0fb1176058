"""The public API is curated, and importing nb_hitl stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

import nb_hitl


def test_top_level_exports() -> None:
    for name in ("Msg", "ReActAgent", "UserAgent", "InMemoryMemory", "Toolkit", "ScriptedModel"):
        assert name in nb_hitl.__all__
        assert getattr(nb_hitl, name) is not None
    for name in nb_hitl.__all__:
        assert hasattr(nb_hitl, name), name


def test_agentscope_import_paths() -> None:
    from nb_hitl.agent import (  # noqa: F401
        AgentBase,
        ReActAgent,
        TerminalUserInput,
        UserAgent,
        UserInputBase,
        UserInputData,
    )
    from nb_hitl.exceptions import HookError, SessionError  # noqa: F401
    from nb_hitl.formatter import (  # noqa: F401
        DashScopeChatFormatter,
        DashScopeMultiAgentFormatter,
        FormatterBase,
        OpenAIChatFormatter,
        OpenAIMultiAgentFormatter,
    )
    from nb_hitl.memory import InMemoryMemory, MemoryBase  # noqa: F401
    from nb_hitl.message import (  # noqa: F401
        AudioBlock,
        Base64Source,
        ContentBlock,
        ContentBlockTypes,
        ImageBlock,
        Msg,
        TextBlock,
        ThinkingBlock,
        ToolResultBlock,
        ToolUseBlock,
        URLSource,
        VideoBlock,
    )
    from nb_hitl.model import ChatModelBase, ChatResponse, ScriptedModel  # noqa: F401
    from nb_hitl.module import StateModule  # noqa: F401
    from nb_hitl.session import JSONSession, SessionBase  # noqa: F401
    from nb_hitl.token import (  # noqa: F401
        CharTokenCounter,
        OpenAITokenCounter,
        TokenCounter,
        TokenCounterBase,
    )
    from nb_hitl.tool import Toolkit, ToolResponse  # noqa: F401


def test_tool_and_memory_public_names() -> None:
    import nb_hitl.memory
    import nb_hitl.tool

    assert sorted(nb_hitl.tool.__all__) == [
        "BackgroundTask",
        "RegisteredTool",
        "ToolCallStream",
        "ToolGroup",
        "ToolKind",
        "ToolResponse",
        "Toolkit",
        "execute_python_code",
        "execute_shell_command",
        "insert_text_file",
        "tool_kind",
        "view_text_file",
        "write_text_file",
    ]
    assert sorted(nb_hitl.memory.__all__) == [
        "AsyncSQLAlchemyMemory",
        "COMPRESSED",
        "InMemoryMemory",
        "MemoryBase",
        "PINNED",
        "RedisMemory",
        "StoredMemory",
    ]


def test_model_public_names() -> None:
    import nb_hitl.model

    for name in ("ChatModelBase", "ChatResponse", "ChatUsage", "ModelCall", "OpenAIChatModel"):
        assert name in nb_hitl.model.__all__, name
    assert "DashScopeChatModel" in nb_hitl.model.__all__
    # What other packages (agent, demo, compression.replay) use instead of model's modules.
    for name in (
        "CONTINUE_KWARG",
        "ContinuationRequest",
        "continuation_blocks",
        "continuation_prompt",
        "join_continuation",
        "parse_continuation_prompt",
        "structured_summary",
    ):
        assert name in nb_hitl.model.__all__, name
        assert callable(getattr(nb_hitl.model, name)) or name == "CONTINUE_KWARG", name


def test_agent_seams_for_the_extension_and_hubs_are_public() -> None:
    import nb_hitl.agent

    assert "live_agents" in nb_hitl.agent.__all__
    assert callable(nb_hitl.agent.AgentBase.wait_idle)


def test_an_agent_import_leaves_optional_model_and_formatter_modules_unloaded() -> None:
    code = (
        "import sys\nfrom nb_hitl import ReActAgent, Msg\n"
        "print(','.join(m for m in ('nb_hitl.model._scripted', 'nb_hitl.model._openai',"
        " 'nb_hitl.formatter._dashscope_formatter', 'nb_hitl.memory._stored') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_an_agent_import_leaves_the_parts_for_the_first_agent_made() -> None:
    # What only a made agent needs loads with the first one: the gate, the parts, the
    # compression settings (and with them the token counters), the formatter, the Toolkit.
    later = (
        "nb_hitl.agent.approvals._gate",
        "nb_hitl.agent._compressor",
        "nb_hitl.agent._branches",
        "nb_hitl.agent.resume",
        "nb_hitl.compression._config",
        "nb_hitl.token",
        "nb_hitl.formatter",
        "nb_hitl.tool._toolkit",
    )
    code = (
        "import sys\nfrom nb_hitl import ReActAgent, Msg, ScriptedModel\n"
        f"later = {later!r}\n"
        "print(','.join(m for m in later if m in sys.modules))\n"
        "agent = ReActAgent('a', 'be brief', ScriptedModel.demo())\n"
        "agent.resumer, agent.branch_table\n"
        "print(','.join(m for m in later if m not in sys.modules))\n"
        "from nb_hitl.compression import CompressionConfig\n"
        "print(ReActAgent.CompressionConfig is CompressionConfig)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["", "", "True"]


def test_every_subpackage_all_is_importable() -> None:
    import importlib

    for mod in (
        "agent",
        "compression",
        "compression.replay",
        "events",
        "formatter",
        "memory",
        "message",
        "model",
        "module",
        "pipeline",
        "remote",
        "session",
        "token",
        "tool",
        "widgets",
        "widgets.hub",
    ):
        module = importlib.import_module(f"nb_hitl.{mod}")
        for name in module.__all__:
            assert hasattr(module, name), f"nb_hitl.{mod}.{name}"


def test_compression_and_session_names_are_the_same_objects_at_every_path() -> None:
    import nb_hitl.agent as agent
    import nb_hitl.compression as compression
    import nb_hitl.compression.replay as replay
    import nb_hitl.session as session

    assert sorted(compression.__all__) == [
        "CompressionConfig",
        "CompressionPlan",
        "CompressionResult",
        "SummarySchema",
        "plan_compression",
    ]
    for package in (compression, replay):
        for name in package.__all__:
            assert name in agent.__all__, name
            assert getattr(agent, name) is getattr(package, name), name
    assert sorted(session.__all__) == [
        "JSONSession",
        "RedisSession",
        "SCHEMA_VERSION",
        "SessionBase",
        "SessionInfo",
        "SessionNotFoundError",
        "atomic_write_text",
        "compression_settings",
        "load_session",
        "read_session",
        "save_session",
        "session_document",
    ]


def test_import_does_not_load_heavy_optional_modules() -> None:
    code = (
        "import sys, nb_hitl; "
        "print(','.join(m for m in ('ipywidgets', 'openai', 'tiktoken') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_notebook_extension_entry_points_stay_lazy() -> None:
    assert callable(nb_hitl.load_ipython_extension)
    assert callable(nb_hitl.unload_ipython_extension)
    code = (
        "import sys, nb_hitl; print('nb_hitl.extension' in sys.modules, 'IPython' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_compression_replay_names() -> None:
    import nb_hitl.agent as agent

    for name in (
        "replay_compression",
        "replay_compression_async",
        "sweep_compression",
        "CompressionReplay",
        "CompressionSweep",
        "ReplayCall",
        "FixedSummary",
        "RatioSummary",
        "ScriptedSummary",
        "ModelSummary",
    ):
        assert name in agent.__all__, name
    from nb_hitl.exceptions import NbHitlError, TranscriptError

    assert issubclass(TranscriptError, NbHitlError) and issubclass(TranscriptError, ValueError)


def test_steering_names() -> None:
    import nb_hitl.events as events
    from nb_hitl.agent import ReActAgent

    assert "Steered" in events.__all__ and events.Steered.kind == "steered"
    for name in ("steer", "steer_nowait", "steer_threadsafe", "pending_steering"):
        assert hasattr(ReActAgent, name), name


def test_resume_and_stop_after_step_names() -> None:
    import nb_hitl.events as events
    import nb_hitl.exceptions as exceptions
    from nb_hitl.agent import BranchInfo, ReActAgent, ResumePoint

    assert ResumePoint.__name__ == "ResumePoint" and BranchInfo.__name__ == "BranchInfo"
    for name in (
        "Resumed",
        "StopRequested",
        "StoppedAfterStep",
        "BranchCreated",
        "BranchCheckedOut",
    ):
        assert name in events.__all__, name
    assert issubclass(exceptions.NothingToResumeError, exceptions.ResumeError)
    assert issubclass(exceptions.ResumeError, exceptions.NbHitlError)
    for name in (
        "resume",
        "resume_point",
        "can_resume",
        "stop_after_step",
        "stop_after_step_nowait",
        "stop_after_step_threadsafe",
        "stop_pending",
        "branches",
        "branch",
        "checkout",
        "fork",
        "edit_and_resend",
        "regenerate",
    ):
        assert hasattr(ReActAgent, name), name
    assert issubclass(exceptions.BranchError, exceptions.NbHitlError)


def test_pipeline_names() -> None:
    import nb_hitl.pipeline as pipeline
    from nb_hitl.agent import AgentBase

    for name in (
        "MsgHub",
        "sequential_pipeline",
        "fanout_pipeline",
        "SequentialPipeline",
        "FanoutPipeline",
        "resume",
        "stream_printing_messages",
    ):
        assert name in pipeline.__all__, name
    for name in (
        "reset_subscribers",
        "remove_subscribers",
        "observe",
        "set_msg_queue_enabled",
        "msg_queue",
    ):
        assert hasattr(AgentBase, name), name


def test_widget_panels_are_public() -> None:
    import nb_hitl.widgets

    for name in (
        "AgentPanel",
        "ChatWidget",
        "HubPanel",
        "MarimoHost",
        "MemoryInspector",
        "RedrawBudget",
        "in_marimo",
        "marimo_panel",
        "redraw_budget",
    ):
        assert name in nb_hitl.widgets.__all__, name
        assert hasattr(nb_hitl.widgets, name), name


def test_import_loads_no_agent_code_until_a_name_is_used() -> None:
    code = (
        "import sys, nb_hitl; "
        "print('nb_hitl.agent' in sys.modules, 'pydantic' in sys.modules); "
        "nb_hitl.ReActAgent; "
        "print('nb_hitl.agent' in sys.modules, 'nb_hitl.compression._replay' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True", "False"]


def test_lazy_names_are_listed_and_cached_and_unknown_names_still_fail() -> None:
    import nb_hitl.agent as agent

    assert set(nb_hitl.__all__) | {"agent", "widgets"} <= set(dir(nb_hitl))
    assert set(agent.__all__) <= set(dir(agent))
    assert nb_hitl.Msg is nb_hitl.message.Msg
    assert "Msg" in vars(nb_hitl)  # resolved once, then an ordinary attribute
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        nb_hitl.no_such_name  # noqa: B018
    with pytest.raises(ImportError, match="cannot import name 'NoSuchAgent'"):
        from nb_hitl.agent import NoSuchAgent  # noqa: F401


def test_remote_agent_names() -> None:
    import nb_hitl.events as events
    import nb_hitl.exceptions as exceptions
    import nb_hitl.remote as remote

    assert sorted(remote.__all__) == ["RemoteAgent", "UNSUPPORTED"]
    assert issubclass(exceptions.RemoteAgentError, exceptions.NbHitlError)
    assert "Notice" in events.__all__ and events.Notice.kind == "notice"
    for name in ("connect", "sync", "resume", "approve", "deny", "answer", "decide", "aclose"):
        assert hasattr(remote.RemoteAgent, name), name


def test_serve_public_names() -> None:
    import nb_hitl.serve as serve

    assert sorted(serve.__all__) == [
        "APPROVAL_REASON",
        "AgentServer",
        "DEFAULT_MAX_BODY",
        "QUESTION_REASON",
        "RunTranslator",
        "RunningServer",
        "agent_state",
        "create_app",
        "messages_to_agui",
        "pending_interrupts",
        "serve",
    ]
    for name in serve.__all__:
        assert getattr(serve, name) is not None, name
    assert serve.app is serve.create_app
    assert callable(nb_hitl.serve)  # nb_hitl.serve(make_agent, ...) is serve.serve
    assert "serve" in nb_hitl.__all__
