"""Fixtures shared by the differential tests: both runtimes, built once per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.differential.harness import STYLE_NAMES, Backend, World, make_world


@pytest.fixture(scope="session")
def world() -> Iterator[World]:
    w = make_world()
    yield w
    for backend in w.backends.values():
        backend.close()


@pytest.fixture(params=STYLE_NAMES)
def backend(request: pytest.FixtureRequest, world: World) -> Backend:
    return world.backends[request.param]
