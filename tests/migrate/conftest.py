"""The migration tests' schema (tests/migrate/protos), generated in each style."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.generate import generate, grpc_include, protoc

PROTOS = Path(__file__).resolve().parent / "protos"
FILES = ["shop/order.proto", "shop/legacy.proto"]
STYLES = {"open": "API_OPEN", "hybrid": "API_HYBRID", "opaque": "API_OPAQUE"}


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The shop modules per style: ``{"hybrid": folder, ...}``; the hybrid folder also holds the
    official runtime's ``*_pb2`` modules (and stubs), as a project being migrated does."""
    root = tmp_path_factory.mktemp("migrate-gen")
    out = {style: generate(FILES, [PROTOS], root / style, options=f"default_api_level={level}")
           for style, level in STYLES.items()}
    result = protoc([f"-I{PROTOS}", f"-I{grpc_include()}", f"--python_out={out['hybrid']}",
                     f"--pyi_out={out['hybrid']}", *FILES])
    assert result.returncode == 0, result.stderr
    return out


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
