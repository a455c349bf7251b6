"""`make demo` runs: every example's story prints what it claims (so that none can rot)."""

from __future__ import annotations

import subprocess
import sys

from tools.generate import REPO


def test_demo_runs_every_example() -> None:
    result = subprocess.run([sys.executable, str(REPO / "examples" / "demo.py")],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "wire bytes identical across styles: True" in out
    # logentry: set-to-empty differs from unset in each style; four cost rows
    assert "unset.backend_server=None  empty.backend_server=''" in out
    assert out.count("unset.has_backend_server()=False  empty.has_backend_server()=True") == 2
    assert out.count("bytes/message") == 4
    # address book: both runtimes read each other's binary and JSON
    assert "official reads binary: Ada Lovelace <ada@example.com>, phone 555-0100" in out
    assert "official reads JSON, same message: True" in out
    assert "ours reads binary: ['Ada Lovelace', 'Grace Hopper'] | has_email() of each: [True, False]" in out
    assert "ours reads JSON, same message: True" in out
    assert "written again unchanged (binary bytes equal, JSON equal): True" in out
    # embedding: the lazy request is the naive one, byte for byte
    assert "both requests byte-identical: True" in out
    # gRPC: a call answered by the in-process server
    assert "SayHello(name='Ada') -> 'Hello, Ada!'" in out
