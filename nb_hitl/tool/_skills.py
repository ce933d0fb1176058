"""Agent skills: folders of instructions (a ``SKILL.md`` each) described in the system prompt.

AgentScope 1.x's design, after Anthropic's agent skills: ``Toolkit.register_agent_skill(dir)``
reads the ``name`` and ``description`` of the folder's ``SKILL.md`` YAML front matter, and
``get_agent_skill_prompt()`` gives an instruction followed by one line per skill, which
``ReActAgent`` appends to its system prompt. The model reads a ``SKILL.md`` with a file tool
(``view_text_file``) when it wants the skill. Instruction and template texts are AgentScope's.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any, TypedDict

logger = logging.getLogger(__name__)

DEFAULT_INSTRUCTION = (
    "# Agent Skills\n"
    "The agent skills are a collection of folds of instructions, scripts, and resources that "
    "you can load dynamically to improve performance on specialized tasks. Each agent skill "
    "has a `SKILL.md` file in its folder that describes how to use the skill. If you want to "
    "use a skill, you MUST read its `SKILL.md` file carefully."
)
"""The text introducing the skills (AgentScope's, word for word)."""

DEFAULT_TEMPLATE = '## {name}\n{description}\nCheck "{dir}/SKILL.md" for how to use this skill'
"""How one skill is listed: ``{name}``, ``{description}`` and ``{dir}`` are filled in."""

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)


class AgentSkill(TypedDict):
    """A registered skill (AgentScope's ``AgentSkill``)."""

    name: str
    """The skill's name, from its front matter."""
    description: str
    """What the skill is for, from its front matter."""
    dir: str
    """The folder holding its ``SKILL.md``, as registered."""


def _front_matter(text: str) -> dict[str, Any]:
    """The YAML front matter of a Markdown file ({} when it has none)."""
    found = _FRONT_MATTER.match(text)
    if found is None:
        return {}
    try:
        import yaml
    except ImportError:  # one "key: value" per line is all a skill needs
        pairs = (line.split(":", 1) for line in found.group(1).splitlines() if ":" in line)
        return {k.strip(): v.strip().strip("\"'") for k, v in pairs}
    data = yaml.safe_load(found.group(1))
    return data if isinstance(data, dict) else {}


def read_skill(skill_dir: str) -> AgentSkill:
    """The skill in ``skill_dir``.

    Raises:
        ValueError: the folder, its ``SKILL.md`` or the front matter's ``name`` or
            ``description`` is missing (AgentScope's messages).
    """
    if not os.path.isdir(skill_dir):
        raise ValueError(f"The skill directory '{skill_dir}' does not exist or is not a directory.")
    path = os.path.join(skill_dir, "SKILL.md")
    if not os.path.isfile(path):
        raise ValueError(
            f"The skill directory '{skill_dir}' must include a SKILL.md file at the top level."
        )
    with open(path, encoding="utf-8") as file:
        meta = _front_matter(file.read())
    name, description = meta.get("name"), meta.get("description")
    if not name or not description:
        raise ValueError(
            f"The SKILL.md file in '{skill_dir}' must have a YAML Front Matter including "
            "`name` and `description` fields."
        )
    return AgentSkill(name=str(name), description=str(description), dir=skill_dir)


class AgentSkills:
    """The skills a toolkit offers, and the prompt that lists them."""

    def __init__(self, instruction: str | None = None, template: str | None = None) -> None:
        self.instruction = instruction or DEFAULT_INSTRUCTION
        """The text before the list of skills."""
        self.template = template or DEFAULT_TEMPLATE
        """How one skill is listed (``{name}``, ``{description}``, ``{dir}``)."""
        self.skills: dict[str, AgentSkill] = {}
        """Registered skills by name, in registration order."""

    def register(self, skill_dir: str) -> AgentSkill:
        """Add the skill in ``skill_dir``.

        Raises:
            ValueError: the folder is not a valid skill, or a skill of that name is registered.
        """
        skill = read_skill(skill_dir)
        if skill["name"] in self.skills:
            raise ValueError(
                f"An agent skill with name '{skill['name']}' is already registered in the toolkit."
            )
        self.skills[skill["name"]] = skill
        logger.info("Registered agent skill %r from directory %r.", skill["name"], skill_dir)
        return skill

    def remove(self, name: str) -> None:
        """Forget the skill ``name`` (a warning when there is none)."""
        if self.skills.pop(name, None) is None:
            logger.warning("Agent skill %r not found in the toolkit, skipping removal.", name)

    def prompt(self) -> str | None:
        """The instruction and one entry per skill, or ``None`` with no skill registered."""
        if not self.skills:
            return None
        listed = [self.template.format(**skill) for skill in self.skills.values()]
        return "\n".join([self.instruction, *listed])
