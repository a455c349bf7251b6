"""Allocates every Python name of a generated module up front; escaping lives here.

The rule (also in README): a .proto name is used as is unless
  * it starts with two underscores (Python would mangle it inside a class):
    the leading underscores are reduced to one;
  * it starts with a prefix the generator keeps for its own names
    (RESERVED_PREFIXES: ``_pb_``, ``_f_``, ``_l_``, ``_oc_``...): the leading underscore moves
    to the end (``_pb_x`` -> ``pb_x_``), so no .proto name can ever take the shape
    of a generated one;
  * it is a Python keyword, a builtin the generated code uses, a name of the
    runtime's Message API, or is already taken in the same scope (an earlier
    field's accessor, a nested type): then ``_`` is appended until it is free.
Allocation runs in declaration order, so earlier elements keep their names.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from typing import Final

# Builtins that generated annotations name: annotations resolve in class scope, where
# a slot, property or nested type of the same name would shadow them.
GENERATED_BUILTINS: Final = frozenset({
    "int", "str", "bytes", "float", "bool", "list", "dict", "object", "tuple",
})
# Module-level names of generated code (imports), also visible to annotations.
GENERATED_GLOBALS: Final = frozenset({"_t", "_rt", "_enum", "_sys", "_twin", "annotations"})
# Prefixes of names the generator makes itself (runtime internals, slots, imports, infos).
RESERVED_PREFIXES: Final = ("_pb_", "_f_", "_l_", "_oc_", "_ov_", "_m_", "_e_", "_c_")
# The runtime Message API (methods every generated class has).
MESSAGE_API: Final = frozenset({
    "parse", "serialize", "merge_from_bytes", "is_initialized", "unknown_fields",
    "discard_unknown_fields", "iter_set_fields", "has_extension", "get_extension",
    "set_extension", "clear_extension", "to_dict", "from_dict", "to_json", "from_json",
    "to_text", "from_text", "merge_from_text", "self", "cls",
    "clear", "has", "which", "mutable", "copy_from", "merge_from", "parse_from_bytes", "byte_size",
    "find_initialization_errors",
})
# Names Enum reserves on its members' class.
ENUM_RESERVED: Final = frozenset({"name", "value", "mro"})
# Locals and parameters of generated methods: a module-level class of the same name would be
# shadowed inside them (a message named ``buf`` constructed as ``buf()`` in the decoder).
# tests/unit/test_hostile.py checks that generated code binds no other local names.
GENERATED_LOCALS: Final = frozenset({
    "buf", "bv", "c", "cls", "ctx", "data", "depth", "deterministic", "e", "ee", "end", "end_tag", "exc",
    "field", "fields", "fv", "items", "iv", "k", "key", "keys", "lazy", "m", "max_depth", "n", "number",
    "obj", "other", "out", "p", "partial", "pos", "prefix", "raw", "self", "span", "start", "sv", "t",
    "tag", "v", "value", "w", "x", "y", "z",
})
# ... and numbered locals: a prefix and a field number (m4, kv12, raw3)
NUMBERED_LOCAL: Final = re.compile(r"(?:b|d|k|kv|l|m|mv|p|r|raw|s|v|x|xv)\d+\Z")


def _base(name: str) -> str:
    if name.startswith("__"):
        name = "_" + name.lstrip("_")
    if name.startswith(RESERVED_PREFIXES):
        name = name[1:] + "_"
    return name


def _needs_escape(name: str, reserved: frozenset[str]) -> bool:
    return (keyword.iskeyword(name) or name in GENERATED_BUILTINS or name in GENERATED_GLOBALS
            or name in reserved)


@dataclass
class Scope:
    """One namespace (a module or a class body); hands out names that are free in it."""

    reserved: frozenset[str] = frozenset()
    numbered_locals: bool = False  # also reserve the shapes of NUMBERED_LOCAL
    taken: set[str] = field(default_factory=set)

    def claim(self, wanted: str) -> str:
        """Return ``wanted`` escaped until it is free here, and take it."""
        name = _base(wanted)
        while (_needs_escape(name, self.reserved) or name in self.taken
               or (self.numbered_locals and NUMBERED_LOCAL.match(name))):
            name += "_"
        self.taken.add(name)
        return name

    def claim_generated(self, wanted: str) -> str:
        """Take a name the generator makes (reserved prefix), made unique with ``_``."""
        name = wanted
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    def claim_exact(self, name: str) -> str:
        """Take ``name`` (a generated name that is known to be free)."""
        self.taken.add(name)
        return name


def module_scope() -> Scope:
    """A module namespace: generated methods' local names are reserved there."""
    return Scope(reserved=GENERATED_LOCALS, numbered_locals=True)


def class_scope(module_names: frozenset[str] = frozenset()) -> Scope:
    """A message class body: the runtime API and the module's top-level names are reserved."""
    return Scope(reserved=MESSAGE_API | module_names)


def enum_scope() -> Scope:
    """An enum class body."""
    return Scope(reserved=ENUM_RESERVED)


def enum_member(name: str, scope: Scope) -> str:
    """An enum member name; sunder names (``_x_``) are reserved by Enum."""
    if len(name) > 2 and name.startswith("_") and name.endswith("_"):
        name += "_"
    return scope.claim(name)


def module_for(proto_path: str, suffix: str = "_pb") -> str:
    """``foo/bar.proto`` → ``foo.bar_pb`` (the import path of its generated module).

    Each part of the path becomes a Python identifier, as generated imports need:
    characters other than ASCII letters, digits and ``_`` become ``_``
    (``my-file`` → ``my_file``), a leading digit gets a ``_`` before it
    (``2024`` → ``_2024``) and a keyword gets one after it (``import`` → ``import_``).
    Dots in a file name separate packages, as in protobuf's own Python generator.
    """
    stem = proto_path[:-len(".proto")] if proto_path.endswith(".proto") else proto_path
    parts = stem.replace("/", ".").split(".")
    parts[-1] += suffix
    return ".".join(_module_part(part) for part in parts)


def _module_part(part: str) -> str:
    part = re.sub(r"\W", "_", part, flags=re.ASCII) or "_"
    if part[0].isdigit():
        part = "_" + part
    if keyword.iskeyword(part):
        part += "_"
    return part


def output_path(proto_path: str, suffix: str = "_pb") -> str:
    """``foo/bar.proto`` → ``foo/bar_pb.py``."""
    return module_for(proto_path, suffix).replace(".", "/") + ".py"
