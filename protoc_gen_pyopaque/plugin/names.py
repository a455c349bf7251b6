"""Allocates every Python name of a generated module, once per file: the naming rules live here.

Two namespaces never meet. The generator's own names (runtime internals ``_pb_…``, slots ``_f_…``,
imports ``_m_…``, hoisted classes ``_c_…``, enum tables ``_e_…``, closed enum defaults ``_v_…``, and
every local variable of a generated method: ``_buf``, ``_pos``, ``_m4``…) start with ``_`` and a
letter. A .proto name never does: its leading underscores move to its end (``_x`` → ``x_``,
``__init__`` → ``init____``).
Then a .proto name is used as is unless it is taken in its scope, or reserved there:

  * everywhere, a Python keyword;
  * at module level (top-level messages, enums, extensions): a builtin that generated code names
    (``int``, ``len``, ``property``…), a parameter of the public Message API (``self``, ``cls``,
    ``data``, ``lazy``, ``max_depth``, ``partial``, ``value``), or ``annotations``;
  * in a message class (fields, accessors, oneof accessors, nested types, extensions): a builtin
    that annotations or decorators name (``int``, ``property``…), a method of the Message API
    (``parse``, ``serialize``…, ``self``, ``cls``), or a top-level name of the module (which
    annotations in the class must reach);
  * in an enum class: ``name``, ``value`` and ``mro`` (Enum's own).
A reserved or taken name gets ``_`` appended until it is free. Allocation runs in declaration
order, so earlier elements keep their names: field ``foo`` owns ``get_foo``…, a later field named
``get_foo`` becomes ``get_foo_``. tests/golden/protos/golden/nameclash.proto shows every rule.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from ..runtime._registry import TWIN_SUFFIX, WKT_MODULES
from .schema import OPAQUE, OPEN, ApiLevel, Enum, Extension, Field, File, Message, Schema, Service

# Builtins that generated code names in class scope (annotations, decorators), where a nested
# type or a property of the same name would shadow them ...
CLASS_BUILTINS: Final = frozenset({
    "int", "str", "bytes", "float", "bool", "list", "dict", "object", "tuple", "classmethod", "staticmethod",
    "property",
})
# ... and those its method bodies name, which a module-level class would shadow
# (tests/unit/test_names.py checks that generated modules name no other builtin).
BODY_BUILTINS: Final = frozenset({
    "IndexError", "KeyError", "NotImplemented", "RecursionError", "UnicodeDecodeError", "enumerate", "frozenset",
    "globals", "isinstance", "len", "repr", "sorted", "type",
})
# Parameters of the public Message API: their names are part of it, so they cannot move to the
# generator's namespace (``parse(data, *, lazy, max_depth, partial)``, ``set_x(value)``).
API_PARAMETERS: Final = frozenset({"self", "cls", "data", "lazy", "max_depth", "partial", "value"})
# The runtime Message API (methods every generated class has).
MESSAGE_API: Final = frozenset({
    "parse", "serialize", "merge_from_bytes", "is_initialized", "unknown_fields",
    "discard_unknown_fields", "iter_set_fields", "has_extension", "get_extension",
    "set_extension", "clear_extension", "to_dict", "from_dict", "to_json", "from_json",
    "to_text", "from_text", "merge_from_text", "self", "cls",
    "clear", "has", "which", "get", "mutable", "copy_from", "merge_from", "parse_from_bytes", "byte_size",
    "find_initialization_errors", "DESCRIPTOR",
})
# ``from __future__ import annotations`` binds the name at module level.
MODULE_RESERVED: Final = CLASS_BUILTINS | BODY_BUILTINS | API_PARAMETERS | {"annotations"}
CLASS_RESERVED: Final = CLASS_BUILTINS | MESSAGE_API
# Names Enum reserves on its members' class.
ENUM_RESERVED: Final = frozenset({"name", "value", "mro"})

# The suffix of generated modules: foo.proto -> foo_pb.py (a hybrid file's opaque twin ends in
# TWIN_SUFFIX, which the runtime's registry knows too).
MODULE_SUFFIX: Final = "_pb"
GRPC_SUFFIX: Final = "_grpc"  # the gRPC plugin's module: foo.proto -> foo_grpc.py
# .proto files whose modules ship inside the runtime (the well-known types).
WKT_PACKAGE: Final = "protoc_gen_pyopaque.runtime"
SHIPPED_PROTOS: Final = frozenset(f"google/protobuf/{name}.proto" for name in WKT_MODULES)


def _base(name: str) -> str:
    """Move ``name`` out of the generator's namespace (``_`` and a letter) and out of Python's
    private names (``__x`` is mangled in a class)."""
    if name[:1] != "_":  # most names: as they are
        return name
    stripped = name.lstrip("_")
    if stripped[:1].isalpha():
        return stripped + "_" * (len(name) - len(stripped))
    if name.startswith("__") and not name.endswith("__"):
        return "_" + stripped  # __5 -> _5
    return name


_KEYWORDS: Final = frozenset(keyword.kwlist)


@dataclass
class Scope:
    """One namespace (a module or a class body); hands out names that are free in it."""

    reserved: frozenset[str] = frozenset()
    taken: set[str] = field(default_factory=set)

    def claim(self, wanted: str) -> str:
        """Return the .proto name ``wanted`` escaped until it is free here, and take it."""
        name = wanted if wanted[:1] != "_" else _base(wanted)  # most names: as they are
        while name in self.taken or name in self.reserved or name in _KEYWORDS:
            name += "_"
        self.taken.add(name)
        return name

    def claim_generated(self, wanted: str) -> str:
        """Take a name the generator makes (``_`` and a letter), made unique with ``_``."""
        name = wanted
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name


def module_scope() -> Scope:
    """A module namespace."""
    return Scope(reserved=MODULE_RESERVED)


def class_scope(module_names: frozenset[str] = frozenset()) -> Scope:
    """A message class body: the runtime API and the module's top-level names are reserved."""
    return Scope(reserved=_class_reserved(module_names))


@lru_cache(maxsize=4)
def _class_reserved(module_names: frozenset[str]) -> frozenset[str]:
    # once per module, not once per class: a module may have thousands of top-level names
    return CLASS_RESERVED | module_names


def enum_scope() -> Scope:
    """An enum class body."""
    return Scope(reserved=ENUM_RESERVED)


# -- module paths ------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)  # every file importing a file asks for its module
def module_for(proto_path: str, suffix: str = MODULE_SUFFIX) -> str:
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


def output_path(proto_path: str, twin: bool = False) -> str:
    """``foo/bar.proto`` → ``foo/bar_pb.py`` (the twin: ``foo/bar_protoopaque_pb.py``)."""
    return module_for(proto_path, TWIN_SUFFIX if twin else MODULE_SUFFIX).replace(".", "/") + ".py"


def stub_output_path(proto_path: str, twin: bool = False) -> str:
    """``foo/bar.proto`` → ``foo/bar_pb.pyi``: the API of a module with deferred classes."""
    return output_path(proto_path, twin).removesuffix(".py") + ".pyi"


def grpc_output_path(proto_path: str) -> str:
    """``foo/bar.proto`` → ``foo/bar_grpc.py``."""
    return module_for(proto_path, GRPC_SUFFIX).replace(".", "/") + ".py"


def import_path(proto_path: str, twin: bool = False) -> str:
    """The module generated code imports for ``proto_path``: the well-known types ship in the runtime."""
    module = module_for(proto_path, TWIN_SUFFIX if twin else MODULE_SUFFIX)
    return f"{WKT_PACKAGE}.{module}" if proto_path in SHIPPED_PROTOS else module


def dependency_module(proto: str, file: File, schema: Schema) -> str:
    """The module ``file``'s module imports for the types of ``proto``. An opaque twin imports
    the twins of hybrid files, so that a twin imported by name hands out an opaque tree."""
    twin = schema.files[file.name].is_hybrid and not file.is_hybrid and schema.files[proto].is_hybrid
    return import_path(proto, twin=twin)


# -- the name table of one generated module ----------------------------------------------


@dataclass(slots=True)
class ClassNames:  # slotted, not frozen: made for every class, field or oneof (see schema.py)
    qualname: str  # the path within its module: Outer.Inner
    py_name: str  # the module-level name it is defined under (nested classes are hoisted)


@dataclass(slots=True)
class FieldNames:  # slotted, not frozen: made for every class, field or oneof (see schema.py)
    attr: str  # public attribute (open/hybrid) and constructor keyword
    getter: str
    setter: str  # "" where the style has none (open)
    has: str  # "" without explicit presence, or in open style
    clear: str  # "" in open style
    slot: str  # where the value lives (opaque: a private slot; else the attribute)
    lazy_slot: str  # lazy fields: the undecoded bytes
    loader: str  # lazy fields: the method that decodes them


@dataclass(slots=True)
class OneofNames:  # slotted, not frozen: made for every class, field or oneof (see schema.py)
    which: str
    has: str
    clear: str
    case_slot: str  # the number of the member set (0: none)
    value_slot: str


@dataclass(frozen=True)
class NameTable:
    """Every Python name of one generated module, by the full name of what it names."""

    classes: Mapping[str, ClassNames]  # messages and enums
    enum_infos: Mapping[str, str]  # enum full name -> its module-level EnumInfo
    enum_members: Mapping[str, tuple[str, ...]]  # enum full name -> member names, in order
    # (closed enum full name, number) -> the module-level constant holding that member, for each
    # default of a closed enum field or extension of this module (a member read from its class
    # costs ~150 ns on Python 3.11, a constant ~0)
    enum_defaults: Mapping[tuple[str, int], str]
    fields: Mapping[tuple[str, str], FieldNames]  # (message full name, field name)
    oneofs: Mapping[tuple[str, str], OneofNames]  # (message full name, oneof name)
    extensions: Mapping[str, str]  # extension full name -> attribute (module or class level)
    imports: Mapping[str, str]  # imported module -> its alias
    # ``import public``: module-level name -> the imported module it is re-exported from
    reexports: Mapping[str, str]

    def message_fields(self, msg: Message) -> list[FieldNames]:
        return [self.fields[msg.full_name, f.name] for f in msg.fields]


# The tables of the last schema's files, by the file's id (the file kept: its id stays its own).
# Not weak references: the generator's classes may be compiled (mypyc), and those take none.
_tables: tuple[Schema | None, dict[int, tuple[File, NameTable]]] = (None, {})


def allocate(file: File, schema: Schema) -> NameTable:
    """The name table of ``file``'s module (``file.as_opaque()``: its twin's), allocated once."""
    global _tables
    if _tables[0] is not schema:
        _tables = (schema, {})
    entry = _tables[1].get(id(file))
    if entry is None:
        entry = _tables[1][id(file)] = (file, _Allocator(file, schema).run())
    return entry[1]


class _Allocator:
    def __init__(self, file: File, schema: Schema) -> None:
        self.file = file
        self.schema = schema
        self.module = module_scope()
        self.generated = Scope()  # the generator's module-level names (_c_, _e_, _m_)
        self.classes: dict[str, ClassNames] = {}
        self.enum_infos: dict[str, str] = {}
        self.enum_members: dict[str, tuple[str, ...]] = {}
        self.fields: dict[tuple[str, str], FieldNames] = {}
        self.oneofs: dict[tuple[str, str], OneofNames] = {}
        self.extensions: dict[str, str] = {}

    def run(self) -> NameTable:
        file = self.file
        # Top-level names first: class scopes then reserve them, so that a nested name can
        # never shadow a top-level class that an annotation refers to.
        top_level: list[Message | Enum] = [*file.messages, *file.enums]
        for top in top_level:
            name = self.module.claim(top.name)
            self.classes[top.full_name] = ClassNames(qualname=name, py_name=name)
        top_names = frozenset(self.module.taken)
        for msg in file.messages:
            self.nested_classes(msg, top_names)
        for enum in _all_enums(file):
            path = enum.full_name[len(file.package) + 1:] if file.package else enum.full_name
            self.enum_infos[enum.full_name] = self.generated.claim_generated("_e_" + path.replace(".", "_"))
            scope = enum_scope()
            self.enum_members[enum.full_name] = tuple(scope.claim(v.name) for v in enum.values)
        for msg in file.messages:
            self.members(msg, top_names)
        for x in file.extensions:
            self.extensions[x.full_name] = self.module.claim(x.name)
        return NameTable(
            classes=self.classes, enum_infos=self.enum_infos, enum_members=self.enum_members,
            enum_defaults=self.enum_defaults(),
            fields=self.fields, oneofs=self.oneofs, extensions=self.extensions, imports=self.imports(),
            reexports=self.reexports(),
        )

    def enum_defaults(self) -> dict[tuple[str, int], str]:
        """Constants for the closed enum members this module's fields and extensions default to."""
        fields = [x.field for x in self.file.extensions]
        for msg in self.file.all_messages:
            fields += [x.field for x in msg.extensions]
            fields += [f.map.value if f.map is not None else f for f in msg.fields if not msg.map_entry]
        defaults: dict[tuple[str, int], str] = {}
        for f in fields:
            if f.closed_enum and f.enum is not None and isinstance(f.default, int) \
                    and (f.enum, f.default) not in defaults:
                value = next(v.name for v in self.schema.enums[f.enum].values if v.number == f.default)
                defaults[f.enum, f.default] = self.generated.claim_generated(
                    "_v_" + f.enum.replace(".", "_") + "_" + value)
        return defaults

    def nested_classes(self, msg: Message, top_level: frozenset[str]) -> None:
        """The paths of ``msg``'s nested types, and the module-level names they are defined under
        (mypyc compiles no class statement in a class body)."""
        outer = self.classes[msg.full_name].qualname
        scope = class_scope(top_level)
        nested: list[Message | Enum] = [m for m in msg.messages if not m.map_entry]
        nested += msg.enums
        for inner in nested:
            qual = f"{outer}.{scope.claim(inner.name)}"
            self.classes[inner.full_name] = ClassNames(
                qual, self.generated.claim_generated("_c_" + qual.replace(".", "_")))
        for m in msg.messages:
            if not m.map_entry:
                self.nested_classes(m, top_level)

    def members(self, msg: Message, top_level: frozenset[str]) -> None:
        """The class-level names of ``msg``: nested types, oneof accessors, fields, extensions."""
        for m in msg.messages:
            if not m.map_entry:
                self.members(m, top_level)
        scope = class_scope(top_level)
        for name in [m.full_name for m in msg.messages if not m.map_entry] + [e.full_name for e in msg.enums]:
            scope.taken.add(self.classes[name].qualname.rsplit(".", 1)[-1])
        for o in msg.oneofs:
            self.oneofs[msg.full_name, o.name] = OneofNames(
                which=scope.claim(f"which_{o.name}"), has=scope.claim(f"has_{o.name}"),
                clear=scope.claim(f"clear_{o.name}"), case_slot=f"_oc_{o.name}", value_slot=f"_ov_{o.name}")
        for f in msg.fields:
            self.fields[msg.full_name, f.name] = self.field(f, msg.api_level, scope)
        for x in msg.extensions:
            self.extensions[x.full_name] = scope.claim(x.name)

    @staticmethod
    def field(f: Field, level: ApiLevel, scope: Scope) -> FieldNames:
        attr = scope.claim(f.name)
        getter = scope.claim(f"get_{f.name}")
        setter = has = clear = ""
        if level is not OPEN:
            setter = scope.claim(f"set_{f.name}")
            clear = scope.claim(f"clear_{f.name}")
            if f.presence:
                has = scope.claim(f"has_{f.name}")
        slot = f"_f_{f.name}" if level is OPAQUE else attr
        # by position: keywords cost more to bind, and every field has one
        return FieldNames(attr, getter, setter, has, clear, slot, f"_l_{f.name}", f"_load_{f.name}")

    def imports(self) -> dict[str, str]:
        """An alias for each module whose types the file's fields and extensions name."""
        messages, enums = self.schema.messages, self.schema.enums
        extensions = self.extensions_declared()
        fields = self.referenced_fields(extensions)
        protos = {messages[f.message].file for f in fields if f.message is not None}
        protos |= {messages[x.extendee].file for x in extensions}
        protos |= {enums[f.enum].file for f in fields if f.enum is not None}
        protos |= set(self.file.public_dependencies)
        protos.discard(self.file.name)
        aliases: dict[str, str] = {}
        for module in sorted(dependency_module(proto, self.file, self.schema) for proto in protos):
            aliases[module] = self.generated.claim_generated("_m_" + module.replace(".", "__"))
        return aliases

    def reexports(self) -> dict[str, str]:
        """The module-level names of the files imported with ``import public`` (theirs and, through
        them, their own public imports'), as the official runtime re-exports them; this module's
        own names win."""
        out: dict[str, str] = {}
        for proto in self.file.public_dependencies:
            module = dependency_module(proto, self.file, self.schema)
            theirs = allocate(self.schema.files[proto], self.schema)
            exported = [c.py_name for c in theirs.classes.values() if c.qualname == c.py_name]
            exported += [theirs.extensions[x.full_name] for x in self.schema.files[proto].extensions]
            for name in [*exported, *theirs.reexports]:
                if name not in self.module.taken:
                    out.setdefault(name, module)
        return out

    def extensions_declared(self) -> list[Extension]:
        """The extensions the file declares, at its top level and in its messages."""
        extensions = list(self.file.extensions)
        for msg in self.file.all_messages:
            extensions += msg.extensions
        return extensions

    def referenced_fields(self, extensions: list[Extension]) -> list[Field]:
        """The fields whose types the module names: its messages' (a map's key and value) and
        ``extensions``'."""
        fields: list[Field] = []
        for msg in self.file.all_messages:
            for f in msg.fields:
                if f.map is not None:
                    fields += (f.map.key, f.map.value)
                else:
                    fields.append(f)
        fields += [x.field for x in extensions]
        return fields


def _all_enums(file: File) -> list[Enum]:
    enums = list(file.enums)
    for msg in file.all_messages:
        enums.extend(msg.enums)
    return enums


# -- the names of a gRPC module (foo/bar_grpc.py) -----------------------------------------


@dataclass(frozen=True)
class ServiceNames:
    """A service's module-level names (grpcio-tools' spellings, escaped where taken) and its
    methods' attributes: the same in the stubs and the servicers."""

    name_const: str  # SERVICE_<S>: the full name
    stub: str
    async_stub: str
    servicer: str
    async_servicer: str
    add: str  # add_<S>Servicer_to_server
    async_add: str
    handlers: str  # the generator's function making grpcio's handlers of a servicer
    methods: tuple[str, ...]  # attributes, in declaration order
    paths: tuple[str, ...]  # METHOD_<S>_<M>: the method paths


@dataclass(frozen=True)
class GrpcNameTable:
    services: Mapping[str, ServiceNames]  # service full name -> its names
    imports: Mapping[str, str]  # imported message module -> its alias


def allocate_grpc(file: File, schema: Schema) -> GrpcNameTable:
    """The names of ``file``'s gRPC module. Its own names (``_t``, ``_grpc``, ``_rt``, import
    aliases, handler functions) are the generator's (``_`` and a letter); a service's names are
    made from .proto names and never are. Class bodies name no builtin, so only keywords and
    names taken earlier are escaped."""
    module, generated = Scope(), Scope()
    roles = [(s, {role: module.claim(name) for role, name in _service_roles(s).items()}) for s in file.services]
    services = {}
    for service, named in roles:
        members = Scope()
        services[service.full_name] = ServiceNames(
            **named, handlers=generated.claim_generated(f"_pb_handlers_{_base(service.name)}"),
            methods=tuple(members.claim(m.name) for m in service.methods),
            paths=tuple(module.claim(f"METHOD_{service.name}_{m.name}") for m in service.methods))
    protos = {schema.messages[name].file for s in file.services for m in s.methods for name in (m.input, m.output)}
    imports = {module: generated.claim_generated("_m_" + module.replace(".", "__"))
               for module in sorted(import_path(proto) for proto in protos)}
    return GrpcNameTable(services=services, imports=imports)


def _service_roles(service: Service) -> dict[str, str]:
    s = service.name
    return {
        "name_const": f"SERVICE_{s}", "stub": f"{s}Stub", "async_stub": f"{s}AsyncStub",
        "servicer": f"{s}Servicer", "async_servicer": f"{s}AsyncServicer",
        "add": f"add_{s}Servicer_to_server", "async_add": f"add_{s}AsyncServicer_to_server",
    }
