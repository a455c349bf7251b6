"""The view models of one generated module: every decision about the Python we emit, as data.

gen/build.py makes them; templates only render them: names, annotations, defaults, presence
bits, tags, dispatch trees and the expressions that reference other types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from .._version import __version__ as PLUGIN_VERSION
from ..plugin.schema import Field
from ..runtime import _kept
from ..runtime import reflect as k
from ..runtime._wire import varint_size
from . import pyexpr

# the values a varint of each kind encodes canonically (the validating scan's check)
_VARINT_KINDS: Final = {k.TYPE_BOOL: _kept.VARINT_BOOL, k.TYPE_INT32: _kept.VARINT_INT32,
                        k.TYPE_ENUM: _kept.VARINT_INT32, k.TYPE_UINT32: _kept.VARINT_UINT32,
                        k.TYPE_SINT32: _kept.VARINT_UINT32}

# The runtime surface generated code imports (as _rt): RUNTIME_PACKAGE._gen_v<N>, surface N.
RUNTIME_PACKAGE: Final = "protoc_gen_pyopaque.runtime"
RUNTIME_SURFACE: Final = "_gen_v15"


@dataclass(frozen=True)
class KindCodec:
    """How the values of one field kind are typed, read and written: the shape and the JSON form
    select the template code, the rest fills it in (gen/build.py's CODECS holds one per kind)."""

    # varint, zigzag, bool, fixed (integers), float, string, bytes, message, group
    shape: str
    py_type: str  # the Python type of a value (message kinds: "", their class)
    json: str  # the ProtoJSON form: int, int64, bool, string, bytes, float, double, enum, message
    decoder: str = ""  # the runtime function that reads one value (varint and fixed shapes)
    writer: str = ""  # the runtime function that writes one value (fixed and float shapes)
    width: int = 0  # fixed and float shapes: bytes per value
    unsigned_wrap: str = ""  # fixed32/fixed64: added to the signed value the reader returns
    zigzag_shift: int = 0  # sint32/sint64: the sign shift of the zigzag encoding
    packed_decoder: str = ""  # the runtime function that reads a packed run (scalars)
    wide: bool = False  # int64/uint64: values past mypyc's unboxed range go to write_varint64

    @property
    def varint(self) -> bool:
        """Written as varints: packed runs of them are written by generated loops (their length
        after them, as for sub-messages); fixed-width ones, whose length is known first, by the
        runtime."""
        return self.shape in ("varint", "zigzag", "bool")


@dataclass(slots=True)
class OneofView:
    name: str
    case_slot: str
    value_slot: str
    which: str
    has: str
    clear: str
    fields: list[FieldView] = field(default_factory=list)
    comment: str = ""
    member_names: str = ""  # the members' names as string literals, joined by ", " (which()'s type)
    json_seen: str = ""  # the flag the JSON parser sets on a member (a local, or an item of _seen)


@dataclass(slots=True)
class JsonView:
    """How templates/_json.py.j2 prints and parses a field (or a map entry's key or value): facts
    of the field alone, shared by every module that renders it (slotted, not frozen: one is made
    for most fields, and templates read it often; see plugin/schema.py)."""

    kind: int  # descriptor type number, for the runtime's json_in_int/json_in_key
    form: str  # int, int64, bool, string, bytes, float, double, enum, null, message
    scan: str  # the method of runtime/_json_scan.py's JsonScan that reads a value (scalars)
    member: str  # the printed member's text before its value: "jsonName": (after a comma or brace)
    name: str  # literal of the JSON name
    alias: bool  # the proto name is a second spelling (to refuse both at once)
    null: bool  # JSON null is a value of this field, not "unset"
    int_low: int = 0  # 32-bit integer kinds: their range, checked inline
    int_high: int = 0
    int_digits: int = 0  # 64-bit kinds: decimal strings shorter than this are in range


@dataclass(slots=True)
class FieldView:
    """A field of a message, or the key or value of a map entry (which hold only the first part:
    their value and how it is read and written; the rest keeps its defaults)."""

    model: Field
    name: str
    number: int
    codec: KindCodec
    value_type: str  # Python type of one value
    annotation: str  # type of the value as the getter returns it
    default_expr: str
    is_message: bool
    tag: int
    tag_write: str
    utf8: bool
    float_kind: bool
    message_ref: str
    enum_info_ref: str  # closed enums: the EnumInfo whose numbers are known
    closed_enum: bool
    enum_ref: str  # closed enums: the class whose members the field holds (module-level name)
    enum_numbers: tuple[int, ...]  # closed enums: the numbers the enum names, sorted
    child_lazy_capable: bool  # message fields: the child may hold parse(lazy=True) bytes
    child_scans: bool  # message fields: the child's class has a validating scan (_pb_scan)
    json: JsonView  # how the generated ProtoJSON code reads and writes it
    # a field of a message
    attr: str = ""  # public attribute (open/hybrid) and constructor keyword
    slot: str = ""  # the attribute that holds the value (the attribute itself, or a private slot)
    store: str = ""  # the expression of that attribute: self.<slot> ("" for oneof members)
    getter: str = ""
    setter: str = ""
    hazzer: str = ""
    clearer: str = ""
    slot_annotation: str = ""  # type of the slot (open/hybrid: None while unset)
    ctor_annotation: str = ""  # type of the constructor keyword
    ctor_default: str = ""
    setter_annotation: str = ""  # type of the setter's parameter
    repeated: bool = False
    is_map: bool = False
    presence: bool = False
    bit_word: str = ""  # opaque presence word ("" when none)
    bit_mask: int = 0
    oneof: OneofView | None = None
    alt_tag: int = 0  # repeated scalars: the other encoding (packed/expanded) accepted on parse
    alt_tag_write: str = ""
    end_tag: int = 0  # groups
    end_tag_write: str = ""
    packed: bool = False
    index: int = -1  # position in the class's field table
    info_expr: str = ""
    declaration: str = ""  # as in the .proto file: ``optional string email = 3;``
    comment: str = ""  # the docstring of the accessors: the proto comment and the declaration
    attr_comment: str = ""  # the same, indented for the class body: the public attribute's docstring
    needs_required_check: bool = False
    required: bool = False
    lazy: bool = False  # opaque, singular, length-prefixed message: decoded on first access
    lazy_slot: str = ""  # holds the undecoded bytes (a memoryview of the input) or None
    lazy_verify: bool = False  # check the bytes fully at parse ([lazy]); not for [unverified_lazy]
    loader: str = ""  # the method that decodes the lazy bytes
    # repeated message field declared lazy: each element keeps its bytes, as parse(lazy=True) does
    lazy_elements: bool = False
    # a field of a deferred-layout message (MessageView.spans) made on its first read: "span" (a
    # string or bytes: where it lies in the input), "first" (a repeated field or map: where its
    # first occurrence starts); "" elsewhere, and for the scalars the scan stores in their slots
    deferral: str = ""
    cases: list[tuple[int, str]] = field(default_factory=list)  # "first" fields: (tag, mode) of each encoding
    map_key: FieldView | None = None  # map fields: views of the entry's key (1) and value (2)
    map_value: FieldView | None = None

    def int_in_range(self, x: str) -> str:
        return pyexpr.int_in_range(self.model.kind, x)

    def names_number(self, x: str) -> str:
        return pyexpr.names_number(self.enum_numbers, self.enum_info_ref, x)

    @property
    def enum_one_byte_run(self) -> bool:
        """A closed enum's numbers run without a gap, each written in one byte."""
        return pyexpr.one_byte_run(self.enum_numbers)

    def one_byte_test(self, x: str) -> str:
        return pyexpr.one_byte_test(self.codec.wide, x)

    def checked_value(self, x: str, nullable: bool = False, tested: bool = False) -> str:
        return pyexpr.checked_value(self.model.kind, self.number, self.codec.py_type, self.message_ref,
                                    self.enum_ref if self.closed_enum else "", x, nullable, tested,
                                    self.enum_info_ref)

    def none_operand(self, x: str) -> str:
        return pyexpr.none_operand(self.model.kind, self.number, x)

    @property
    def exact_type(self) -> str:
        return pyexpr.exact_type(self.model.kind, self.codec.py_type, self.message_ref, self.closed_enum)

    @property
    def range_args(self) -> str:
        return "" if self.closed_enum else pyexpr.range_args(self.model.kind)

    @property
    def encode_rank(self) -> int:
        """Where _pb_encode writes this field among the others: its number, or, for a oneof
        member, its oneof's smallest (the oneof is written there)."""
        return min(m.number for m in self.oneof.fields) if self.oneof else self.number

    @property
    def tag_size(self) -> int:
        """The bytes of this field's tag."""
        return varint_size(self.tag)

    @property
    def varint_kind(self) -> int:
        """The values a varint of this field encodes canonically (_kept.VARINT_*)."""
        return _VARINT_KINDS.get(self.model.kind, _kept.VARINT_64)


@dataclass(slots=True)
class ExtensionView:
    attr: str
    owner: str  # "" for module level, else the module-level name of the class
    info_expr: str


@dataclass(slots=True)
class EnumView:
    class_name: str
    qualname: str
    py_name: str  # the module-level name it is defined under (nested types are hoisted)
    info_name: str
    members: list[tuple[str, int, str]]
    info_expr: str
    comment: str


@dataclass(slots=True)
class DispatchNode:
    cases: list[tuple[int, FieldView, str]]  # (tag, field, mode) in a leaf
    pivot: int = 0
    low: DispatchNode | None = None
    high: DispatchNode | None = None
    chunk: int = 0  # not 0: the values here go to that DispatchChunk's method


@dataclass(slots=True)
class DispatchChunk:
    """A run of a large message's dispatch cases, decoded by a method of its own, so that each
    method stays within what pyright analyses (it gives up on a function of too many branches).
    The method loops while the values it reads are in [lower, upper), then returns to the
    dispatch that called it."""

    number: int  # the method's suffix
    tree: DispatchNode
    lower: int | None  # None: no bound
    upper: int | None
    map_fields: list[FieldView]  # the maps among its cases (the scan keeps state for each)


@dataclass(slots=True)
class MessageView:
    class_name: str
    full_name: str
    qualname: str
    py_name: str  # the module-level name it is defined under (nested types are hoisted)
    style: str
    is_open: bool
    is_opaque: bool
    base: str
    slots: list[str]
    slots_literal: str  # the __slots__ tuple's items, wrapped (continuation lines unindented)
    fields: list[FieldView]
    fields_by_number: list[FieldView]
    plain_fields: list[FieldView]
    oneofs: list[OneofView]
    presence_words: list[str]
    messages: list[MessageView]
    enums: list[EnumView]
    nested_extensions: list[ExtensionView]
    dispatch: DispatchNode  # _pb_merge's
    merge_chunks: list[DispatchChunk]  # the methods a large message's _pb_merge hands runs of cases to
    scan_dispatch: DispatchNode  # _pb_scan's (dispatch itself unless the message is split)
    scan_chunks: list[DispatchChunk]
    scan_map_fields: list[FieldView]  # the maps _pb_scan decodes itself (the scan keeps state for each)
    encode_order: list[FieldView | OneofView]  # by field number; a oneof at its first member
    extendable: bool
    checks_required: bool
    lazy_capable: bool  # parse(lazy=True) may defer the whole message (opaque layout)
    scans: bool  # a validating scan (_pb_scan), for parse(lazy=True) and for parents' scans
    wide_tags: bool  # some field number needs a two-byte tag: the parse loop inlines them
    lazy_fields: list[FieldView]
    info_expr: str
    comment: str
    # the arguments of _rt.Names: the names the by-name methods take, as Literals, at their
    # indentation in the class body (but the first line)
    names_types: str
    json_fast: bool = False  # generated JSON printer and parser (not a special form, no key clash)
    # generated _pb_items and _pb_set, for the well-known types whose special JSON forms read and
    # write through them (other classes inherit runtime/_layout.py's, driven by the layout)
    inline_reflection: bool = False
    seconds_nanos: bool = False  # Timestamp, Duration: a generated _pb_set_seconds_nanos
    json_keys: list[tuple[str, int]] = field(default_factory=list)  # (key literal, field number)
    json_key_chain: bool = False  # the parser compares a key with each of json_keys, no dict
    json_dispatch: DispatchNode | None = None  # over field numbers
    json_chunks: list[DispatchChunk] = field(default_factory=list)
    # _pb_json_scan's cases: (test of the key words, the field's bit, its oneof's bits, read by
    # json.loads, field); none: no scan generated
    json_scan: list[tuple[str, int, int, bool, FieldView]] = field(default_factory=list)
    # the deferred layout: parse (at any size, compiled) scans the input once, storing the scalars
    # and where each of ``spans_fields`` (FieldView.deferral) lies, made on its first read
    spans: bool = False
    spans_fields: list[FieldView] = field(default_factory=list)
    # its repeated fields and its maps among spans_fields (each kind made by one method), and whether
    # those of a kind hold messages
    spans_lists: list[FieldView] = field(default_factory=list)
    spans_maps: list[FieldView] = field(default_factory=list)
    spans_list_messages: bool = False
    spans_map_messages: bool = False


@dataclass(slots=True)
class FileView:
    proto: str
    edition: str
    style: str
    imports: list[tuple[str, str]]
    reexports: list[tuple[str, str]]  # import public: (name, alias of the module it comes from)
    messages: list[MessageView]
    enums: list[EnumView]
    all_messages: list[MessageView]
    registered: str  # the arguments of register_messages: every class's module-level name, wrapped
    all_enums: list[EnumView]
    extensions: list[ExtensionView]
    twin_module: str  # hybrid files: the opaque twin's module
    is_twin: bool
    comment: str
    descriptor: str  # the literal of _pb_descriptor: (.proto name, FileDescriptorProto, ((import, module), ...))
    # the constants holding the closed enum members that fields default to: (name, member)
    enum_defaults: list[tuple[str, str]]
    uses_enum: bool  # the module defines enums: it imports enum
    uses_itertools: bool  # a large message's JSON parser hands its items on (itertools.chain)
    capital_slots: bool  # a field's attribute is all capitals (FIELD_NAME11), a constant to pyright
    parameter: str = ""  # the plugin parameter, for the header
    deferred_classes: bool = False  # the classes' methods compiled on first use; a .pyi
    spans: bool = False  # a message has the deferred layout (MessageView.spans)
    spans_lists: bool = False  # a message of the deferred layout has a repeated field (MessageView.spans_lists)
    spans_maps: bool = False  # ... a map (MessageView.spans_maps)
    extended: bool = False  # the module declares extensions (file-level or nested)
    runtime_package: str = RUNTIME_PACKAGE
    runtime_surface: str = RUNTIME_SURFACE
    plugin_version: str = PLUGIN_VERSION
