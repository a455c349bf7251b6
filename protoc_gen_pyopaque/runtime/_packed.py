"""Packed repeated fields: decoding runs per kind, writing runs, and 64-bit varints."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any, Final

from . import _wire as wire
from ._codec import FIXED_FORMAT, VARINT_RANGES, add_unknown_varint, out_of_range, write_fixed
from ._output import finish_len
from ._wire import BytesWriter
from .errors import DecodeError
from .reflect import (
    TYPE_BOOL, TYPE_DOUBLE, TYPE_ENUM, TYPE_FIXED32, TYPE_FIXED64, TYPE_FLOAT, TYPE_INT32,
    TYPE_INT64, TYPE_SFIXED32, TYPE_SFIXED64, TYPE_SINT32, TYPE_SINT64, TYPE_UINT32, TYPE_UINT64,
)

if TYPE_CHECKING:  # i64: an annotation only (mypyc compiles it to a C int64_t, Python runs plain ints)
    from mypy_extensions import i64

    from .message import Message

def dec_packed(kind: int, buf: bytes, pos: int, end: int, out: list[Any]) -> None:
    """Append the values of a packed run ``buf[pos:end]`` of ``kind`` to ``out``."""
    fmt = FIXED_FORMAT.get(kind)
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


def _dec_varints(kind: int, buf: bytes, pos: i64, end: i64, out: list[Any]) -> None:
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


def dec_packed_int32(buf: bytes, pos: i64, end: i64, out: list[Any]) -> None:
    _dec_varints(TYPE_INT32, buf, pos, end, out)


dec_packed_enum: Final = dec_packed_int32


def dec_packed_int64(buf: bytes, pos: i64, end: i64, out: list[Any]) -> None:
    _dec_varints(TYPE_INT64, buf, pos, end, out)


def dec_packed_uint32(buf: bytes, pos: i64, end: i64, out: list[Any]) -> None:
    _dec_varints(TYPE_UINT32, buf, pos, end, out)


def dec_packed_uint64(buf: bytes, pos: i64, end: i64, out: list[Any]) -> None:
    _dec_varints(TYPE_UINT64, buf, pos, end, out)


def dec_packed_sint32(buf: bytes, pos: i64, end: i64, out: list[Any]) -> None:
    _dec_varints(TYPE_SINT32, buf, pos, end, out)


def dec_packed_sint64(buf: bytes, pos: i64, end: i64, out: list[Any]) -> None:
    _dec_varints(TYPE_SINT64, buf, pos, end, out)


def dec_packed_bool(buf: bytes, pos: i64, end: i64, out: list[Any]) -> None:
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


def dec_packed_closed_enum(msg: Message, number: int, members: dict[int, Any], buf: bytes,
                           pos: int, end: int, out: list[Any]) -> None:
    """Append a packed run of a closed enum, as its members (``members``, by number); unknown
    values go to unknown fields."""
    values: list[int] = []
    dec_packed(TYPE_ENUM, buf, pos, end, values)
    for v in values:
        member = members.get(v)
        if member is not None:
            out.append(member)
        else:
            add_unknown_varint(msg, number, v)


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


def write_packed(out: BytesWriter, kind: int, values: list[Any]) -> None:
    """Append the length and payload of a packed run (the tag is the caller's)."""
    if kind in FIXED_FORMAT:
        wire.write_varint(out, (8 if FIXED_FORMAT[kind] in "dQq" else 4) * len(values))
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
        low, high = VARINT_RANGES[kind]  # looked up once per run, not per value
        shift = 31 if kind == TYPE_SINT32 else 63
        for v in ints:
            if v < low or v > high:
                raise out_of_range(kind, v)
            wire.write_varint(out, (v << 1) ^ (v >> shift))
    else:
        low, high = VARINT_RANGES[kind]
        for v in ints:
            if 0 <= v < 0x80:
                out.append(v)
            elif low <= v <= high:
                wire.write_varint(out, v)
            else:
                raise out_of_range(kind, v)
    finish_len(out, start)
