"""Modules of tests/grpc/protos generated per style, with grpcio-tools' modules beside them.

Each style's folder holds our ``greet/v1/greet_pb.py`` and ``greet_grpc.py`` and the official
runtime's ``greet_pb2.py`` and ``greet_pb2_grpc.py`` of the same .proto, for interop tests.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tools.generate import generate, grpc_include, protoc

PROTOS = Path(__file__).resolve().parent / "protos"
GREET = "greet/v1/greet.proto"
AWKWARD = "greet/v1/awkward.proto"  # ours only: grpcio-tools' code for it does not compile
# style -> (message plugin options, gRPC plugin options)
VARIANTS = {
    "open": ("default_api_level=API_OPEN", ""),
    "hybrid": ("default_api_level=API_HYBRID", ""),
    "opaque": ("default_api_level=API_OPAQUE", ""),
    "lazy": ("default_api_level=API_OPAQUE", "lazy_parse=true"),
}


def generate_variant(out: Path, variant: str) -> Path:
    """Our modules of greet.proto in ``variant``, and grpcio-tools' official ones, in ``out``."""
    options, grpc_options = VARIANTS[variant]
    generate([GREET, AWKWARD], [PROTOS], out, options=options, grpc_options=grpc_options)
    result = protoc([f"-I{PROTOS}", f"-I{grpc_include()}", f"--python_out={out}",
                     f"--grpc_python_out={out}", GREET])
    assert result.returncode == 0, result.stderr
    return out


class Greet:
    """The modules of one variant: ``pb``/``grpc`` ours, ``pb2``/``pb2_grpc`` the official ones
    (``awkward_grpc``: ours of awkward.proto)."""

    def __init__(self, variant: str) -> None:
        self.variant = variant
        self.pb: ModuleType = importlib.import_module("greet.v1.greet_pb")
        self.grpc: ModuleType = importlib.import_module("greet.v1.greet_grpc")
        self.awkward_grpc: ModuleType = importlib.import_module("greet.v1.awkward_grpc")
        self.pb2: ModuleType = importlib.import_module("greet.v1.greet_pb2")
        self.pb2_grpc: ModuleType = importlib.import_module("greet.v1.greet_pb2_grpc")


@pytest.fixture(scope="session")
def variant_roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {v: generate_variant(tmp_path_factory.mktemp(v), v) for v in VARIANTS}


def load(root: Path, variant: str) -> Iterator[Greet]:
    sys.path.insert(0, str(root))
    try:
        yield Greet(variant)
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "greet" or m.startswith("greet.")]:
            del sys.modules[name]


@pytest.fixture(params=sorted(VARIANTS))
def greet(request: pytest.FixtureRequest, variant_roots: dict[str, Path]) -> Iterator[Greet]:
    """The modules of each variant in turn."""
    yield from load(variant_roots[request.param], request.param)


@pytest.fixture
def opaque(variant_roots: dict[str, Path]) -> Iterator[Greet]:
    """The opaque variant only (tests of gRPC behaviour that no message style changes)."""
    yield from load(variant_roots["opaque"], "opaque")


@pytest.fixture
def lazy(variant_roots: dict[str, Path]) -> Iterator[Greet]:
    yield from load(variant_roots["lazy"], "lazy")
