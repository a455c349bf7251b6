"""Smoke test of the adversarial-input benchmark (bench/adversarial.py): it runs and writes its
section, between the sections it finds, without touching them.

The benchmark is a program, not a test: nothing here looks at the numbers (the growth test,
tests/integration/test_linear_time.py, does).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.adversarial import BINARY

REPO = Path(__file__).resolve().parents[2]

pytest.importorskip("grpc_tools")
pytest.importorskip("google.protobuf")


def test_tiny_run_writes_the_adversarial_section(tmp_path: Path) -> None:
    env = dict(os.environ, PYOPAQUE_BENCH_BUILD=str(tmp_path / "bench"))
    env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\nearlier\n\n## Adversarial inputs\n\nstale\n\n## Later\n\nkept\n")
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "adversarial.py"), "--tiny", "--output", str(results)],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "| shape | size | pyopaque open | pyopaque hybrid | pyopaque opaque |" in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "64 KB" in line]
    assert [row.split("|")[1].strip() for row in rows] == list(BINARY)
    assert "unavailable" not in out and "error" not in out
    written = results.read_text()
    assert written.startswith("# Benchmark results\n\nearlier\n\n## Adversarial inputs\n")
    assert "stale" not in written and written.endswith("## Later\n\nkept\n")
