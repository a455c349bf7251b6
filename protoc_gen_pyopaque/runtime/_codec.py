"""Table-driven binary codec pieces shared by generated code: generic values (decoded and
written by their field's table), unknown fields, and the analysis of serialize failures.

The per-message hot loops are generated; what lives here is rare enough that a generic
path is the better trade. Packed runs, extensions, lazy decoding and the output's splices
have modules of their own.
"""

from __future__ import annotations

import struct
import sys
from typing import TYPE_CHECKING, Any, Final

from . import _wire as wire
from ._codec_errors import field_label, overrun, too_deep
from ._output import discard_output, finish_len
from ._wire import BytesWriter
from .errors import DecodeError, EncodeError
from .reflect import (
    TYPE_BOOL, TYPE_BYTES, TYPE_DOUBLE, TYPE_ENUM, TYPE_FIXED32, TYPE_FIXED64,
    TYPE_FLOAT, TYPE_GROUP, TYPE_INT32, TYPE_INT64, TYPE_MESSAGE, TYPE_SFIXED32,
    TYPE_SFIXED64, TYPE_SINT32, TYPE_SINT64, TYPE_STRING, TYPE_UINT32, TYPE_UINT64,
    FieldInfo, INT_RANGES, KIND_NAMES,
)

if TYPE_CHECKING:
    from .message import Message

struct_error = struct.error

WIRE_OF_KIND: Final = {
    TYPE_DOUBLE: wire.WIRE_FIXED64, TYPE_FLOAT: wire.WIRE_FIXED32,
    TYPE_INT64: wire.WIRE_VARINT, TYPE_UINT64: wire.WIRE_VARINT,
    TYPE_INT32: wire.WIRE_VARINT, TYPE_FIXED64: wire.WIRE_FIXED64,
    TYPE_FIXED32: wire.WIRE_FIXED32, TYPE_BOOL: wire.WIRE_VARINT,
    TYPE_STRING: wire.WIRE_LEN, TYPE_GROUP: wire.WIRE_START_GROUP,
    TYPE_MESSAGE: wire.WIRE_LEN, TYPE_BYTES: wire.WIRE_LEN,
    TYPE_UINT32: wire.WIRE_VARINT, TYPE_ENUM: wire.WIRE_VARINT,
    TYPE_SFIXED32: wire.WIRE_FIXED32, TYPE_SFIXED64: wire.WIRE_FIXED64,
    TYPE_SINT32: wire.WIRE_VARINT, TYPE_SINT64: wire.WIRE_VARINT,
}
FIXED_FORMAT: Final = {
    TYPE_DOUBLE: "d", TYPE_FLOAT: "f", TYPE_FIXED64: "Q", TYPE_FIXED32: "I",
    TYPE_SFIXED32: "i", TYPE_SFIXED64: "q",
}
_VARINT_DECODER: Final = {
    TYPE_INT64: wire.dec_int64, TYPE_UINT64: wire.dec_varint, TYPE_INT32: wire.dec_int32,
    TYPE_BOOL: wire.dec_varint, TYPE_UINT32: wire.dec_uint32, TYPE_ENUM: wire.dec_int32,
    TYPE_SINT32: wire.dec_sint32, TYPE_SINT64: wire.dec_sint64,
}


def encode_failure(msg: Message, exc: BaseException) -> EncodeError:
    """Turn a failure inside serialize into an EncodeError naming the field and value at fault."""
    name = type(msg)._pb_info.full_name
    found = find_bad_value(msg, name)
    if found is not None:
        return EncodeError(f"cannot serialize: {found}")
    return EncodeError(f"{name}: cannot serialize: {type(exc).__name__}: {exc}")


def nested_too_deep(msg: Any) -> EncodeError:
    """The error for a message nested deeper than the Python stack lets the runtime follow
    (built in code: parse stops at its depth limit), naming how deep it is."""
    try:
        depth = str(nesting_depth(msg))
    except RecursionError:  # the first decode of kept bytes on the way needed the stack too
        depth = "too"
    return EncodeError(f"{type(msg)._pb_info.full_name}: messages nested {depth} deep, deeper than the "
                       f"Python stack allows (recursion limit {sys.getrecursionlimit()})")


def nesting_depth(msg: Any) -> int:
    """How many messages lie one below another in ``msg``, itself included (without recursion)."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(msg, 1)]
    while todo:
        m, depth = todo.pop()
        deepest = max(deepest, depth)
        items = m._pb_items()
        if isinstance(getattr(m, "_pb_ext", None), dict):
            items += m._pb_ext_items()
        for field, value in items:
            todo.extend((child, depth + 1) for child in messages_in(field, value))
    return deepest


def messages_in(field: FieldInfo, value: Any) -> list[Message]:
    """The messages held by a set field's value (a message, a list of them, a map's values)."""
    if field.map_key is not None:
        assert field.map_value is not None
        return list(value.values()) if field.map_value.message_type is not None else []
    if field.message_type is None:
        return []
    return list(value) if field.repeated else [value]


# the Python types a value of each kind may have (bool is an int; an int is a valid float)
_VALUE_TYPES: Final[dict[int, tuple[type, ...]]] = {
    TYPE_STRING: (str,), TYPE_BYTES: (bytes, bytearray), TYPE_BOOL: (bool, int),
    TYPE_FLOAT: (float, int), TYPE_DOUBLE: (float, int), TYPE_ENUM: (int,),
    **{kind: (int,) for kind in INT_RANGES},
}
# what writing a value of the wrong type or range raises (serialize turns it into EncodeError)
ENCODE_ERRORS: Final = (TypeError, ValueError, AttributeError, OverflowError)


def find_bad_value(msg: Message, path: str) -> str | None:
    """The first set value in ``msg`` (recursively) that cannot be encoded: where, what and why.

    The cold path of serialize's errors: it walks the message by reflection.
    """
    for field, value in msg.iter_set_fields():
        label = f"{path}.{field.name}"
        if field.map_key is not None and field.map_value is not None:
            for k, v in value.items():
                found = _bad_value(field.map_key, k, f"{label} key {k!r}") \
                    or _bad_value(field.map_value, v, f"{label}[{k!r}]")
                if found:
                    return found
        elif field.repeated:
            for i, v in enumerate(value):
                found = _bad_value(field, v, f"{label}[{i}]")
                if found:
                    return found
        else:
            found = _bad_value(field, value, label)
            if found:
                return found
    return None


def _bad_value(field: FieldInfo, value: Any, where: str) -> str | None:
    kind = field.kind
    if kind in (TYPE_MESSAGE, TYPE_GROUP):
        if field.message_type is not None and not isinstance(value, field.message_type):
            return f"{where}: expected {field.message_type.__qualname__}, got {type(value).__name__}"
        return find_bad_value(value, where)
    types = _VALUE_TYPES[kind]
    if not isinstance(value, types):
        return f"{where}: expected {types[0].__name__}, got {type(value).__name__}"
    low_high = INT_RANGES.get(TYPE_INT32 if kind == TYPE_ENUM else kind)
    if low_high is not None and isinstance(value, int) and not low_high[0] <= value <= low_high[1]:
        return f"{where}: {value} is out of range for {KIND_NAMES[kind]}"
    enum = field.enum
    if enum is not None and enum.closed and value not in enum.members:  # as its setter refuses it
        return f"{where}: {value} is not a value of the closed enum {enum.full_name}"
    out = BytesWriter()
    try:
        write_value(out, field, field.number, value, False)
    except ENCODE_ERRORS as exc:
        return f"{where}: {type(exc).__name__}: {exc}"
    finally:
        discard_output(out)
    return None


# ----------------------------------------------------------------------------- unknown fields

def unknown_buffer(msg: Message) -> bytearray:
    """``msg``'s unknown fields, to append to: a bytearray from the first unknown field on.

    Appending to bytes copies them, so a message of n unknown fields would parse in O(n²);
    a bytearray grows in amortised O(1) per byte. Messages without unknown fields keep the
    shared empty bytes, and their hot paths stay as they were.
    """
    unknown = msg._pb_unknown
    if type(unknown) is bytearray:
        return unknown
    grown = bytearray(unknown)
    msg._pb_unknown = grown
    return grown


def merge_unknown(msg: Message, buf: bytes, tag: int, pos: int, end: int, depth: int) -> int:
    """Keep an unknown field (tag and value, as read) in ``msg``'s unknown bytes, with the
    unknown fields that follow it: one append for the run, not a return to the parse loop and a
    call per field (unknown fields mostly come in runs; twice as fast on a run of varints)."""
    wire.check_tag(tag, pos)
    start = pos
    pos = wire.skip_field(buf, tag, pos, end, depth)
    info = type(msg)._pb_info
    known = info.by_number
    extensions = info.extensions
    while pos < end:
        next_tag = buf[pos]
        after = pos + 1
        if next_tag >= 0x80:
            next_tag, after = wire.dec_tag(buf, pos)
        number = next_tag >> 3
        # the parse loop's: a field of this message or a known extension, an end-group, MessageSet items
        if number in known or number in extensions or next_tag & 7 == wire.WIRE_END_GROUP \
                or (number == 1 and info.message_set):
            break
        wire.check_tag(next_tag, after)
        pos = wire.skip_field(buf, next_tag, after, end, depth)
    if pos > end:
        raise DecodeError(f"{field_label(msg, tag)}: input truncated at offset {start}")
    unknown = unknown_buffer(msg)
    unknown += wire.varint_bytes(tag)
    unknown += buf[start:pos]
    return pos


def add_unknown_varint(msg: Message, number: int, value: int) -> None:
    """Keep a closed enum's unknown value as an unknown varint field."""
    unknown = unknown_buffer(msg)
    unknown += wire.varint_bytes(number << 3)
    unknown += wire.varint_bytes(value)


def read_len(msg: object, buf: bytes, tag: int, pos: int, end: int) -> tuple[int, int]:
    """Read a length prefix; return ``(start, stop)`` of the value, checked against ``end``."""
    n = buf[pos]
    if n < 0x80:
        pos += 1
    else:
        n, pos = wire.dec_len(buf, pos)
    stop = pos + n
    if stop > end:
        raise overrun(msg, tag, pos, n)
    return pos, stop


# the varint kinds' value ranges (enums are int32)
VARINT_RANGES: Final = {kind: INT_RANGES[kind] for kind in (
    TYPE_INT32, TYPE_INT64, TYPE_UINT32, TYPE_UINT64, TYPE_SINT32, TYPE_SINT64)}
VARINT_RANGES[TYPE_ENUM] = INT_RANGES[TYPE_INT32]


def out_of_range(kind: int, v: int) -> ValueError:
    """The error for an integer outside the range of its field's kind (raised by serialize)."""
    return ValueError(f"{v} is out of range for {KIND_NAMES[kind]}")


def write_int(out: BytesWriter, kind: int, v: int) -> None:
    """Append ``v`` as a varint of ``kind`` (zigzag for sint32/sint64); ValueError outside its range."""
    low, high = VARINT_RANGES[kind]
    if v < low or v > high:
        raise out_of_range(kind, v)
    if kind == TYPE_SINT64:
        v = (v << 1) ^ (v >> 63)
    elif kind == TYPE_SINT32:
        v = (v << 1) ^ (v >> 31)
    wire.write_varint(out, v)


# ----------------------------------------------------------------------------- generic values

def decode_value(field: FieldInfo, msg: object, buf: bytes, tag: int, pos: int, end: int,
                 depth: int, existing: Any = None) -> tuple[Any, int]:
    """Decode one value of ``field`` (wire type already checked); merge into ``existing`` messages."""
    kind = field.kind
    if kind in _VARINT_DECODER:
        v, pos = _VARINT_DECODER[kind](buf, pos)
        return (v != 0 if kind == TYPE_BOOL else v), pos
    fmt = FIXED_FORMAT.get(kind)
    if fmt is not None:
        size = 8 if fmt in "dQq" else 4
        return struct.unpack_from("<" + fmt, buf, pos)[0], pos + size
    if kind == TYPE_GROUP:
        if depth <= 0:
            raise too_deep(msg, tag, pos)
        sub = existing if existing is not None else new_message(field)
        end_tag = (tag & ~7) | wire.WIRE_END_GROUP
        return sub, sub._pb_merge(buf, pos, end, depth - 1, end_tag, False)
    start, stop = read_len(msg, buf, tag, pos, end)
    if kind == TYPE_STRING:
        return decode_str(buf[start:stop], field.utf8), stop
    if kind == TYPE_BYTES:
        return buf[start:stop], stop
    if depth <= 0:
        raise too_deep(msg, tag, pos)
    sub = existing if existing is not None else new_message(field)
    sub._pb_merge(buf, start, stop, depth - 1, -1, False)
    return sub, stop


def new_message(field: FieldInfo) -> Message:
    cls = field.message_type
    assert cls is not None
    sub: Message = cls()
    return sub


def decode_str(raw: bytes, utf8: bool) -> str:
    """Decode a string field; without validation, invalid bytes survive as surrogate escapes."""
    return raw.decode("utf-8") if utf8 else raw.decode("utf-8", "surrogateescape")


def encode_str(value: str, utf8: bool) -> bytes:
    """Encode a string field (the inverse of decode_str)."""
    return value.encode("utf-8") if utf8 else value.encode("utf-8", "surrogateescape")


def write_fixed(out: BytesWriter, kind: int, value: Any) -> None:
    """Append a fixed-width value of ``kind`` (ValueError outside an integer kind's range)."""
    if kind == TYPE_DOUBLE:
        wire.write_f64_le(out, value)
    elif kind == TYPE_FLOAT:
        wire.write_f32_le(out, value)
    elif kind == TYPE_FIXED32:
        wire.write_fixed32(out, value)
    elif kind == TYPE_SFIXED32:
        wire.write_i32_le(out, value)
    elif kind == TYPE_FIXED64:
        wire.write_fixed64(out, value)
    else:
        wire.write_i64_le(out, value)


def write_value(out: BytesWriter, field: FieldInfo, number: int, value: Any, deterministic: bool) -> None:
    """Append tag and value of one occurrence of ``field``."""
    kind = field.kind
    if kind == TYPE_GROUP:
        wire.write_varint(out, (number << 3) | wire.WIRE_START_GROUP)
        value._pb_encode(out, deterministic)
        wire.write_varint(out, (number << 3) | wire.WIRE_END_GROUP)
        return
    wire.write_varint(out, (number << 3) | WIRE_OF_KIND[kind])
    if kind in VARINT_RANGES:
        write_int(out, kind, value)
    elif kind == TYPE_BOOL:
        out.append(1 if value else 0)
    elif kind in FIXED_FORMAT:
        write_fixed(out, kind, value)
    elif kind == TYPE_STRING:
        raw = encode_str(value, field.utf8)
        wire.write_varint(out, len(raw))
        out.write(raw)
    elif kind == TYPE_BYTES:
        wire.write_varint(out, len(value))
        out.write(value)
    else:
        start = len(out)
        out.append(0)
        value._pb_encode(out, deterministic)
        finish_len(out, start)
