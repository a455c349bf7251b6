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
    for op in ("parse", "serialize", "parse+read", "to_json", "from_json"):
        assert op in rows, op
    # ours has a time and a ratio against upb; the object floor parses only; nothing is unavailable or broken
    assert "(×" in rows["parse"] and "(×" in rows["serialize"]
    assert rows["parse"].count("(×") == 2 and rows["serialize"].rstrip(" |").endswith("n/a")
    assert "- object floor, compiled: bench/floor.py" in out
    assert "<title>pyopaque opaque, log parse:" in (tmp_path / "RESULTS.svg").read_text()
    assert "unavailable" not in out and "error" not in out.lower()
    assert "serialize() output differs" not in out
    written = (tmp_path / "RESULTS.md").read_text()
    assert "- machine: `" in written and "- CPU: " in written and "| parse |" in written
