"""The migration tests' schema (tests/migrate/protos), generated in each style."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.generate import generate

PROTOS = Path(__file__).resolve().parent / "protos"
FILES = ["shop/order.proto", "shop/legacy.proto"]
STYLES = {"open": "API_OPEN", "hybrid": "API_HYBRID", "opaque": "API_OPAQUE"}


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The shop modules per style: ``{"hybrid": folder, ...}``."""
    root = tmp_path_factory.mktemp("migrate-gen")
    return {style: generate(FILES, [PROTOS], root / style, options=f"default_api_level={level}")
            for style, level in STYLES.items()}


@pytest.fixture
def hybrid_path(generated: dict[str, Path]) -> Iterator[Path]:
    """The hybrid shop modules importable, for the time of a test."""
    folder = generated["hybrid"]
    sys.path.insert(0, str(folder))
    try:
        yield folder
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == "shop" or m.startswith("shop.")]:
            del sys.modules[name]
