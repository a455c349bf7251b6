"""Table-driven binary codec pieces shared by generated code: packed runs, maps,
extensions, MessageSet items, unknown fields and error reporting.

The per-message hot loops are generated; what lives here is either a loop in
itself (packed runs) or rare enough that a generic path is the better trade.
"""

from __future__ import annotations

import re
import struct
from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

from . import wire
from .wire import BytesWriter
from .errors import DecodeError, EncodeError
from .reflect import (
    TYPE_BOOL, TYPE_BYTES, TYPE_DOUBLE, TYPE_ENUM, TYPE_FIXED32, TYPE_FIXED64,
    TYPE_FLOAT, TYPE_GROUP, TYPE_INT32, TYPE_INT64, TYPE_MESSAGE, TYPE_SFIXED32,
    TYPE_SFIXED64, TYPE_SINT32, TYPE_SINT64, TYPE_STRING, TYPE_UINT32, TYPE_UINT64,
    FieldInfo, INT_RANGES, KIND_NAMES,
)

if TYPE_CHECKING:
    from .message import ExtendableMessage, Message

DEFAULT_MAX_DEPTH: Final = 100
struct_error = struct.error

_WIRE_OF_KIND: Final = {
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
_FIXED_FORMAT: Final = {
    TYPE_DOUBLE: "d", TYPE_FLOAT: "f", TYPE_FIXED64: "Q", TYPE_FIXED32: "I",
    TYPE_SFIXED32: "i", TYPE_SFIXED64: "q",
}
_VARINT_DECODER: Final = {
    TYPE_INT64: wire.dec_int64, TYPE_UINT64: wire.dec_varint, TYPE_INT32: wire.dec_int32,
    TYPE_BOOL: wire.dec_varint, TYPE_UINT32: wire.dec_uint32, TYPE_ENUM: wire.dec_int32,
    TYPE_SINT32: wire.dec_sint32, TYPE_SINT64: wire.dec_sint64,
}


# ----------------------------------------------------------------------------- errors

def field_label(msg: object, tag: int) -> str:
    """Name the field of ``tag`` in ``msg``'s class for an error message."""
    info = getattr(type(msg), "_pb_info", None)
    number = tag >> 3
    field = info.by_number.get(number) if info is not None else None
    cls_name = info.full_name if info is not None else type(msg).__name__
    if field is not None:
        return f"{cls_name}.{field.name} (field {number})"
    return f"{cls_name} field {number}"


def decode_failure(msg: object, tag: int, pos: int, exc: BaseException) -> DecodeError:
    """Turn a low-level failure inside a parse loop into a DecodeError naming field and offset."""
    where = field_label(msg, tag)
    if isinstance(exc, UnicodeDecodeError):
        return DecodeError(f"{where}: invalid UTF-8 in string at offset {pos + exc.start}")
    if isinstance(exc, (IndexError, struct.error)):
        return DecodeError(f"{where}: input truncated at offset {pos}")
    return DecodeError(f"{where}: {exc} at offset {pos}")


def overrun(msg: object, tag: int, pos: int, n: int) -> DecodeError:
    """Report a length prefix that points past the end of the enclosing message."""
    return DecodeError(f"{field_label(msg, tag)}: length {n} at offset {pos} runs past the end of the message")


def bad_end(msg: object, pos: int, end: int, end_tag: int) -> DecodeError:
    """Report a message that ended at the wrong place (or a group without its end)."""
    name = type(msg).__name__
    if end_tag >= 0 and pos >= end:
        return DecodeError(f"{name}: group of field {end_tag >> 3} is not terminated (offset {pos})")
    return DecodeError(f"{name}: field runs past the end of the message (offset {pos}, end {end})")


def too_deep(msg: object, tag: int, pos: int) -> DecodeError:
    """Report nesting beyond the depth limit."""
    return DecodeError(f"{field_label(msg, tag)}: messages nested deeper than the limit at offset {pos}")


def encode_failure(msg: Message, exc: BaseException) -> EncodeError:
    """Turn a failure inside serialize into an EncodeError naming the field and value at fault."""
    name = type(msg)._pb_info.full_name
    found = find_bad_value(msg, name)
    if found is not None:
        return EncodeError(f"cannot serialize: {found}")
    return EncodeError(f"{name}: cannot serialize: {type(exc).__name__}: {exc}")


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
    out = BytesWriter()
    try:
        write_value(out, field, field.number, value, False)
    except ENCODE_ERRORS as exc:
        return f"{where}: {type(exc).__name__}: {exc}"
    finally:
        discard_output(out)
    return None


# ----------------------------------------------------------------------------- unknown fields

def merge_unknown(msg: Message, buf: bytes, tag: int, pos: int, end: int, depth: int) -> int:
    """Keep an unknown field (tag and value, as read) in ``msg``'s unknown bytes."""
    wire.check_tag(tag, pos)
    start = pos
    pos = wire.skip_field(buf, tag, pos, end, depth)
    if pos > end:
        raise DecodeError(f"{field_label(msg, tag)}: input truncated at offset {start}")
    msg._pb_unknown += wire.varint_bytes(tag) + buf[start:pos]
    return pos


def add_unknown_varint(msg: Message, number: int, value: int) -> None:
    """Keep a closed enum's unknown value as an unknown varint field."""
    out = BytesWriter()
    wire.write_varint(out, number << 3)
    wire.write_varint(out, value)
    msg._pb_unknown += out.getvalue()


# ----------------------------------------------------------------------------- lazy decoding

# one-byte tag -> 0 (the general path: bad number or wire type, groups) or wire type + 1
_ONE_BYTE_TAG: Final = bytes(
    ((t & 7) + 1) if t >> 3 and (t & 7) in (wire.WIRE_VARINT, wire.WIRE_FIXED64, wire.WIRE_LEN,
                                           wire.WIRE_FIXED32) else 0
    for t in range(0x80)) + bytes(0x80)
_SKIP_LEN: Final = wire.WIRE_LEN + 1
_SKIP_VARINT: Final = wire.WIRE_VARINT + 1
_SKIP_FIXED64: Final = wire.WIRE_FIXED64 + 1
_SKIP_FIXED32: Final = wire.WIRE_FIXED32 + 1
# a varint's bytes (at most 10): interpreted, the regex engine finds its end faster than a loop
_VARINT: Final = re.compile(b"[\\x80-\\xff]{0,9}[\\x00-\\x7f]")


def check_structure(msg: object, buf: bytes, tag: int, pos: int, end: int, depth: int) -> None:
    """Check the wire structure of ``buf[pos:end]`` without decoding it (verified lazy fields).

    Tags, wire types, varints, lengths and group nesting are checked at this level;
    what needs the schema (UTF-8, nested messages' contents) is checked on decode.
    Common one-byte tags take inline paths; the rest goes through skip_field.
    """
    start = pos
    kinds = _ONE_BYTE_TAG
    varint_end = _VARINT.match
    try:
        while pos < end:
            kind = kinds[buf[pos]]
            if kind == _SKIP_LEN:
                n = buf[pos + 1]
                if n < 0x80:
                    pos += 2 + n
                elif buf[pos + 2] < 0x80:
                    n = (n & 0x7F) | (buf[pos + 2] << 7)
                    pos += 3 + n
                else:
                    n, pos = wire.dec_len(buf, pos + 1)
                    pos += n
                if pos > end:
                    raise DecodeError(f"length {n} runs past the end of the message")
                continue
            if kind == _SKIP_VARINT:
                if buf[pos + 1] < 0x80:
                    pos += 2
                    continue
                if not wire.NATIVE:  # compiled, skip_field's loop is faster than a regex call
                    varint = varint_end(buf, pos + 1, end)
                    if varint is not None:
                        pos = varint.end()
                        continue
            elif kind == _SKIP_FIXED64:
                pos += 9
                continue
            elif kind == _SKIP_FIXED32:
                pos += 5
                continue
            # multi-byte tags, groups, bad tags, a varint over 10 bytes, a value past the end
            inner, pos = wire.dec_tag(buf, pos)
            wire.check_tag(inner, pos)
            pos = wire.skip_field(buf, inner, pos, end, depth)
    except IndexError:
        raise DecodeError(f"{field_label(msg, tag)}: input truncated at offset {pos}") from None
    except DecodeError as exc:
        raise DecodeError(f"{field_label(msg, tag)} (lazy, offset {start}): {exc}") from None
    if pos != end:
        raise DecodeError(f"{field_label(msg, tag)}: field runs past the end of the message (offset {pos})")


# ----------------------------------------------------------------------------- length prefixes

# A BytesWriter only appends, so bytes that belong before the end of the output are kept
# aside and spliced in when serialize() takes the output (take_output):
# * the varint length of a sub-message of 128 bytes or more, over its one-byte placeholder;
# * large bytes written back verbatim (lazy fields, parse(lazy=True) messages), so that the
#   payload is copied once and peak memory stays near input + output.
SPLICE_THRESHOLD: Final = 1 << 16
# output id -> [(position, piece, bytes it replaces, bytes added by it and the pieces before)];
# empty unless an output being written has pieces
splices: Final[dict[int, list[tuple[int, bytes | memoryview, int, int]]]] = {}


def _splice(out: BytesWriter, at: int, piece: bytes | memoryview, replaced: int) -> None:
    pieces = splices.setdefault(id(out), [])
    added = pieces[-1][3] if pieces else 0
    pieces.append((at, piece, replaced, added + len(piece) - replaced))


def _added_inside(pieces: list[tuple[int, bytes | memoryview, int, int]], start: int) -> int:
    """Bytes the pieces after position ``start`` add: those recorded since a placeholder
    was written there, which are the list's tail (everything recorded before lies before it)."""
    lo = 0
    hi = len(pieces)
    while lo < hi:
        mid = (lo + hi) // 2
        if pieces[mid][0] > start:
            hi = mid
        else:
            lo = mid + 1
    if lo == len(pieces):
        return 0
    return pieces[-1][3] - (pieces[lo - 1][3] if lo else 0)


def finish_len(out: BytesWriter, start: int) -> None:
    """Fill in the one-byte length placeholder at ``start``, or splice a longer one over it."""
    n = len(out) - start - 1
    pieces = splices.get(id(out)) if splices else None
    if pieces:
        n += _added_inside(pieces, start)
    if n < 0x80:
        out[start] = n
    else:
        _splice(out, start, wire.varint_bytes(n), 1)


def write_raw(out: BytesWriter, raw: bytes, with_length: bool = True) -> None:
    """Append ``raw`` verbatim (after its length, for a field); splice in large pieces."""
    if with_length:
        wire.write_varint(out, len(raw))
    if len(raw) < SPLICE_THRESHOLD:
        out.write(raw)
    else:
        _splice(out, len(out), raw, 0)


def write_span(out: BytesWriter, span: tuple[bytes, int, int, int]) -> None:
    """Append length and bytes of a lazy field kept as (input, start, end, depth)."""
    buf, start, end, _ = span
    n = end - start
    wire.write_varint(out, n)
    if n < SPLICE_THRESHOLD:
        out.write(buf[start:end])
    else:
        _splice(out, len(out), memoryview(buf)[start:end], 0)


# ----------------------------------------------------------------------------- kept input

# parse(lazy=True) and lazy repeated elements keep their input in the message's _pb_unknown
# until first access, so that no message pays a slot for that state. Kept input starts with
# a 0 byte, which unknown fields never do (it would be a tag of field number 0). Generated
# code tests `u is not _pb_no_unknown and u and u[0] == 0` (_pb_no_unknown: the module's b"",
# the shared empty bytes): compiled, the common case is one pointer comparison. A lazy element
# keeps a copy, `0, depth limit (varint), its fields`; parse(lazy=True) keeps its input by
# reference in a one-byte KeptInput.


@mypyc_attr(native_class=False)  # mypyc compiles no subclass of bytes as a native class
class KeptInput(bytes):
    """The input of ``parse(lazy=True)`` (``input``, referenced: a large input is not copied)
    and its depth limit; itself the one byte 0."""

    input: bytes
    max_depth: int


_DEPTH_PREFIXES: Final = tuple(bytes((0, d)) for d in range(0x80))


def keep_input(data: bytes, max_depth: int) -> bytes:
    """Return what a message keeps of ``data`` from ``parse(lazy=True)``."""
    kept = KeptInput(b"\0")
    kept.input = data
    kept.max_depth = max_depth
    return kept  # typed as bytes: compiled code would check a KeptInput by its exact type


def keep_fields(buf: bytes, pos: int, end: int, depth: int) -> bytes:
    """Return what a lazy element keeps of ``buf[pos:end]``, to decode with the depth limit ``depth``."""
    prefix = _DEPTH_PREFIXES[depth] if 0 <= depth < 0x80 else b"\0" + wire.varint_bytes(depth)
    return prefix + buf[pos:end]


def kept_fields(kept: bytes) -> tuple[bytes, int, int]:
    """Return ``(buffer, start, depth limit)`` of kept input: its fields are ``buffer[start:]``."""
    if type(kept) is KeptInput:
        return kept.input, 0, kept.max_depth
    depth, start = wire.dec_varint(kept, 1)
    return kept, start, depth


def kept_bytes(kept: bytes) -> bytes:
    """Return the encoded fields of kept input, as they were read."""
    buf, start, _ = kept_fields(kept)
    return buf[start:] if start else buf


def _position(piece: tuple[int, bytes | memoryview, int, int]) -> int:
    return piece[0]


def take_output(out: BytesWriter) -> bytes:
    """Return the serialized bytes of ``out``, with its pieces spliced in."""
    pieces = splices.pop(id(out), None) if splices else None
    if not pieces:
        return out.getvalue()
    view = memoryview(out.getvalue())
    parts: list[bytes | memoryview] = []
    prev = 0
    for at, piece, replaced, _ in sorted(pieces, key=_position):  # stable: equal positions keep their order
        parts.append(view[prev:at])
        parts.append(piece)
        prev = at + replaced
    parts.append(view[prev:])
    return b"".join(parts)


def discard_output(out: BytesWriter) -> None:
    """Forget the pieces of an output that failed."""
    splices.pop(id(out), None)


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


# ----------------------------------------------------------------------------- packed runs

def dec_packed(kind: int, buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    """Append the values of a packed run ``buf[pos:end]`` of ``kind`` to ``out``."""
    fmt = _FIXED_FORMAT.get(kind)
    if fmt is not None:
        size = 8 if fmt in "dQq" else 4
        n, rest = divmod(end - pos, size)
        if rest:
            raise DecodeError(f"packed run of {size}-byte values has {end - pos} bytes at offset {pos}")
        out.extend(struct.unpack_from(f"<{n}{fmt}", buf, pos))
        return
    _dec_varints(kind, buf, pos, end, out)


# Packed runs per kind, for generated code: plain functions (compiled code calls them
# directly), one loop with the one-byte fast path and the per-kind conversions.


def _dec_varints(kind: int, buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    if not wire.NATIVE and kind != TYPE_SINT32 and kind != TYPE_SINT64:
        # Interpreted, a run whose values all take one byte (every byte below 0x80) is its own
        # list of values, taken in C: 100 values 10x faster, 3 as fast. Compiled, the loops below
        # win up to ~60 values (isascii is a generic call there).
        run = buf[pos:end]
        if run.isascii():
            out.extend(map(bool, run) if kind == TYPE_BOOL else run)
            return
    if kind == TYPE_BOOL:
        while pos < end:
            b = buf[pos]
            if b < 0x80:
                pos += 1
            else:
                b, pos = wire.dec_varint(buf, pos)
            out.append(b != 0)
    elif kind == TYPE_SINT32 or kind == TYPE_SINT64:
        while pos < end:
            b = buf[pos]
            if b < 0x80:
                out.append((b >> 1) ^ -(b & 1))
                pos += 1
            elif kind == TYPE_SINT32:
                v, pos = wire.dec_sint32(buf, pos)
                out.append(v)
            else:
                v, pos = wire.dec_sint64(buf, pos)
                out.append(v)
    else:
        while pos < end:
            b = buf[pos]
            if b < 0x80:
                out.append(b)
                pos += 1
            elif kind == TYPE_INT32 or kind == TYPE_ENUM:
                v, pos = wire.dec_int32(buf, pos)
                out.append(v)
            elif kind == TYPE_INT64:
                v, pos = wire.dec_int64(buf, pos)
                out.append(v)
            elif kind == TYPE_UINT32:
                v, pos = wire.dec_uint32(buf, pos)
                out.append(v)
            else:
                v, pos = wire.dec_varint(buf, pos)
                out.append(v)
    if pos != end:
        raise DecodeError(f"packed run overruns its length (offset {pos}, end {end})")


def dec_packed_int32(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    _dec_varints(TYPE_INT32, buf, pos, end, out)


dec_packed_enum: Final = dec_packed_int32


def dec_packed_int64(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    _dec_varints(TYPE_INT64, buf, pos, end, out)


def dec_packed_uint32(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    _dec_varints(TYPE_UINT32, buf, pos, end, out)


def dec_packed_uint64(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    _dec_varints(TYPE_UINT64, buf, pos, end, out)


def dec_packed_sint32(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    _dec_varints(TYPE_SINT32, buf, pos, end, out)


def dec_packed_sint64(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    _dec_varints(TYPE_SINT64, buf, pos, end, out)


def dec_packed_bool(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    _dec_varints(TYPE_BOOL, buf, pos, end, out)


def dec_packed_fixed32(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    dec_packed(TYPE_FIXED32, buf, pos, end, out)


def dec_packed_sfixed32(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    dec_packed(TYPE_SFIXED32, buf, pos, end, out)


def dec_packed_fixed64(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    dec_packed(TYPE_FIXED64, buf, pos, end, out)


def dec_packed_sfixed64(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    dec_packed(TYPE_SFIXED64, buf, pos, end, out)


def dec_packed_float(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    dec_packed(TYPE_FLOAT, buf, pos, end, out)


def dec_packed_double(buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    dec_packed(TYPE_DOUBLE, buf, pos, end, out)


def dec_packed_closed_enum(msg: Message, number: int, known: frozenset[int], buf: bytes,
                           pos: int, end: int, out: list[int]) -> None:
    """Append a packed run of a closed enum; unknown values go to unknown fields."""
    values: list[int] = []
    dec_packed(TYPE_ENUM, buf, pos, end, values)
    for v in values:
        if v in known:
            out.append(v)
        else:
            add_unknown_varint(msg, number, v)


# the varint kinds' value ranges (enums are int32)
_VARINT_RANGES: Final = {kind: INT_RANGES[kind] for kind in (
    TYPE_INT32, TYPE_INT64, TYPE_UINT32, TYPE_UINT64, TYPE_SINT32, TYPE_SINT64)}
_VARINT_RANGES[TYPE_ENUM] = INT_RANGES[TYPE_INT32]


def out_of_range(kind: int, v: int) -> ValueError:
    """The error for an integer outside the range of its field's kind (raised by serialize)."""
    return ValueError(f"{v} is out of range for {KIND_NAMES[kind]}")


def write_varint64(out: BytesWriter, kind: int, v: int) -> None:
    """Append an int64 or uint64 value from outside -2**62..2**62-1 as a varint; ValueError
    outside the kind's range.

    Compiled, such an int is a heap object and every arithmetic step on it a generic call that
    makes a new one: it is turned into its 64-bit pattern once and written from machine ints.
    """
    try:
        pattern = v.to_bytes(8, "little", signed=kind == TYPE_INT64)  # compiled: one C call
    except OverflowError:
        raise out_of_range(kind, v) from None
    u = wire.read_i64_le(pattern, 0)  # a native int64 when compiled
    if 0 <= u < 0x100000000000000:  # fewer than nine bytes (generated code writes these itself)
        wire.write_varint(out, u)
    else:
        wire.write_wide_varint(out, u & 0xFFFFFFFFFFFFFF, (u >> 56) & 0xFF)


def write_int(out: BytesWriter, kind: int, v: int) -> None:
    """Append ``v`` as a varint of ``kind`` (zigzag for sint32/sint64); ValueError outside its range."""
    low, high = _VARINT_RANGES[kind]
    if v < low or v > high:
        raise out_of_range(kind, v)
    if kind == TYPE_SINT64:
        v = (v << 1) ^ (v >> 63)
    elif kind == TYPE_SINT32:
        v = (v << 1) ^ (v >> 31)
    wire.write_varint(out, v)


def write_packed(out: BytesWriter, kind: int, values: list[Any]) -> None:
    """Append the length and payload of a packed run (the tag is the caller's)."""
    if kind in _FIXED_FORMAT:
        wire.write_varint(out, (8 if _FIXED_FORMAT[kind] in "dQq" else 4) * len(values))
        floats: list[float] = values  # typed: compiled code passes unboxed floats
        if kind == TYPE_DOUBLE:
            for f in floats:
                wire.write_f64_le(out, f)
        elif kind == TYPE_FLOAT:
            for f in floats:
                wire.write_f32_le(out, f)
        else:
            for v in values:
                write_fixed(out, kind, v)
        return
    # varints: their length is known once written, so a one-byte placeholder goes first
    start = len(out)
    out.append(0)
    ints: list[int] = values  # typed: compiled code does int arithmetic, not generic calls
    if kind == TYPE_BOOL:
        for v in values:
            out.append(1 if v else 0)
    elif kind == TYPE_SINT32 or kind == TYPE_SINT64:
        low, high = _VARINT_RANGES[kind]  # looked up once per run, not per value
        shift = 31 if kind == TYPE_SINT32 else 63
        for v in ints:
            if v < low or v > high:
                raise out_of_range(kind, v)
            wire.write_varint(out, (v << 1) ^ (v >> shift))
    else:
        low, high = _VARINT_RANGES[kind]
        for v in ints:
            if 0 <= v < 0x80:
                out.append(v)
            elif low <= v <= high:
                wire.write_varint(out, v)
            else:
                raise out_of_range(kind, v)
    finish_len(out, start)


# ----------------------------------------------------------------------------- generic values

def decode_value(field: FieldInfo, msg: object, buf: bytes, tag: int, pos: int, end: int,
                 depth: int, existing: Any = None) -> tuple[Any, int]:
    """Decode one value of ``field`` (wire type already checked); merge into ``existing`` messages."""
    kind = field.kind
    if kind in _VARINT_DECODER:
        v, pos = _VARINT_DECODER[kind](buf, pos)
        return (v != 0 if kind == TYPE_BOOL else v), pos
    fmt = _FIXED_FORMAT.get(kind)
    if fmt is not None:
        size = 8 if fmt in "dQq" else 4
        return struct.unpack_from("<" + fmt, buf, pos)[0], pos + size
    if kind == TYPE_GROUP:
        if depth <= 0:
            raise too_deep(msg, tag, pos)
        sub = existing if existing is not None else _new(field)
        end_tag = (tag & ~7) | wire.WIRE_END_GROUP
        return sub, sub._pb_merge(buf, pos, end, depth - 1, end_tag, False)
    start, stop = read_len(msg, buf, tag, pos, end)
    if kind == TYPE_STRING:
        return decode_str(buf[start:stop], field.utf8), stop
    if kind == TYPE_BYTES:
        return buf[start:stop], stop
    if depth <= 0:
        raise too_deep(msg, tag, pos)
    sub = existing if existing is not None else _new(field)
    sub._pb_merge(buf, start, stop, depth - 1, -1, False)
    return sub, stop


def _new(field: FieldInfo) -> Message:
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
    wire.write_varint(out, (number << 3) | _WIRE_OF_KIND[kind])
    if kind in _VARINT_RANGES:
        write_int(out, kind, value)
    elif kind == TYPE_BOOL:
        out.append(1 if value else 0)
    elif kind in _FIXED_FORMAT:
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


# ----------------------------------------------------------------------------- extensions

_MSET_ITEM_START: Final = (1 << 3) | wire.WIRE_START_GROUP
_MSET_ITEM_END: Final = (1 << 3) | wire.WIRE_END_GROUP
_MSET_TYPE_ID: Final = (2 << 3) | wire.WIRE_VARINT
_MSET_MESSAGE: Final = (3 << 3) | wire.WIRE_LEN


def merge_extension(msg: ExtendableMessage, buf: bytes, tag: int, pos: int, end: int, depth: int) -> int:
    """Decode a field in an extension range if its extension is known; keep it unknown otherwise."""
    info = type(msg)._pb_info
    if info.message_set and tag == _MSET_ITEM_START:
        return _merge_message_set_item(msg, buf, pos, end, depth)
    ext = info.extensions.get(tag >> 3)
    if ext is None:
        return merge_unknown(msg, buf, tag, pos, end, depth)
    field = ext.field
    wire_type = tag & 7
    if field.repeated and field.kind not in (TYPE_STRING, TYPE_BYTES, TYPE_MESSAGE, TYPE_GROUP) \
            and wire_type == wire.WIRE_LEN:
        start, stop = read_len(msg, buf, tag, pos, end)
        values = msg._pb_ext.setdefault(field.number, [])
        assert isinstance(values, list)
        if field.enum is not None and field.enum.closed:
            dec_packed_closed_enum(msg, field.number, frozenset(field.enum.numbers), buf, start, stop, values)
        else:
            dec_packed(field.kind, buf, start, stop, values)
        if not values:  # an empty run, or only unknown enum values: the extension stays unset
            del msg._pb_ext[field.number]
        return stop
    if wire_type != _WIRE_OF_KIND[field.kind]:
        return merge_unknown(msg, buf, tag, pos, end, depth)
    existing = None if field.repeated else msg._pb_ext.get(field.number)
    value, pos = decode_value(field, msg, buf, tag, pos, end, depth, existing)
    if field.enum is not None and field.enum.closed and value not in field.enum.numbers:
        add_unknown_varint(msg, field.number, value)
        return pos
    if field.repeated:
        values = msg._pb_ext.setdefault(field.number, [])
        assert isinstance(values, list)
        values.append(value)
    else:
        msg._pb_ext[field.number] = value
    return pos


def _merge_message_set_item(msg: ExtendableMessage, buf: bytes, pos: int, end: int, depth: int) -> int:
    """Merge one MessageSet item (a group with type_id and message); unknown ids stay unknown."""
    start = pos
    type_id = 0
    payload: tuple[int, int] | None = None
    while True:
        if pos >= end:
            raise DecodeError(f"{type(msg).__name__}: MessageSet item is not terminated (offset {pos})")
        inner, pos = wire.dec_tag(buf, pos)
        if inner == _MSET_ITEM_END:
            break
        if inner == _MSET_TYPE_ID:
            type_id, pos = wire.dec_varint(buf, pos)
        elif inner == _MSET_MESSAGE:
            payload = read_len(msg, buf, inner, pos, end)
            pos = payload[1]
        else:
            wire.check_tag(inner, pos)
            pos = wire.skip_field(buf, inner, pos, end, depth - 1)
    ext = type(msg)._pb_info.extensions.get(type_id)
    if ext is None or payload is None or ext.field.message_type is None:
        msg._pb_unknown += wire.varint_bytes(_MSET_ITEM_START) + buf[start:pos]
        return pos
    if depth <= 0:
        raise too_deep(msg, _MSET_ITEM_START, pos)
    sub = msg._pb_ext.get(type_id)
    if sub is None:
        sub = _new(ext.field)
        msg._pb_ext[type_id] = sub
    sub._pb_merge(buf, payload[0], payload[1], depth - 1, -1, False)
    return pos


def write_extensions(msg: ExtendableMessage, out: BytesWriter, deterministic: bool) -> None:
    """Append the set extensions of ``msg`` in field-number order."""
    info = type(msg)._pb_info
    for number in sorted(msg._pb_ext):
        value = msg._pb_ext[number]
        field = info.extensions[number].field
        if info.message_set and field.message_type is not None and not field.repeated:
            out.append(_MSET_ITEM_START)
            out.append(_MSET_TYPE_ID)
            wire.write_varint(out, number)
            out.append(_MSET_MESSAGE)
            start = len(out)
            out.append(0)
            value._pb_encode(out, deterministic)
            finish_len(out, start)
            out.append(_MSET_ITEM_END)
        elif field.repeated:
            assert isinstance(value, list)
            if field.packed and value:
                wire.write_varint(out, (number << 3) | wire.WIRE_LEN)
                write_packed(out, field.kind, value)
            else:
                for item in value:
                    write_value(out, field, number, item, deterministic)
        else:
            write_value(out, field, number, value, deterministic)
