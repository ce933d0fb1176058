"""Demo AG-UI servers, offline: a LangGraph graph (through ``ag-ui-langgraph``) and an nb_hitl
agent (through ``nb_hitl.serve``), each a process of its own on 127.0.0.1.

For walkthrough 07, the remote-agent tests and ``bench/remote_interrupt.py``::

    lg = start_langgraph_server()      # python -m nb_hitl.demo.remote --port N
    nb = start_nb_hitl_server()        # python -m nb_hitl.serve nb_hitl.demo.remote:nb_hitl_agent
    ...
    lg.stop(); nb.stop()               # by their PIDs

``nb_hitl_agent()`` is a ``ReActAgent`` on a ``ScriptedModel`` responder with a ``deploy`` tool
that needs approval; it answers like the graph below. The graph is the
usual tool loop: ``agent`` (the chat model) -> ``approve`` (LangGraph's ``interrupt()``, which
the bridge ends the run with as an AG-UI interrupt) -> ``tools`` -> ``agent``.

``ScriptedChatModel`` (a ``BaseChatModel`` of its own, no network) answers:
- a message mentioning "deploy": "I will deploy it." and a ``deploy`` tool call;
- "ask me ...": a question (``interrupt()`` with ``{"kind": "question", ...}``), then
  "You picked <answer>.";
- after a tool result: "Done: <the result>.";
- anything else: a long answer streamed word by word (``--delay`` seconds per word), which
  says how many messages it was shown (so a test sees the history reach the server).

The approval node reads the resume payload nb_hitl's ``RemoteAgent`` sends:
``{"decision": "approve" | "edit" | "deny", "arguments": ..., "reason": ...}``.
"""

import argparse
import asyncio
import atexit
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

ASKING = "Let me ask you first."
QUESTION = {
    "question": "Which colour?",
    "header": "Colour",
    "options": [{"label": "red"}, {"label": "<b>blue</b>"}],
    "multiSelect": False,
}

LONG = " ".join(
    [
        "Interrupting a remote agent works like a local one: the stream closes, and the text "
        "so far is kept as a partial answer.",
        "The server sees the client go away, or its stop endpoint is called, and interrupts "
        "its own agent.",
        "Its memory ends as it would in a kernel: the partial answer, then the interrupted "
        "message.",
        "Continue asks the server to go on from the cut, mid-sentence, in the same answer.",
        "An instruction typed before Continue is followed once the cut sentence is finished.",
        "Steering hands the running reply new input at its next step, without stopping it.",
        "A tool that needs approval parks the reply on the server, and the run ends with an "
        "interrupt the panel draws as a card.",
        "The server saves the thread, so a new notebook on the same thread sees the same history.",
    ]
)
"""The long answer (distinct sentences, so a cut and its continuation are easy to tell)."""


def build_graph(delay: float = 0.02) -> Any:
    """The compiled graph (an in-memory checkpointer: threads last as long as the process)."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.types import interrupt

    class ScriptedChatModel(BaseChatModel):
        """Canned answers, streamed; no network."""

        delay: float = 0.02

        @property
        def _llm_type(self) -> str:
            return "nb-hitl-scripted"

        def _answer(self, messages: list[BaseMessage]) -> AIMessage:
            last = messages[-1]
            if isinstance(last, ToolMessage):
                return AIMessage(content=f"Done: {last.content}.")
            text = str(last.content)
            if "ask me" in text.lower():
                return AIMessage(content=ASKING)
            if "deploy" in text.lower():
                call = {
                    "name": "deploy",
                    "args": {"env": "prod", "version": "1.2"},
                    "id": "call-" + uuid.uuid4().hex[:8],
                    "type": "tool_call",
                }
                return AIMessage(content="I will deploy it.", tool_calls=[call])
            return AIMessage(
                content=f"You said: {text}. I was shown {len(messages)} messages. " + LONG
            )

        def _generate(
            self,
            messages: list[BaseMessage],
            stop: Any = None,
            run_manager: Any = None,
            **kwargs: Any,
        ) -> ChatResult:
            return ChatResult(generations=[ChatGeneration(message=self._answer(messages))])

        def _words(self, text: str) -> Iterator[str]:
            words = text.split(" ")
            for i, word in enumerate(words):
                yield word + (" " if i < len(words) - 1 else "")

        async def _astream(
            self,
            messages: list[BaseMessage],
            stop: Any = None,
            run_manager: Any = None,
            **kwargs: Any,
        ) -> AsyncIterator[ChatGenerationChunk]:
            answer = self._answer(messages)
            for word in self._words(str(answer.content)):
                await asyncio.sleep(self.delay)
                chunk = ChatGenerationChunk(message=AIMessageChunk(content=word))
                if run_manager is not None:
                    await run_manager.on_llm_new_token(word, chunk=chunk)
                yield chunk
            for i, call in enumerate(answer.tool_calls):
                piece = {
                    "name": call["name"],
                    "args": json.dumps(call["args"]),
                    "id": call["id"],
                    "index": i,
                }
                yield ChatGenerationChunk(
                    message=AIMessageChunk(content="", tool_call_chunks=[piece])
                )

    model = ScriptedChatModel(delay=delay)

    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def approve(state: MessagesState) -> dict[str, Any]:
        last: Any = state["messages"][-1]
        call = last.tool_calls[0]
        answer = interrupt(
            {
                "kind": "approval",
                "toolName": call["name"],
                "arguments": call["args"],
                "toolCallId": call["id"],
                "message": f"Run {call['name']}({json.dumps(call['args'])})?",
            }
        )
        answer = dict(answer) if isinstance(answer, dict) else {}
        decision = answer.get("decision")
        if decision in ("approve", "edit"):
            args = (answer.get("arguments") if decision == "edit" else None) or call["args"]
            result = f"deployed {args.get('version')} to {args.get('env')}"
        elif decision == "deny":
            result = f"denied by the user: {answer.get('reason') or 'no reason given'}"
        else:  # cancelled (the person sent something else), or an answer we do not know
            result = "not run: cancelled"
        return {"messages": [ToolMessage(content=result, tool_call_id=call["id"])]}

    def ask(state: MessagesState) -> dict[str, Any]:
        answer = interrupt({"kind": "question", "questions": [QUESTION]})
        answers = answer.get("answers", {}) if isinstance(answer, dict) else {}
        picked = answers.get(QUESTION["question"], "nothing")
        return {"messages": [AIMessage(content=f"You picked {picked}.")]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        if getattr(last, "tool_calls", None):
            return "approve"
        return "ask" if last.content == ASKING else END

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("approve", approve)
    graph.add_node("ask", ask)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["approve", "ask", END])
    graph.add_edge("ask", END)
    graph.add_edge("approve", "agent")
    return graph.compile(checkpointer=InMemorySaver())


def build_app(delay: float = 0.02) -> Any:
    """The ASGI app: the graph at ``POST /`` (AG-UI), ``GET /health``."""
    from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
    from fastapi import FastAPI

    app = FastAPI()
    agent = LangGraphAgent(name="graph", graph=build_graph(delay), emit_interrupt_outcome=True)
    add_langgraph_fastapi_endpoint(app, agent, "/")
    return app


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # text parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else json.dumps(content)


def _long_answer(text: str, users: int) -> str:
    return f"You said: {text}. This thread has {users} messages from you. " + LONG


def _rest_of(messages: list[dict[str, Any]]) -> str:
    """Continue (the prompt ends with the cut answer): the rest of the answer that was cut,
    from the cut; an instruction sent with Continue is followed once the sentence is done."""
    partial = _text(messages[-1])
    for i in range(len(messages) - 2, -1, -1):
        if messages[i].get("role") != "user":
            continue
        users = sum(1 for m in messages[: i + 1] if m.get("role") == "user")
        whole = _long_answer(_text(messages[i]), users)
        if not whole.startswith(partial):
            continue
        rest = whole[len(partial) :]
        later = [_text(m) for m in messages[i + 1 : -1] if m.get("role") == "user"]
        if later:  # the instruction: finish the cut sentence, then do as told
            end = rest.find(". ")
            rest = rest[: end + 1] if end >= 0 else rest
            rest += f" As you asked ({later[-1][:80]}): in short, Stop keeps the text, "
            rest += "and Continue goes on from it."
        return rest
    return " (The answer that was cut is not in this thread any more.)"


def _turn(messages: list[dict[str, Any]], tools: Any) -> Any:
    """The nb_hitl agent's model: the same answers as the graph's scripted chat model."""
    from nb_hitl.model import ScriptedToolCall, ScriptedTurn

    last = messages[-1] if messages else {}
    text = _text(last)
    if last.get("role") == "assistant":
        return _rest_of(messages)
    if last.get("role") == "tool" and "Which colour?" in text:
        return f"You picked {_answer_of(text)}."
    if last.get("role") == "tool":
        return f"Done: {text}."
    if "ask me" in text.lower():
        question = {k: v for k, v in QUESTION.items() if k != "multiSelect"}
        return ScriptedTurn(
            text=ASKING, tool_calls=[ScriptedToolCall("ask_user", {"questions": [question]})]
        )
    if "deploy" in text.lower():
        call = ScriptedToolCall("deploy", {"env": "prod", "version": "1.2"})
        return ScriptedTurn(text="I will deploy it.", tool_calls=[call])
    return _long_answer(text, sum(1 for m in messages if m.get("role") == "user"))


def _answer_of(result: str) -> str:
    """The answer to "Which colour?" in the ``ask_user`` tool's result."""
    with contextlib.suppress(ValueError):
        value = json.loads(result)
        if isinstance(value, dict) and isinstance(value.get("Which colour?"), str):
            return str(value["Which colour?"])
    return result


def deploy(env: str, version: str) -> str:
    """Deploy a version somewhere.

    Args:
        env: where (prod, staging...).
        version: which version.
    """
    return f"deployed {version} to {env}"


def nb_hitl_agent() -> Any:
    """The nb_hitl agent ``start_nb_hitl_server`` serves (one per thread; it streams
    ``$NB_HITL_DEMO_TPS`` tokens per second, default 50)."""
    tokens_per_second = float(os.environ.get("NB_HITL_DEMO_TPS", "50"))
    from nb_hitl import ReActAgent, ScriptedModel, Toolkit, ask_user

    toolkit = Toolkit()
    toolkit.register_tool_function(deploy, needs_approval=True)
    toolkit.register_tool_function(ask_user)
    model = ScriptedModel(responder=_turn, tokens_per_second=tokens_per_second)
    return ReActAgent("Friday", "You are a demo agent.", model, toolkit=toolkit)


class LocalServer:
    """A server process on 127.0.0.1 started by ``start_*_server``; ``stop()`` ends it by PID."""

    def __init__(self, argv: list[str], port: int, cwd: str | None = None) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/"
        self.argv = argv
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None

    def start(self, timeout: float = 60.0) -> "LocalServer":
        """Start it and wait until it listens (an error saying why, its stderr, if it exits
        first)."""
        # The child imports the same nb_hitl as this process (a checkout, or the installed one).
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)
        # stderr goes to a file (a pipe nobody reads would fill and block the server): when the
        # process dies, its last lines say why.
        self._close_stderr()
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            self.argv,
            cwd=self.cwd,
            env=dict(os.environ, PYTHONPATH=path),
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
        )
        atexit.register(self.stop)  # never outlives the kernel or script that started it
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                why = self._died(self.proc.returncode)
                self.stop()
                raise RuntimeError(why)
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 0.2),
            ):
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.argv} did not listen on port {self.port} in {timeout} s")

    def _died(self, code: int) -> str:
        said = self.stderr_tail()
        text = f"{' '.join(self.argv)} exited with {code}"
        text += f":\n{said}" if said else " (it wrote nothing to stderr)"
        if "No module named" in said:
            text += '\nThe walkthroughs\' environment has it: pip install "nb-hitl[notebook]"'
        return text

    def stderr_tail(self, chars: int = 3000) -> str:
        """The end of what the server wrote to stderr (why it died, when it did)."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, self._stderr.tell() - chars))
        return self._stderr.read().decode(errors="replace").strip()

    def _close_stderr(self) -> None:
        stderr, self._stderr = self._stderr, None
        if stderr is not None:
            stderr.close()

    def stop(self) -> None:
        """Stop the process (SIGTERM, then SIGKILL after 10 s)."""
        proc, self.proc = self.proc, None
        self._close_stderr()
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)

    def restart(self) -> None:
        """Stop it and start it again on the same port."""
        self.stop()
        self.start()

    def __repr__(self) -> str:
        return f"LocalServer({self.url!r}, pid={self.proc.pid if self.proc else None})"


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_langgraph_server(delay: float = 0.02) -> "LocalServer":
    """The LangGraph graph below, behind ag-ui-langgraph under uvicorn, on a free port."""
    port = free_port()
    argv = [sys.executable, "-m", "nb_hitl.demo.remote", "--port", str(port), "--delay", str(delay)]
    return LocalServer(argv, port).start()


def start_nb_hitl_server(sessions: str | None = None) -> "LocalServer":
    """``nb_hitl_agent`` behind ``python -m nb_hitl.serve`` on a free port; threads saved as
    JSON files in ``sessions`` (default: a new temporary folder), so a restart keeps them."""
    port = free_port()
    folder = sessions or tempfile.mkdtemp(prefix="nb-hitl-serve-")
    argv = [
        sys.executable,
        "-m",
        "nb_hitl.serve",
        "nb_hitl.demo.remote:nb_hitl_agent",
        "--port",
        str(port),
        "--sessions",
        folder,
    ]
    return LocalServer(argv, port, cwd=os.getcwd()).start()


def main(argv: list[str] | None = None) -> None:
    """Serve the graph on 127.0.0.1 (``--port``, ``--delay`` seconds per streamed word)."""
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, default=0.02)
    args = parser.parse_args(argv)
    uvicorn.run(build_app(args.delay), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()


__all__ = [
    "LocalServer",
    "build_app",
    "build_graph",
    "free_port",
    "main",
    "nb_hitl_agent",
    "start_langgraph_server",
    "start_nb_hitl_server",
]
