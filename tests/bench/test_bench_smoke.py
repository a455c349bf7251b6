"""Smoke test of the benchmark harness (bench/run.py): it runs and prints its table.

The benchmark is a program, not a test: nothing here looks at the numbers.
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


def test_tiny_run_prints_the_table(tmp_path: Path) -> None:
    env = dict(os.environ, PYOPAQUE_BENCH_BUILD=str(tmp_path / "bench"))
    env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run.py"), "--tiny", "--contenders", "ours-opaque,upb,floor",
         "--output", str(tmp_path / "RESULTS.md")],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "| operation | pyopaque opaque | google protobuf (upb) | object floor, compiled |" in out
    for workload in ("log", "scalars", "addressbook", "batch-1MB"):
        assert f"**{workload}**" in out
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    for op in ("parse", "serialize", "reserialize", "parse+read", "to_json", "from_json"):
        assert op in rows, op
    # ours has a time and a ratio against upb; the object floor parses only; nothing is unavailable or broken
    assert "(×" in rows["parse"] and "(×" in rows["serialize"]
    assert rows["parse"].count("(×") == 2 and rows["serialize"].rstrip(" |").endswith("n/a")
    assert rows["reserialize"].count("(×") == 1 and rows["reserialize"].rstrip(" |").endswith("n/a")
    assert "- reserialize: serialize() called again and again on one message parsed" in out
    # memory: untouched, and after every field is read (ours parsed with lazy=False too, in parentheses)
    read = out.split("**Memory per decoded message after every field is read**", 1)[1]
    log_read = next(line for line in read.splitlines() if line.startswith("| log |")).split("|")
    assert log_read[2].strip().endswith(")") and log_read[3].strip().endswith("B"), log_read
    assert "### Past upb: kept from earlier" in out
    assert "- pyopaque opaque: to_json ≥ 3× faster than json_format on upb" in out
    assert "- object floor, compiled: bench/floor.py" in out
    assert "<title>pyopaque opaque, log parse:" in (tmp_path / "RESULTS.svg").read_text()
    assert "unavailable" not in out and "error" not in out.lower()
    assert "serialize() output differs" not in out
    written = (tmp_path / "RESULTS.md").read_text()
    assert "- machine: `" in written and "- CPU: " in written and "| parse |" in written


def _judged(upb: dict[str, float], ours: dict[str, float], memory: dict[str, dict[str, float]]) -> dict[str, str]:
    """bench/run.py's targets() on synthetic figures (every workload alike): the "Past upb
    (compiled opaque)" lines, by their PAST_UPB key, each with its verdict."""
    sys.path.insert(0, str(REPO / "bench"))
    import run

    runs = []
    for name, figures in (("upb", upb), ("ours-opaque-native", ours)):
        r = run.Running(run.BY_NAME[name])
        r.medians = {(w, op): [ns, ns * 2] for w in run.WORKLOADS for op, ns in figures.items()}
        r.memory = {w: memory[name] for w in run.WORKLOADS}
        runs.append(r)
    section = run.targets(runs).split("### Past upb (compiled opaque)\n", 1)[1].split("\n### ", 1)[0]
    judged = {}
    for line in section.splitlines():
        if not line.startswith("- "):
            continue
        text = line.removeprefix("- pyopaque opaque, compiled: ")
        keys = [key for key, start in PAST_UPB.items() if text.startswith(start)]
        assert len(keys) == 1 and "log " in text and "batch-1MB " in text, line
        judged[keys[0]] = text.rsplit(" — ", 1)[1]
    assert list(judged) == [key for key in PAST_UPB if key in judged]  # in their order
    return judged


# what each "Past upb" line starts with, in their order
PAST_UPB = {
    "parse": "full parse ≤ 1× upb's time",
    "stretch": "stretch: full parse ≤ 0.5× upb's time",
    "parse+read": "parse + read every field ≤ 0.7× upb's time",
    "reserialize": "serialize of an untouched parsed message (reserialize) ≤ 0.25× upb's time",
    "memory": "memory per parsed message, the input it keeps alive included, ≤ 0.5× upb's",
    "memory read": "memory per parsed message after every field is read no worse than the same build's "
                   "parse(lazy=False)",
}
UPB = {"parse": 1000.0, "parse+read": 1000.0, "reserialize": 1000.0}
UPB_MEMORY = {"rss": 1000.0}


def test_past_upb_targets_met() -> None:
    ours = {"parse": 500.0, "parse+read": 700.0, "reserialize": 250.0}
    memory = {"upb": UPB_MEMORY, "ours-opaque-native": {"rss": 500.0, "rss_read": 1050.0, "rss_eager_read": 1000.0}}
    assert _judged(UPB, ours, memory) == dict.fromkeys(PAST_UPB, "**met**")


def test_past_upb_targets_not_met() -> None:
    # each figure just past its bound; the full parse meets its target but not the stretch
    ours = {"parse": 510.0, "parse+read": 710.0, "reserialize": 260.0}
    memory = {"upb": UPB_MEMORY, "ours-opaque-native": {"rss": 510.0, "rss_read": 1060.0, "rss_eager_read": 1000.0}}
    assert _judged(UPB, ours, memory) == dict(dict.fromkeys(PAST_UPB, "**not met**"), parse="**met**")
    # and a slower parse than upb's misses the target itself; without memory figures, no memory lines
    assert _judged(UPB, dict(ours, parse=1010.0), {"upb": UPB_MEMORY, "ours-opaque-native": {}}) \
        == dict.fromkeys(["parse", "stretch", "parse+read", "reserialize"], "**not met**")
