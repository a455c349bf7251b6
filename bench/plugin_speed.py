"""Plugin speed: the time the plugin takes to generate the well-known types and large real schemas.

    python bench/plugin_speed.py        # prints the markdown section bench/run.py appends to RESULTS.md

Each request is what protoc hands the plugin (built here with protoc's --descriptor_set_out): the
well-known types with descriptor.proto and plugin.proto; then also the benchmark protos; then also,
when a conformance runner is found (tests/conformance/harness.py), Google's conformance test protos
(large: every field kind in proto2, proto3 and editions). All in the hybrid style (two modules per
file, the most output). The figure is plugin time: ``run(request) -> response`` in this process,
the fastest of several runs, protoc's own time excluded.

Then a synthetic monorepo (tools/monorepo.py: 5,000 files with cross-imports, 50,000
messages; 500 files in quick mode) generated at 10 %, 50 % and 100 % of its size in one protoc call
each, by this plugin (default options) and by protoc's own ``--python_out``: plugin process time
(CPU and wall) and peak memory, judged against the targets (within 2x of ``--python_out``, linear
growth).

    python bench/plugin_speed.py [--quick]
"""

from __future__ import annotations

import argparse
import datetime
import os
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

from protoc_gen_pyopaque import compiled_plugin  # noqa: E402
from protoc_gen_pyopaque.compile import CompileError  # noqa: E402
from protoc_gen_pyopaque.plugin.names import SHIPPED_PROTOS  # noqa: E402
from protoc_gen_pyopaque.plugin.run import run  # noqa: E402
from tools.generate import grpc_include  # noqa: E402
from tools.monorepo import write_monorepo  # noqa: E402

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


# Runs a Python module as ``python -m`` does and reports its peak resident set on stderr at exit,
# and its largest worker process's (forked: pages shared with it count in both).
# getrusage's ru_maxrss will not do for the process itself: Linux carries the parent's resident
# set at fork over exec.
PEAK_REPORTER = """
import atexit, resource, runpy, sys
def report():
    with open("/proc/self/status") as status:
        sys.stderr.write(next(line for line in status if line.startswith("VmHWM:")))
    sys.stderr.write(f"Workers: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss} kB\\n")
atexit.register(report)
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def child_usage(module: str, args: list[str], stdin: Path, stdout: Path,
                env: dict[str, str] | None = None) -> dict[str, float]:
    """Run ``python -m module args`` (stdin and stdout from and to files, ``env`` added to the
    environment); its wall and CPU seconds (with its worker processes') and peak resident set
    (MiB; ``workers_rss``: the largest worker's)."""
    with stdin.open("rb") as fin, stdout.open("wb") as fout:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", PEAK_REPORTER, module, *args], stdin=fin, stdout=fout,
                                stderr=subprocess.PIPE, cwd=REPO, env={**os.environ, **(env or {})})
        assert proc.stderr is not None
        err = proc.stderr.read().decode(errors="replace")
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"{module} failed: {err.strip()[-2000:]}")
    peak = next(line for line in err.splitlines() if line.startswith("VmHWM:"))
    workers = next(line for line in err.splitlines() if line.startswith("Workers:"))
    # wait4's usage counts the process and the workers it waited for
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": int(peak.split()[1]) / 1024,
            "workers_rss": int(workers.split()[1]) / 1024}


def protoc(include: list[Path], args: list[str], files: list[str], work: Path) -> dict[str, float]:
    """Run protoc once over ``files`` (listed in a file: thousands of paths are long); its usage."""
    listing = work / "files.txt"
    listing.write_text("\n".join(files) + "\n")
    empty = work / "empty"
    empty.write_bytes(b"")
    return child_usage("grpc_tools.protoc", [*(f"-I{p}" for p in include), f"-I{grpc_include()}",
                                             "--experimental_editions", *args, f"@{listing}"],
                       empty, work / "protoc.log")


def build_request(files: list[str], include: list[Path], work: Path,
                  parameter: str = "default_api_level=API_HYBRID") -> tuple[bytes, dict[str, float]]:
    """The request protoc hands the plugin for ``files``, and protoc's usage making it (parsing)."""
    out = work / "set.pb"
    usage = protoc(include, [f"--descriptor_set_out={out}", "--include_imports", "--include_source_info"],
                   files, work)
    fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    request = plugin_pb2.CodeGeneratorRequest(file_to_generate=files, parameter=parameter, proto_file=fds.file)
    request.compiler_version.major, request.compiler_version.minor = 29, 3
    return request.SerializeToString(), usage


def plugin_process(data: bytes, work: Path, workers: int = 1, compiled: bool = False) -> tuple[Path, dict[str, float]]:
    """One whole plugin process as protoc starts it (interpreter start-up, imports, loading the
    compiled templates, which the first run in a user's cache compiles, and the run), with
    ``workers`` worker processes, its generator interpreted or ``compiled`` (the build of
    ``pyopaque compile-plugin``, which must exist): the response's file, and the process's usage."""
    request, response = work / "request.pb", work / "response.pb"
    request.write_bytes(data)
    return response, child_usage("protoc_gen_pyopaque.cli", [], request, response,
                                 env={"PYOPAQUE_PLUGIN_WORKERS": str(workers),
                                      compiled_plugin.SWITCH: "1" if compiled else "0"})


def time_plugin(files: list[str], include: list[Path], repeats: int) -> dict[str, float]:
    """Generate ``files`` (hybrid) ``repeats`` times; CPU seconds of the fastest run, and sizes."""
    with tempfile.TemporaryDirectory() as tmp:
        data, _ = build_request(files, include, Path(tmp))
        cold = min(plugin_process(data, Path(tmp))[1]["cpu"] for _ in range(3))
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
        out = b"".join(run(data))
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - t0)
        response = plugin_pb2.CodeGeneratorResponse.FromString(out)
    if response.error:
        raise RuntimeError(f"the plugin reported: {response.error}")
    return {"cold": cold, "files": len(files), "messages": messages, "fields": fields, "modules": len(response.file),
            "lines": sum(f.content.count("\n") for f in response.file),
            "mib": sum(len(f.content) for f in response.file) / (1 << 20), "cpu": min(cpu), "wall": min(wall)}


MONOREPO_FILES = {"full": 5000, "quick": 500}
SHARES = (0.1, 0.5, 1.0)
MESSAGES_PER_FILE = 10
WORKERS = 2  # the plugin's worker processes in the second run (PYOPAQUE_PLUGIN_WORKERS)


def monorepo_row(root: Path, files: list[str], work: Path, compiled: bool) -> dict[str, float]:
    """protoc --python_out and this plugin on ``files`` (one protoc call each): times, memory, sizes;
    and with its generator ``compiled`` (``pyopaque compile-plugin``), if built."""
    python_out = work / "python_out"
    python_out.mkdir()
    py = protoc([root], [f"--python_out={python_out}"], files, work)
    data, parse = build_request(files, [root], work, parameter="")
    generated = set(files)
    messages = sum(len(f.message_type) for f in plugin_pb2.CodeGeneratorRequest.FromString(data).proto_file
                   if f.name in generated)
    response_path, plugin = plugin_process(data, work)
    response = plugin_pb2.CodeGeneratorResponse.FromString(response_path.read_bytes())
    if response.error:
        raise RuntimeError(f"the plugin reported: {response.error}")
    serial_bytes = response_path.read_bytes()
    response_path, parallel = plugin_process(data, work, workers=WORKERS)
    if response_path.read_bytes() != serial_bytes:
        raise RuntimeError(f"the response with {WORKERS} workers differs")
    native = {"cpu": float("nan"), "wall": float("nan")}
    if compiled:
        response_path, native = plugin_process(data, work, compiled=True)
        if response_path.read_bytes() != serial_bytes:
            raise RuntimeError("the response of the compiled generator differs")
    return {"files": len(files), "messages": messages, "modules": len(response.file),
            "mib": response_path.stat().st_size / (1 << 20),
            "py_mib": sum(p.stat().st_size for p in python_out.rglob("*.py")) / (1 << 20),
            "py_cpu": py["cpu"], "py_wall": py["wall"], "py_rss": py["rss"], "parse_cpu": parse["cpu"],
            "cpu": plugin["cpu"], "wall": plugin["wall"], "rss": plugin["rss"],
            "par_cpu": parallel["cpu"], "par_wall": parallel["wall"], "par_rss": parallel["rss"],
            "par_workers_rss": parallel["workers_rss"], "native_cpu": native["cpu"], "native_wall": native["wall"]}


def workers_rss(row: dict[str, float]) -> str:
    """The largest worker's peak resident set, or why there is none (a request below the plugin's
    size for workers)."""
    return f"{row['par_workers_rss']:,.0f} MiB" if row["par_workers_rss"] else "none (too small)"


def monorepo(mode: str) -> str:
    """The synthetic monorepo section: the table and the targets judged on it."""
    total = MONOREPO_FILES[mode]
    began, load_before = datetime.datetime.now(datetime.timezone.utc), os.getloadavg()[0]
    rows = []
    try:  # once per version of the sources: a minute or two
        compiled, compiled_note = True, f"built in {compiled_plugin.build()}"
    except CompileError as exc:
        compiled, compiled_note = False, f"not built: {exc}"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "protos"
        files = write_monorepo(root, total, MESSAGES_PER_FILE)
        for share in SHARES:
            work = Path(tmp) / f"run{share}"
            work.mkdir()
            rows.append(monorepo_row(root, files[:round(total * share)], work, compiled))
    lines = [
        f"| {share:.0%} | {r['files']:,} | {r['messages']:,} | {r['py_cpu']:.2f} s / {r['py_wall']:.2f} s | "
        f"{r['parse_cpu']:.2f} s | {r['cpu']:.2f} s / {r['wall']:.2f} s | {r['cpu'] / r['py_cpu']:.1f} | "
        f"{r['cpu'] / r['files'] * 1000:.1f} ms | {r['rss']:,.0f} MiB ({r['py_rss']:,.0f}) | "
        f"{r['par_cpu']:.2f} s / {r['par_wall']:.2f} s | {r['par_rss']:,.0f} / {workers_rss(r)} | "
        f"{r['mib']:,.1f} ({r['py_mib']:,.1f}) | {r['native_cpu']:.2f} s / {r['native_wall']:.2f} s | "
        f"{r['native_cpu'] / r['py_cpu']:.1f} |"
        for share, r in zip(SHARES, rows)
    ]
    first, last = rows[0], rows[-1]
    ratio = last["cpu"] / last["py_cpu"]
    native_ratio = last["native_cpu"] / last["py_cpu"]
    growth = (last["cpu"] / last["files"]) / (first["cpu"] / first["files"])
    return f"""
### A synthetic monorepo ({mode} mode)

{total:,} files generated by the benchmark (tools/monorepo.py: each file imports up to three
earlier ones; {MESSAGES_PER_FILE} messages a file of rotating shapes: scalars, enums, nested types,
maps, oneofs, repeated and imported message fields, Timestamp; proto3, proto2 with required
fields, editions 2023 and 2024), taken at 10 %, 50 % and 100 %. Each share is one protoc call
with `--python_out`, and one run of this plugin (default options: open style, opaque for edition
2024) as protoc runs it: a process reading the request (built with `--descriptor_set_out`) on
stdin. Times are the CPU (user + system) and wall seconds of the whole process, once; memory is
its peak resident set. Parentheses: `--python_out`'s figures. Then the same run with
{WORKERS} worker processes (`PYOPAQUE_PLUGIN_WORKERS={WORKERS}`; the response is checked to be
the same): CPU of the process and its workers, wall, and the peak resident sets of the
process and of its largest worker (pages shared after the fork count in both). Last, the
serial run with the generator compiled by `pyopaque compile-plugin` (mypyc; the response is
checked to be the same; {compiled_note}).
Run {began:%Y-%m-%d %H:%M} UTC on {os.cpu_count()} cores; 1-minute load average {load_before:.1f} at the start,
{os.getloadavg()[0]:.1f} at the end (other processes inflate wall times).

| share | files | messages | protoc --python_out: CPU / wall | protoc parse alone, CPU | plugin: CPU / wall | plugin × --python_out (CPU) | plugin CPU per file | plugin peak RSS (--python_out) | {WORKERS} workers: CPU / wall | {WORKERS} workers: peak RSS, process / worker | output MiB (--python_out) | compiled generator: CPU / wall | compiled × --python_out (CPU) |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
""" + "\n".join(lines) + f"""

- within 2× of `--python_out`'s time at 100 % (plugin CPU × protoc's): {ratio:.1f} — {'**met**' if ratio <= 2 else '**not met**'};
  with the compiled generator: {native_ratio:.1f} — {'**met**' if native_ratio <= 2 else '**not met**'}
- linear growth (plugin CPU per file at 100 % ÷ at 10 %, at most 1.5): {growth:.2f} — {'**met**' if growth <= 1.5 else '**not met**'}
- {WORKERS} workers at 100 %: wall {last['par_wall'] / last['wall']:.2f}× the serial run's, CPU {last['par_cpu'] / last['cpu']:.2f}×
  (wall times depend on idle cores; the load figures above say how many there were)
"""


def measure(repeats: int = 5, mode: str = "full") -> str:
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
start-up, imports, the templates loaded compiled from the user's cache, the run), the fastest of 3.

| input | files | messages / fields | modules | lines | MiB | plugin CPU time | wall | whole process, CPU |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
""" + "\n".join(rows) + "\n"
    if note:
        text += f"\n- {note}\n"
    return text + monorepo(mode)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer runs and a monorepo of 500 files")
    args = ap.parse_args()
    print(measure(2, "quick") if args.quick else measure())
