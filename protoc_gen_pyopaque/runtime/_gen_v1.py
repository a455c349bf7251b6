"""The one surface generated code uses (its VERSION). Generated modules check the version.

Everything here is re-exported from the runtime's modules; generated code must not
import anything else from the runtime, so the runtime can change behind it.
"""

from __future__ import annotations

import sys
from math import copysign
from typing import Final, TypeVar

from ._codec import (
    DEFAULT_MAX_DEPTH, add_unknown_varint, decode_str, encode_str, merge_unknown, out_of_range, struct_error,
)
from ._codec_errors import bad_end, decode_failure, overrun, too_deep
from ._extensions import merge_extension, write_extensions
from ._kept import check_structure, keep_fields, kept_bytes
from ._output import finish_len, splices, write_raw, write_span
from ._packed import (
    dec_packed, dec_packed_bool, dec_packed_closed_enum, dec_packed_double, dec_packed_enum, dec_packed_fixed32,
    dec_packed_fixed64, dec_packed_float, dec_packed_int32, dec_packed_int64, dec_packed_sfixed32,
    dec_packed_sfixed64, dec_packed_sint32, dec_packed_sint64, dec_packed_uint32, dec_packed_uint64,
    write_packed, write_varint64,
)
from .errors import DecodeError, EncodeError, JsonError
from ._json import MAX_DEPTH as JSON_MAX_DEPTH
from ._json import JsonCtx, json_refuse
from ._json_gen import (
    json_in_bool, json_in_bytes, json_in_double, json_in_enum, json_in_enums, json_in_float,
    json_in_int, json_in_key, json_in_other, json_in_str, json_out_bytes, json_out_double,
    json_out_enum, json_out_extensions, json_out_float, json_out_int, json_out_int64, json_out_str,
)
from ._registry import register_message_class
from .message import LAZY_LOCK, Buffer, ExtendableMessage, Message, protoopaque_selected
from .wkt import (
    AnyBase, DurationBase, FieldMaskBase, ListValueBase, StructBase, TimestampBase, ValueBase,
)
from .reflect import EnumInfo, ExtensionInfo, FieldInfo, MessageInfo, OneofInfo
from ._wire import (
    BytesWriter, check_tag, dec_int32, dec_int64, dec_len, dec_sint32, dec_sint64, dec_tag, dec_uint32,
    dec_varint, read_f32_le, read_f64_le, read_i32_le, read_i64_le, skip_field, varint_size,
    write_f32_le, write_f64_le, write_fixed32, write_fixed64, write_i32_le, write_i64_le, write_varint,
)

__all__ = [
    "DEFAULT_MAX_DEPTH", "add_unknown_varint", "bad_end", "dec_packed",
    "dec_packed_closed_enum", "decode_failure", "decode_str", "encode_str", "finish_len",
    "merge_extension", "merge_unknown", "overrun", "struct_error", "too_deep", "out_of_range", "write_varint64",
    "keep_fields", "kept_bytes",
    "write_extensions", "write_packed", "DecodeError", "EncodeError", "JsonError",
    "Buffer", "ExtendableMessage", "Message", "protoopaque_selected", "EnumInfo", "ExtensionInfo",
    "FieldInfo", "MessageInfo", "OneofInfo", "dec_int32", "dec_int64", "dec_sint32",
    "dec_sint64", "dec_tag", "dec_uint32", "dec_varint", "BytesWriter", "write_f32_le", "write_f64_le",
    "write_i32_le", "write_i64_le", "write_fixed32", "write_fixed64", "read_f32_le", "read_f64_le",
    "read_i32_le", "read_i64_le", "varint_size", "write_varint", "copysign", "check_version",
    "register_extension", "register_messages", "nest_class", "VERSION", "check_structure", "LAZY_LOCK", "float_eq", "floats_eq", "float_values_eq", "value_eq", "extensions_eq", "check_tag", "skip_field", "dec_len", "write_raw", "write_span", "splices", "dec_packed_bool",
    "dec_packed_double", "dec_packed_enum", "dec_packed_fixed32", "dec_packed_fixed64",
    "dec_packed_float", "dec_packed_int32", "dec_packed_int64", "dec_packed_sfixed32",
    "dec_packed_sfixed64", "dec_packed_sint32", "dec_packed_sint64", "dec_packed_uint32",
    "dec_packed_uint64", "AnyBase", "DurationBase",
    "FieldMaskBase", "ListValueBase", "StructBase", "TimestampBase", "ValueBase",
    "JsonCtx", "json_in_bool", "json_in_bytes", "json_in_double", "json_in_enum", "json_in_enums",
    "json_in_float", "json_in_int", "json_in_key", "json_in_other", "json_in_str", "json_out_bytes",
    "json_out_double", "json_out_enum", "json_out_extensions", "json_out_float", "json_out_int",
    "json_out_int64", "json_out_str", "json_refuse", "JSON_MAX_DEPTH",
]

VERSION: Final = 6  # v6: generated parse() constructs directly (Buffer, Message._pb_parse)
# The oldest surface generated code may use: v4 code marked kept input by a negative _pb_p0.
OLDEST_VERSION: Final = 5

# A copy compiled by pyopaque-compile must not be loaded next to the pure runtime: when
# the pure package was imported first, its Message and errors are not the compiled ones.
if getattr(sys.modules.get(__package__ or ""), "Message", Message) is not Message:
    raise ImportError(
        "modules compiled by pyopaque-compile were imported after the pure "
        "protoc_gen_pyopaque.runtime: put their folder before site-packages on sys.path, "
        "ahead of any import of protoc_gen_pyopaque.runtime")
_K = TypeVar("_K")


def check_version(version: int) -> None:
    """Fail at import when generated code needs another runtime surface than this one."""
    if version > VERSION:
        raise ImportError(
            f"generated code needs runtime surface v{version}, this runtime has v{VERSION}: "
            "upgrade protoc-gen-pyopaque")
    if version < OLDEST_VERSION:
        raise ImportError(
            f"generated code uses runtime surface v{version}, which this runtime (v{VERSION}) "
            "no longer provides: regenerate it with this protoc-gen-pyopaque")


def float_eq(a: float | None, b: float | None) -> bool:
    """Compare float fields as protobuf does for messages: NaN equals NaN."""
    return a == b or (a != a and b != b)


def floats_eq(a: list[float], b: list[float]) -> bool:
    """Compare repeated float fields element by element, NaN equal to NaN."""
    return len(a) == len(b) and all(float_eq(x, y) for x, y in zip(a, b))


def float_values_eq(a: dict[_K, float], b: dict[_K, float]) -> bool:
    """Compare maps with float values, NaN equal to NaN."""
    return a.keys() == b.keys() and all(float_eq(v, b[k]) for k, v in a.items())


def value_eq(a: object, b: object) -> bool:
    """Compare oneof values (of any kind), NaN equal to NaN."""
    return a == b or (a != a and b != b)


def extensions_eq(a: dict[int, object], b: dict[int, object]) -> bool:
    """Compare extension values (singular or lists), NaN equal to NaN."""
    if a.keys() != b.keys():
        return False
    for number, x in a.items():
        y = b[number]
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y) or not all(value_eq(u, v) for u, v in zip(x, y)):
                return False
        elif not value_eq(x, y):
            return False
    return True


def register_messages(*classes: type[Message]) -> None:
    """Make a module's message classes known by full name (Any, JSON and text resolve them)."""
    for cls in classes:
        register_message_class(cls)


def nest_class(outer: type, cls: type, qualname: str) -> None:
    """Attach ``cls`` (defined at module level) to ``outer`` as its nested class ``qualname``.

    Generated modules define nested types at module level, as mypyc compiles no class
    statement in a class body; names, pickling and repr stay those of a nested class.
    """
    name = qualname.rpartition(".")[2]
    setattr(outer, name, cls)
    setattr(cls, "__name__", name)
    setattr(cls, "__qualname__", qualname)


def register_extension(ext: ExtensionInfo) -> None:
    """Make the extendee's parser decode ``ext`` (called by the module declaring it)."""
    info: MessageInfo = ext.extendee._pb_info  # type: ignore[attr-defined]
    info.extensions[ext.field.number] = ext
