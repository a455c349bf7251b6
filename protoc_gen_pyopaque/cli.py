"""The only module that touches stdin, stdout, argv and exit codes."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

USAGE = """\
usage: {prog}            (run by protoc: request on stdin, response on stdout)
       {prog} --include  print the folder holding pyopaque/options.proto
       {prog} --version  print the version
       {prog} --help     print this
(pyopaque generate runs protoc with this plugin; see pyopaque generate --help)
PYOPAQUE_PLUGIN_WORKERS=N: large requests are rendered by N worker processes (a shorter
wall time if N cores are idle, about a fifth more CPU time; default 1: none).
"""


def include_dir() -> Path:
    """The folder to pass to protoc with -I so that ``import "pyopaque/options.proto"`` works."""
    return Path(__file__).resolve().parent / "proto"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``protoc-gen-pyopaque`` command (message modules)."""
    return _main(argv, grpc=False)


def main_grpc(argv: list[str] | None = None) -> int:
    """Entry point of the ``protoc-gen-pyopaque-grpc`` command (gRPC modules)."""
    return _main(argv, grpc=True)


def workers() -> int:
    """The worker processes for large requests: PYOPAQUE_PLUGIN_WORKERS (default 1: none); none
    where processes cannot be forked."""
    import os

    count = max(1, int(os.environ.get("PYOPAQUE_PLUGIN_WORKERS", "").strip() or 1))
    if count == 1:  # multiprocessing not imported: that costs every run about 10 ms
        return 1
    import multiprocessing

    return count if "fork" in multiprocessing.get_all_start_methods() else 1


def _main(argv: list[str] | None, *, grpc: bool) -> int:
    prog = "protoc-gen-pyopaque-grpc" if grpc else "protoc-gen-pyopaque"
    args = sys.argv[1:] if argv is None else argv
    if args == ["--include"]:
        print(include_dir())
        return 0
    if args in (["--help"], ["-h"]):
        sys.stdout.write(USAGE.format(prog=prog))
        return 0
    if args == ["--version"]:
        from importlib.metadata import version

        print(version("protoc-gen-pyopaque"))
        return 0
    if args:
        sys.stderr.write(USAGE.format(prog=prog))
        return 2
    from .compiled_plugin import activate

    activate()  # the generator compiled by ``pyopaque compile-plugin``, if built from these sources
    from .plugin.run import run

    # The generator makes millions of short-lived containers (views, template contexts): at the
    # default pace the cyclic collector's passes re-scanned the live ones and took a tenth of a
    # large request's time. Young objects are still collected: after 100,000 allocations, not 700.
    gc.set_threshold(100_000, 20, 10)
    try:
        sys.stdout.buffer.writelines(run(sys.stdin.buffer.read(), grpc=grpc, workers=workers()))
    except Exception as exc:  # undecodable input or a bug: protoc shows stderr
        sys.stderr.write(f"{prog}: {type(exc).__name__}: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
