"""Wire-format primitives: varints, zigzag, fixed-width values, tags and skipping.

Generated code inlines the one-byte fast paths and calls these for the rest.
Encoders append to a ``librt.strings.BytesWriter`` (mypyc's runtime library): compiled,
its appends and fixed-width writes are inline C where a bytearray's are generic calls;
interpreted, they are C methods as fast as a bytearray's.
Decoders take ``(buf, pos)`` and return ``(value, new_pos)``; they may read past
the end of the current sub-message (the caller's ``pos != end`` check catches
that) but raise IndexError only at the end of ``buf``, which the generated
parse loop turns into a DecodeError.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Final

from librt.strings import (
    BytesWriter, read_f32_le, read_f64_le, read_i32_le, read_i64_le, write_f32_le, write_f64_le, write_i32_le,
    write_i64_le,
)

from .errors import DecodeError

if TYPE_CHECKING:  # an annotation only: mypyc compiles it to a C int64_t, Python runs plain ints
    from mypy_extensions import i64

__all__ = [
    "WIRE_VARINT", "WIRE_FIXED64", "WIRE_LEN", "WIRE_START_GROUP", "WIRE_END_GROUP",
    "WIRE_FIXED32", "MAX_FIELD_NUMBER",
    "dec_varint", "dec_tag", "dec_len", "dec_int32", "dec_int64", "dec_uint32", "dec_sint32", "dec_sint64",
    "write_varint", "write_wide_varint", "varint_bytes", "varint_size", "pack_float", "skip_field", "unpack_f32",
    "unpack_u32", "unpack_u64", "BytesWriter", "write_f32_le", "write_f64_le", "write_i32_le",
    "write_i64_le", "write_fixed32", "write_fixed64", "read_f32_le", "read_f64_le", "read_i32_le",
    "read_i64_le", "skip_varint", "check_varints", "valid_utf8",
]

WIRE_VARINT: Final = 0
WIRE_FIXED64: Final = 1
WIRE_LEN: Final = 2
WIRE_START_GROUP: Final = 3
WIRE_END_GROUP: Final = 4
WIRE_FIXED32: Final = 5
MAX_FIELD_NUMBER: Final = (1 << 29) - 1

# True when this module runs compiled by pyopaque-compile (mypyc): the few primitives
# whose fastest form differs between the two ask it.
NATIVE: Final = not __file__.endswith(".py")

_MASK32: Final = 0xFFFFFFFF
_BIT63: Final = 1 << 63
_I64_MIN: Final = -(1 << 63)
_MAX_I64: Final = (1 << 63) - 1
_SIGN32: Final = 0x80000000
_MAX_VARINT_BYTES: Final = 10

_F32: Final = struct.Struct("<f")
_U32: Final = struct.Struct("<I")
_U64: Final = struct.Struct("<Q")
# Final: compiled code reads these from C statics instead of looking them up on each call
unpack_f32: Final = _F32.unpack_from
unpack_u32: Final = _U32.unpack_from
unpack_u64: Final = _U64.unpack_from


def dec_varint(buf: bytes, pos: i64, signed: bool = False) -> tuple[int, i64]:
    """Decode an unsigned varint at ``pos``, or with ``signed`` its 64 bits as an int64 (two's
    complement); bits above 64 are dropped, as protobuf does.

    Unrolled: no loop state to update per byte. Compiled, the bytes are put together in native
    int64s (i64: inline shifts and ors where int operations are calls that check for overflow);
    only an unsigned value of 2**63 or more takes big-int arithmetic (a signed one none: the
    signed kinds' negative values are no heap ints made and taken apart again).
    """
    b: i64 = buf[pos]
    if b < 0x80:
        return b, pos + 1
    result: i64 = b & 0x7F
    b = buf[pos + 1]
    if b < 0x80:
        return result | (b << 7), pos + 2
    result |= (b & 0x7F) << 7
    b = buf[pos + 2]
    if b < 0x80:
        return result | (b << 14), pos + 3
    result |= (b & 0x7F) << 14
    b = buf[pos + 3]
    if b < 0x80:
        return result | (b << 21), pos + 4
    result |= (b & 0x7F) << 21
    b = buf[pos + 4]
    if b < 0x80:
        return result | (b << 28), pos + 5
    result |= (b & 0x7F) << 28
    b = buf[pos + 5]
    if b < 0x80:
        return result | (b << 35), pos + 6
    result |= (b & 0x7F) << 35
    b = buf[pos + 6]
    if b < 0x80:
        return result | (b << 42), pos + 7
    result |= (b & 0x7F) << 42
    b = buf[pos + 7]
    if b < 0x80:
        return result | (b << 49), pos + 8
    result |= (b & 0x7F) << 49
    b = buf[pos + 8]
    if b < 0x80:
        return result | (b << 56), pos + 9
    result |= (b & 0x7F) << 56  # bits 56 to 62: still an i64
    b = buf[pos + 9]
    if b >= 0x80:
        raise DecodeError(f"varint longer than 10 bytes at offset {pos}")
    if b & 1:  # bit 63 (the tenth byte's other bits are dropped)
        if signed:  # the sign bit of an int64
            return result | _I64_MIN, pos + 10
        low: int = result  # beyond an i64: one Python int addition
        return low + _BIT63, pos + 10
    return result, pos + 10


_MAX_TAG_BYTES: Final = 5


def dec_tag(buf: bytes, pos: i64) -> tuple[i64, i64]:
    """Decode a tag: at most five bytes and 32 bits, as protobuf requires."""
    b = buf[pos]
    if b < 0x80:
        return b, pos + 1
    b1 = buf[pos + 1]
    if b1 < 0x80:  # fields 16 to 2047
        return (b & 0x7F) | (b1 << 7), pos + 2
    tag, end = dec_varint(buf, pos)
    if end - pos > _MAX_TAG_BYTES:
        raise DecodeError(f"tag longer than 5 bytes at offset {pos}")
    if tag > _MASK32:
        raise DecodeError(f"tag out of range at offset {pos}")
    return tag, end


_MAX_LENGTH: Final = (1 << 31) - 1


def dec_len(buf: bytes, pos: i64) -> tuple[i64, i64]:
    """Decode a length prefix: at most five bytes and below 2 GiB, as protobuf requires."""
    n, end = dec_varint(buf, pos)
    if end - pos > _MAX_TAG_BYTES or n > _MAX_LENGTH:
        raise DecodeError(f"invalid length prefix at offset {pos}")
    return n, end


def dec_int32(buf: bytes, pos: i64) -> tuple[int, i64]:
    """Decode an int32 (or enum) varint: the low 32 bits, two's complement."""
    v: i64  # the signed value fits an int64: native operations compiled
    v, pos = dec_varint(buf, pos, True)
    v &= _MASK32
    return (v - (1 << 32) if v & _SIGN32 else v), pos


def dec_int64(buf: bytes, pos: i64) -> tuple[int, i64]:
    """Decode an int64 varint, two's complement."""
    return dec_varint(buf, pos, True)


def dec_uint32(buf: bytes, pos: i64) -> tuple[int, i64]:
    """Decode a uint32 varint: the low 32 bits."""
    v: i64  # the signed value fits an int64: native operations compiled
    v, pos = dec_varint(buf, pos, True)
    return v & _MASK32, pos


def dec_sint32(buf: bytes, pos: i64) -> tuple[int, i64]:
    """Decode a zigzag sint32."""
    v: i64  # the signed value fits an int64: native operations compiled
    v, pos = dec_varint(buf, pos, True)
    v &= _MASK32
    return (v >> 1) ^ -(v & 1), pos


def dec_sint64(buf: bytes, pos: i64) -> tuple[int, i64]:
    """Decode a zigzag sint64: the int64 shifted right unsigned (the mask clears the sign an
    arithmetic shift copies), its low bit the sign."""
    v: i64  # the signed value fits an int64: native operations compiled
    v, pos = dec_varint(buf, pos, True)
    return ((v >> 1) & _MAX_I64) ^ -(v & 1), pos


_LARGE_VARINT: Final = 1 << 56  # from here on, varints take nine or ten bytes


def write_varint(out: BytesWriter, v: int) -> None:
    """Append ``v`` (-2**63 <= v < 2**64, checked by the callers) as a varint; negative values
    take ten bytes (two's complement)."""
    if 0 <= v < _LARGE_VARINT:
        while v >= 0x80:
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        out.append(v)
        return
    # Nine or ten bytes. Compiled, an int of 2**62 or more is a heap object and every step of
    # the loop above would make a new one: take the low 56 bits and the top byte of the 64-bit
    # two's complement apart (two operations on v; no adding 2**64 to a negative v).
    write_wide_varint(out, v & 0xFFFFFFFFFFFFFF, (v >> 56) & 0xFF)


def write_wide_varint(out: BytesWriter, low: i64, top: int) -> None:
    """Append the nine- or ten-byte varint of a 64-bit pattern given as its low 56 bits and its
    top byte.

    The 56 bits move to seven per byte in three steps (the upper four groups by four bits, then
    every other pair by two, then every other group by one) and go out as one int64 with every
    byte's continuation bit set: a dozen int operations instead of eight appends, which
    interpreted are calls.
    """
    low = (low & 0xFFFFFFF) | ((low & 0xFFFFFFF0000000) << 4)
    low = (low & 0xFFFF0000FFFF) | ((low & 0xFFFC0000FFFC000) << 2)
    low = (low & 0x7F00FF00FF00FF) | ((low & 0x3F803F803F803F80) << 1)
    write_i64_le(out, low | -0x7F7F7F7F7F7F7F80)  # 0x8080808080808080 as an int64
    if top >= 0x80:
        out.append((top & 0x7F) | 0x80)
        top >>= 7
    out.append(top)


def write_fixed32(out: BytesWriter, v: int) -> None:
    """Append a fixed32 (ValueError outside 0..2**32-1)."""
    write_i32_le(out, _as_signed(v, 32, "fixed32"))


def write_fixed64(out: BytesWriter, v: int) -> None:
    """Append a fixed64 (ValueError outside 0..2**64-1)."""
    write_i64_le(out, _as_signed(v, 64, "fixed64"))


def _as_signed(v: int, bits: int, kind: str) -> int:
    """librt writes signed values only: the upper half of an unsigned range goes as negative."""
    if v < 0 or v >> bits:
        raise ValueError(f"{v} is out of range for {kind}")
    return v - (1 << bits) if v >> (bits - 1) else v


def varint_bytes(v: int) -> bytes:
    """Return ``v`` encoded as a varint."""
    out = BytesWriter()
    write_varint(out, v)
    return out.getvalue()


def varint_size(v: int) -> int:
    """Return the number of bytes of ``v`` as a varint."""
    if v < 0:
        return _MAX_VARINT_BYTES
    n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


def pack_float(v: float) -> bytes:
    """Pack a float32, rounding out-of-range finite values to infinity as C does."""
    try:
        return _F32.pack(v)
    except OverflowError:
        return _F32.pack(float("inf") if v > 0 else float("-inf"))


def skip_field(buf: bytes, tag: i64, pos: i64, end: i64, depth: i64) -> i64:
    """Skip the value of ``tag`` starting at ``pos``; return the position after it.

    Groups are skipped recursively, ``depth`` bounding the nesting.
    """
    wire_type = tag & 7
    if wire_type == WIRE_VARINT:
        start = pos
        while buf[pos] >= 0x80:
            pos += 1
        if pos - start >= _MAX_VARINT_BYTES:
            raise DecodeError(f"varint longer than 10 bytes at offset {start}")
        return pos + 1
    if wire_type == WIRE_FIXED64:
        return pos + 8
    if wire_type == WIRE_FIXED32:
        return pos + 4
    if wire_type == WIRE_LEN:
        n = buf[pos]
        if n < 0x80:
            pos += 1
        else:
            n, pos = dec_len(buf, pos)
        if pos + n > end:
            raise DecodeError(f"length {n} at offset {pos} runs past the end of the message")
        return pos + n
    if wire_type == WIRE_START_GROUP:
        if depth <= 0:
            raise DecodeError(f"groups nested too deeply at offset {pos}")
        end_tag = (tag & ~7) | WIRE_END_GROUP
        while True:
            if pos >= end:
                raise DecodeError(f"group of field {tag >> 3} is not terminated")
            inner, pos = dec_tag(buf, pos)
            if inner == end_tag:
                return pos
            check_tag(inner, pos)
            pos = skip_field(buf, inner, pos, end, depth - 1)
    raise DecodeError(f"invalid wire type {wire_type} of field {tag >> 3} at offset {pos}")


def skip_varint(buf: bytes, pos: i64) -> i64:
    """Return the position after the varint at ``pos`` (of two bytes or more: the caller took
    one-byte varints inline); reject one longer than 10 bytes, as dec_varint does."""
    start = pos
    while buf[pos] >= 0x80:
        pos += 1
        if pos - start == _MAX_VARINT_BYTES:
            raise DecodeError(f"varint longer than 10 bytes at offset {start}")
    return pos + 1


def check_varints(buf: bytes, pos: i64, end: i64) -> None:
    """Check that ``buf[pos:end]`` is a run of whole varints (a packed field), as decoding it would."""
    while pos < end:
        if buf[pos] < 0x80:
            pos += 1
        else:
            pos = skip_varint(buf, pos)
    if pos != end:
        raise DecodeError(f"packed run overruns its length (offset {pos}, end {end})")


def valid_utf8(buf: bytes, pos: i64, end: i64) -> bool:
    """Say whether ``buf[pos:end]`` is valid UTF-8, without making the str.

    Compiled, ASCII text (the common case) is checked eight bytes at a time, the last word
    overlapping the one before (or, for text under eight bytes, the word that ends with it,
    its other bytes shifted out); other short text is checked byte by byte (no object made),
    longer text decoded, which is the fastest full check there (and, interpreted, the only one:
    inline, no call more).
    """
    if NATIVE:
        high: i64 = 0x80808080  # not a module constant: one beyond 62 bits stays boxed (mypyc)
        high |= high << 32
        last = end - 8  # where the text's last word starts
        if pos <= last:
            at = pos
            while at < last and not read_i64_le(buf, at) & high:
                at += 8
            if at >= last and not read_i64_le(buf, last) & high:
                return True
        elif pos >= end:
            return True
        elif last >= 0 and not (read_i64_le(buf, last) >> ((pos - last) * 8)) & high:
            return True  # the top end - pos bytes of that word; a sign bit shifted in is one of them
        if end - pos < _UTF8_CHECKED_BY_BYTE_BELOW:
            return _valid_utf8_bytes(buf, pos, end)
    try:
        buf[pos:end].decode()
    except UnicodeDecodeError:
        return False
    return True


# Compiled, non-ASCII text shorter than this is checked byte by byte: for short text, making the
# slice and the str that decoding makes costs more than the loop.
_UTF8_CHECKED_BY_BYTE_BELOW: Final = 128


def _valid_utf8_bytes(buf: bytes, pos: i64, end: i64) -> bool:
    """valid_utf8 byte by byte: the well-formed sequences of Unicode's table 3-7, which are what
    ``bytes.decode()`` accepts (no overlong forms, surrogates or code points past U+10FFFF)."""
    while pos < end:
        b: i64 = buf[pos]
        if b < 0x80:
            pos += 1
            continue
        if b < 0xC2 or b > 0xF4:  # a continuation byte, an overlong lead, or past U+10FFFF
            return False
        size: i64 = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        if pos + size > end:
            return False
        low: i64 = 0x80  # the range of the second byte
        high: i64 = 0xBF
        if b == 0xE0:
            low = 0xA0
        elif b == 0xED:
            high = 0x9F
        elif b == 0xF0:
            low = 0x90
        elif b == 0xF4:
            high = 0x8F
        second: i64 = buf[pos + 1]
        if second < low or second > high:
            return False
        i = pos + 2
        pos += size
        while i < pos:
            if buf[i] & 0xC0 != 0x80:
                return False
            i += 1
    return True


def check_tag(tag: int, pos: int) -> None:
    """Reject field number 0, numbers beyond 2**29-1, wire types 6/7 and stray end-groups."""
    if tag >> 3 == 0 or tag >> 3 > MAX_FIELD_NUMBER:
        raise DecodeError(f"invalid field number {tag >> 3} at offset {pos}")
    wire_type = tag & 7
    if wire_type > WIRE_FIXED32:
        raise DecodeError(f"invalid wire type {wire_type} of field {tag >> 3} at offset {pos}")
    if wire_type == WIRE_END_GROUP:
        raise DecodeError(f"unexpected end-group of field {tag >> 3} at offset {pos}")
