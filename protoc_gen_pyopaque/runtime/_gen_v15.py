"""Surface 15 (14 with ``mypyc_attr``, by which compiled message classes and deferred-parse states keep one freed instance for the next; 14 was 13 with ``json_write_int`` and ``json_write_str``, which write an integer and a string into the ``StringWriter`` (compiled: without making a string), and ``defer_classes`` making a module's classes from a table instead of taking classes made by class statements; 13 was 12 with ``json_in_double`` and ``json_in_float`` taking the ``JsonCtx``, whose text tells whether an int 0 may have been a -0; 12 was 11 with ``_pb_json_write`` writing into a ``StringWriter`` instead of appending to a list, ``json_write_double``, ``json_write_float`` and ``json_write_ints`` in place of ``json_out_double``, ``json_out_float`` and ``json_out_int``, and ``json_write_extensions`` told and telling whether members were written; 11 was 10 with ``JsonScan`` and ``JsonOther``, the reader of the generated ``_pb_json_scan``; 10 was 9 with the well-known types' _pb_scan taking ``_canon``, whether the caller wants the input's canonical form: generated scans pass it to their children's): the one module generated code imports from the runtime (as ``_rt``).

Only re-exports, so that the runtime can change behind them. A generated module imports the
surface it was generated for, ``_gen_v<N>``: a runtime without it fails that import, naming
the surface (ModuleNotFoundError), so generated code and runtime of different surfaces never
run together. Generated code that needs a name this surface does not export needs a new
surface: rename this module to the next number and point ``RUNTIME_SURFACE`` in
``gen/views.py`` at it.

``Names`` is for type checkers only (generated classes name it in an annotation that never
runs): imported when type checking, it is not in ``__all__``, and a surface 15 runtime without
it still runs modules that name it.

``DEFAULT_MAX_DEPTH`` and ``JSON_MAX_DEPTH`` are two names of the one limit ``MAX_DEPTH``."""

from __future__ import annotations

import sys
from builtins import type  # the name a constructor reaches it by: a parameter may be named ``type``
from math import copysign
from typing import TYPE_CHECKING

from librt.strings import StringWriter
from mypy_extensions import i64, mypyc_attr  # i64 for annotations: positions and lengths are native int64s compiled

from ._codec import (
    add_unknown_varint, decode_str, encode_str, merge_unknown, nested_too_deep, out_of_range, read_len,
    struct_error,
)
from ._codec_errors import bad_end, bad_utf8, decode_failure, overrun, too_deep
from ._deferred import defer_classes, defer_enums, define_enums
from ._equality import extensions_eq, float_eq, float_values_eq, floats_eq, value_eq
from ._extensions import merge_extension, write_extensions
from ._json import JsonCtx, json_refuse
from ._json_gen import (
    json_in_bool, json_in_bytes, json_in_double, json_in_enum, json_in_enums, json_in_float, json_in_int,
    json_in_key, json_in_other, json_in_str, json_out_bytes, json_out_enum, json_out_str, json_write_double,
    json_write_extensions, json_write_float, json_write_int, json_write_ints, json_write_str,
)
from ._json_scan import JsonOther, JsonScan
from ._kept import (
    NESTING_CHECKED, check_structure, keep_fields, keep_input, kept_bytes, kept_verbatim, map_keys_unique, signalling_f32,
    scan_by_decode, scan_packed_fixed, scan_packed_varints, scan_unknown, scan_varint,
)
from ._output import finish_len, splices, write_raw, write_span
from ._packed import (
    dec_packed, dec_packed_bool, dec_packed_closed_enum, dec_packed_double, dec_packed_enum,
    dec_packed_fixed32, dec_packed_fixed64, dec_packed_float, dec_packed_int32, dec_packed_int64,
    dec_packed_sfixed32, dec_packed_sfixed64, dec_packed_sint32, dec_packed_sint64, dec_packed_uint32,
    dec_packed_uint64, write_packed, write_varint64,
)
from ._registry import nest_class, register_extension, register_messages
from ._values import check_message, checked, checked_list, checked_map, round_f32
from ._wire import (
    BytesWriter, check_tag, check_varints, dec_int32, dec_int64, dec_len, dec_sint32, dec_sint64, dec_tag,
    dec_uint32, dec_varint, read_f32_le, read_f64_le, read_i32_le, read_i64_le, skip_field, skip_varint,
    valid_utf8, varint_size, write_f32_le,
    write_f64_le, write_fixed32, write_fixed64, write_i32_le, write_i64_le, write_varint,
)
from .errors import DecodeError, EncodeError, JsonError
from .message import LAZY_LOCK, Buffer, ExtendableMessage, Message, protoopaque_selected
from .reflect import (
    MAX_DEPTH as DEFAULT_MAX_DEPTH, MAX_DEPTH as JSON_MAX_DEPTH, EnumInfo, ExtensionInfo, FieldInfo,
    MessageInfo, OneofInfo,
)
from .wkt import AnyBase, DurationBase, FieldMaskBase, ListValueBase, StructBase, TimestampBase, ValueBase

if TYPE_CHECKING:
    from ._names import Names as Names

__all__ = [
    "AnyBase", "Buffer", "BytesWriter", "DEFAULT_MAX_DEPTH", "DecodeError", "DurationBase", "EncodeError",
    "EnumInfo", "ExtendableMessage", "ExtensionInfo", "FieldInfo", "FieldMaskBase", "JSON_MAX_DEPTH",
    "JsonCtx", "JsonError", "JsonOther", "JsonScan", "LAZY_LOCK", "ListValueBase", "Message", "MessageInfo", "NESTING_CHECKED",
    "OneofInfo", "StringWriter", "StructBase", "TimestampBase", "ValueBase", "add_unknown_varint", "bad_end", "bad_utf8",
    "check_message", "check_structure", "check_tag", "check_varints", "checked", "checked_list",
    "checked_map", "copysign", "dec_int32", "dec_int64", "dec_len", "dec_packed", "dec_packed_bool",
    "dec_packed_closed_enum", "dec_packed_double", "dec_packed_enum", "dec_packed_fixed32",
    "dec_packed_fixed64", "dec_packed_float", "dec_packed_int32", "dec_packed_int64", "dec_packed_sfixed32",
    "dec_packed_sfixed64", "dec_packed_sint32", "dec_packed_sint64", "dec_packed_uint32",
    "dec_packed_uint64", "dec_sint32", "dec_sint64", "dec_tag", "dec_uint32", "dec_varint",
    "decode_failure", "decode_str", "defer_classes", "defer_enums", "define_enums", "encode_str", "extensions_eq", "finish_len", "float_eq",
    "float_values_eq", "floats_eq", "i64", "json_in_bool", "json_in_bytes", "json_in_double",
    "json_in_enum", "json_in_enums", "json_in_float", "json_in_int", "json_in_key", "json_in_other",
    "json_in_str", "json_out_bytes", "json_out_enum", "json_out_str", "json_refuse", "json_write_double",
    "json_write_extensions", "json_write_float", "json_write_int", "json_write_ints", "json_write_str",
    "keep_fields", "keep_input", "kept_bytes",
    "kept_verbatim", "map_keys_unique", "merge_extension", "merge_unknown", "mypyc_attr", "nest_class", "nested_too_deep",
    "out_of_range", "overrun", "protoopaque_selected", "read_f32_le", "read_f64_le", "read_i32_le",
    "read_i64_le", "read_len", "register_extension", "register_messages", "round_f32", "scan_by_decode",
    "scan_packed_fixed", "scan_packed_varints", "scan_unknown", "scan_varint", "signalling_f32",
    "skip_field", "skip_varint", "splices", "struct_error", "too_deep", "type", "valid_utf8", "value_eq",
    "varint_size", "write_extensions", "write_f32_le", "write_f64_le", "write_fixed32", "write_fixed64",
    "write_i32_le", "write_i64_le", "write_packed", "write_raw", "write_span", "write_varint",
    "write_varint64"
]

# A copy compiled by pyopaque-compile must not be loaded next to the pure runtime: when
# the pure package was imported first, its Message and errors are not the compiled ones.
if getattr(sys.modules.get(__package__ or ""), "Message", Message) is not Message:
    raise ImportError(
        "modules compiled by pyopaque-compile were imported after the pure "
        "protoc_gen_pyopaque.runtime: put their folder before site-packages on sys.path, "
        "ahead of any import of protoc_gen_pyopaque.runtime")
