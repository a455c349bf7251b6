"""Smoke test of the gRPC round-trip benchmark (bench/grpc_roundtrip.py): it runs and writes its
section in place of a stale one, keeping the sections around it. Nothing here looks at the numbers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_tiny_run_writes_the_grpc_section(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\nearlier\n\n## gRPC round trips\n\nstale\n\n## Later\n\nkept\n")
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "grpc_roundtrip.py"), "--tiny", "--output", str(results)],
        capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    text = results.read_text()
    assert "stale" not in text and "earlier" in text and "## Later\n\nkept" in text
    assert text.count("## gRPC round trips") == 1
    rows = [line for line in text.splitlines() if line.startswith(("| pyopaque", "| protobuf"))]
    assert len(rows) == 2 and all(line.count("|") == 6 for line in rows)
