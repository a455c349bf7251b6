"""``pyopaque migrate``: rewrite code to the accessor API (from open/hybrid attributes) or to
this project's modules and API (from the official runtime's ``*_pb2`` modules).

The core is pure: ``migrate_source(text, path, options, schema)`` returns the new text
and one Site per use found; ``protoc_gen_pyopaque.command`` reads and writes the files.
"""

from .core import FileResult, Options, migrate_source
from .schema import Schema
from .sites import Level, Site, summary

__all__ = ["FileResult", "Options", "migrate_source", "Schema", "Level", "Site", "summary"]
