"""The tests of the golden modules and the well-known types (COMPILED_TESTS) against
those modules compiled with mypyc, together with the runtime.

    python -m tests.behavior.compiled [STYLE ...]     (default: DEFAULT_STYLES; `make test` runs these)

A process holds one compiled build, and must import its runtime before anything
imports the interpreted one: each style runs in a pytest process of its own, with
COMPILED_ENV naming the style; tests/conftest.py then puts the build first on
sys.path (selected_build) and the ``mods`` fixture serves that style only. The
builds are kept under build/ until the golden modules, runtime, templates or
plugin change.

A build takes a minute or two on 2 cores (pyopaque-compile -j), so `make test` runs both
compiled styles. Hybrid is left out: its attributes are the open style's and its accessors the opaque
style's, and its protoopaque switch is not available to compiled code (see
protoc_gen_pyopaque/compile.py).
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.golden.golden import EXPECTED
from tools.builds import build_cached, compile_generated, toolchain
from tools.generate import BUILD, REPO, source_digest

COMPILED_STYLES = ("opaque", "open")
DEFAULT_STYLES = ("opaque", "open")
COMPILED_ENV = "PYOPAQUE_TEST_COMPILED"
# the users of the ``mods`` fixture, the tests of the well-known types (compiled in every build)
# and the bounded fuzzing
COMPILED_TESTS = ["tests/behavior", "tests/fuzz"]


def compiled_golden(style: str) -> Path:
    """The folder holding the golden modules of ``style`` compiled with the runtime (built if stale)."""
    source = EXPECTED / style

    def build(folder: Path) -> None:
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__"))
        compile_generated(folder)

    digest = "\n".join([source_digest(source), toolchain()])
    return build_cached(BUILD / "behavior-compiled" / style, digest, build)


@functools.cache
def selected_build() -> tuple[str, Path] | None:
    """The style named by COMPILED_ENV and its build, put first on sys.path; None without COMPILED_ENV.

    tests/conftest.py calls this before any test module imports protoc_gen_pyopaque:
    the build's overlay of that package holds the compiled runtime. A stale build is
    rebuilt first (minutes, and pytest shows no output meanwhile: main() prebuilds).
    """
    style = os.environ.get(COMPILED_ENV)
    if style is None:
        return None
    if style not in COMPILED_STYLES:
        raise pytest.UsageError(f"{COMPILED_ENV}={style}: not one of {', '.join(COMPILED_STYLES)}")
    if "protoc_gen_pyopaque" in sys.modules:
        raise pytest.UsageError(f"{COMPILED_ENV}: protoc_gen_pyopaque was imported before the compiled build "
                                "could be put first on sys.path")
    root = compiled_golden(style)
    sys.path.insert(0, str(root))
    from protoc_gen_pyopaque.compile import is_compiled
    from protoc_gen_pyopaque.runtime import message

    if not is_compiled(message):
        raise pytest.UsageError(f"{COMPILED_ENV}: the runtime imported is not the compiled one: {message.__file__}")
    return style, root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.behavior.compiled", description=__doc__.split("\n\n")[0])
    parser.add_argument("styles", nargs="*", metavar="STYLE", help=f"one of {', '.join(COMPILED_STYLES)}")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.styles) - set(COMPILED_STYLES))
    if unknown:
        parser.error(f"not a compiled style: {', '.join(unknown)}")
    failed = []
    for style in args.styles or DEFAULT_STYLES:
        start = time.monotonic()
        try:
            compiled_golden(style)
        except RuntimeError as exc:
            print(f"compiling the {style} golden modules failed:\n{exc}", file=sys.stderr)
            failed.append(style)
            continue
        print(f"{' '.join(COMPILED_TESTS)}, {style} compiled (build ready after {time.monotonic() - start:.0f} s):", flush=True)
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", *COMPILED_TESTS],
                              env=dict(os.environ, **{COMPILED_ENV: style}), cwd=REPO, check=False)
        if done.returncode != 0:
            failed.append(style)
    if failed:
        print(f"compiled: {', '.join(failed)} failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
