"""The plugin's time grows linearly with the request (one protoc call over a monorepo).

Per-module time at 20× the files must stay close to per-module time at 1×. Whole-schema passes
run once per output module (since moved to the model step) made it 2.6× at these sizes, and
more the larger the request. The benchmark (bench/plugin_speed.py) reports the figures; this only
asserts a generous ratio.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

from protoc_gen_pyopaque.plugin.run import run
from tests.support.generate import grpc_include
from tests.support.monorepo import write_monorepo

pytest.importorskip("grpc_tools")

SMALL, LARGE = 50, 1000


def requests(tmp: Path) -> tuple[bytes, bytes]:
    """The monorepo's first SMALL and LARGE files (one message each), as protoc hands them over."""
    names = write_monorepo(tmp, LARGE, messages=1)
    out = tmp / "set.pb"
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{tmp}", f"-I{grpc_include()}",
                    f"--descriptor_set_out={out}", "--include_imports", "--include_source_info", *names],
                   check=True, capture_output=True)
    protos = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    unused = set(names[SMALL:])  # files import earlier files only: the prefix is closed
    small = plugin_pb2.CodeGeneratorRequest(file_to_generate=names[:SMALL],
                                            proto_file=[p for p in protos if p.name not in unused])
    large = plugin_pb2.CodeGeneratorRequest(file_to_generate=names, proto_file=protos)
    return small.SerializeToString(), large.SerializeToString()


def seconds_per_module(data: bytes) -> float:
    """CPU seconds per generated module, the fastest of two runs."""
    times = []
    for _ in range(2):
        start = time.thread_time()
        response = plugin_pb2.CodeGeneratorResponse.FromString(b"".join(run(data)))
        times.append(time.thread_time() - start)
    assert not response.error, response.error
    return min(times) / len(response.file)


def test_plugin_time_grows_linearly_with_the_request(tmp_path: Path) -> None:
    small, large = requests(tmp_path)
    seconds_per_module(small)  # templates compiled, caches warm
    ratio = seconds_per_module(large) / seconds_per_module(small)
    assert ratio < 1.6, f"per-module time at {LARGE} files is {ratio:.2f}× that at {SMALL}"
