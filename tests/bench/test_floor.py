"""The object floor of the benchmark (bench/floor.py) makes the objects a parse makes.

Its builders must hold every value of the decoded payload, or the floor would time less
work than a parse does. Run interpreted here (the benchmark compiles the same module).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytest.importorskip("grpc_tools")
pytest.importorskip("google.protobuf")

CHECK = r'''
import sys
sys.path.insert(0, sys.argv[1])
import contenders, floor, payloads

contenders.generate("google")
messages = payloads.build()


def same(got, want, where):
    """Every field of the upb message ``want`` has its value in the floor object ``got``."""
    for fd in want.DESCRIPTOR.fields:
        value, held, at = getattr(want, fd.name), getattr(got, fd.name), f"{where}.{fd.name}"
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            assert held == dict(value), at
        elif fd.is_repeated and fd.message_type is not None:
            assert len(held) == len(value), at
            for i, (g, w) in enumerate(zip(held, value)):
                same(g, w, f"{at}[{i}]")
        elif fd.is_repeated:
            assert held == list(value), at
        elif fd.message_type is not None:
            same(held, value, at)
        else:
            assert held == value and type(held) is type(value), (at, held, value)


for workload, (plan, build) in floor.FLOORS.items():
    msg = messages[workload]
    same(build(*plan(msg)), msg, workload)
    print("same", workload)
'''


def test_floor_objects_hold_every_decoded_value(tmp_path: Path) -> None:
    env = dict(os.environ, PYOPAQUE_BENCH_BUILD=str(tmp_path / "bench"), PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION="upb")
    result = subprocess.run([sys.executable, "-c", CHECK, str(REPO / "bench")], capture_output=True, text=True,
                            timeout=300, check=False, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["same", "log", "same", "scalars", "same", "addressbook", "same", "batch-1MB"]
