"""Smoke test of the lazy decoding benchmark (bench/lazy.py): it runs and writes its section.

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


def test_tiny_run_writes_the_lazy_section(tmp_path: Path) -> None:
    env = dict(os.environ, PYOPAQUE_BENCH_BUILD=str(tmp_path / "bench"))
    env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\nearlier tables\n\n## Lazy decoding\n\nstale\n")
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "lazy.py"), "--tiny", "--output", str(results)],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    for heading in ("**1. Log pipeline**", "**2. Embedding**", "**3. Chain**"):
        assert heading in out
    assert "unavailable" not in out and "error" not in out.lower() and "differs" not in out
    assert "Targets (issue" in out
    written = results.read_text()
    assert written.startswith("# Benchmark results\n\nearlier tables\n")
    assert written.count("## Lazy decoding") == 1 and "stale" not in written
