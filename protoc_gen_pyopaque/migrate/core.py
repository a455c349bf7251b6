"""One file in, one file out: the pure core of ``pyopaque migrate``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from .from_open import OpenRewriter
from .from_pb2 import Pb2Rewriter
from .infer import Inference
from .rewrite import Rewriter
from .schema import Schema
from .sites import Level, Site

__all__ = ["Options", "FileResult", "migrate_source", "SOURCES"]


@dataclass(frozen=True)
class Options:
    """What to migrate from, how far, and whether to leave TODO comments at what is left."""

    source: str = "open"  # "open" or "pb2"
    level: Level = Level.GREEN
    todo: bool = False


@dataclass
class FileResult:
    """The migrated text of one file and what was found in it."""

    path: str
    original: str
    migrated: str
    sites: list[Site] = field(default_factory=list)
    error: str = ""  # the file could not be parsed
    note: str = ""  # why the file was not rewritten at all

    @property
    def changed(self) -> bool:
        """Say whether the migration changed the text."""
        return self.migrated != self.original

    @property
    def pending(self) -> list[Site]:
        """Sites left within the chosen level: refused ones (no level rewrites them)."""
        return [s for s in self.sites if not s.applied and s.level is Level.NONE]


SOURCES: dict[str, type[Rewriter]] = {"open": OpenRewriter, "pb2": Pb2Rewriter}


def migrate_source(text: str, path: str, options: Options, schema: Schema) -> FileResult:
    """Migrate the Python source ``text`` (named ``path`` in reports)."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        return FileResult(path, text, text, error=f"{path}:{exc.raw_line}: cannot parse: {exc.message}")
    wrapper = cst.MetadataWrapper(module)
    kind = SOURCES[options.source]
    rewriter = kind(path, schema, Inference.of(schema, wrapper), options.level, options.todo)
    migrated = rewriter.finish(wrapper.visit(rewriter))
    sites = sorted(rewriter.sites, key=lambda s: (s.line, s.column))
    if kind.whole_file and any(not s.applied for s in sites):
        # nothing is rewritten; the TODO comments (if asked) go where the uses were left
        left = {(s.line, s.column, s.reason) for s in sites if not s.applied}
        keep = kind(path, schema, Inference.of(schema, wrapper), Level.GREEN, options.todo)
        keep.only_todo = left
        migrated = wrapper.visit(keep)
        sites = [replace(s, applied=False) for s in sites]
        note = (f"{path}: not rewritten: {len(left)} uses are left at level {options.level.label} "
                "(a file leaves the official runtime as a whole)")
        return FileResult(path, text, migrated.code, sites, note=note)
    return FileResult(path, text, migrated.code, sites)
