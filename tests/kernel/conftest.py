"""Kernels for the real-kernel widget tests: this venv's ipykernel 7.x and a cached 6.x venv."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from kernel_harness import KernelHarness, ipykernel6_python


@pytest.fixture(scope="session")
def ipykernel6() -> str:
    """Python of a venv with ipykernel 6.x (built once, then cached)."""
    return ipykernel6_python()


@pytest.fixture(params=["ipykernel7", "ipykernel6"])
def kernel(request: pytest.FixtureRequest) -> Iterator[KernelHarness]:
    """A running kernel of each major version."""
    python = (
        sys.executable if request.param == "ipykernel7" else request.getfixturevalue("ipykernel6")
    )
    harness = KernelHarness(python)
    try:
        major = harness.execute("import ipykernel; print(ipykernel.__version__)").split(".")[0]
        assert major == request.param[-1], f"{request.param} fixture runs ipykernel {major}.x"
        yield harness
    finally:
        harness.close()


@pytest.fixture
def kernel7() -> Iterator[KernelHarness]:
    """A running ipykernel 7.x (subshells, clicks during awaiting cells)."""
    harness = KernelHarness(sys.executable)
    try:
        yield harness
    finally:
        harness.close()
