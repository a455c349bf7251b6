"""The ``pyopaque`` command: a table of subcommands, each a thin layer over a pure core.

    pyopaque generate [-I DIR]... --out OUT [--api-level open|hybrid|opaque] [--opt K=V]... [--grpc] FILES|DIRS...
    pyopaque migrate [--from open|pb2] [--level green|yellow|red] [--check|--diff|--write] PATHS...
    pyopaque compile DIR          (the same as pyopaque-compile)
    pyopaque compile-plugin [--check]   (the plugin's generator compiled: faster protoc runs)
    pyopaque include              (the folder holding pyopaque/options.proto)

A subcommand is a ``Subcommand``: its help, a function adding its arguments to an
argparse parser, and a function running it on the parsed arguments (an exit code).
Adding one is adding an entry to SUBCOMMANDS.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .compile import is_generated

__all__ = ["main", "Subcommand", "SUBCOMMANDS"]


@dataclass(frozen=True)
class Subcommand:
    """One ``pyopaque NAME``: ``configure`` adds its arguments, ``run`` returns the exit code.

    ``forward=True`` hands its arguments, unparsed, to ``run`` (as ``args.argv``): for
    subcommands that are whole programs with their own parser (``--help`` included).
    """

    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    forward: bool = False


# -- include --------------------------------------------------------------------------

def _run_include(args: argparse.Namespace) -> int:
    from .cli import include_dir

    print(include_dir())
    return 0


# -- generate -------------------------------------------------------------------------

def _configure_generate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sources", nargs="+", type=Path, metavar="FILE|DIR",
                        help=".proto files, or folders searched for *.proto")
    parser.add_argument("-I", "--proto_path", dest="includes", action="append", type=Path, default=[],
                        metavar="DIR", help="an import root (repeatable; default: the folders named, and . "
                                            "for files named); the well-known types' and "
                                            "pyopaque/options.proto's folders are always added")
    parser.add_argument("--out", type=Path, required=True, help="the folder to write modules into")
    parser.add_argument("--api-level", choices=("open", "hybrid", "opaque"),
                        help="the style of files that choose none (default: the edition's)")
    parser.add_argument("--opt", action="append", default=[], metavar="K=V",
                        help="a plugin option, e.g. lazy_all=true (repeatable)")
    parser.add_argument("--grpc", action="store_true", help="also write gRPC modules (protoc-gen-pyopaque-grpc)")
    parser.add_argument("--grpc-opt", action="append", default=[], metavar="K=V",
                        help="an option of the gRPC plugin only, e.g. io=async (repeatable)")


def _run_generate(args: argparse.Namespace) -> int:
    from .generate import Request, SchemaError, UsageError, generate

    request = Request(sources=args.sources, out=args.out, includes=args.includes, api_level=args.api_level,
                      options=args.opt, grpc=args.grpc, grpc_options=args.grpc_opt)
    try:
        summary = generate(request, progress=sys.stderr)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    except SchemaError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(summary.line(args.out), file=sys.stderr)
    return 0


# -- compile --------------------------------------------------------------------------

def _run_compile(args: argparse.Namespace) -> int:
    from . import compile as compile_command

    return compile_command.main(args.argv)


# -- compile-plugin -------------------------------------------------------------------

def _configure_compile_plugin(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true",
                        help="print the compiled build of the installed sources and exit 0, or exit 1 if none")
    parser.add_argument("--clean", action="store_true",
                        help="remove every compiled build from the cache folder (those of other versions "
                             "and interpreters too) and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the compiler's output")


def _run_compile_plugin(args: argparse.Namespace) -> int:
    from .compile import CompileError
    from .compiled_plugin import build, compiled_folder, remove_builds

    if args.clean:
        for folder in remove_builds():
            print(f"pyopaque compile-plugin: removed {folder}")
        return 0
    if args.check:
        found = compiled_folder()
        print(found or "pyopaque compile-plugin: no compiled build of the installed sources",
              file=sys.stdout if found else sys.stderr)
        return 0 if found else 1
    try:
        folder = build(verbose=args.verbose)
    except CompileError as exc:
        print(f"pyopaque compile-plugin: {exc}", file=sys.stderr)
        return 1
    print(f"pyopaque compile-plugin: the plugin's generator compiled in {folder}")
    return 0


# -- migrate --------------------------------------------------------------------------



def _configure_migrate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                        help="Python files, or folders searched for *.py")
    parser.add_argument("--from", dest="source", choices=("open", "pb2"), default="open",
                        help="open: open/hybrid attributes → accessors (default); "
                             "pb2: the official runtime's *_pb2 modules → ours")
    parser.add_argument("--level", choices=("green", "yellow", "red"), default="green",
                        help="apply rewrites up to this level: green preserves behaviour (default), "
                             "yellow needs a reviewer, red may change behaviour")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="exit 1 while anything is left to migrate at the level; change nothing")
    mode.add_argument("--diff", action="store_true", help="print a unified diff; change nothing")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    parser.add_argument("--todo", action="store_true",
                        help="add '# TODO(pyopaque-migrate): reason' above what is left")
    parser.add_argument("--stats", type=Path, metavar="FILE", help="write one JSON line per site to FILE")
    parser.add_argument("--path", action="append", type=Path, default=[], metavar="DIR",
                        help="a folder to import generated modules from (repeatable; the current "
                             "folder and PYTHONPATH are searched too)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no report of what is left")


def _python_files(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
        else:
            yield path


def _run_migrate(args: argparse.Namespace) -> int:
    from .migrate import Level, Options, Schema, migrate_source, summary

    for folder in reversed([Path.cwd(), *args.path]):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    options = Options(source=args.source, level=Level[args.level.upper()], todo=args.todo)
    schema = Schema(pb2=args.source == "pb2")
    sites, failed, pending = [], False, False
    notes: list[str] = []
    for path in _python_files(args.paths):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            failed = True
            continue
        if is_generated(text):
            continue
        result = migrate_source(text, str(path), options, schema)
        if result.error:
            print(result.error, file=sys.stderr)
            failed = True
            continue
        sites += result.sites
        if result.note:
            notes.append(result.note)
        pending = pending or result.changed or bool(result.pending)
        if args.diff and result.changed:
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(keepends=True), result.migrated.splitlines(keepends=True),
                str(path), str(path)))
        if args.write and result.changed:
            path.write_text(result.migrated, encoding="utf-8")
    if args.stats:
        args.stats.write_text("".join(site.stats_line() + "\n" for site in sites), encoding="utf-8")
    out = sys.stderr if args.diff else sys.stdout
    if not args.quiet:
        for site in sites:
            if not site.applied:
                print(site.report_line(), file=out)
    for note in notes:
        print(note, file=out)
    for module in sorted(schema.missing_modules):
        print(f"pyopaque migrate: cannot import {module} (see --path): its uses were not migrated",
              file=sys.stderr)
        failed = True
    print(summary(sites, options.level), file=out)
    if failed:
        return 2
    return 1 if args.check and pending else 0


SUBCOMMANDS: dict[str, Subcommand] = {
    "generate": Subcommand("run protoc (from grpcio-tools) with this plugin on .proto files and folders",
                           _configure_generate, _run_generate),
    "migrate": Subcommand("rewrite code to the accessor API or from the official runtime",
                          _configure_migrate, _run_migrate),
    "compile": Subcommand("compile generated modules with the runtime using mypyc (see compile --help)",
                          lambda parser: None, _run_compile, forward=True),
    "compile-plugin": Subcommand("compile the plugin's generator with mypyc into the user's cache folder "
                                 "(protoc runs of this installation then use it)",
                                 _configure_compile_plugin, _run_compile_plugin),
    "include": Subcommand("print the folder holding pyopaque/options.proto (for protoc -I)",
                          lambda parser: None, _run_include),
}


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``pyopaque`` and its subcommands."""
    top = argparse.ArgumentParser(prog="pyopaque", description="Tools for protoc-gen-pyopaque's messages.")
    subs = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, sub in SUBCOMMANDS.items():
        sub.configure(subs.add_parser(name, help=sub.help, description=sub.help, add_help=not sub.forward))
    return top


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pyopaque`` command."""
    top = parser()
    args, rest = top.parse_known_args(sys.argv[1:] if argv is None else argv)
    sub = SUBCOMMANDS[args.command]
    if sub.forward:
        args.argv = rest
    elif rest:
        top.error(f"unrecognized arguments: {' '.join(rest)}")
    return sub.run(args)


if __name__ == "__main__":
    sys.exit(main())
