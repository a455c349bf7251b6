"""One contender's benchmark process: `python bench/worker.py CONTENDER`.

Speaks JSON lines with bench/run.py (bench/channel.py). Commands: memory (first, while the
heap is fresh), measure, quit. `python bench/worker.py CONTENDER --rss HOW COUNTS` is the new
process in which the memory command measures RSS (rss_in_fresh_process).
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from channel import serve
from contenders import BY_NAME, DATA, OPS, REPO, WORKLOADS, Adapter, Contender, load_adapter, make_reader

PAGE = os.sysconf("SC_PAGE_SIZE")
PREEMPTED = 1.03  # wall/CPU ratio above which a timing loop counts as descheduled


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def trim() -> None:
    """Collect, and hand freed heap back to the OS so that RSS growth counts new memory only."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def fresh_copy(data: bytes) -> bytes:
    """A new bytes object equal to ``data``, as each message received arrives in its own buffer
    (``bytes(data)`` would return ``data`` itself)."""
    return bytes(memoryview(data))


# what decodes one workload: (parse, reader (None for the object floor), parse(lazy=False) (None
# but for ours), the input)
Decoders = tuple[Callable[[bytes], Any], Callable[[Any], None] | None, Callable[[bytes], Any] | None, bytes]


def load_decoders(c: Contender, workload: str, schema: dict[str, Any]) -> tuple[Adapter, Decoders]:
    a = load_adapter(c, workload)
    reader = None if a.serialize is None else make_reader(c, schema["messages"], schema["roots"][workload])
    return a, (a.parse, reader, a.parse_eager, (DATA / f"{workload}.bin").read_bytes())


def decoder(decoders: Decoders, how: str) -> Callable[[], Any] | None:
    """A function that decodes the workload from a fresh copy of its input (which the caller
    drops at once, so that only what the message keeps of it stays alive) and returns the
    message: ``how`` "parse" leaves it untouched, "read" reads every field, "eager read" parses
    with lazy=False and reads every field; None where the contender has no such decode."""
    parse, reader, parse_eager, data = decoders
    if how == "parse":
        return lambda: parse(fresh_copy(data))
    decode = parse if how == "read" else parse_eager
    if reader is None or decode is None:
        return None

    def decode_and_read() -> Any:
        m = decode(fresh_copy(data))
        reader(m)
        return m

    return decode_and_read


RSS_KEYS = {"parse": "rss", "read": "rss_read", "eager read": "rss_eager_read"}


def rss_in_fresh_process(name: str, how: str, counts: dict[str, int]) -> dict[str, float]:
    """rss_per_message of every workload decoded as ``how`` says (see decoder), in a new process
    of this contender: memory that this one freed earlier is not there to be reused."""
    result = subprocess.run([sys.executable, __file__, name, "--rss", how, json.dumps(counts)],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"RSS measurement ({how}) failed: {result.stderr.strip()[-500:]}")
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def rss_main(name: str, how: str, counts: dict[str, int]) -> None:
    """The process of rss_in_fresh_process: every workload's code loaded first, then measured."""
    schema = json.loads((DATA / "schema.json").read_text())
    decoders = {w: (decode, n) for w, n in counts.items()
                if (decode := decoder(load_decoders(BY_NAME[name], w, schema)[1], how))}
    print(json.dumps(rss_per_message(decoders)))


class Worker:
    def __init__(self, name: str) -> None:
        self.c = BY_NAME[name]
        schema = json.loads((DATA / "schema.json").read_text())
        self.cases: dict[tuple[str, str], Callable[[], Any]] = {}
        self.decoders: dict[str, Decoders] = {}
        self.status: dict[str, dict[str, str | None]] = {}
        self.verbatim: dict[str, bool] = {}  # workload -> reserialize returned the parsed input itself
        self.version = ""
        for workload in WORKLOADS:
            self._setup(workload, schema)

    def _setup(self, workload: str, schema: dict[str, Any]) -> None:
        a, decoders = load_decoders(self.c, workload, schema)
        self.decoders[workload] = decoders
        self.version = a.version
        parse, reader, _, data = decoders
        canonical = (DATA / f"{workload}.json").read_text()
        serialize = a.serialize
        msg = parse(data)
        self.cases[workload, "parse"] = lambda: parse(data)
        if serialize is None or reader is None:  # the object floor: parse only
            self.status[workload] = {op: None if op == "parse" else "n/a" for op in OPS}
            return
        status: dict[str, str | None] = dict.fromkeys(OPS)
        reader(msg)
        (DATA / f"out-{self.c.name}-{workload}.bin").write_bytes(serialize(msg))
        self.cases[workload, "serialize"] = lambda: serialize(msg)
        # Timed on one untouched message, again and again: serialize leaves a message as it was
        # (ours writes a kept input back as it is, or encodes; no contender keeps an encoding), so
        # every call does the work of the first; checked below as far as the outputs show it
        untouched = parse(data)
        first = serialize(untouched)
        again = serialize(untouched)
        if again != first or (again is data) != (first is data):
            status["reserialize"] = "error: a second serialize() of a parsed message differs from the first"
        else:
            self.verbatim[workload] = first is data
            self.cases[workload, "reserialize"] = lambda: serialize(untouched)
        self.cases[workload, "parse+read"] = lambda: reader(parse(data))
        json_out = DATA / f"out-{self.c.name}-{workload}.json"
        json_out.unlink(missing_ok=True)
        to_json, from_json = a.to_json, a.from_json
        if to_json is None:
            status["to_json"] = "n/a"
        else:
            try:
                json_out.write_text(to_json(msg))
                self.cases[workload, "to_json"] = lambda: to_json(msg)
            except Exception as exc:  # noqa: BLE001 - a contender's failure is a result
                status["to_json"] = f"error: {type(exc).__name__}: {exc}"[:200]
        if from_json is None:
            status["from_json"] = "n/a"
        else:
            try:
                from_json(canonical)
                self.cases[workload, "from_json"] = lambda: from_json(canonical)
            except Exception as exc:  # noqa: BLE001
                status["from_json"] = f"error: {type(exc).__name__}: {exc}"[:200]
        self.status[workload] = status

    def memory(self, counts: dict[str, int], traced: list[str]) -> dict[str, Any]:
        """Per decoded message, kept alive: RSS growth (what every allocator holds, upb's arenas
        and the input the message keeps included), each in a new process, untouched ("rss"), after
        every field is read ("rss_read") and, for ours, parsed with lazy=False and read
        ("rss_eager_read"); and tracemalloc's live blocks and bytes of an untouched one ("blocks",
        "heap"), here."""
        import tracemalloc

        result: dict[str, Any] = {workload: {} for workload in counts}
        for how, key in RSS_KEYS.items():
            for workload, per_message in rss_in_fresh_process(self.c.name, how, counts).items():
                result[workload][key] = per_message
        tracemalloc.start()
        for workload, n in counts.items():
            if workload not in traced:
                continue
            decode = decoder(self.decoders[workload], "parse")
            k = max(1, min(n // 10, 10))
            batch = [None] * k  # allocated before counting: only the messages are counted
            gc.collect()
            # the size first: the int it returns is a block that stays alive until the end
            size0 = tracemalloc.get_traced_memory()[0]
            snap = tracemalloc.take_snapshot()
            blocks0 = len(snap.traces)
            del snap
            for i in range(k):
                batch[i] = decode()
            gc.collect()
            size1 = tracemalloc.get_traced_memory()[0]
            snap = tracemalloc.take_snapshot()
            blocks1 = len(snap.traces)
            del snap
            result[workload]["blocks"] = (blocks1 - blocks0) / k
            result[workload]["heap"] = (size1 - size0) / k
            del batch
        tracemalloc.stop()
        gc.collect()
        return result

    def measure(self, workload: str, op: str, target_ns: int, budget_ns: int,
                repeats: int) -> dict[str, Any]:
        return measure(self.cases[workload, op], target_ns, budget_ns, repeats)


def rss_per_message(decoders: dict[str, tuple[Callable[[], Any], int]]) -> dict[str, float]:
    """workload -> RSS growth over n messages from its decoder, kept alive, divided by n; every
    workload's messages stay alive until the last is counted (no reuse of memory freed between)."""
    result: dict[str, float] = {}
    keep: list[Any] = []
    for workload, (decode, n) in decoders.items():
        decode()
        trim()
        before = rss()
        batch = [decode() for _ in range(n)]
        gc.collect()
        result[workload] = (rss() - before) / n
        keep.append(batch)
    return result


def measure(fn: Callable[[], Any], target_ns: int, budget_ns: int, repeats: int) -> dict[str, Any]:
    """Per-operation times (ns, perf_counter_ns) of ``repeats`` timing loops of ~target_ns.

    The machine may be shared: a loop whose wall time exceeds the thread's CPU time by
    more than PREEMPTED was descheduled part of the time, and is discarded and run again
    while the budget lasts; if the budget runs out, the least-preempted loops are kept,
    counted by their CPU time (the best estimate of the time they would have taken alone).
    """
    clock, cpu = time.perf_counter_ns, time.thread_time_ns

    def loop(n: int) -> tuple[int, int]:
        c0 = cpu()
        t0 = clock()
        for _ in itertools.repeat(None, n):
            fn()
        t = clock() - t0
        return t, cpu() - c0

    gc.collect()
    gc.disable()
    try:
        spent = 0
        t, c = loop(1)
        n = 1
        if t < target_ns:
            n = max(1, target_ns // max(t, 1))
            # grow n until a loop takes about target_ns (the first call overestimates)
            while True:
                t, c = loop(n)
                spent += t
                if t >= target_ns // 2 or n >= 1 << 24:
                    break
                n = max(n * 2, int(n * target_ns / max(t, 1)))
        clean: list[float] = []
        dirty: list[tuple[float, float]] = []  # (wall/cpu, per-op ns)
        while True:
            if t <= c * PREEMPTED + 50_000:
                clean.append(t / n)
            else:
                # preempted: its thread CPU time is the better estimate of the unhindered time
                dirty.append((t / max(c, 1), c / n))
            if len(clean) >= repeats or (spent >= budget_ns and (clean or dirty)):
                break
            t, c = loop(n)
            spent += t
        dirty.sort()
        samples = clean + [x for _, x in dirty[:max(0, repeats - len(clean))]] if len(clean) < repeats \
            else clean
        return {"samples": samples, "clean": len(clean), "discarded": len(dirty),
                "iterations": n}
    finally:
        gc.enable()


def main() -> None:
    name = sys.argv[1]
    c = BY_NAME[name]
    for mod in c.block_modules:
        sys.modules[mod] = None  # type: ignore[assignment]
    sys.path.insert(1, str(REPO))
    if sys.argv[2:3] == ["--rss"]:
        rss_main(name, sys.argv[3], json.loads(sys.argv[4]))
        return

    def setup() -> tuple[dict[str, Any], Callable[[dict[str, Any]], dict[str, Any]]]:
        worker = Worker(name)

        def handle(cmd: dict[str, Any]) -> dict[str, Any]:
            if cmd["cmd"] == "memory":
                return {"memory": worker.memory(cmd["counts"], cmd["traced"])}
            if cmd["cmd"] == "measure":
                return worker.measure(cmd["workload"], cmd["op"], cmd["target_ns"], cmd["budget_ns"], cmd["repeats"])
            return {"error": f"unknown command {cmd['cmd']}"}

        return {"version": worker.version, "status": worker.status, "verbatim": worker.verbatim, "pid": os.getpid(),
                "python": sys.version.split()[0]}, handle

    serve(setup)

if __name__ == "__main__":
    main()
