"""Lazy decoding: kept input (parse(lazy=True), lazy elements) and its structure check."""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any, Final, cast

from mypy_extensions import mypyc_attr

from . import _wire as wire
from ._codec import WIRE_OF_KIND, read_len, struct_error
from ._codec_errors import decode_failure, field_label, too_deep
from ._extensions import merge_extension
from .errors import DecodeError
from .reflect import TYPE_GROUP, TYPE_MESSAGE, ExtensionInfo, MessageInfo

if TYPE_CHECKING:  # i64: an annotation only (mypyc compiles it to a C int64_t, Python runs plain ints)
    from mypy_extensions import i64

    from .message import Message

__all__ = ["check_structure", "nesting_bound", "UNBOUNDED", "NESTING_CHECKED", "KeptInput",
           "keep_input", "keep_fields", "kept_fields", "kept_bytes", "kept_verbatim", "scan_unknown",
           "scan_by_decode", "scan_varint", "scan_packed_varints", "scan_packed_fixed", "signalling_f32",
           "map_keys_unique"]

# The ``lazy`` argument of _pb_merge: false decodes everything; true keeps [lazy] fields' bytes,
# checking a verified field's structure and the nesting depth of everything inside it;
# NESTING_CHECKED does the same inside bytes whose nesting an enclosing check already covered
# (the decode of kept bytes), so that only each level's own structure is checked again: every
# byte is walked for nesting once, not once per enclosing lazy level.
NESTING_CHECKED: Final = 2

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


def check_structure(msg: object, buf: bytes, tag: int, pos: int, end: int, depth: int,
                    cls: type | None = None, lazy: int = True) -> None:
    """Check the wire structure of ``buf[pos:end]`` without decoding it (verified lazy fields).

    Tags, wire types, varints, lengths and group nesting are checked at this level, and,
    given ``cls`` (the class those bytes encode), the nesting depth of the messages inside,
    unless ``lazy`` (_pb_merge's) says an enclosing check covered it; what else needs the
    schema (UTF-8, nested messages' other contents) is checked on decode.
    """
    nesting = None
    if cls is not None and lazy != NESTING_CHECKED and end - pos >= 2 * depth + 2:  # long enough
        nesting = _nesting(cls)
        if nesting.bound <= depth:  # of too shallow a schema to nest too deep
            nesting = None
    try:
        _check_fields(nesting, buf, pos, end, depth, -1)
    except DecodeError as exc:
        raise DecodeError(f"{field_label(msg, tag)} (lazy, offset {pos}): {exc}") from None
    except RecursionError:  # a max_depth beyond the Python stack
        raise DecodeError(f"{field_label(msg, tag)} (lazy, offset {pos}): nesting too deep for the Python stack") from None


UNBOUNDED: Final = 1 << 62


class _Nesting:
    """What the nesting check needs of a message class ``cls``: ``table``, tag -> (the
    _Nesting of the message a field of that tag holds, whether a map entry holds it); its
    extensions (registered later too); ``bound``, the most levels of messages its fields can
    nest, one below another (UNBOUNDED: recursive or extendable). Built under a lock and
    published complete, with those of the classes it reaches."""

    def __init__(self, cls: type, extensions: dict[int, ExtensionInfo]) -> None:
        self.cls: Final = cls
        self.extensions: Final = extensions
        self.table: Final[dict[int, tuple[_Nesting, bool]]] = {}
        self.bound = UNBOUNDED  # while computed: a cycle is unbounded


_nestings: Final[dict[type, _Nesting]] = {}  # complete ones only: read without a lock
_nestings_lock: Final = threading.Lock()
_NO_TABLE: Final[dict[int, tuple[_Nesting, bool]]] = {}
_NO_EXTENSIONS: Final[dict[int, ExtensionInfo]] = {}


def _nesting(cls: type) -> _Nesting:
    nesting = _nestings.get(cls)
    if nesting is None:
        with _nestings_lock:
            building: dict[type, _Nesting] = {}
            nesting = _build_nesting(cls, building)
            _nestings.update(building)
    return nesting


def _build_nesting(cls: type, building: dict[type, _Nesting]) -> _Nesting:
    nesting = _nestings.get(cls) or building.get(cls)
    if nesting is None:
        info: MessageInfo = getattr(cls, "_pb_info")
        nesting = building[cls] = _Nesting(cls, info.extensions)
        bound = UNBOUNDED if info.extension_ranges else 0
        for field in info.fields:
            value = field.map_value
            if value is not None and value.message_type is not None:
                tag, child, in_map_entry = field.number << 3 | wire.WIRE_LEN, value.message_type, True
            elif field.message_type is not None and field.kind in (TYPE_MESSAGE, TYPE_GROUP):
                wire_type = wire.WIRE_LEN if field.kind == TYPE_MESSAGE else wire.WIRE_START_GROUP
                tag, child, in_map_entry = field.number << 3 | wire_type, field.message_type, False
            else:
                continue
            child_nesting = _build_nesting(child, building)
            nesting.table[tag] = (child_nesting, in_map_entry)
            bound = max(bound, min(UNBOUNDED, 1 + child_nesting.bound))
        nesting.bound = bound
    return nesting


def nesting_bound(cls: type) -> int:
    """The most levels of messages the schema lets a ``cls`` message hold, one below another."""
    return _nesting(cls).bound


def _check_fields(nesting: _Nesting | None, buf: bytes, pos: int, end: int, depth: int, end_tag: int) -> int:
    """Check the structure of the fields in ``buf[pos:end]`` (up to ``end_tag`` for a group)
    and return the end; given ``nesting``, that of their message class, check also that the
    messages inside nest no deeper than ``depth`` allows, as decoding them would, walking
    each in one pass with this level. A nesting level takes at least two bytes, so
    sub-messages too short or of too shallow a schema to reach the limit are skipped by
    their length.

    Common one-byte tags take inline paths; the rest goes through skip_field.
    """
    table = _NO_TABLE
    extensions = _NO_EXTENSIONS
    cls: type | None = None
    if nesting is not None:
        table = nesting.table
        extensions = nesting.extensions
        cls = nesting.cls
    kinds = _ONE_BYTE_TAG
    varint_end = _VARINT.match
    try:
        while pos < end:
            tag = buf[pos]
            kind = kinds[tag]
            if kind == _SKIP_LEN:
                n = buf[pos + 1]
                if n < 0x80:
                    start = pos + 2
                elif buf[pos + 2] < 0x80:
                    n = (n & 0x7F) | (buf[pos + 2] << 7)
                    start = pos + 3
                else:
                    n, start = wire.dec_len(buf, pos + 1)
                pos = start + n
                if pos > end:
                    raise DecodeError(f"length {n} at offset {start} runs past the end of the message")
                if nesting is None:
                    continue
                entry = table.get(tag)
                if entry is None:
                    entry = _extension_entry(extensions, tag) if extensions else None
                    if entry is None:
                        continue
            else:
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
                tag, pos = wire.dec_tag(buf, pos)
                if tag == end_tag:
                    return pos
                wire.check_tag(tag, pos)
                entry = table.get(tag)
                if entry is None and extensions:
                    entry = _extension_entry(extensions, tag)
                if entry is None:
                    pos = wire.skip_field(buf, tag, pos, end, depth)
                    continue
                if tag & 7 == wire.WIRE_START_GROUP:
                    if depth <= 0:
                        raise too_deep(cls, tag, pos)
                    pos = _check_fields(entry[0], buf, pos, end, depth - 1, (tag & ~7) | wire.WIRE_END_GROUP)
                    continue
                start, pos = read_len(cls, buf, tag, pos, end)
            # a message field (or map entry holding one) in buf[start:pos]: one level deeper
            child, in_map_entry = entry
            if depth <= 0:
                raise too_deep(cls, tag, start)
            if pos - start >= 2 * depth and child.bound >= depth:  # room for `depth` more levels
                if in_map_entry:  # its value (field 2) holds the message
                    _check_entry(child, buf, start, pos, depth)
                else:
                    _check_fields(child, buf, start, pos, depth - 1, -1)
    except (IndexError, struct_error):
        raise DecodeError(f"input truncated at offset {pos}") from None
    if end_tag >= 0:
        raise DecodeError(f"group of field {end_tag >> 3} is not terminated")
    if pos != end:
        raise DecodeError(f"field runs past the end of the message (offset {pos})")
    return pos


def _extension_entry(extensions: dict[int, ExtensionInfo], tag: int) -> tuple[_Nesting, bool] | None:
    """The nesting table entry of a registered extension of ``tag`` that holds a message."""
    ext = extensions.get(tag >> 3)
    if ext is not None and ext.field.message_type is not None and tag & 7 == WIRE_OF_KIND[ext.field.kind]:
        return _nesting(ext.field.message_type), False
    return None


def _check_entry(child: _Nesting, buf: bytes, pos: int, end: int, depth: int) -> None:
    """_check_fields for one map entry whose value (field 2) is a ``child`` message."""
    while pos < end:
        tag, pos = wire.dec_tag(buf, pos)
        if tag == 2 << 3 | wire.WIRE_LEN:
            start, stop = read_len(child.cls, buf, tag, pos, end)
            _check_fields(child, buf, start, stop, depth - 1, -1)
            pos = stop
        else:
            wire.check_tag(tag, pos)
            pos = wire.skip_field(buf, tag, pos, end, depth)
    if pos != end:
        raise DecodeError(f"field runs past the end of the message (offset {pos})")


# ----------------------------------------------------------------------------- length prefixes


# parse(lazy=True) and lazy repeated elements keep their input in the message's _pb_unknown
# until first access, so that no message pays a slot for that state. Kept input starts with
# a 0 byte, which unknown fields never do (it would be a tag of field number 0). Generated
# code tests `u is not _pb_no_unknown and u and u[0] == 0` (_pb_no_unknown: the module's b"",
# the shared empty bytes): compiled, the common case is one pointer comparison. A lazy element
# keeps a copy, `0, depth limit (varint), its fields`; parse(lazy=True) keeps its input by
# reference in a one-byte KeptInput. The depth limit is kept doubled, plus 1 when the nesting
# inside was checked at parse (a verified [lazy] element, and parse(lazy=True) always).


@mypyc_attr(native_class=False)  # mypyc compiles no subclass of bytes as a native class
class KeptInput(bytes):
    """The input of ``parse(lazy=True)`` (``input``, referenced: a large input is not copied),
    its depth limit, and whether it is ``canonical``: byte for byte what serialize() would
    write for it (the scan's verdict), so that it may be written back as it is; itself the one
    byte 0."""

    input: bytes
    max_depth: int
    canonical: bool


_DEPTH_PREFIXES: Final = tuple(b"\0" + wire.varint_bytes(d) for d in range(0x200))


def keep_input(data: bytes, max_depth: int, canonical: bool) -> bytes:
    """Return what a message keeps of ``data`` from ``parse(lazy=True)`` (``canonical``: see KeptInput)."""
    kept = KeptInput(b"\0")
    kept.input = data
    kept.max_depth = max_depth
    kept.canonical = canonical
    return kept  # typed as bytes: compiled code would check a KeptInput by its exact type


def keep_fields(buf: bytes, pos: int, end: int, depth: int, nesting_checked: bool = False) -> bytes:
    """Return what a lazy element keeps of ``buf[pos:end]``, to decode with the depth limit
    ``depth``; ``nesting_checked``: check_structure checked the nesting inside."""
    limit = depth << 1 | nesting_checked
    prefix = _DEPTH_PREFIXES[limit] if 0 <= limit < 0x200 else b"\0" + wire.varint_bytes(limit)
    return prefix + buf[pos:end]


def kept_fields(kept: bytes | bytearray) -> tuple[bytes, int, int, int]:
    """Return ``(buffer, start, depth limit, lazy)`` of kept input: its fields are
    ``buffer[start:]``, to decode with _pb_merge's ``lazy`` argument ``lazy``."""
    if type(kept) is KeptInput:
        return kept.input, 0, kept.max_depth, NESTING_CHECKED
    fields = cast(bytes, kept)  # kept input is bytes (only unknown fields grow into a bytearray)
    limit, start = wire.dec_varint(fields, 1)
    return fields, start, limit >> 1, NESTING_CHECKED if limit & 1 else True


def kept_bytes(kept: bytes | bytearray) -> bytes:
    """Return the encoded fields of kept input, as they were read."""
    buf, start, _, _ = kept_fields(kept)
    return buf[start:] if start else buf


def kept_verbatim(kept: bytes | bytearray) -> bytes | None:
    """Return the encoded fields of kept input if serialize may write them as they were read,
    else None (the message is decoded and encoded again). The input of ``parse(lazy=True)``
    is written back only when canonical; a lazy element's bytes always are, as its parent's
    encoding writes them back when decoded too."""
    if type(kept) is KeptInput:
        return kept.input if kept.canonical else None
    return kept_bytes(kept)


# ----------------------------------------------------------------------------- validating scan


# A deferred parse (parse(lazy=True), and the compiled build's default) runs the generated
# _pb_scan of the message: every check a decode makes (wire structure, lengths, varints, groups,
# depth, UTF-8), no value made, and whether the input is canonical: what _pb_encode would write
# for the message it encodes (docs/lazy.md lists the conditions). The functions below take what
# the generated scan leaves to the runtime.

# The varint kinds of scan_varint and scan_packed_varints, by the values they encode canonically:
# bool (one byte, 0 or 1), int32/enum (below 2**31, or ten bytes for a negative value),
# uint32/sint32 (below 2**32), 64-bit kinds (any minimal varint).
VARINT_BOOL: Final = 1
VARINT_INT32: Final = 31
VARINT_UINT32: Final = 32
VARINT_64: Final = 64
_INT32_NEGATIVE_TOP: Final = (1 << 33) - 1  # bits 31 to 63 of a negative int32's varint
_MAX_VARINT_BYTES: Final = 10


def scan_varint(buf: bytes, pos: i64, kind: i64) -> i64:
    """Return the position after the varint of two bytes or more at ``pos`` (rejecting one over
    ten bytes), or its bitwise complement (negative) when it is not the varint the encoder
    writes for a value of ``kind`` (VARINT_*): not minimal, or out of the kind's range."""
    start = pos
    while buf[pos] >= 0x80:
        pos += 1
        if pos - start == _MAX_VARINT_BYTES:
            raise DecodeError(f"varint longer than 10 bytes at offset {start}")
    last = buf[pos]
    pos += 1
    size = pos - start
    if last == 0 or kind == VARINT_BOOL:  # a zero last byte: a shorter form exists
        return ~pos
    if kind == VARINT_64:
        canonical = size < _MAX_VARINT_BYTES or last == 1
    elif kind == VARINT_UINT32:
        canonical = size < 5 or (size == 5 and last < 0x10)
    elif size < 5 or (size == 5 and last < 0x08):
        canonical = True
    else:  # an int32 below zero: ten bytes, bits 31 to 63 set
        canonical = size == _MAX_VARINT_BYTES and last == 1 and wire.dec_varint(buf, start)[0] >> 31 == _INT32_NEGATIVE_TOP
    return pos if canonical else ~pos


def scan_packed_varints(buf: bytes, pos: i64, end: i64, kind: i64, known: dict[int, str] | None) -> bool:
    """Check ``buf[pos:end]`` as a packed run of varints (raise DecodeError as decoding it
    would); say whether it is canonical: not empty, every value as scan_varint wants it, and,
    given ``known`` (a closed enum's numbers), every value one of them."""
    canonical = pos < end
    while pos < end:
        b = buf[pos]
        if b < 0x80:
            if kind == VARINT_BOOL and b > 1:
                canonical = False
            if known is not None and b not in known:
                canonical = False
            pos += 1
            continue
        start = pos
        pos = scan_varint(buf, pos, kind)
        if pos < 0:
            pos = ~pos
            canonical = False
        elif known is not None and wire.dec_int32(buf, start)[0] not in known:
            canonical = False
    if pos != end:
        raise DecodeError(f"packed run overruns its length (offset {pos}, end {end})")
    return canonical


def signalling_f32(bits: int) -> bool:
    """Whether float32 ``bits`` (as read_i32_le returns them) are a signalling NaN, which a
    decode and encode give back quiet (the widening to a double sets its quiet bit)."""
    return bits & 0x7FC00000 == 0x7F800000 and bits & 0x3FFFFF != 0


def scan_packed_fixed(buf: bytes, pos: i64, end: i64, width: i64, f32: bool) -> bool:
    """Check ``buf[pos:end]`` as a packed run of ``width``-byte values; say whether it is
    canonical: not empty and, for floats (``f32``), without signalling NaNs."""
    if (end - pos) % width:
        raise DecodeError(f"packed run of {width}-byte values has {end - pos} bytes at offset {pos}")
    if pos >= end:
        return False
    if f32:
        while pos < end:
            if signalling_f32(wire.read_i32_le(buf, pos)):
                return False
            pos += 4
    return True


# Compiled, a map of up to this many entries has its keys compared in place, each with the ones
# after it (no object made); larger maps, and every map interpreted, put them in a set.
MAP_KEYS_COMPARED_IN_PLACE: Final = 8


def map_keys_unique(buf: bytes, pos: i64, end: i64, tag_size: i64) -> bool:
    """Whether no key is given twice among the map entries in ``buf[pos:end]``.

    The entries there are canonical (length, key tag, key, value tag, value, each but the last
    followed by the map's tag of ``tag_size`` bytes), so equal keys are equal bytes, and a key
    that starts with the other's bytes ends where it does. Linear in the entries.
    """
    if wire.NATIVE and _entries_at_most(buf, pos, end, tag_size, MAP_KEYS_COMPARED_IN_PLACE):
        return _keys_unique_in_place(buf, pos, end, tag_size)
    keys: set[bytes] = set()
    count: i64 = 0
    while pos < end:
        n: i64 = buf[pos]
        if n < 0x80:
            pos += 1
        else:
            n, pos = wire.dec_len(buf, pos)
        key = pos + 1
        short: i64 = buf[key]  # a string key's length, if it takes one byte: no call
        keys.add(buf[key:key + 1 + short] if buf[pos] == 0x0A and short < 0x80 else buf[key:_key_end(buf, key)])
        count += 1
        pos += n + tag_size
    return len(keys) == count


def _entries_at_most(buf: bytes, pos: i64, end: i64, tag_size: i64, most: i64) -> bool:
    """Whether ``buf[pos:end]`` holds at most ``most`` map entries (as map_keys_unique's)."""
    while pos < end:
        if most == 0:
            return False
        most -= 1
        pos = _entry_end(buf, pos) + tag_size
    return True


def _keys_unique_in_place(buf: bytes, pos: i64, end: i64, tag_size: i64) -> bool:
    """map_keys_unique by comparing each key with the ones after it: no object made."""
    while pos < end:
        key = _entry_key(buf, pos)
        size = _key_end(buf, key) - key
        pos = _entry_end(buf, pos) + tag_size
        other = pos
        while other < end:
            at = _entry_key(buf, other)
            other = _entry_end(buf, other)
            if at + size <= other:
                i: i64 = 0
                while i < size and buf[at + i] == buf[key + i]:
                    i += 1
                if i == size:
                    return False
            other += tag_size
    return True


def _entry_key(buf: bytes, pos: i64) -> i64:
    """Where the key of the map entry whose length is at ``pos`` starts (after its one-byte tag)."""
    return pos + 2 if buf[pos] < 0x80 else wire.dec_len(buf, pos)[1] + 1


def _entry_end(buf: bytes, pos: i64) -> i64:
    """The end of the map entry (or string) whose length is at ``pos``."""
    n: i64 = buf[pos]
    if n < 0x80:
        return pos + 1 + n
    n, pos = wire.dec_len(buf, pos)
    return pos + n


def _key_end(buf: bytes, key: i64) -> i64:
    """The end of the (canonical) map key at ``key``, by the wire type of its tag before it."""
    wire_type = buf[key - 1] & 7
    if wire_type == wire.WIRE_VARINT:
        while buf[key] >= 0x80:
            key += 1
        return key + 1
    if wire_type == wire.WIRE_FIXED64:
        return key + 8
    if wire_type == wire.WIRE_FIXED32:
        return key + 4
    return _entry_end(buf, key)  # a string: its length, then its bytes


def scan_unknown(cls: Any, buf: bytes, tag: i64, pos: i64, end: i64, depth: i64) -> i64:
    """Check a field a ``cls`` message has no case for, as its decode would; return the end.

    In an extendable message, the field is decoded into a scratch message (a known extension
    may hold anything; extensions are rare); any other is kept as read by a decode, so its
    structure is all there is to check.
    """
    info: MessageInfo = cls._pb_info
    if info.extension_ranges:
        try:
            return merge_extension(cls(), buf, tag, pos, end, depth)
        except (IndexError, UnicodeDecodeError, struct_error) as exc:
            raise decode_failure(cls, tag, pos, exc) from None
    wire.check_tag(tag, pos)
    return wire.skip_field(buf, tag, pos, end, depth)


def scan_by_decode(cls: Any, buf: bytes, pos: i64, end: i64, depth: i64, end_tag: i64) -> i64:
    """Check ``buf[pos:end]`` (up to ``end_tag`` for a group) by decoding it into a scratch
    ``cls`` message: for groups and messages without a generated scan (open style)."""
    scratch: Message = cls()
    return scratch._pb_merge(buf, pos, end, depth, end_tag, False)
