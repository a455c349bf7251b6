"""Adversarial inputs: parse time per MB of each hostile shape at growing sizes, ours against upb.

    python bench/adversarial.py            # 1, 4 and 16 MB; updates the "Adversarial inputs" section of bench/RESULTS.md
    python bench/adversarial.py --quick    # 256 KB and 1 MB, under a minute or two; build/bench/RESULTS-quick.md
    python bench/adversarial.py --tiny --no-write   # smoke test (64 KB, no compiled build)

The shapes (tools/adversarial.py, schema bench/protos/benchpb/hostile.proto) are what a
hostile sender repeats to fill megabytes: unknown varints, unknown length-delimited fields, one
packed run of one-byte values, chains nested 90 deep, map entries, expanded extensions, closed
enum values it does not know, a lazy field given n times, unknown MessageSet items. Linear
parsing shows as a time per MB that stays flat as the size grows.

Contenders, each in its own worker process: ours open, hybrid and opaque (``parse``), opaque
with ``parse(lazy=True)`` and a first access, open and opaque compiled with mypyc (the build is
kept in build/bench/adversarial/ and reused while nothing it depends on changes), and upb. A
figure is the best of bench/worker.py's timing loops (preempted loops discarded) per call.
"""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from functools import partial
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from contenders import (  # noqa: E402
    BUILD, PROTOS, REPO, _grpc_include, build_ours_native, publish_section, section_command_line,
)
from channel import WorkerChannel, serve  # noqa: E402

if str(REPO) not in sys.path:  # last: a worker's compiled runtime, first on its path, must win
    sys.path.append(str(REPO))
from tools.adversarial import BINARY, PROTO  # noqa: E402

ADV_BUILD = BUILD / "adversarial"
SECTION = "## Adversarial inputs"
MB = 1 << 20

# contender -> (label, generated-code folder under ADV_BUILD)
CONTENDERS: dict[str, tuple[str, str]] = {
    "ours-open": ("pyopaque open", "ours-open"),
    "ours-hybrid": ("pyopaque hybrid", "ours-hybrid"),
    "ours-opaque": ("pyopaque opaque", "ours-opaque"),
    "ours-lazy": ("pyopaque opaque, parse(lazy=True) + first access", "ours-opaque"),
    "ours-open-native": ("pyopaque open, compiled", "ours-open-native"),
    "ours-opaque-native": ("pyopaque opaque, compiled", "ours-opaque-native"),
    "upb": ("google protobuf (upb)", "google"),
}


@dataclass
class Mode:
    sizes: tuple[int, ...]
    repeats: int
    budget_ns: int


MODES = {
    "full": Mode((MB, 4 * MB, 16 * MB), 3, 2_000_000_000),
    "quick": Mode((MB // 4, MB), 2, 300_000_000),
    "tiny": Mode((MB // 16,), 1, 20_000_000),
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def generate(native: bool) -> str | None:
    """Generate our code per style (compiled with mypyc if ``native``) and upb's; return why the
    compiled builds failed, if they did."""
    from tools.generate import generate as ours_generate

    for style in ("open", "hybrid", "opaque"):
        out = ADV_BUILD / f"ours-{style}"
        shutil.rmtree(out, ignore_errors=True)
        ours_generate([PROTO], [PROTOS], out, options=f"default_api_level=API_{style.upper()}")
    why_not = None
    if native:
        for style in ("open", "opaque"):
            try:
                build_ours_native(ADV_BUILD / f"ours-{style}-native", [PROTO], f"default_api_level=API_{style.upper()}")
            except RuntimeError as exc:
                why_not = f"compile step failed: {exc}"
    google = ADV_BUILD / "google"
    shutil.rmtree(google, ignore_errors=True)
    google.mkdir(parents=True)
    cmd = [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTOS}", f"-I{_grpc_include()}",
           f"--python_out={google}", PROTO]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode:
        raise RuntimeError(f"protoc --python_out failed: {result.stderr.strip()}")
    return why_not


# -- worker --------------------------------------------------------------------------------

def parser(name: str, message: str) -> Callable[[bytes], Any]:
    if name == "upb":
        from google.protobuf.internal import api_implementation

        from benchpb import hostile_pb2  # type: ignore[import-not-found]

        if api_implementation.Type() != "upb":
            raise RuntimeError(f"google.protobuf runs {api_implementation.Type()}, not upb")
        return getattr(hostile_pb2, message).FromString  # type: ignore[no-any-return]
    from benchpb import hostile_pb  # type: ignore[import-not-found]

    from protoc_gen_pyopaque.compile import is_compiled

    if name.endswith("-native") != is_compiled(hostile_pb):
        raise RuntimeError(f"{name}: loaded {hostile_pb.__file__}")
    cls = getattr(hostile_pb, message)
    if name == "ours-lazy":
        def parse_lazy(data: bytes) -> Any:
            m = cls.parse(data, lazy=True)
            m.unknown_fields()  # the first access decodes the message
            return m
        return parse_lazy
    return cls.parse  # type: ignore[no-any-return]


def worker_main(name: str) -> None:
    from worker import measure  # bench/worker.py's timing loop

    def handle(cmd: dict[str, Any]) -> dict[str, Any]:
        message, build = BINARY[cmd["shape"]]
        parse = parser(name, message)
        data = build(cmd["size"])
        return {**measure(partial(parse, data), 1, cmd["budget_ns"], cmd["repeats"]), "bytes": len(data)}

    serve(lambda: ({}, handle))


# -- coordinator ---------------------------------------------------------------------------

@dataclass
class Running(WorkerChannel):
    name: str
    proc: subprocess.Popen[str] | None = None
    unavailable: str | None = None
    results: dict[tuple[str, int], str] = field(default_factory=dict)  # cell text


def spawn(name: str, verbose: bool) -> Running:
    env = dict(os.environ)
    env["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "upb"
    env["PYTHONPATH"] = os.pathsep.join([str(ADV_BUILD / CONTENDERS[name][1]), str(BENCH), str(REPO),
                                         env.get("PYTHONPATH", "")])
    r = Running(name)
    r.start([__file__, "--worker", name], env, verbose)
    r.unavailable = r.ready().get("error")
    return r


def fmt_ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 1 else f"{ms:.2f}"


def run(mode: Mode, names: list[str], no_native: str | None, verbose: bool, began: float) -> list[Running]:
    runs = [Running(n, unavailable=no_native) if no_native and n.endswith("-native") else spawn(n, verbose)
            for n in names]
    live = [r for r in runs if not r.unavailable]
    try:
        for shape in BINARY:
            for size in mode.sizes:
                for r in live:  # interleaved: each cell's contenders run one after another
                    reply = r.ask({"cmd": "measure", "shape": shape, "size": size, "repeats": mode.repeats,
                                   "budget_ns": mode.budget_ns})
                    if "error" in reply:
                        r.results[shape, size] = "error: " + reply["error"]
                        continue
                    per_call = min(reply["samples"]) / 1e9
                    r.results[shape, size] = fmt_ms(per_call * MB / reply["bytes"])
            log(f"[{time.monotonic() - began:5.1f}s] {shape} done")
    finally:
        for r in live:
            r.stop()
    return runs


def fmt_size(size: int) -> str:
    return f"{size // MB} MB" if size >= MB else f"{size // 1024} KB"


def report(mode_name: str, mode: Mode, runs: list[Running], seconds: float) -> str:
    out = [SECTION, "",
           f"Generated by `bench/adversarial.py` ({mode_name} mode; wall time {seconds:.0f} s). Parse time "
           "in **ms per MB** of input for each hostile shape (tools/adversarial.py) at each size: a "
           "flat row means linear time. Best of the timing loops per call; lower is faster.",
           "", "| shape | size | " + " | ".join(CONTENDERS[r.name][0] for r in runs) + " |",
           "|---|---:|" + "---:|" * len(runs)]
    for shape in BINARY:
        for size in mode.sizes:
            cells = [r.unavailable and "unavailable" or r.results.get((shape, size), "–") for r in runs]
            out.append(f"| {shape} | {fmt_size(size)} | " + " | ".join(cells) + " |")
    notes = [f"- {CONTENDERS[r.name][0]}: unavailable: {r.unavailable}" for r in runs if r.unavailable]
    notes += [f"- {CONTENDERS[r.name][0]}, {shape} {fmt_size(size)}: {cell}"
              for r in runs for (shape, size), cell in r.results.items() if cell.startswith("error")]
    if notes:
        out += ["", "Notes:", ""] + notes
    return "\n".join(out) + "\n"


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2])
        return 0
    args, mode_name = section_command_line(__doc__ or "", SECTION, "256 KB and 1 MB, one or two minutes",
                                           "64 KB, no compiled build: for the smoke test")
    mode = MODES[mode_name]
    began = time.monotonic()
    native = mode_name != "tiny"
    no_native = generate(native)
    log(f"[{time.monotonic() - began:5.1f}s] generated code")
    names = [n for n in CONTENDERS if native or not n.endswith("-native")]
    runs = run(mode, names, no_native, args.verbose, began)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    section = report(mode_name, mode, runs, time.monotonic() - began).replace(
        "Generated by", f"Run {date}; generated by", 1)
    publish_section(args, SECTION, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
