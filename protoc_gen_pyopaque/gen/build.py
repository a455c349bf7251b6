"""Builds the view models of one generated module from the resolved model and its name table."""

from __future__ import annotations

import re
from json.encoder import encode_basestring
from dataclasses import dataclass, replace
from functools import lru_cache
from collections.abc import Callable
from typing import Final

from ..plugin import names
from ..plugin.schema import OPAQUE, OPEN, STYLE_NAMES, Enum, Extension, Field, File, Message, Schema, has_scan
from ..runtime import reflect as k
from ..runtime._codec import WIRE_OF_KIND
from ..runtime._wire import WIRE_END_GROUP, WIRE_LEN
from . import pyexpr
from .pyexpr import docstring, tag_write
from .views import (
    DispatchChunk, DispatchNode, EnumView, ExtensionView, FieldView, FileView, JsonView, MessageView, KindCodec,
    OneofView,
)

WKT_BASES: Final = {
    f"google.protobuf.{name}": f"_rt.{name}Base"
    for name in ("Any", "Timestamp", "Duration", "Struct", "Value", "ListValue", "FieldMask")
}
# the well-known types of two fields, seconds (1) and nanos (2), both without presence, that
# runtime/wkt.py's _SecondsNanosBase sets at once from JSON
SECONDS_NANOS: Final = frozenset({"google.protobuf.Timestamp", "google.protobuf.Duration"})
# Messages whose ProtoJSON is not an object of their fields: their JSON stays with the
# runtime (the reflective code of Message._pb_json_write/_pb_json_merge, or the faster
# overrides of runtime/wkt.py's bases), as do messages where a JSON key would name two fields
# (legacy_json allows that).
JSON_SPECIAL_FORMS: Final = frozenset(f"google.protobuf.{name}" for name in (
    "Any", "Timestamp", "Duration", "FieldMask", "Struct", "Value", "ListValue", "DoubleValue",
    "FloatValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value", "BoolValue",
    "StringValue", "BytesValue",
))
JSON_NULL_VALUE: Final = "google.protobuf.NullValue"  # prints null; null parses as its value
JSON_VALUE: Final = "google.protobuf.Value"  # null parses as a Value (null_value)
PRESENCE_WORD_BITS: Final = 60  # bits per presence word: small ints stay unboxed under mypyc
# Lines of generated lists end before column 100: __slots__ = (... in a class body, and
# _rt.register_messages(... at the top level
SLOTS_WIDTH: Final = 83
REGISTERED_WIDTH: Final = 78
NAMES_WIDTH: Final = 78  # _t.Literal[... in _rt.Names[... in a class body
DISPATCH_LEAF_SIZE: Final = 8  # tag cases tested linearly before splitting by value
# JSON keys a message's parser compares in turn (more: a dict maps them to field numbers).
# Compiled, a key's comparison with a literal costs ~20 instructions (~40 when equal: memcmp),
# a dict lookup ~250 (the scanner's key is another object than the dict's: memcmp there too)
JSON_KEY_CHAIN_MAX: Final = 12
# the most fields a message's generated _pb_json_scan reads (its bits of the fields read are an
# int64's); a larger message's value is read by json.loads (Message._pb_json_scan)
JSON_SCAN_MAX_FIELDS: Final = 62
# pyright gives up analysing a function whose code flow complexity passes a fixed 768 ("code is too
# complex to analyze", an error in strict mode). A parse method whose dispatch cases would pass
# PARSE_COMPLEXITY_BUDGET by the estimates of _merge_weight, _scan_weight and _json_weight
# (measured on generated code) hands runs of its cases to methods of their own (DispatchChunk).
PARSE_COMPLEXITY_BUDGET: Final = 640
# How the values of each field kind are typed and read and written, in binary and in ProtoJSON
# (templates/_codec.py.j2 branches on the shape, templates/_json.py.j2 on the JSON form).
_SCALAR_CODECS: Final = {
    k.TYPE_INT32: KindCodec("varint", "int", "int", "dec_int32"),
    k.TYPE_ENUM: KindCodec("varint", "int", "enum", "dec_int32"),
    k.TYPE_INT64: KindCodec("varint", "int", "int64", "dec_int64", wide=True),
    k.TYPE_UINT32: KindCodec("varint", "int", "int", "dec_uint32"),
    k.TYPE_UINT64: KindCodec("varint", "int", "int64", "dec_varint", wide=True),
    k.TYPE_BOOL: KindCodec("bool", "bool", "bool", "dec_varint"),
    k.TYPE_SINT32: KindCodec("zigzag", "int", "int", "dec_sint32", zigzag_shift=31),
    k.TYPE_SINT64: KindCodec("zigzag", "int", "int64", "dec_sint64", zigzag_shift=63),
    k.TYPE_FIXED32: KindCodec("fixed", "int", "int", "read_i32_le", "write_fixed32", 4, unsigned_wrap="0x100000000"),
    k.TYPE_SFIXED32: KindCodec("fixed", "int", "int", "read_i32_le", "write_i32_le", 4),
    k.TYPE_FIXED64: KindCodec("fixed", "int", "int64", "read_i64_le", "write_fixed64", 8,
                              unsigned_wrap="0x10000000000000000"),
    k.TYPE_SFIXED64: KindCodec("fixed", "int", "int64", "read_i64_le", "write_i64_le", 8),
    k.TYPE_FLOAT: KindCodec("float", "float", "float", "read_f32_le", "write_f32_le", 4),
    k.TYPE_DOUBLE: KindCodec("float", "float", "double", "read_f64_le", "write_f64_le", 8),
}
CODECS: Final = {
    **{kind: replace(codec, packed_decoder=f"dec_packed_{k.KIND_NAMES[kind]}")
       for kind, codec in _SCALAR_CODECS.items()},
    k.TYPE_STRING: KindCodec("string", "str", "string"), k.TYPE_BYTES: KindCodec("bytes", "bytes", "bytes"),
    # message kinds: their type is their class's
    k.TYPE_MESSAGE: KindCodec("message", "", "message"), k.TYPE_GROUP: KindCodec("group", "", "message"),
}


@dataclass(slots=True)
class FieldTypes:
    """The Python types of one field's accessors."""

    getter: str  # the value as read
    slot: str  # the attribute holding it (open and hybrid: None while an explicit-presence field is unset)
    ctor: str  # the constructor keyword
    ctor_default: str
    setter: str  # the setter's parameter


def field_types(f: Field, value_type: str, entry_types: str, opaque: bool, param_type: str = "",
                slot_type: str = "") -> FieldTypes:
    """Decide the types of field ``f`` whose values are ``value_type`` (maps: ``entry_types``,
    the key's and the value's, as ``K, V``), in the opaque layout or not. ``param_type``: what
    the setter and constructor take, if it says more than ``value_type`` (enums: ``Color | int``,
    to the same effect for a type checker, but an IDE offers the members; maps: ``K, V`` too).
    ``slot_type``: what a singular field's slot holds, if narrower than ``value_type`` (an open
    enum's ``int``: a native int compiled, where ``Color | int`` would be an object)."""
    if f.map is not None:
        param_type = param_type or entry_types
        return FieldTypes(f"dict[{entry_types}]", f"dict[{entry_types}]", f"_t.Mapping[{param_type}] | None",
                          "None", f"_t.Mapping[{param_type}]")
    param_type = param_type or value_type
    if f.repeated:
        return FieldTypes(f"list[{value_type}]", f"list[{value_type}]", f"_t.Iterable[{param_type}]", "()",
                          f"_t.Iterable[{param_type}]")
    optional = f"{value_type} | None"
    if f.message is not None:
        return FieldTypes(optional, optional, optional, "None", optional)
    slot = slot_type or value_type
    if f.presence and not opaque:
        slot += " | None"
    # None given to a constructor means "not set", in every style (the default needs no check)
    return FieldTypes(value_type, slot, f"{param_type} | None", "None", param_type)


class _Refs:
    """Python expressions for types of this and other modules, read from their name tables."""

    def __init__(self, file: File, schema: Schema, table: names.NameTable) -> None:
        self.file = file
        self.schema = schema
        self.table = table
        self._prefixes: dict[str, str] = {}  # by .proto file: asked for every reference to its types
        self._messages: dict[str, str] = {}  # by full name: a message field asks for its type thrice

    def _prefix(self, proto: str) -> str:
        prefix = self._prefixes.get(proto)
        if prefix is None:
            prefix = self._prefixes[proto] = "" if proto == self.file.name else \
                self.table.imports[names.dependency_module(proto, self.file, self.schema)] + "."
        return prefix

    def _table_of(self, proto: str) -> names.NameTable:
        if proto == self.file.name:
            return self.table
        return names.allocate(self.schema.files[proto], self.schema)

    def message(self, full_name: str) -> str:
        ref = self._messages.get(full_name)
        if ref is None:
            proto = self.schema.messages[full_name].file
            ref = self._messages[full_name] = self._prefix(proto) + self._table_of(proto).classes[full_name].qualname
        return ref

    def enum(self, full_name: str) -> str:
        proto = self.schema.enums[full_name].file
        return self._prefix(proto) + self._table_of(proto).classes[full_name].qualname

    def enum_info(self, full_name: str) -> str:
        proto = self.schema.enums[full_name].file
        return self._prefix(proto) + self._table_of(proto).enum_infos[full_name]

    def enum_default(self, full_name: str, number: int) -> str:
        """The constant of this module holding the member ``number`` of closed enum ``full_name``."""
        return self.table.enum_defaults[full_name, number]

    def enum_member(self, full_name: str, number: int) -> str:
        """The member ``number`` of enum ``full_name`` read from its class (this module's: its
        module-level name)."""
        enum = self.schema.enums[full_name]
        table = self._table_of(enum.file)
        member = next(name for name, v in zip(table.enum_members[full_name], enum.values) if v.number == number)
        cls = table.classes[full_name]
        return (cls.py_name if enum.file == self.file.name else self.enum(full_name)) + "." + member

    def enum_class(self, full_name: str) -> str:
        """Enum ``full_name``'s class: this module's by its module-level name (no attribute to
        read at each use), another's by its path."""
        if self.schema.enums[full_name].file == self.file.name:
            return self.table.classes[full_name].py_name
        return self.enum(full_name)


class _Builder:
    def __init__(self, file: File, schema: Schema, is_twin: bool, parse_budget: int) -> None:
        self.file = file
        self.parse_budget = parse_budget
        self.schema = schema
        self.is_twin = is_twin
        self.names = names.allocate(file, schema)
        self.refs = _Refs(file, schema, self.names)
        self.needs_required = schema.needs_required
        # this module's messages as it renders them (a twin is opaque throughout)
        self.own_levels = {m.full_name: m.api_level for m in file.all_messages}
        self.all_messages: list[MessageView] = []
        self.all_enums: list[EnumView] = []

    def is_lazy_capable(self, full_name: str | None) -> bool:
        """Say whether messages of type ``full_name`` may hold parse(lazy=True) bytes: opaque ones
        with no required check, of this run's files or of this module as it renders them (a
        twin imports the twins of hybrid files: opaque too, names.dependency_module)."""
        level = self.own_levels.get(full_name or "")
        if level is None and self.is_twin and full_name is not None:
            file = self.schema.files[self.schema.messages[full_name].file]
            if file.is_hybrid and file.name in self.schema.generated:
                level = OPAQUE
        if level is None:
            return full_name in self.schema.lazy_capable
        return level is OPAQUE and full_name not in self.needs_required

    # -- enums ------------------------------------------------------------------

    def enum(self, enum: Enum) -> EnumView:
        cls = self.names.classes[enum.full_name]
        members = [(name, v.number, docstring(v.comment, indent=4))
                   for name, v in zip(self.names.enum_members[enum.full_name], enum.values)]
        view = EnumView(
            class_name=cls.qualname.rsplit(".", 1)[-1], qualname=cls.qualname, py_name=cls.py_name,
            info_name=self.names.enum_infos[enum.full_name], members=members,
            info_expr=pyexpr.enum_info(enum, cls.py_name),
            comment=docstring(enum.comment, indent=4),
        )
        self.all_enums.append(view)
        return view

    # -- fields -----------------------------------------------------------------

    def value_type(self, f: Field) -> str:
        """The type of the values field ``f`` holds: a closed enum's members, an open enum's ints."""
        if f.message is not None:
            return self.refs.message(f.message)
        if f.closed_enum and f.enum is not None:
            return self.refs.enum(f.enum)
        return CODECS[f.kind].py_type

    def read_type(self, f: Field) -> str:
        """The type of the value singular field ``f``'s getter returns: an open enum's are its
        members or the numbers it does not name (plain ints, whatever the number: see README)."""
        if f.enum is not None and not f.closed_enum:
            return f"{self.refs.enum(f.enum)} | int"
        return self.value_type(f)

    def message_ref(self, full_name: str, value_type: str) -> str:
        """This module's classes by their module-level name: compiled code calls them directly."""
        cls = self.names.classes.get(full_name)
        return cls.py_name if cls is not None else value_type

    def field(self, f: Field, msg: Message, index: int, oneofs: list[OneofView], bit: int | None) -> FieldView:
        """The view of field ``f``, the ``index``-th of ``msg``; ``bit``: its presence bit, if any."""
        opaque = msg.api_level is OPAQUE
        fn = self.names.fields[msg.full_name, f.name]
        attr = fn.attr
        oneof = oneofs[f.oneof] if f.oneof is not None else None
        value_type = self.value_type(f) if f.map is None else ""
        is_message = f.message is not None and f.map is None
        lazy = self.is_lazy(f, msg, self.needs_required)
        entry_types = f"{self.value_type(f.map.key)}, {self.value_type(f.map.value)}" if f.map is not None else ""
        # an enum's parameters (of maps: the values') take its members or plain ints (a closed
        # enum's: the numbers it names, each made its member); to a checker ``int``, but an IDE
        # offers the members. Compiled, ``Level | int`` is an object, as for ``int | bool`` below.
        param_type = ""
        if f.map is not None and f.map.value.enum is not None:
            param_type = f"{self.value_type(f.map.key)}, {self.refs.enum(f.map.value.enum)} | int"
        elif f.enum is not None and f.map is None:
            param_type = f"{self.refs.enum(f.enum)} | int"
        elif f.kind in k.INT_RANGES and f.map is None and not f.repeated:
            # the same type to a checker (a bool is an int), but compiled with mypyc a union
            # parameter stays the object given, so that a setter's check refuses a bool (an
            # int parameter turns it into 0 or 1 before the check; a constructor's test for
            # None would too: it narrows a copy, pyexpr.none_operand)
            param_type = "int | bool"
        # an open enum's values are ints, held as such (a native int compiled); its getter
        # says they are its members or the numbers it does not name
        read_type = self.read_type(f) if f.map is None and not f.repeated else value_type
        types = field_types(f, read_type, entry_types, opaque, param_type, value_type)
        bit_word, bit_mask = "", 0
        if bit is not None:
            bit_word = f"_pb_p{bit // PRESENCE_WORD_BITS}"
            bit_mask = 1 << (bit % PRESENCE_WORD_BITS)
        slot = "" if oneof is not None else fn.slot
        alt_tag = 0
        if f.repeated and f.map is None and WIRE_OF_KIND[f.kind] != WIRE_LEN and f.kind != k.TYPE_GROUP:
            alt_tag = (f.number << 3) | WIRE_LEN
        declaration = pyexpr.declaration(f, self.file.edition)
        doc = f"{f.comment}\n\nField: {declaration}" if f.comment else "Field: " + declaration
        view = self.value_view(f, value_type, types.getter, pyexpr.default_expr(f, self.refs),
                               # this module's classes by their module-level name: compiled code
                               # calls them directly
                               self.message_ref(f.message or "", value_type) if is_message else "")
        # the parts of a field of a message, stored one by one: a call's keywords cost more the
        # later their parameters come (each is looked for from the first)
        view.attr = attr
        view.slot = slot
        view.store = "self." + slot if slot else ""
        view.getter = fn.getter
        view.setter = fn.setter
        view.hazzer = fn.has
        view.clearer = fn.clear
        view.slot_annotation = types.slot
        view.ctor_annotation = types.ctor
        view.ctor_default = types.ctor_default
        view.setter_annotation = types.setter
        view.repeated = f.repeated and f.map is None
        view.is_map = f.map is not None
        view.presence = f.presence
        view.bit_word = bit_word
        view.bit_mask = bit_mask
        view.oneof = oneof
        view.alt_tag = alt_tag
        view.alt_tag_write = tag_write(f.number, WIRE_LEN)
        view.end_tag = (f.number << 3) | WIRE_END_GROUP
        view.end_tag_write = tag_write(f.number, WIRE_END_GROUP)
        view.packed = f.packed
        view.index = index
        view.declaration = declaration
        view.comment = docstring(doc, indent=8)
        # the same literal unless the text has lines to indent
        view.attr_comment = docstring(doc, indent=4) if "\n" in doc else view.comment
        view.required = f.required
        view.lazy = lazy
        view.lazy_slot = fn.lazy_slot if lazy else ""
        view.lazy_verify = not f.lazy_unverified
        view.loader = fn.loader if lazy else ""
        view.needs_required_check = (f.map.value.message if f.map is not None else f.message) in self.needs_required
        if oneof is not None:
            oneof.fields.append(view)
        if f.map is not None:
            view.map_key = self.entry_field(f.map.key)
            view.map_value = self.entry_field(f.map.value)
        view.lazy_elements = (msg.api_level is OPAQUE and f.lazy and view.repeated
                              and view.child_lazy_capable)
        view.info_expr = pyexpr.field_info(f, attr, oneof.name if oneof is not None else "", self.refs,
                                           (lazy or view.lazy_elements) and f.lazy_unverified)
        return view

    def entry_field(self, f: Field) -> FieldView:
        """A view of a map entry's key or value, for the inlined entry codec."""
        value_type = self.value_type(f)
        default_expr = "None" if f.message is not None else pyexpr.default_expr(f, self.refs)
        # this module's classes by their module-level name, as for fields (the checks name them)
        return self.value_view(f, value_type, value_type, default_expr,
                               self.message_ref(f.message, value_type) if f.message is not None else "")

    def value_view(self, f: Field, value_type: str, annotation: str, default_expr: str,
                   message_ref: str) -> FieldView:
        """A view of the parts of a field that its values decide: all a map entry's key or value has."""
        wire = WIRE_OF_KIND[f.kind]
        # by position, in FieldView's order: in a call of that many parameters, each keyword
        # costs ~80 ns to bind (more than the rest of the call)
        return FieldView(
            f, f.name, f.number, CODECS[f.kind], value_type,
            annotation, default_expr, f.message is not None and f.map is None,  # is_message
            (f.number << 3) | wire, tag_write(f.number, wire), f.utf8,  # tag, tag_write, utf8
            f.kind in (k.TYPE_FLOAT, k.TYPE_DOUBLE),  # float_kind
            message_ref, self.refs.enum_info(f.enum) if f.enum is not None else "",  # enum_info_ref
            f.closed_enum, self.refs.enum_class(f.enum) if f.closed_enum and f.enum else "",  # enum_ref
            tuple(sorted({v.number for v in self.schema.enums[f.enum].values}))  # enum_numbers
            if f.closed_enum and f.enum else (),
            self.is_lazy_capable(f.message) and f.kind == k.TYPE_MESSAGE,  # child_lazy_capable
            f.message in self.schema.scannable and f.kind == k.TYPE_MESSAGE,  # child_scans
            json_view(f),
        )

    @staticmethod
    def is_lazy(f: Field, msg: Message, needs_required: frozenset[str]) -> bool:
        """Lazy decoding needs the opaque layout, a singular length-prefixed message field, and
        no required fields below it (their absence must fail the parse, not a later access)."""
        return (msg.api_level is OPAQUE and f.lazy and f.kind == k.TYPE_MESSAGE
                and not f.repeated and f.oneof is None and f.map is None
                and f.message not in needs_required)

    # -- messages ---------------------------------------------------------------

    def message(self, msg: Message) -> MessageView:
        cls = self.names.classes[msg.full_name]
        qual, py = cls.qualname, cls.py_name
        level = msg.api_level
        nested = [self.message(m) for m in msg.messages if not m.map_entry]
        enums = [self.enum(e) for e in msg.enums]
        oneofs = []
        for oneof in msg.oneofs:
            on = self.names.oneofs[msg.full_name, oneof.name]
            oneofs.append(OneofView(name=oneof.name, case_slot=on.case_slot, value_slot=on.value_slot, which=on.which,
                                    has=on.has, clear=on.clear, comment=docstring(oneof.comment)))
        bits = presence_bits(msg)
        fields = [self.field(f, msg, i, oneofs, bits.get(f.name)) for i, f in enumerate(msg.fields)]
        for o in oneofs:
            o.member_names = ", ".join(pyexpr.quoted(f.name) for f in o.fields)
        words = [f"_pb_p{i}" for i in range((len(bits) + PRESENCE_WORD_BITS - 1) // PRESENCE_WORD_BITS)]
        lazy_capable = level is OPAQUE and msg.full_name not in self.needs_required
        scans = has_scan(level) and msg.full_name not in self.needs_required
        spans = (lazy_capable and scans and not oneofs and not msg.extension_ranges
                 and msg.full_name not in WKT_BASES and msg.full_name not in JSON_SPECIAL_FORMS
                 and all(_deferrable(f) for f in fields))
        plain = [f for f in fields if f.oneof is None]
        slots = [f.store.removeprefix("self.") for f in plain] + words
        if spans:
            slots.append("_pb_deferred")
            for f in fields:
                f.deferral = "first" if f.repeated or f.is_map else "span" if f.codec.shape in ("string", "bytes") else ""
        slots += [f.lazy_slot for f in fields if f.lazy]
        for o in oneofs:
            slots += [o.case_slot, o.value_slot]
        extendable = bool(msg.extension_ranges)
        nested_ext = [self.extension(x, py) for x in msg.extensions]
        by_number = sorted(fields, key=lambda f: f.number)
        cases = _dispatch_cases(fields)
        dispatch, merge_chunks = _dispatch(cases, lambda: [_merge_weight(f, mode) for _, f, mode in cases],
                                           self.parse_budget, inline_first=True)
        scan_dispatch, scan_chunks = dispatch, merge_chunks
        if scans:
            scan_dispatch, scan_chunks = _dispatch(cases, lambda: [_scan_weight(f, mode) for _, f, mode in cases],
                                                   self.parse_budget, inline_first=True)
        # by position, in MessageView's order (see value_view)
        view = MessageView(
            qual.rsplit(".", 1)[-1], msg.full_name, qual, py,  # class_name, full_name, qualname, py_name
            STYLE_NAMES[level], level is OPEN, level is OPAQUE,  # style, is_open, is_opaque
            WKT_BASES.get(msg.full_name, "_rt.ExtendableMessage" if extendable else "_rt.Message"),  # base
            slots, pyexpr.wrapped_list([pyexpr.quoted(s) for s in slots], SLOTS_WIDTH)  # slots_literal
            + ("," if len(slots) == 1 else ""),
            fields, by_number, plain, oneofs, words,  # fields_by_number, plain_fields, oneofs, presence_words
            nested, enums, nested_ext,  # messages, enums, nested_extensions
            dispatch, merge_chunks, scan_dispatch, scan_chunks,
            _own_maps(fields, scan_chunks), _encode_order(by_number), extendable,  # scan_map_fields, encode_order
            msg.full_name in self.needs_required,  # checks_required
            lazy_capable, scans, any(f.number >= 16 for f in fields),  # lazy_capable, scans, wide_tags
            [f for f in fields if f.lazy],  # lazy_fields
            pyexpr.message_info(msg, [(f.info_expr, f.declaration) for f in fields],  # info_expr
                                [(o.name, [f.number for f in o.fields]) for o in oneofs],
                                [_layout_entry(f) for f in fields]),
            docstring(msg.comment, indent=4), _names_types(msg),  # comment, names_types
        )
        view.spans = spans
        view.spans_fields = [f for f in fields if f.deferral]
        view.spans_lists = [f for f in view.spans_fields if f.deferral == "first" and not f.is_map]
        view.spans_maps = [f for f in view.spans_fields if f.is_map]
        view.spans_list_messages = any(f.is_message for f in view.spans_lists)
        view.spans_map_messages = any(f.map_value is not None and f.map_value.is_message for f in view.spans_maps)
        for f in view.spans_fields:
            f.cases = [(tag, mode) for tag, g, mode in cases if g is f and f.deferral == "first"]
        keys = _json_key_names(fields)
        view.inline_reflection = msg.full_name in JSON_SPECIAL_FORMS
        view.seconds_nanos = msg.full_name in SECONDS_NANOS
        if msg.full_name not in JSON_SPECIAL_FORMS and keys is not None:
            view.json_fast = True
            view.json_keys = [(repr(key), number) for key, number in keys.items()]
            json_cases = [(f.number, f, "json") for f in by_number]
            view.json_dispatch, view.json_chunks = _dispatch(
                json_cases, lambda: [_json_weight(f) for _, f, _ in json_cases], self.parse_budget,
                inline_first=False)
            view.json_key_chain = not view.json_chunks and len(keys) <= JSON_KEY_CHAIN_MAX
            if not view.json_chunks and len(by_number) <= JSON_SCAN_MAX_FIELDS:
                view.json_scan = _json_scan_cases(by_number, keys)
        for i, o in enumerate(oneofs):
            o.json_seen = f"_seen[{i}]" if view.json_chunks else f"{o.case_slot}_seen"
        self.all_messages.append(view)
        return view

    def extension(self, x: Extension, owner: str) -> ExtensionView:
        attr = self.names.extensions[x.full_name]
        info = pyexpr.field_info(x.field, attr, "", self.refs)
        return ExtensionView(
            attr=attr, owner=owner,
            info_expr=pyexpr.extension_info(x.full_name, info, self.refs.message(x.extendee)),
        )

    def build(self) -> FileView:
        file = self.file
        messages = [self.message(m) for m in file.messages]
        enums = [self.enum(e) for e in file.enums]
        extensions = [self.extension(x, "") for x in file.extensions]
        twin = ""
        if file.is_hybrid and not self.is_twin:
            twin = names.import_path(file.name, twin=True)
        levels = {m.api_level for m in file.all_messages} or {file.api_level}
        return FileView(
            proto=file.name, edition=file.edition,
            style="/".join(sorted(STYLE_NAMES[level] for level in levels)),
            imports=sorted(self.names.imports.items()),
            reexports=[(name, self.names.imports[module]) for name, module in self.names.reexports.items()],
            messages=messages, enums=enums,
            all_messages=self.all_messages, all_enums=self.all_enums, extensions=extensions,
            registered=pyexpr.wrapped_list([m.py_name for m in self.all_messages], REGISTERED_WIDTH),
            twin_module=twin, is_twin=self.is_twin, comment=docstring(file.comment),
            enum_defaults=[(name, self.refs.enum_member(enum, number))
                           for (enum, number), name in self.names.enum_defaults.items()],
            deferred_classes=file.deferred_classes, spans=any(m.spans for m in self.all_messages),
            spans_lists=any(m.spans_lists for m in self.all_messages), spans_maps=any(m.spans_maps for m in self.all_messages),
            uses_enum=bool(self.all_enums),
            extended=bool(extensions) or any(m.nested_extensions for m in self.all_messages), uses_itertools=any(m.json_chunks for m in self.all_messages),
            capital_slots=any(CAPITALS.fullmatch(f.slot) for m in self.all_messages for f in m.fields),
            descriptor=repr((file.name, file.descriptor,
                             tuple((d, names.import_path(d)) for d in file.dependencies))),
        )


# the names pyright's strict mode takes for constants, which it reports assigned twice
CAPITALS: Final = re.compile(r"[A-Z0-9_]+")


def json_view(f: Field) -> JsonView:
    """Decide how the generated JSON code reads and writes ``f``."""
    return _json_view(f.kind, f.name, f.json_name, f.enum == JSON_NULL_VALUE,
                      f.message == JSON_VALUE and f.map is None)


# the JsonScan method that reads a value of a JSON form (integers: by range, see _json_view)
_SCAN_METHODS: Final = {"bool": "boolean", "string": "string", "bytes": "bytes_", "float": "float32",
                        "double": "double", "enum": "enum"}


@lru_cache(maxsize=4096)  # a schema's fields share a few names and kinds: most views are made once
def _json_view(kind: int, name: str, json_name: str, null_enum: bool, value_message: bool) -> JsonView:
    form = "null" if null_enum else CODECS[kind].json
    low = high = digits = 0
    if form == "int":
        low, high = k.INT_RANGES[kind]
    elif form == "int64":
        digits = len(str(k.INT_RANGES[kind][1]))
    if form in ("int", "int64"):
        scan = ("int" if k.INT_RANGES[kind][0] < 0 else "uint") + ("64" if form == "int64" else "32")
    else:
        scan = _SCAN_METHODS.get(form, "")
    return JsonView(
        kind=kind, form=form, scan=scan,
        # json.dumps(name, ensure_ascii=False) without making an encoder for each field
        member=encode_basestring(json_name) + ":", name=repr(json_name), alias=name != json_name,
        null=null_enum or value_message, int_low=low, int_high=high, int_digits=digits,
    )


def presence_bits(msg: Message) -> dict[str, int]:
    """The opaque layout's presence bits, by field name: one per singular scalar field with explicit
    presence outside oneofs (a message field's presence is its value, a oneof's its case)."""
    if msg.api_level is not OPAQUE:
        return {}
    holders = [f.name for f in msg.fields if f.presence and f.message is None and f.oneof is None]
    return {name: bit for bit, name in enumerate(holders)}


def _names_types(msg: Message) -> str:
    """The arguments of ``_rt.Names`` for ``msg``: the names its by-name methods take (has, clear,
    which, get, mutable) and which() returns, as Literal types, one a line, wrapped; at their
    indentation in the class body (the first line's is the template's)."""
    fields: list[str] = []
    with_presence: list[str] = []
    members: list[str] = []
    messages: list[str] = []
    for f in msg.fields:  # one pass: the names as literals, in field order in each list
        name = pyexpr.quoted(f.name)
        fields.append(name)
        if f.oneof is not None:
            members.append(name)
        if not f.repeated and f.map is None:
            if f.presence:
                with_presence.append(name)
            if f.message is not None:
                messages.append(name)
    sets = (
        (fields, "fields"),
        (with_presence, "singular fields with presence"),
        ([pyexpr.quoted(o.name) for o in msg.oneofs], "oneofs"),
        (members, "oneof members"),
        (messages, "singular message fields"),
    )
    lines = []
    for i, (quoted, what) in enumerate(sets):
        comma = "," if i < len(sets) - 1 else ""
        if quoted:
            wrapped = pyexpr.wrapped_list(quoted, NAMES_WIDTH)
            lines.append("_t.Literal[" + wrapped.replace("\n", _NAMES_CONTINUED) + "]"
                         + comma + "  # " + what)
        else:
            lines.append(f"_t.Never{comma}  # {what}: none")
    return _NAMES_INDENT.join(lines)


_NAMES_INDENT: Final = "\n" + " " * 8  # _rt.Names's arguments in the class body
_NAMES_CONTINUED: Final = _NAMES_INDENT + " " * len("_t.Literal[")  # a Literal's wrapped lines


def _layout_entry(f: FieldView) -> str | tuple[str, str] | tuple[str, str, int | str]:
    """Where field ``f`` lives, for runtime/_layout.py: its slot, with the oneof's case slot, its
    presence word and mask, or its lazy bytes' slot and loader."""
    if f.oneof is not None:
        return (f.oneof.value_slot, f.oneof.case_slot)
    if f.bit_word:
        return (f.slot, f.bit_word, f.bit_mask)
    if f.lazy:
        return (f.slot, f.lazy_slot, f.loader)
    return f.slot


def _dispatch_cases(fields: list[FieldView]) -> list[tuple[int, FieldView, str]]:
    cases: list[tuple[int, FieldView, str]] = []
    for f in fields:
        if f.codec.shape == "group":
            cases.append((f.tag, f, "group"))
        elif f.is_map:
            cases.append((f.tag, f, "map"))
        elif f.repeated and f.alt_tag:
            cases.append((f.tag, f, "one"))
            cases.append((f.alt_tag, f, "packed"))
        else:
            cases.append((f.tag, f, "one"))
    cases.sort(key=lambda c: c[0])
    return cases


def _json_key_names(fields: list[FieldView]) -> dict[str, int] | None:
    """The JSON keys the parser accepts, to field numbers: JSON names, then proto names where not
    taken (a JSON name wins over another field's proto name, as in upb and json_format).

    None when two fields share a JSON name (which protoc allows under legacy_json, the
    default of proto2): the reflective code prints and reads those under their proto names.
    """
    keys = {f.model.json_name: f.number for f in fields}
    if len(keys) < len(fields):
        return None
    for f in fields:
        keys.setdefault(f.name, f.number)
    return keys


def _json_scan_generic(f: FieldView) -> bool:
    """Whether _pb_json_scan hands the value of ``f`` to json.loads and _pb_json_merge (JsonScan.other):
    messages of special JSON forms (which have no scan), NullValue (whose null is a value)."""
    value = f.map_value or f
    return value.json.form == "null" or value.model.message in JSON_SPECIAL_FORMS


def _json_scan_cases(by_number: list[FieldView], keys: dict[str, int]) -> list[tuple[str, int, int, bool, FieldView]]:
    """The cases of a message's _pb_json_scan, by field number: the test of the key words
    (runtime/_json_scan.py's JsonScan.key) for the field's keys, its bit among the fields read,
    the bits of its oneof's members (0 outside oneofs), whether json.loads reads its value
    (_json_scan_generic), the field."""
    bits = {f.number: 1 << i for i, f in enumerate(by_number)}
    oneof_bits: dict[str, int] = {}
    for f in by_number:
        if f.oneof:
            oneof_bits[f.oneof.name] = oneof_bits.get(f.oneof.name, 0) | bits[f.number]
    tests: dict[int, list[str]] = {}
    for key, number in keys.items():
        tests.setdefault(number, []).append(_json_key_test(key))
    return [(" or ".join(tests[f.number]), bits[f.number], oneof_bits[f.oneof.name] if f.oneof else 0,
             _json_scan_generic(f), f) for f in by_number]


@lru_cache(maxsize=4096)  # a schema's messages share a few field names: most tests are made once
def _json_key_test(key: str) -> str:
    """The test of _pb_json_scan's key words (runtime/_json_scan.py's JsonScan.key) for ``key``."""
    data = key.encode()
    low = int.from_bytes(data[:7], "little")
    high = int.from_bytes(data[7:14], "little") | min(len(data), 15) << 56
    test = f"_k0 == {low:#x} and _k1 == {high:#x}"
    if len(data) > 14:
        test += f" and _r.key_tail({data[14:]!r})"
    return test


def _encode_order(by_number: list[FieldView]) -> list[FieldView | OneofView]:
    order: list[FieldView | OneofView] = []
    placed: set[str] = set()  # oneof names: a set, as a message may have thousands of oneofs
    for f in by_number:
        if f.oneof is None:
            order.append(f)
        elif f.oneof.name not in placed:
            placed.add(f.oneof.name)
            order.append(f.oneof)
    return order


def _split(cases: list[tuple[int, FieldView, str]]) -> DispatchNode:
    if len(cases) <= DISPATCH_LEAF_SIZE:
        return DispatchNode(cases)
    mid = len(cases) // 2
    # by position (cases, pivot, low, high): a class called with keywords gets them as a dict
    return DispatchNode([], cases[mid][0], _split(cases[:mid]), _split(cases[mid:]))


def _merge_weight(f: FieldView, mode: str) -> float:
    """The estimated pyright complexity of _pb_merge's case for ``f`` read in ``mode``."""
    if mode == "map":
        return 45.0 if f.map_value is not None and f.map_value.is_message else 34.0  # a loop of its own
    if f.lazy or f.lazy_elements:
        return 32.0
    if mode == "packed":
        return 9.0
    if f.message_ref:
        return 14.0 if mode == "group" else 18.0
    return 12.0 if f.closed_enum else 10.0


def _scan_weight(f: FieldView, mode: str) -> float:
    """The estimated pyright complexity of _pb_scan's case for ``f`` read in ``mode`` (the scan
    also checks whether the input is canonical)."""
    if mode == "map":
        return 68.0
    if mode == "group":
        return 8.0
    return 21.0 if f.message_ref or f.closed_enum or f.codec.shape in ("string", "bytes") else 16.0


def _json_weight(f: FieldView) -> float:
    """The estimated pyright complexity of _pb_json_merge's case for ``f``."""
    if f.json.form in ("int64", "enum", "null"):
        return 7.0
    return 6.0 if f.is_map else 4.0


# The largest estimate of _merge_weight, _scan_weight and _json_weight: a message of fewer cases
# than the budget over it is never split
HEAVIEST_CASE_WEIGHT: Final = 68.0


def _dispatch(cases: list[tuple[int, FieldView, str]], weights: Callable[[], list[float]], budget: int, *,
              inline_first: bool) -> tuple[DispatchNode, list[DispatchChunk]]:
    """_chunked's dispatch, the ``weights`` of the cases estimated only for a message with enough
    of them to pass the budget (most have a few)."""
    if len(cases) * HEAVIEST_CASE_WEIGHT <= budget:
        return _split(cases), []
    return _chunked(cases, weights(), budget, inline_first=inline_first)


def _chunked(cases: list[tuple[int, FieldView, str]], weights: list[float], budget: int, *,
             inline_first: bool) -> tuple[DispatchNode, list[DispatchChunk]]:
    """The dispatch over ``cases`` (sorted by value), of estimated complexities ``weights``: one
    tree, or past ``budget``, runs of consecutive cases of about equal weight, each decoded by a
    method of its own (DispatchChunk), and the tree that picks the run. ``inline_first``: the
    tree decodes the first run itself (the lowest numbers, often the most common fields, read
    without a call)."""
    total = sum(weights)
    if total <= budget:
        return _split(cases), []
    count = -(-total // max(budget - max(weights), 1))  # a run may pass its share by one case
    runs: list[list[tuple[int, FieldView, str]]] = [[] for _ in range(int(count))]
    done = 0.0
    for case, weight in zip(cases, weights):
        runs[int(done * count // total)].append(case)
        done += weight
    runs = [run for run in runs if run]
    if len(runs) == 1:  # one case heavier than the budget: nothing to split
        return _split(cases), []
    bounds = [None, *(run[0][0] for run in runs[1:]), None]
    chunks = [DispatchChunk(i if inline_first else i + 1, _split(run), bounds[i], bounds[i + 1], [f for _, f, mode in run if mode == "map"])
              for i, run in enumerate(runs)]
    if not inline_first:
        return _pick_chunk(chunks), chunks
    return DispatchNode([], bounds[1] or 0, chunks[0].tree, _pick_chunk(chunks[1:])), chunks[1:]


def _deferrable(f: FieldView) -> bool:
    """Whether the deferred layout covers field ``f``: a scalar, string or bytes stored by the
    scan, or a repeated field or map decoded on first read, whose decode keeps nothing among the
    unknown fields (a closed enum's unknown value does) and defers nothing itself."""
    if f.lazy or f.lazy_elements or f.closed_enum or f.codec.shape == "group":
        return False
    if f.is_map:
        return f.map_value is not None and not f.map_value.closed_enum
    return f.repeated or f.codec.shape != "message"


def _own_maps(fields: list[FieldView], chunks: list[DispatchChunk]) -> list[FieldView]:
    """The map fields a dispatch decodes itself, not in its ``chunks``' methods."""
    elsewhere = {f.number for c in chunks for f in c.map_fields}
    return [f for f in fields if f.is_map and f.number not in elsewhere]


def _pick_chunk(chunks: list[DispatchChunk]) -> DispatchNode:
    if len(chunks) == 1:
        return DispatchNode(cases=[], chunk=chunks[0].number)
    mid = len(chunks) // 2
    return DispatchNode(cases=[], pivot=chunks[mid].lower or 0, low=_pick_chunk(chunks[:mid]),
                        high=_pick_chunk(chunks[mid:]))


def build_file_view(file: File, schema: Schema, *, is_twin: bool = False, parameter: str = "",
                    parse_budget: int = PARSE_COMPLEXITY_BUDGET) -> FileView:
    """Decide everything about one generated module (the hybrid twin: ``file.as_opaque()``);
    ``parameter``: the plugin parameter, named in the module's header; ``parse_budget``: the
    estimated complexity past which parse methods are split (tests force a split with a small one)."""
    view = _Builder(file, schema, is_twin, parse_budget).build()
    view.parameter = parameter
    return view
