"""nb_hitl's Jupyter server extension wraps the kernel websocket connection class, keeping a
custom one, and the wheel ships the config file that enables it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

import nb_hitl
from nb_hitl.server_extension import no_delay_connection_class

REPO = Path(__file__).resolve().parents[2]


def test_the_extension_point_names_the_module() -> None:
    points = nb_hitl._jupyter_server_extension_points()
    assert points == [{"module": "nb_hitl.server_extension"}]
    import importlib

    module = importlib.import_module(points[0]["module"])
    assert callable(module._load_jupyter_server_extension)


def test_the_connection_class_is_wrapped_once_and_keeps_the_configured_one() -> None:
    class Custom(ZMQChannelsWebsocketConnection):
        pass

    for base in (ZMQChannelsWebsocketConnection, Custom):
        wrapped = no_delay_connection_class(base)
        assert issubclass(wrapped, base) and wrapped is not base
        assert wrapped.connect is not base.connect
        assert no_delay_connection_class(wrapped) is wrapped  # loaded twice: wrapped once


def test_the_wheel_installs_the_file_that_enables_it() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    shared = project["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    source, target = next((s, t) for s, t in shared.items() if s.endswith("nb_hitl.json"))
    assert target == "etc/jupyter/jupyter_server_config.d/nb_hitl.json"
    config = json.loads((REPO / source).read_text())
    assert config == {"ServerApp": {"jpserver_extensions": {"nb_hitl": True}}}
