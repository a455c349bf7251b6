"""Hybrid modules and their opaque twins in one process: which classes Any hands out."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.golden.golden import importable
from tools.generate import env_with_path

HYBRID = "from golden.collections_pb import Collections\n"
TWIN = "import golden.collections_protoopaque_pb as twin\n"
UNPACK = '''from protoc_gen_pyopaque.runtime.google.protobuf.any_pb import Any
print(type(Any.pack(Collections(text="t")).unpack_any()).__module__)
'''


def _unpacked_module(script: str, protoopaque: bool = False) -> str:
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False,
                            env=env_with_path(importable("hybrid"), protoopaque=protoopaque))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize("imports", [HYBRID + TWIN, TWIN + HYBRID], ids=["twin-last", "twin-first"])
def test_importing_a_twin_leaves_unpack_any_to_the_hybrid_classes(imports: str) -> None:
    assert _unpacked_module(imports + UNPACK) == "golden.collections_pb"


def test_served_twins_are_what_unpack_any_returns() -> None:
    assert _unpacked_module(HYBRID + UNPACK, protoopaque=True) == "golden.collections_protoopaque_pb"


def test_a_twin_imported_by_name_hands_out_an_opaque_tree() -> None:
    script = (HYBRID + TWIN + "from golden.scalars_pb import Scalars\n"
              "data = Collections(scalars=Scalars(f_int32=1)).serialize()\n"
              "print(type(twin.Collections.parse(data).get_scalars()).__pyopaque_api__)\n")
    assert _unpacked_module(script) == "opaque.v1"
