"""The plugin's time grows linearly with the request: with the number of files (one protoc call
over a monorepo), and with the size of a message.

Per-module time at 20× the files must stay close to per-module time at 1×: whole-schema passes
run once per output module (since moved to the model step) made it 2.6× at these sizes, and
more the larger the request. Per-field time in a message of 15× the fields likewise: scans of
all fields per oneof (proto3 ``optional`` fields are oneofs each) made it 3.8×. The benchmark
(bench/plugin_speed.py) reports the figures; this only asserts generous ratios.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest
from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

from protoc_gen_pyopaque.gen.build import build_file_view
from protoc_gen_pyopaque.gen.views import FileView
from protoc_gen_pyopaque.plugin.names import output_path
from protoc_gen_pyopaque.plugin.request import InputError
from protoc_gen_pyopaque.plugin.run import PARALLEL_MIN_FILES, run
from protoc_gen_pyopaque.plugin.schema import File
from tools.generate import grpc_include
from tools.monorepo import write_monorepo

pytest.importorskip("grpc_tools")

SMALL, LARGE = 50, 1000  # files
NARROW, WIDE = 200, 3000  # fields
GENEROUS = 2.2  # linear growth gives about 1.0 (1.6 on a loaded machine); the quadratic paths fixed gave 2.6 and 3.8


def descriptors(root: Path, names: list[str]) -> list[descriptor_pb2.FileDescriptorProto]:
    """``names`` and their imports, as protoc hands them to a plugin."""
    out = root / "set.pb"
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{root}", f"-I{grpc_include()}",
                    f"--descriptor_set_out={out}", "--include_imports", "--include_source_info", *names],
                   check=True, capture_output=True)
    return list(descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file)


def request(names: list[str], protos: list[descriptor_pb2.FileDescriptorProto], parameter: str = "") -> bytes:
    data: bytes = plugin_pb2.CodeGeneratorRequest(file_to_generate=names, proto_file=protos,
                                                  parameter=parameter).SerializeToString()
    return data


def seconds(data: bytes) -> float:
    """CPU seconds of a run, the fastest of two."""
    times = []
    for _ in range(2):
        start = time.thread_time()
        response = plugin_pb2.CodeGeneratorResponse.FromString(b"".join(run(data)))
        times.append(time.thread_time() - start)
        assert not response.error, response.error
    return min(times)


def test_plugin_time_grows_linearly_with_the_files(tmp_path: Path) -> None:
    names = write_monorepo(tmp_path, LARGE, messages=1)
    protos = descriptors(tmp_path, names)
    unused = set(names[SMALL:])  # files import earlier files only: the prefix is closed
    small = request(names[:SMALL], [p for p in protos if p.name not in unused])
    seconds(small)  # templates compiled, caches warm
    ratio = (seconds(request(names, protos)) / LARGE) / (seconds(small) / SMALL)
    assert ratio < GENEROUS, f"per-module time at {LARGE} files is {ratio:.2f}× that at {SMALL}"


def wide_message(fields: int) -> str:
    """A proto3 message of ``fields`` fields: optional scalars and messages, and one-field oneofs."""
    lines = ['syntax = "proto3";', "package wide;", "message Wide {"]
    for i in range(1, fields + 1):
        if i % 10 == 0:
            lines.append(f"  oneof choice{i} {{ int32 pick{i} = {i}; }}")
        else:
            lines.append(f"  optional {('int32', 'string', 'Wide')[i % 3]} field{i} = {i};")
    return "\n".join([*lines, "}", ""])


@pytest.mark.parametrize("classes", ["inline", "deferred"])
def test_plugin_time_grows_linearly_with_a_message(tmp_path: Path, classes: str) -> None:
    """Both sizes in one class layout: ``classes=auto`` defers the classes of the wide file only,
    and deferred classes cost more per field (each is compiled and packed), which alone read 1.8×."""
    per_field = []
    for fields in (NARROW, WIDE):
        name = f"wide{fields}.proto"
        (tmp_path / name).write_text(wide_message(fields))
        data = request([name], descriptors(tmp_path, [name]), f"classes={classes}")
        seconds(data)
        per_field.append(seconds(data) / fields)
    ratio = per_field[1] / per_field[0]
    assert ratio < GENEROUS, f"per-field time at {WIDE} fields is {ratio:.2f}× that at {NARROW}"


def test_worker_processes_give_the_same_response(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request large enough for worker processes gets the serial response, byte for byte, and
    an input error in one file ends the response there, as without workers."""
    names = write_monorepo(tmp_path, PARALLEL_MIN_FILES + 9, messages=2)
    data = plugin_pb2.CodeGeneratorRequest(file_to_generate=names, parameter="default_api_level=API_HYBRID",
                                           proto_file=descriptors(tmp_path, names)).SerializeToString()
    serial = b"".join(run(data))
    assert b"".join(run(data, workers=2)) == serial
    assert len(plugin_pb2.CodeGeneratorResponse.FromString(serial).file) == 2 * len(names)

    failing = names[PARALLEL_MIN_FILES // 2]
    build = build_file_view

    def build_or_fail(file: File, *args: Any, **kwargs: Any) -> FileView:
        if file.name == failing:
            raise InputError(f"{failing}: refused")
        return build(file, *args, **kwargs)

    monkeypatch.setattr("protoc_gen_pyopaque.plugin.run.build_file_view", build_or_fail)  # inherited at fork
    for workers in (1, 2):
        response = plugin_pb2.CodeGeneratorResponse.FromString(b"".join(run(data, workers=workers)))
        assert response.error == f"{failing}: refused"
        assert [f.name for f in response.file][::2] == [output_path(n) for n in names[:names.index(failing)]]


def test_a_worker_that_dies_ends_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker process that dies (killed, out of memory) ends the run with an error instead of
    leaving protoc waiting for ever for the files it held."""
    names = write_monorepo(tmp_path, PARALLEL_MIN_FILES + 9, messages=2)
    data = plugin_pb2.CodeGeneratorRequest(file_to_generate=names,
                                           proto_file=descriptors(tmp_path, names)).SerializeToString()
    dying = names[PARALLEL_MIN_FILES // 2]
    build = build_file_view

    def build_or_die(file: File, *args: Any, **kwargs: Any) -> FileView:
        if file.name == dying:
            os._exit(9)
        return build(file, *args, **kwargs)

    monkeypatch.setattr("protoc_gen_pyopaque.plugin.run.build_file_view", build_or_die)  # inherited at fork

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError("the run waited for a dead worker")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    try:
        with pytest.raises(BrokenProcessPool):
            b"".join(run(data, workers=2))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
