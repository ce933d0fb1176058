"""The demo AG-UI servers' old address: ``python -m nb_hitl.demo_remote`` and
``nb_hitl.demo_remote:nb_hitl_agent`` keep working; the code lives in ``nb_hitl.demo.remote``."""

from nb_hitl.demo.remote import (
    LocalServer,
    build_app,
    build_graph,
    free_port,
    main,
    nb_hitl_agent,
    start_langgraph_server,
    start_nb_hitl_server,
)

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
