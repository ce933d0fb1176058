"""A LangGraph graph on a scripted chat model, served over AG-UI by ``ag-ui-langgraph``.

For the remote-agent tests, benchmarks and walkthrough 07, offline: ``python -m
nb_hitl.testing_langgraph --port N`` serves it under uvicorn on 127.0.0.1. The graph is the
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
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

ASKING = "Let me ask you first."
QUESTION = {"question": "Which colour?", "header": "Colour",
            "options": [{"label": "red"}, {"label": "<b>blue</b>"}], "multiSelect": False}

LONG = (
    "Interrupting a remote agent works like a local one: the stream closes, the text so far "
    "is kept, and the next message goes on from there. "
) * 8


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


__all__ = ["build_app", "build_graph", "main"]
