"""Folders under build/ made once and reused while their inputs are unchanged.

The conformance generations and the mypyc builds the tests run against are made
this way: a mypyc build takes minutes, so it is redone only when its digest changes.
"""

from __future__ import annotations

import fcntl
import importlib.metadata
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tools.generate import REPO

DIGEST_FILE = ".digest"


class StaleBuild(Exception):
    """A folder build_cached may not make is missing or was made from other inputs."""


def build_cached(out: Path, digest: str, build: Callable[[Path], None], *, may_build: bool = True) -> Path:
    """Return ``out``, first made by ``build(folder)`` unless it was made from the same ``digest``;
    with ``may_build=False``, raise StaleBuild instead of building.

    Safe to call from concurrent processes: a lock serialises builds of ``out``, and a
    new build replaces the old folder only once complete (a failed one leaves it as it was).
    """
    stamp = out / DIGEST_FILE
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_name(f".{out.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and stamp.read_text() == digest:
            return out
        if not may_build:
            raise StaleBuild(f"{out} is {'older than its inputs (they changed since it was made)' if stamp.is_file() else 'missing'}")
        tmp = out.with_name(f"{out.name}.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            build(tmp)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        (tmp / DIGEST_FILE).write_text(digest)
        old = out.with_name(f"{out.name}.old{os.getpid()}")
        if out.exists():
            out.rename(old)
        tmp.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    return out


def toolchain() -> str:
    """What a build depends on besides its sources: the interpreter and mypy, whose mypyc compiles."""
    try:
        mypy = importlib.metadata.version("mypy")
    except importlib.metadata.PackageNotFoundError:
        mypy = "none"
    return f"{sys.executable} mypy {mypy}"


def compile_generated(root: Path, *, fastest_code: bool = False, opt_level: str = "3") -> None:
    """Compile the generated modules under ``root`` with mypyc (pyopaque-compile) at C
    optimisation level ``opt_level``; raise RuntimeError(the compiler's complaint) if that fails.

    Test builds compile one C file per module on every core; ``fastest_code`` (benchmarks):
    one C file, on one core. The build runs in a process of its own: the calling process may
    want to import the compiled runtime later, which it cannot once it has imported the
    interpreted one.
    """
    jobs = 1 if fastest_code else os.cpu_count() or 1
    done = subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.compile", str(root), "--jobs", str(jobs),
                           "--opt-level", opt_level],
                          capture_output=True, text=True, check=False, cwd=REPO)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip()[-3000:])
