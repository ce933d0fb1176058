"""Agent skills: a folder with a SKILL.md registered in the toolkit, listed in the prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.tool import Toolkit


def make_skill(root: Path, name: str, description: str) -> str:
    folder = root / name
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n\nStep 1: read the data.\n"
    )
    return str(folder)


def test_the_default_prompt_introduces_and_lists_each_skill(tmp_path: Path) -> None:
    toolkit = Toolkit()
    assert toolkit.get_agent_skill_prompt() is None
    first = make_skill(tmp_path, "sample_skill", "A sample agent skill for demonstration.")
    toolkit.register_agent_skill(first)
    prompt = toolkit.get_agent_skill_prompt()
    assert prompt is not None
    assert prompt.startswith("# Agent Skills\nThe agent skills are a collection of folds")
    assert prompt.endswith(
        f'## sample_skill\nA sample agent skill for demonstration.\nCheck "{first}/SKILL.md" '
        "for how to use this skill"
    )
    assert toolkit.skills["sample_skill"] == {
        "name": "sample_skill",
        "description": "A sample agent skill for demonstration.",
        "dir": first,
    }
    with pytest.raises(ValueError, match="already registered"):
        toolkit.register_agent_skill(first)
    toolkit.remove_agent_skill("sample_skill")
    assert toolkit.get_agent_skill_prompt() is None


def test_a_custom_instruction_and_template_shape_the_prompt(tmp_path: Path) -> None:
    toolkit = Toolkit(
        agent_skill_instruction="<system-info>You have skills.</system-info>\n",
        agent_skill_template="- {name}({dir}): {description}",
    )
    a = make_skill(tmp_path, "a", "Does A.")
    b = make_skill(tmp_path, "b", "Does B.")
    toolkit.register_agent_skill(a)
    toolkit.register_agent_skill(b)
    assert toolkit.get_agent_skill_prompt() == (
        f"<system-info>You have skills.</system-info>\n\n- a({a}): Does A.\n- b({b}): Does B."
    )


def test_folders_that_are_not_skills_are_refused(tmp_path: Path) -> None:
    toolkit = Toolkit()
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        toolkit.register_agent_skill(str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"must include a SKILL\.md"):
        toolkit.register_agent_skill(str(tmp_path / "empty"))
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "SKILL.md").write_text("---\nname: bare\n---\nno description\n")
    with pytest.raises(ValueError, match="`name` and `description`"):
        toolkit.register_agent_skill(str(tmp_path / "bare"))


async def test_react_agent_appends_the_skills_to_its_system_prompt(tmp_path: Path) -> None:
    toolkit = Toolkit()
    toolkit.register_agent_skill(make_skill(tmp_path, "s", "Does S."))
    model = ScriptedModel(["Hi."])
    agent = ReActAgent(
        "Friday", "You are a helpful assistant named Friday.", model, toolkit=toolkit
    )
    assert agent.sys_prompt == (
        "You are a helpful assistant named Friday.\n\n" + toolkit.get_agent_skill_prompt()
    )
    await agent()
    (call,) = model.calls
    assert call.messages[0]["content"] == agent.sys_prompt
    assert agent.state_dict()["sys_prompt"] == "You are a helpful assistant named Friday."
