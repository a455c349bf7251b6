"""Fuzz parse, from_json and from_text in every style (``make fuzz``).

    python -m tests.fuzz [--seconds N] [--style STYLE ...] [--engine atheris|hypothesis]
    python -m tests.fuzz --make-corpus      # rewrite the seed corpus tests/fuzz/corpus

Each style runs in a process of its own (styles share module names; the compiled build must
come first on sys.path), for an equal share of the time. The engine is atheris (coverage-guided
libFuzzer) when it imports, else Hypothesis drawing mutated seeds. Inputs that fail are written
to build/fuzz/crash-STYLE-*; copy each to tests/fuzz/crashes/ with a regression test for its fix.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.fuzz.targets import CORPUS, COMPILED_STYLE, INTERPRETED_STYLES, corpus, loaded

OUT = Path(__file__).resolve().parents[2] / "build" / "fuzz"


def engine_available() -> str:
    try:
        import atheris  # noqa: F401
    except ImportError:
        return "hypothesis"
    return "atheris"


def run_atheris(style: str, seconds: int) -> int:
    import atheris

    with atheris.instrument_imports(include=["protoc_gen_pyopaque", "golden"]):
        context = loaded(style)
        target = context.__enter__()
    work = OUT / f"corpus-{style}"  # libFuzzer adds what it finds here, not to the seeds
    work.mkdir(parents=True, exist_ok=True)
    atheris.Setup([sys.argv[0], str(work), str(CORPUS), f"-max_total_time={seconds}", "-max_len=4096",
                   "-timeout=20", "-rss_limit_mb=3072", f"-artifact_prefix={OUT}/crash-{style}-",
                   "-print_final_stats=1"], target.run)
    atheris.Fuzz()  # exits the process
    return 0


def run_hypothesis(style: str, seconds: int) -> int:
    from hypothesis import HealthCheck, given, settings

    from tests.fuzz.strategies import fuzz_inputs

    deadline = time.monotonic() + seconds
    examples = 0
    with loaded(style) as target:
        @settings(max_examples=500, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(fuzz_inputs(corpus()))
        def fuzz(data: bytes) -> None:
            try:
                target.run(data)
            except BaseException:
                path = OUT / f"crash-{style}-{hashlib.sha1(data).hexdigest()}"
                path.write_bytes(data)
                print(f"crash input written to {path}", file=sys.stderr)
                raise

        while time.monotonic() < deadline:
            fuzz()
            examples += 500
    print(f"{style}: {examples} inputs, no failure")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=600, help="the whole run (default 600)")
    parser.add_argument("--style", action="append", choices=[*INTERPRETED_STYLES, COMPILED_STYLE])
    parser.add_argument("--engine", choices=["atheris", "hypothesis"], default=engine_available())
    parser.add_argument("--make-corpus", action="store_true")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.make_corpus:
        from tests.fuzz.seeds import write_corpus

        write_corpus()
        return 0
    if args.worker:
        run = run_atheris if args.engine == "atheris" else run_hypothesis
        return run(args.worker, args.seconds)
    styles = args.style or [*INTERPRETED_STYLES, COMPILED_STYLE]
    share = max(10, args.seconds // len(styles))
    failed = []
    for style in styles:
        env = dict(os.environ)
        if style == COMPILED_STYLE:
            env["PYOPAQUE_TEST_COMPILED"] = "opaque"
        print(f"== {style}: {args.engine}, {share} s", flush=True)
        done = subprocess.run([sys.executable, "-m", "tests.fuzz", "--worker", style, "--seconds", str(share),
                               "--engine", args.engine], env=env, check=False)
        if done.returncode != 0:
            failed.append(style)
    crashes = sorted(p.name for p in OUT.glob("crash-*"))
    if crashes:
        print(f"inputs that failed, under {OUT}: {', '.join(crashes)}")
    if failed:
        print(f"fuzzing failed in: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
