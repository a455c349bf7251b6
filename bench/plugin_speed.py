"""Plugin speed: the time the plugin takes to generate the well-known types and large real schemas.

    python bench/plugin_speed.py        # prints the markdown section bench/run.py appends to RESULTS.md

Each request is what protoc hands the plugin (built here with protoc's --descriptor_set_out): the
well-known types with descriptor.proto and plugin.proto; then also the benchmark protos; then also,
when a conformance runner is found (tests/conformance/harness.py), Google's conformance test protos
(large: every field kind in proto2, proto3 and editions). All in the hybrid style (two modules per
file, the most output). The figure is plugin time: ``run(request) -> response`` in this process,
the fastest of several runs, protoc's own time excluded.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))

from google.protobuf import descriptor_pb2  # noqa: E402
from google.protobuf.compiler import plugin_pb2  # noqa: E402

from protoc_gen_pyopaque.gen.views import SHIPPED_PROTOS  # noqa: E402
from protoc_gen_pyopaque.plugin.run import run  # noqa: E402
from tests.support.generate import grpc_include  # noqa: E402

BENCH_PROTOS = ["benchpb/logentry.proto", "benchpb/scalars.proto", "benchpb/addressbook.proto",
                "benchpb/batch.proto", "benchpb/lazy.proto"]
SCHEMA_PROTOS = ["google/protobuf/descriptor.proto", "google/protobuf/compiler/plugin.proto"]


def conformance_inputs() -> tuple[list[Path], list[str], str]:
    """Include folders and files of the conformance protos, if a runner is found; and why not."""
    from tests.conformance.harness import SetupError, conformance_protos, find_runner

    try:
        runner = find_runner()
        return [runner.protos], conformance_protos(runner), ""
    except (SetupError, OSError) as exc:
        return [], [], f"conformance protos not included: {exc}"


def build_request(files: list[str], include: list[Path]) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        args = [f"-I{p}" for p in include] + [f"-I{grpc_include()}", f"--descriptor_set_out={out}",
                                               "--include_imports", "--include_source_info", "--experimental_editions", *files]
        result = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", *args],
                                capture_output=True, text=True, check=False)
        if result.returncode:
            raise RuntimeError(f"protoc failed: {result.stderr.strip()}")
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    request = plugin_pb2.CodeGeneratorRequest(file_to_generate=files, parameter="default_api_level=API_HYBRID",
                                              proto_file=fds.file)
    request.compiler_version.major, request.compiler_version.minor = 29, 3
    return request.SerializeToString()


def time_plugin(files: list[str], include: list[Path], repeats: int) -> dict[str, float]:
    """Generate ``files`` (hybrid) ``repeats`` times; CPU seconds of the fastest run, and sizes."""
    data = build_request(files, include)
    request = plugin_pb2.CodeGeneratorRequest.FromString(data)
    messages = fields = 0
    stack = [m for f in request.proto_file if f.name in files for m in f.message_type]
    while stack:
        m = stack.pop()
        messages += 1
        fields += len(m.field)
        stack += m.nested_type
    cpu, wall = [], []
    response = plugin_pb2.CodeGeneratorResponse()
    for _ in range(repeats):
        c0, t0 = time.thread_time(), time.perf_counter()
        out = run(data)
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - t0)
        response = plugin_pb2.CodeGeneratorResponse.FromString(out)
    if response.error:
        raise RuntimeError(f"the plugin reported: {response.error}")
    cold = min(cold_process(data) for _ in range(3))
    return {"cold": cold, "files": len(files), "messages": messages, "fields": fields, "modules": len(response.file),
            "lines": sum(f.content.count("\n") for f in response.file),
            "mib": sum(len(f.content) for f in response.file) / (1 << 20), "cpu": min(cpu), "wall": min(wall)}


def cold_process(data: bytes) -> float:
    """CPU seconds of one whole plugin process as protoc starts it: interpreter start-up, imports,
    template compilation and the run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.cli"], input=data, cwd=REPO,
                   stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(repeats: int = 5) -> str:
    more_include, conformance, note = conformance_inputs()
    include = [BENCH / "protos", *more_include]
    sets = {"well-known types, descriptor.proto, plugin.proto": sorted(SHIPPED_PROTOS) + SCHEMA_PROTOS}
    sets["the same and the benchmark protos"] = sets["well-known types, descriptor.proto, plugin.proto"] \
        + BENCH_PROTOS
    if conformance:
        sets["the same and Google's conformance test protos"] = \
            sets["the same and the benchmark protos"] + conformance
    rows = []
    for label, files in sets.items():
        r = time_plugin(files, include, repeats)
        rows.append(f"| {label} | {r['files']} | {r['messages']} / {r['fields']} | {r['modules']} | "
                    f"{r['lines']:,} | {r['mib']:.1f} | {r['cpu']:.2f} s | {r['wall']:.2f} s | {r['cold']:.2f} s |")
    text = f"""## Plugin speed

`run(request)` in one process (decode the CodeGeneratorRequest, resolve features and names, build the
views, render, encode the response), in the hybrid style (each file
becomes two modules); protoc's own time is not included. Plugin time is the thread CPU time of the
fastest of {repeats} runs (wall time next to it; other processes on the machine inflate it). The last
column is what one protoc invocation costs: the CPU time of a whole plugin process (interpreter
start-up, imports, template compilation, the run), the fastest of 3.

| input | files | messages / fields | modules | lines | MiB | plugin CPU time | wall | whole process, CPU |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
""" + "\n".join(rows) + "\n"
    if note:
        text += f"\n- {note}\n"
    return text


if __name__ == "__main__":
    print(measure())
