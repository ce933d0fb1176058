"""The marimo app of the marimo browser tests (``marimo run`` serves it; each page is a session
of its own). ``?case=chat``: the demo agent, streaming slowly; ``?case=look``: a tool that
needs approval, a model error and a long answer, over a long memory (the look matrix);
``?case=hub``: two speakers in a ``MsgHub`` (``nb_hitl.show(hub)``); ``?case=bench``: a long
answer at 500 tokens/s (``bench/stop_in_marimo.py``; ``?case=hubbench``: its ``--hub``, Bob
streaming a long answer slowly); ``?case=inspector`` and
``?case=explorer``: the memory inspector and the compression explorer of a long conversation,
each one ``PanelModel`` shown natively (``marimo_panel(panel)``: ``mo.ui.anywidget``)."""

import marimo

app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo

    import nb_hitl
    from nb_hitl import ReActAgent, ScriptedModel
    from nb_hitl.agent import CompressionConfig
    from nb_hitl.demo import demo_toolkit, long_task_transcript
    from nb_hitl.model import ScriptedToolCall, ScriptedTurn

    def deploy(env: str) -> str:
        """Deploy the service.

        Args:
            env: where to deploy.
        """
        return f"deployed to {env}"

    case = mo.query_params().get("case") or "chat"
    chat_options = {}
    if case in ("inspector", "explorer"):
        agent = ReActAgent(
            "Analyst",
            "You are a careful data analyst.",
            ScriptedModel(),
            compression_config=CompressionConfig(trigger_threshold=12000, keep_recent=6),
        )
        agent.memory.add_sync(long_task_transcript())
    elif case == "bench":  # bench/stop_in_marimo.py: a long answer, fast; only the last rows
        text = " ".join(f"word{i}" for i in range(8000))
        agent = ReActAgent(
            "Friday",
            "You are a helpful assistant.",
            ScriptedModel(responder=lambda messages, tools: text, tokens_per_second=500),
        )
        chat_options = {"max_rendered": 4}
    elif case == "hubbench":  # bench/stop_in_marimo.py --hub: Bob streams long, slowly
        from nb_hitl.message import Msg
        from nb_hitl.pipeline import MsgHub

        def fixed(name, text, tps):
            model = ScriptedModel(responder=lambda messages, tools: text, tokens_per_second=tps)
            return ReActAgent(name, f"You are {name}.", model)

        long = " ".join(f"point{i}" for i in range(5000))
        agent = MsgHub(
            [fixed("Alice", "Tabs: one keystroke, one level.", 400), fixed("Bob", long, 40),
             fixed("Carol", "Carol sums up.", 400)],
            announcement=Msg("Host", "Tabs or spaces?", "user"),
        )  # fmt: skip
    elif case == "hub":
        from nb_hitl.message import Msg
        from nb_hitl.pipeline import MsgHub

        def speaker(name, script):
            return ReActAgent(name, f"You are {name}.", ScriptedModel(script, tokens_per_second=60))

        agent = MsgHub(
            [
                # Long enough (~10 s) that the test's Stop lands mid-stream on a loaded machine.
                speaker(
                    "Alice",
                    [
                        "Tabs: one keystroke, one level, and everyone picks a width. "
                        + " ".join(f"reason{i}" for i in range(600))
                    ],
                ),
                speaker("Bob", ["Spaces: the same everywhere, in every editor and every diff."]),
            ],
            announcement=Msg("Host", "Tabs or spaces?", "user"),
        )
    elif case == "look":
        toolkit = demo_toolkit()
        toolkit.register_tool_function(deploy, needs_approval=True)
        long = " ".join(f"word{i}" for i in range(3000))
        script = [
            ScriptedTurn(
                text="Let me calculate.",
                tool_calls=[ScriptedToolCall("calculate", {"expression": "3 * (4 + 5)"})],
            ),
            "It is **27**.",
            RuntimeError("the model is overloaded"),
            long,
            ScriptedTurn(
                text="Deploying.",
                tool_calls=[ScriptedToolCall("deploy", {"env": "production-eu-west-1"}, id="d1")],
            ),
            "Deployed.",
        ]
        agent = ReActAgent(
            "Friday",
            "You are a helpful assistant.",
            ScriptedModel(script, tokens_per_second=300),
            toolkit=toolkit,
            compression_config=CompressionConfig(trigger_threshold=6000, keep_recent=4),
        )
        agent.memory.add_sync(long_task_transcript()[:24])
    else:
        agent = ReActAgent(
            "Friday",
            "You are a helpful assistant.",
            ScriptedModel.demo(tokens_per_second=15),
            toolkit=demo_toolkit(),
        )
    if case in ("inspector", "explorer"):
        from nb_hitl.widgets import CompressionExplorer, MemoryInspector, marimo_panel

        if case == "inspector":
            panel = marimo_panel(MemoryInspector(agent))
        else:
            panel = marimo_panel(CompressionExplorer(agent, budget=9000))
    elif case in ("hub", "hubbench"):
        panel = nb_hitl.show(agent)
    else:
        panel = nb_hitl.show(agent, session=None, chat=chat_options)
    panel  # noqa: B018 (the cell's output)
    return


if __name__ == "__main__":
    app.run()
