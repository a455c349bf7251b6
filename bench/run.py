"""Benchmarks: ours (open, hybrid, opaque) against Google's upb and pure-Python runtimes,
betterproto2 and Buf's protobuf-py; and the object floor of a parse (bench/floor.py).

    python bench/run.py            # full run, a few minutes; writes bench/RESULTS.md and its chart, bench/RESULTS.svg
    python bench/run.py --quick    # under a minute
    python bench/run.py --tiny --contenders ours-opaque,upb --no-write   # smoke test

Every contender runs in its own worker process (bench/worker.py); the coordinator
interleaves them: for each round, each workload and operation, every contender in turn.
A timing loop repeats an operation for about a target time with the garbage collector
off; an operation's figure is the median of its loops in one round, and the reported
number is the minimum of those medians over the rounds (min-of-median).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import payloads  # noqa: E402
from channel import WorkerChannel  # noqa: E402
from chart import bar_chart  # noqa: E402
from contenders import BENCH, BUILD, BY_NAME, CONTENDERS, DATA, OPS, REPO, WORKLOADS, Contender, generate, missing_requirement  # noqa: E402

BASELINE = "upb"


@dataclass
class Mode:
    rounds: int
    repeats: int
    target_ns: int
    budget_ns: int
    memory_counts: dict[str, int]
    traced: tuple[str, ...] = tuple(WORKLOADS)  # workloads whose decode runs under tracemalloc


MODES = {
    # full: five rounds, because on a shared machine a slow phase can hold one cell through a round
    # memory counts: tens of MB of upb's messages per workload, so that RSS growth is measured well
    "full": Mode(5, 5, 5_000_000, 1_000_000_000,
                 {"log": 20000, "scalars": 10000, "addressbook": 2500, "batch-1MB": 10}),
    "quick": Mode(1, 3, 2_000_000, 150_000_000,
                  {"log": 1000, "scalars": 300, "addressbook": 60, "batch-1MB": 1},
                  ("log", "scalars", "addressbook")),
    "tiny": Mode(1, 1, 200_000, 20_000_000,
                 {"log": 50, "scalars": 20, "addressbook": 5, "batch-1MB": 1}),
}


@dataclass
class Running(WorkerChannel):
    c: Contender
    proc: subprocess.Popen[str] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    unavailable: str | None = None
    memory: dict[str, Any] = field(default_factory=dict)
    # (workload, op) -> per-round medians
    medians: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    # (workload, op) -> per-round: were all the loops behind the median free of preemption
    clean: dict[tuple[str, str], list[bool]] = field(default_factory=dict)
    loops: list[int] = field(default_factory=lambda: [0, 0])  # clean, discarded

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.c.name


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def spawn(r: Running, quiet: bool) -> None:
    env = dict(os.environ)
    env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    env.update(r.c.env)
    env["PYTHONPATH"] = os.pathsep.join([str(BENCH), str(REPO), env.get("PYTHONPATH", "")])
    r.start([str(BENCH / "worker.py"), r.c.name], env, verbose=not quiet)


def await_ready(r: Running) -> None:
    hello = r.ready()
    if "error" in hello:
        r.unavailable = hello["error"]
        return
    r.info = hello


def fmt_us(ns: float) -> str:
    us = ns / 1000
    if us >= 1000:
        return f"{us:,.0f}"
    if us >= 100:
        return f"{us:.0f}"
    if us >= 10:
        return f"{us:.1f}"
    return f"{us:.2f}"


def fmt_ratio(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def fmt_bytes(n: float) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f} KiB"
    return f"{n:.0f} B"


def machine() -> dict[str, str]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    uname = subprocess.run(["uname", "-a"], capture_output=True, text=True, check=False).stdout.strip()
    return {"uname": uname or platform.platform(), "cpu": cpu, "cores": str(os.cpu_count()),
            "python": f"{platform.python_implementation()} {platform.python_version()}"}


def tables(runs: list[Running], sizes: dict[str, int]) -> str:
    base = next((r for r in runs if r.c.name == BASELINE and not r.unavailable), None)
    out: list[str] = []
    busy = [False]
    header = "| operation | " + " | ".join(r.c.label for r in runs) + " |"
    rule = "|---|" + "---:|" * len(runs)
    for workload in WORKLOADS:
        out.append(f"\n**{workload}** ({fmt_bytes(sizes[workload])} on the wire) — median µs per "
                   f"operation (× time relative to upb; lower is faster)\n")
        out += [header, rule]
        for op in OPS:
            cells = []
            ref = base.medians.get((workload, op)) if base else None
            for r in runs:
                if r.unavailable:
                    cells.append("unavailable")
                    continue
                status = r.info["status"][workload][op]
                if status:
                    cells.append("n/a" if status == "n/a" else "error")
                    continue
                values = r.medians.get((workload, op))
                if not values:
                    cells.append("–")
                    continue
                best = min(values)
                cell = fmt_us(best)
                if not r.clean[workload, op][values.index(best)]:
                    cell = "~" + cell
                    busy[0] = True
                if ref and r is not base:
                    cell += f" (×{fmt_ratio(best / min(ref))})"
                cells.append(cell)
            out.append(f"| {op} | " + " | ".join(cells) + " |")
    mem_header = ["| workload | " + " | ".join(r.c.label for r in runs) + " |",
                  "|---|" + "---:|" * len(runs)]

    def mem_row(workload: str, render: Any) -> str:
        cells = []
        for r in runs:
            m = r.memory.get(workload)
            try:
                cells.append("unavailable" if r.unavailable else "–" if not m else render(m))
            except KeyError:
                cells.append("–")
        return f"| {workload} | " + " | ".join(cells) + " |"

    out.append("\n**Memory per decoded message**: RSS growth over N decoded messages kept alive, "
               "divided by N (sees every allocator, upb's arenas included). Each parse is given its own "
               "copy of the input, which the caller drops after the parse: what the message keeps of its "
               "input counts\n")
    out += mem_header
    out += [mem_row(w, lambda m: fmt_bytes(m["rss"])) for w in WORKLOADS]
    out.append("\n**Memory per decoded message after every field is read** (as above, each message "
               "read as parse+read reads it; in parentheses, pyopaque's parse(data, lazy=False), read "
               "the same way)\n")
    out += mem_header
    out += [mem_row(w, lambda m: fmt_bytes(m["rss_read"]) + (f" ({fmt_bytes(m['rss_eager_read'])})"
                                                              if "rss_eager_read" in m else ""))
            for w in WORKLOADS]
    out.append("\n**Python-heap allocations per decode** (tracemalloc, live blocks and bytes retained by "
               "one decoded message, its input copied as above; blind to C/Rust allocations such as upb's "
               "arenas, so only meaningful for the pure-Python contenders; – = not measured in this mode)\n")
    out += mem_header
    out += [mem_row(w, lambda m: f"{m['blocks']:,.0f} blk / {fmt_bytes(max(m['heap'], 0))}") for w in WORKLOADS]
    notes = []
    if busy[0]:
        notes.append("- ~: the machine was busy; some timing loops behind this figure were preempted "
                     "(wall time > 1.03 × the thread's CPU time) and were kept, counted by their CPU "
                     "time, for lack of clean ones")
    for r in runs:
        if r.unavailable:
            notes.append(f"- {r.c.label}: unavailable: {r.unavailable}")
            continue
        for workload, ops in r.info["status"].items():
            for op, status in ops.items():
                if status and status != "n/a":
                    notes.append(f"- {r.c.label}, {workload} {op}: {status}")
        notes += [f"- {r.c.label}: {p}" for p in r.problems]
    if any(not r.unavailable and not r.c.parse_only for r in runs):
        verbatim = [f"{r.c.label} on {', '.join(w for w, same in r.info['verbatim'].items() if same)}"
                    for r in runs if not r.unavailable and any(r.info.get("verbatim", {}).values())]
        notes.append("- reserialize: serialize() called again and again on one message parsed from the "
                     "workload and never read (serialize changes no message, so every call does the work of "
                     "the first; serialize's row is of a message whose every field was read). "
                     + (f"It returned the parsed input itself (kept by the parse, written back as it is): "
                        f"{'; '.join(verbatim)}; elsewhere the message is encoded at each call" if verbatim
                        else "Every contender encodes the message at each call"))
    na = [r.c.label for r in runs if not r.unavailable and not r.c.parse_only
          and any(ops[op] == "n/a" for ops in r.info["status"].values() for op in ("to_json", "from_json"))]
    if na:
        notes.append(f"- n/a: no to_json/from_json in {', '.join(na)} yet (the rows light up once it exists)")
    if any(r.c.parse_only and not r.unavailable for r in runs):
        notes.append("- object floor, compiled: bench/floor.py, compiled with mypyc, makes the objects that "
                     "pyopaque's compiled opaque classes hold after a parse (native classes with the same "
                     "fields; a str per string from a slice of bytes, a list per repeated field, a dict per "
                     "map, an int object per integer above 256 in a list) from values decoded beforehand: "
                     "what a parse into Python objects costs before any decoding; parse only")
    if notes:
        out.append("\nNotes:\n")
        out += notes
    return "\n".join(out) + "\n"


def relative_times(runs: list[Running]) -> dict[str, dict[str, float]]:
    """"workload operation" -> contender -> best median ÷ upb's, for the chart (what has a time)."""
    base = next((r for r in runs if r.c.name == BASELINE and not r.unavailable), None)
    groups: dict[str, dict[str, float]] = {}
    for workload in WORKLOADS:
        for op in OPS:
            ref = base.medians.get((workload, op)) if base else None
            row = groups.setdefault(f"{workload} {op}", {})
            for r in runs:
                values = None if r.unavailable or r.info["status"][workload][op] else r.medians.get((workload, op))
                if ref and values and r is not base:
                    row[r.c.label] = min(values) / min(ref)
    return groups


PAST_UPB = "ours-opaque-native"  # the build the "Past upb" targets are for


def targets(runs: list[Running]) -> str:
    """The performance issues' targets, judged on this run's figures (absent contenders are skipped):
    "Past upb" (the compiled opaque build against upb), then the earlier ones still in force."""
    by = {r.c.name: r for r in runs if not r.unavailable}

    def t(name: str, workload: str, op: str) -> float | None:
        r = by.get(name)
        values = r.medians.get((workload, op)) if r else None
        return min(values) if values else None

    def mem(name: str, workload: str, key: str) -> float | None:
        r = by.get(name)
        m = r.memory.get(workload) if r else None
        return m.get(key) if m else None

    def line(what: str, pairs: list[tuple[str, float | None, float | None]], ok: Any, fmt: str,
             times: bool = False, unit: Any = fmt_us) -> str:
        """``times``: each ratio followed by the two figures it divides (``unit`` formats them)."""
        cells, met = [], True
        for workload, a, b in pairs:
            if a is None or b is None:
                continue
            cells.append(f"{workload} {format(a / b, fmt)}" + (f" ({unit(a)} vs {unit(b)})" if times else ""))
            met = met and ok(a / b)
        if not cells:
            return ""
        return f"- {what}: {', '.join(cells)} — {'**met**' if met else '**not met**'}"

    def floor_line(style: str) -> str:
        cells = []
        for workload in WORKLOADS:
            floor, upb, ours = t("floor", workload, "parse"), t("upb", workload, "parse"), t(style, workload, "parse")
            if floor and upb and ours:
                cells.append(f"{workload} {floor / upb:.2f} ({ours / floor:.2f})")
        return ("  - object floor (see the notes; the decoded objects made without decoding), its time × upb's "
                "full parse, and in parentheses this build's parse × the floor: " + ", ".join(cells)
                if cells else "")

    def in_us(ns: float) -> str:
        return fmt_us(ns) + " µs"

    def pairs_of(style: str, op: str, ref: str) -> list[tuple[str, float | None, float | None]]:
        return [(w, t(style, w, op), t(ref, w, op)) for w in WORKLOADS]

    ours = BY_NAME[PAST_UPB].label
    past_upb = [
        line(f"{ours}: full parse ≤ 1× upb's time (× upb's; ours vs upb's)", pairs_of(PAST_UPB, "parse", "upb"),
             lambda x: x <= 1.0, ".2f", times=True, unit=in_us),
        line(f"{ours}: stretch: full parse ≤ 0.5× upb's time (× upb's)", pairs_of(PAST_UPB, "parse", "upb"),
             lambda x: x <= 0.5, ".2f"),
        floor_line(PAST_UPB),
        line(f"{ours}: parse + read every field ≤ 0.7× upb's time (× upb's; ours vs upb's)",
             pairs_of(PAST_UPB, "parse+read", "upb"), lambda x: x <= 0.7, ".2f", times=True, unit=in_us),
        line(f"{ours}: serialize of an untouched parsed message (reserialize) ≤ 0.25× upb's time (× upb's; "
             "ours vs upb's)", pairs_of(PAST_UPB, "reserialize", "upb"), lambda x: x <= 0.25, ".2f", times=True,
             unit=in_us),
        line(f"{ours}: memory per parsed message, the input it keeps alive included, ≤ 0.5× upb's (RSS growth, "
             "× upb's; ours vs upb's)", [(w, mem(PAST_UPB, w, "rss"), mem("upb", w, "rss")) for w in WORKLOADS],
             lambda x: x <= 0.5, ".2f", times=True, unit=fmt_bytes),
        line(f"{ours}: memory per parsed message after every field is read no worse than the same build's "
             "parse(lazy=False) read the same way (RSS growth, × lazy=False's, within 5 % for RSS's noise; "
             "ours vs lazy=False's)",
             [(w, mem(PAST_UPB, w, "rss_read"), mem(PAST_UPB, w, "rss_eager_read")) for w in WORKLOADS],
             lambda x: x <= 1.05, ".2f", times=True, unit=fmt_bytes),
    ]
    kept = [line(f"{ours}: {op} at least as fast as protobuf-py native (× its time; ours vs its)",
                 pairs_of(PAST_UPB, op, "protobuf-py"), lambda x: x <= 1.0, ".2f", times=True, unit=in_us)
            for op in ("to_json", "from_json")]
    earlier: list[str] = []
    for style in ("ours-open", "ours-hybrid", "ours-opaque"):
        label = BY_NAME[style].label
        for ref, ref_label, into in (("python", "the official pure-Python runtime", kept),
                                     ("protobuf-py-pure", "protobuf-py pure", earlier)):
            for op in ("parse", "serialize"):
                into.append(line(f"{label}: {op} ≥ 3× faster than {ref_label} (× faster)", pairs_of(ref, op, style),
                                 lambda x: x >= 3, ".1f"))
        for op in ("to_json", "from_json"):
            kept.append(line(f"{label}: {op} ≥ 3× faster than json_format on upb (× faster)",
                             pairs_of("upb", op, style), lambda x: x >= 3, ".2f"))
    open_native = BY_NAME["ours-open-native"].label
    earlier += [
        line(f"{open_native}: full parse within 1.5× of upb (× upb's time)", pairs_of("ours-open-native", "parse", "upb"),
             lambda x: x <= 1.5, ".2f"),
        line(f"{open_native}: parse+read at least as fast as upb (× upb's time)",
             pairs_of("ours-open-native", "parse+read", "upb"), lambda x: x <= 1.0, ".2f"),
    ]
    for style in ("ours-open-native", "ours-opaque-native"):
        label = BY_NAME[style].label
        earlier.append(line(f"{label}: serialize within 2× of upb (× upb's time)", pairs_of(style, "serialize", "upb"),
                            lambda x: x <= 2.0, ".2f"))
        for op in ("parse", "serialize"):
            earlier.append(line(f"{label}: {op} ahead of protobuf-py native (× its time)",
                                pairs_of(style, op, "protobuf-py"), lambda x: x < 1.0, ".2f"))
    earlier += [line(f"{open_native}: {op} at least as fast as protobuf-py native (× its time; ours vs its)",
                     pairs_of("ours-open-native", op, "protobuf-py"), lambda x: x <= 1.0, ".2f", times=True,
                     unit=in_us) for op in ("to_json", "from_json")]
    for suffix, build in (("", "interpreted"), ("-native", "compiled")):
        earlier.append(line(f"{build}: opaque uses no more memory per decoded message than open (tracemalloc "
                            f"bytes, opaque ÷ open)", [(w, mem(f"ours-opaque{suffix}", w, "heap"),
                                                       mem(f"ours-open{suffix}", w, "heap")) for w in WORKLOADS],
                            lambda x: x <= 1.0, ".3f"))
        earlier.append(line(f"{build}: opaque allocates ≥ 40 % fewer blocks than open on the elementary-field "
                            f"workload (opaque ÷ open)", [("scalars", mem(f"ours-opaque{suffix}", "scalars", "blocks"),
                                                           mem(f"ours-open{suffix}", "scalars", "blocks"))],
                            lambda x: x <= 0.6, ".2f"))
    sections = [
        ("Past upb (compiled opaque)", past_upb),
        ("Past upb: kept from earlier (compiled JSON; the interpreted builds against the pure-Python runtime "
         "and json_format; the interpreted [lazy] log pipeline is judged in the Lazy decoding section)", kept),
        ("Earlier targets", earlier),
    ]
    body = "".join(f"\n### {heading}\n\n" + "\n".join(present) + "\n"
                   for heading, lines in sections if (present := [x for x in lines if x]))
    return ("\n## Targets\n\nThe performance issues' targets, judged on the figures above "
            "(a contender missing from the run leaves its lines out).\n" + body) if body else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="one round, short loops: under a minute")
    ap.add_argument("--tiny", action="store_true", help="a few iterations: for the smoke test")
    ap.add_argument("--contenders", default=",".join(c.name for c in CONTENDERS),
                    help="comma-separated, from: " + ", ".join(c.name for c in CONTENDERS))
    ap.add_argument("--output", type=Path, default=None,
                    help="default: bench/RESULTS.md for a full run, build/bench/RESULTS-<mode>.md otherwise")
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    ap.add_argument("--tables-only", action="store_true",
                    help="leave out the plugin-speed and large-schema sections (minutes in full mode)")
    ap.add_argument("--verbose", action="store_true", help="show the workers' stderr")
    args = ap.parse_args()
    mode_name = "tiny" if args.tiny else "quick" if args.quick else "full"
    mode = MODES[mode_name]
    if args.output is None:
        args.output = BENCH / "RESULTS.md" if mode_name == "full" else BUILD / f"RESULTS-{mode_name}.md"
    began = time.monotonic()
    load_before = os.getloadavg()[0]
    names = [n.strip() for n in args.contenders.split(",") if n.strip()]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        ap.error(f"unknown contenders: {', '.join(unknown)}")
    runs = [Running(BY_NAME[n]) for n in names]

    # 1. generate each contender's code (once per generated-code folder)
    gen_failed: dict[str, str] = {}
    needed = {r.c.gen_dir for r in runs} | {"google"}
    for gen_dir in sorted(needed):
        owners = [r for r in runs if r.c.gen_dir == gen_dir] or [Running(BY_NAME[BASELINE])]
        reason = next((m for m in map(missing_requirement, (o.c for o in owners)) if m), None)
        if reason and all(missing_requirement(o.c) for o in owners):
            gen_failed[gen_dir] = reason
            continue
        try:
            generate(gen_dir)
        except Exception as exc:  # noqa: BLE001 - reported in the table
            gen_failed[gen_dir] = f"code generation failed: {exc}"
    for r in runs:
        r.unavailable = missing_requirement(r.c) or gen_failed.get(r.c.gen_dir)
    if "google" in gen_failed:
        log(f"cannot build the payloads without google.protobuf: {gen_failed['google']}")
        return 1
    log(f"[{time.monotonic() - began:5.1f}s] generated code")

    # 2. payloads, built with upb
    messages = payloads.build()
    sizes = {w: (DATA / f"{w}.bin").stat().st_size for w in WORKLOADS}

    # 3. workers (set up side by side: nothing is timed yet), and a check of what each one writes
    for r in runs:
        if not r.unavailable:
            spawn(r, quiet=not args.verbose)
    for r in runs:
        if r.unavailable:
            continue
        await_ready(r)
        if r.unavailable:
            log(f"  {r.c.name}: unavailable: {r.unavailable}")
            continue
        for workload in WORKLOADS if not r.c.parse_only else ():
            wire = (DATA / f"out-{r.c.name}-{workload}.bin").read_bytes()
            jpath = DATA / f"out-{r.c.name}-{workload}.json"
            try:
                r.problems += payloads.check(workload, wire, jpath.read_text() if jpath.exists() else None,
                                             messages)
            except Exception as exc:  # noqa: BLE001 - the check must not stop the run
                r.problems.append(f"{workload}: output check failed: {type(exc).__name__}: {exc}")
    log(f"[{time.monotonic() - began:5.1f}s] workers ready: "
        + ", ".join(f"{r.c.name} {r.info.get('version', '')}" for r in runs if not r.unavailable))

    live = [r for r in runs if not r.unavailable]
    try:
        # 4. memory, while each worker's heap is fresh (side by side: nothing is timed here)
        for r in live:
            r.send({"cmd": "memory", "counts": mode.memory_counts, "traced": list(mode.traced)})
        for r in live:
            reply = r.receive()
            r.memory = reply.get("memory", {})
            if "error" in reply:
                r.problems.append(f"memory measurement failed: {reply['error']}")
        log(f"[{time.monotonic() - began:5.1f}s] measured memory")

        # 5. timing, interleaved: round -> workload -> op -> contender (rotated each round)
        for rnd in range(mode.rounds):
            order = live[rnd % len(live):] + live[:rnd % len(live)] if live else []
            for workload in WORKLOADS:
                for op in OPS:
                    for r in order:
                        if r.info["status"][workload][op]:
                            continue
                        reply = r.ask({"cmd": "measure", "workload": workload, "op": op,
                                       "target_ns": mode.target_ns, "budget_ns": mode.budget_ns,
                                       "repeats": mode.repeats})
                        if "error" in reply:
                            r.info["status"][workload][op] = f"error: {reply['error']}"
                            continue
                        r.medians.setdefault((workload, op), []).append(statistics.median(reply["samples"]))
                        r.clean.setdefault((workload, op), []).append(reply["clean"] >= len(reply["samples"]))
                        r.loops[0] += reply["clean"]
                        r.loops[1] += reply["discarded"]
            log(f"[{time.monotonic() - began:5.1f}s] round {rnd + 1}/{mode.rounds} done")
    finally:
        for r in live:
            r.stop()

    body = tables(runs, sizes) + targets(runs)
    if mode_name != "tiny" and not args.tables_only:
        from large_schema import section as large_schema
        from plugin_speed import measure as plugin_speed

        body += "\n" + (plugin_speed() if mode_name == "full" else plugin_speed(2, "quick"))
        body += large_schema(mode_name)
    print(body)
    if args.no_write:
        return 0
    info = machine()
    argv = ["make", "bench-quick" if mode_name == "quick" else "bench"] if os.environ.get("BENCH_VIA_MAKE") \
        else [Path(sys.executable).name, "bench/run.py", *sys.argv[1:]]
    versions = "\n".join(f"- {r.c.label}: {r.info['version'] if not r.unavailable else 'unavailable'}"
                         for r in runs)
    text = f"""# Benchmark results

Generated by `bench/run.py` ({mode_name} mode: {mode.rounds} round(s) of {mode.repeats} timing loops of
~{mode.target_ns / 1e6:g} ms (or of single calls, for slower operations) per operation, timed with
`time.perf_counter_ns` with the garbage collector off; the figure is the min over rounds of the median
loop; contenders interleaved within each round).

- command: `{shlex.join(argv)}`
- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}
- machine: `{info['uname']}`
- CPU: {info['cpu']} ({info['cores']} logical cores)
- Python: {info['python']}
- wall time of the run: {time.monotonic() - began:.0f} s; 1-minute load average {load_before:.2f} at the
  start, {os.getloadavg()[0]:.2f} at the end. Other processes on the machine add noise: a timing loop
  whose wall time exceeds the thread's CPU time by 3% was preempted and is run again
  ({sum(r.loops[1] for r in runs)} such loops discarded, {sum(r.loops[0] for r in runs)} kept).

Contenders (each in its own process):

{versions}

Workloads (bench/protos/benchpb): **log** a small log entry with a 3-entry map; **scalars** 40
explicit-presence scalar fields (all set) and 10 repeated sub-messages; **addressbook** the tutorial
address book with 20 people; **batch-1MB** ~1 MB of repeated samples. Operations: `parse` bytes to a
message; `serialize` a decoded message, every field read; `reserialize` a message parsed and never read
(see the notes); `parse+read` parse and then read every field recursively
(attributes for open APIs, `get_x()` for pyopaque hybrid and opaque); `to_json` / `from_json`
(`google.protobuf.json_format` for the Google runtimes; canonical proto3 JSON from upb as input).
Every contender's serialize and to_json output is checked against the input message.
{body}"""
    # bench/lazy.py and bench/adversarial.py own the sections from "Lazy decoding" on (`make bench` runs
    # them next): keep them
    old = args.output.read_text() if args.output.exists() else ""
    at = old.find("\n## Lazy decoding\n")
    if at >= 0:
        text = text.rstrip("\n") + "\n" + old[at:]
    args.output.write_text(text)
    chart = args.output.with_suffix(".svg")
    labels = [r.c.label for r in runs if not r.unavailable and r.c.name != BASELINE]
    chart.write_text(bar_chart(relative_times(runs), labels, baseline="upb",
                               title="Median time per operation relative to upb (log scale; lower is faster)"))
    for path in (args.output, chart):
        log(f"wrote {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
