"""The notebook magics: ``%%ask AGENT``, ``%stop [AGENT]``, ``%agents``.

``AGENT`` is a variable of the notebook holding an agent (``agent``), or an agent's ``name``
(``Friday``) when no variable of that name exists. Mistakes raise IPython's ``UsageError``:
one line that says what to type instead, no traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

from nb_hitl.agent import AgentBase, live_agents

from ._interrupt import interrupt_on_its_loop, interrupt_running

logger = logging.getLogger("nb_hitl.extension")

LAST_CHARS = 60
"""How much of an agent's last message ``%agents`` shows."""


def agent_state(agent: AgentBase) -> str:
    """``idle``, ``running`` or ``waiting for approval``."""
    if getattr(agent, "is_waiting_for_approval", False):
        return "waiting for approval"
    return "running" if agent.is_replying else "idle"


def agent_tokens(agent: AgentBase) -> str:
    """The prompt tokens of the agent's next model call, as text ("-" if it cannot tell)."""
    plan = getattr(agent, "compression_plan", None)
    if plan is None:
        return "-"
    try:
        return f"{plan().total_tokens:,}"
    except Exception:  # a half-configured agent must not break the listing
        logger.debug("%%agents: no token count for %s", agent.name, exc_info=True)
        return "-"


def last_message(agent: AgentBase) -> str:
    """The agent's last message in memory, on one line and shortened."""
    memory = getattr(agent, "memory", None)
    messages = getattr(memory, "messages", None) or []
    if not messages:
        return ""
    msg = messages[-1]
    text = " ".join((msg.get_text_content() or "").split())
    if len(text) > LAST_CHARS:
        text = text[: LAST_CHARS - 1] + "…"
    flag = " [interrupted]" if getattr(msg, "is_interrupted", False) else ""
    return f"{msg.name}: {text}{flag}"


@magics_class
class AgentMagics(Magics):
    """``%%ask``, ``%stop`` and ``%agents`` (registered by ``%load_ext nb_hitl``)."""

    # -- lookup ---------------------------------------------------------------------------------
    def find_agent(self, word: str) -> AgentBase:
        """The agent a magic's argument names (a variable, else an agent's name)."""
        word = word.strip()
        if not word:
            raise UsageError("Name the agent, e.g. `%%ask agent` (a variable holding the agent).")
        ns = self.shell.user_ns if self.shell is not None else {}
        if word in ns:
            obj = ns[word]
            if isinstance(obj, AgentBase):
                return obj
            raise UsageError(
                f"`{word}` is a {type(obj).__name__}, not an agent. Pass a variable that holds "
                "an agent (e.g. `agent = ReActAgent(...)`); `%agents` lists them."
            )
        named = [a for a in live_agents() if a.name == word]
        if len(named) == 1:
            return named[0]
        if len(named) > 1:
            raise UsageError(
                f"{len(named)} agents are called {word!r}; pass the variable that holds the one "
                "you mean instead."
            )
        known = ", ".join(sorted({a.name for a in live_agents()})) or "none yet"
        raise UsageError(
            f"No agent called {word!r}: no variable of that name and no agent with that name "
            f"(agents in this kernel: {known}). `%agents` lists them."
        )

    # -- magics ---------------------------------------------------------------------------------
    @cell_magic
    def ask(self, line: str, cell: str) -> Any:
        """%%ask AGENT: send this cell's text to AGENT as a background reply, in its chat.

        The cell returns at once; the reply streams in the agent's newest chat (shown here
        if the agent has none yet). While a reply runs this interrupts it and answers the new
        text next, like the chat's Send.
        """
        agent = self.find_agent(line)
        text = cell.strip()
        if not text:
            raise UsageError(f"Nothing to send: write the message to {agent.name} below `%%ask`.")
        from IPython.display import display

        from nb_hitl.widgets import ChatWidget

        # The chat's registry of live chats per agent: the extension is the chat's peer layer
        # (both are the notebook front end), and widgets has no public "newest chat" yet.
        from nb_hitl.widgets._chat import _CHATS

        chat = _CHATS.newest(agent)
        if chat is None or getattr(chat, "detached", False):
            chat = ChatWidget(agent)
            display(chat)
        else:
            print(f"Sent to {agent.name}: the reply streams in its chat above.")
        chat.send(text)
        return None

    @line_magic
    def stop(self, line: str) -> None:
        """%stop [AGENT]: interrupt AGENT's running reply, or every running reply."""
        if line.strip():
            agent = self.find_agent(line)
            if agent.is_replying and interrupt_on_its_loop(agent, "interrupt"):
                print(f"Stopping {agent.name}.")
            else:
                print(f"{agent.name} is not replying: nothing to stop.")
            return
        names = interrupt_running("interrupt")
        if names:
            print("Stopping " + ", ".join(names) + ".")
        else:
            print("No agent is replying: nothing to stop.")

    @line_magic
    def agents(self, line: str) -> None:
        """%agents: the agents of this kernel, their state, prompt tokens and last message."""
        if line.strip():
            raise UsageError("`%agents` takes no argument.")
        found = live_agents()
        if not found:
            print("No agents in this kernel yet.")
            return
        ns = self.shell.user_ns if self.shell is not None else {}
        names = {id(v): k for k, v in ns.items() if isinstance(v, AgentBase) and k[:1] != "_"}
        rows = [("variable", "name", "state", "tokens", "last message")]
        for agent in found:
            rows.append(
                (
                    names.get(id(agent), "-"),
                    agent.name,
                    agent_state(agent),
                    agent_tokens(agent),
                    last_message(agent),
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for row in rows:
            cells = [row[i].ljust(widths[i]) for i in range(4)]
            print("  ".join([*cells, row[4]]).rstrip())


__all__ = ["AgentMagics", "agent_state"]
