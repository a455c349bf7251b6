"""Lazy decoding: kept input (parse(lazy=True), lazy elements) and its structure check."""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any, Final, cast

from mypy_extensions import mypyc_attr

from . import _wire as wire
from ._codec import struct_error
from ._codec_errors import decode_failure, field_label
from ._extensions import merge_extension
from .errors import DecodeError
from .reflect import (
    TYPE_BOOL, TYPE_BYTES, TYPE_DOUBLE, TYPE_ENUM, TYPE_FIXED32, TYPE_FIXED64, TYPE_FLOAT, TYPE_GROUP,
    TYPE_INT32, TYPE_INT64, TYPE_MESSAGE, TYPE_SFIXED32, TYPE_SFIXED64, TYPE_SINT32, TYPE_SINT64,
    TYPE_STRING, TYPE_UINT32, TYPE_UINT64, FieldInfo, MessageInfo,
)

if TYPE_CHECKING:  # i64: an annotation only (mypyc compiles it to a C int64_t, Python runs plain ints)
    from mypy_extensions import i64

    from .message import Message

__all__ = ["check_structure", "UNBOUNDED", "NESTING_CHECKED", "KeptInput",
           "keep_input", "keep_fields", "kept_fields", "kept_bytes", "kept_verbatim", "scan_unknown",
           "scan_by_decode", "scan_varint", "scan_packed_varints", "scan_packed_fixed", "signalling_f32",
           "map_keys_unique"]

# The ``lazy`` argument of _pb_merge: false decodes everything; true keeps [lazy] fields' bytes,
# verifying a [lazy] field's bytes at parse as a decode would; NESTING_CHECKED does the same
# inside bytes an enclosing check at parse verified already, nesting and all (the decode of
# kept bytes), so they are not checked again: every byte is verified once, not once per
# enclosing lazy level. (The name is the surface's, from when the check at parse covered
# only the structure and the nesting.)
NESTING_CHECKED: Final = 2

# A depth limit that no input reaches, and the greatest one parse uses: kept input notes its limit
# times four in a varint, which holds 64 bits (keep_input, keep_fields).
UNBOUNDED: Final = 1 << 60


def check_structure(msg: object, buf: bytes, tag: int, pos: int, end: int, depth: int,
                    cls: type, lazy: int = True) -> None:
    """Verify the bytes of a [lazy] field of ``msg``, ``buf[pos:end]``, which encode a ``cls``
    message, as decoding them would (wire structure, lengths, UTF-8, packed runs, nesting
    depth, down to the deepest message), making no value: every check protobuf requires at
    parse happens at parse, not at first access. Nothing when ``lazy`` (_pb_merge's) says
    an enclosing check verified these bytes. (The name is the surface's.) Interpreted,
    _verify checks first; the class's scan runs where it rejects, to name the error.
    """
    if lazy == NESTING_CHECKED:
        return
    if not wire.NATIVE and isinstance(buf, bytes):  # compiled, the scan is fast: no second walk
        verifier = _verifier(cls)
        if verifier is not None:
            try:
                _verify(verifier, buf, pos, end, depth)
                return
            except (_Unverified, DecodeError, IndexError, UnicodeDecodeError, RecursionError):
                pass  # the scan below finds the same error and names it
    try:
        scan = getattr(cls, "_pb_scan", None)
        if scan is not None:  # opaque and hybrid classes: no value made
            scan(buf, pos, end, depth)
        else:
            scan_by_decode(cls, buf, pos, end, depth, -1)
    except DecodeError as exc:
        raise DecodeError(f"{field_label(msg, tag)} (lazy, offset {pos}): {exc}") from None
    except RecursionError:  # a max_depth beyond the Python stack
        raise DecodeError(f"{field_label(msg, tag)} (lazy, offset {pos}): nesting too deep for the Python stack") from None


# ----------------------------------------------------------------------------- interpreted check
#
# Interpreted, a class's _pb_scan costs about what its decode costs: it also works out whether
# the input is canonical, and walks long if/elif chains per field. check_structure needs only
# whether the scan would accept, so it runs _verify first: one loop for every class, driven by
# a table per class (tag -> what the value is) built from its MessageInfo, common cases inline,
# UTF-8 checked by isascii() where the text is ASCII. It accepts exactly what the scan accepts
# or rejects in doubt (as the scan, it leaves the contents of [unverified_lazy] fields alone,
# FieldInfo.unverified_lazy): anything it rejects is scanned again, so the scan decides and
# names every error.

_VARINT: Final = 0  # the actions of a tag, most common first
_STRING: Final = 1  # length-delimited, UTF-8 checked
_BYTES: Final = 2  # length-delimited, anything
_MESSAGE: Final = 3  # a message of a class with a _Verifier (children[tag])
_MAP: Final = 4  # a map entry: key and value (children[tag], a _Verifier of the entry)
_PACKED_VARINTS: Final = 5
_PACKED_FIXED64: Final = 6
_PACKED_FIXED32: Final = 7
_BY_DECODE: Final = 8  # a message of a class without a scan (children[tag], the class)
_UNVERIFIED_LAZY: Final = 9  # an [unverified_lazy] message: its length and the depth checked; the last length-delimited
_FIXED64: Final = 10
_FIXED32: Final = 11
_GROUP: Final = 12  # a group of class children[tag], checked by a decode
_UNKNOWN: Final = 13  # no field of that tag

_VARINT_KINDS: Final = frozenset((TYPE_INT32, TYPE_INT64, TYPE_UINT32, TYPE_UINT64, TYPE_SINT32,
                                  TYPE_SINT64, TYPE_BOOL, TYPE_ENUM))
_FIXED64_KINDS: Final = frozenset((TYPE_FIXED64, TYPE_SFIXED64, TYPE_DOUBLE))
_FIXED32_KINDS: Final = frozenset((TYPE_FIXED32, TYPE_SFIXED32, TYPE_FLOAT))

# a varint's bytes (at most 10), and a packed run of them: the regex engine finds their end
# faster than an interpreted loop
_VARINT_END: Final = re.compile(b"[\\x80-\\xff]{0,9}[\\x00-\\x7f]")
_VARINT_RUN: Final = re.compile(b"(?:[\\x80-\\xff]{0,9}[\\x00-\\x7f])*")


class _Unverified(Exception):
    """_verify found input it does not accept: the scan decides."""


class _Verifier:
    """What _verify needs of a message class, or of the entries of a map field (``cls`` None):
    ``actions``, tag -> _VARINT..._GROUP; ``children``, tag -> what a field of a message action
    holds; ``extendable``: a tag without a field may be an extension (the scan decodes it)."""

    __slots__ = ("cls", "actions", "short_actions", "children", "extendable", "message_value", "text_pair")

    def __init__(self, cls: type | None, extendable: bool) -> None:
        self.cls: Final = cls
        self.extendable: Final = extendable
        self.actions: Final[dict[int, int]] = {}
        self.short_actions: list[int] = []  # ``actions`` of the one-byte tags, by tag: no call
        self.children: Final[dict[int, Any]] = {}
        self.message_value = False  # a map entry whose value is a message: the map checks depth
        self.text_pair = False  # a map entry of a string key and a string or bytes value

    def complete(self) -> None:
        """Fill ``short_actions`` from ``actions``."""
        self.short_actions = [self.actions.get(tag, _UNKNOWN) for tag in range(0x80)]


_verifiers: Final[dict[type, _Verifier | None]] = {}  # complete ones only: read without a lock
_verifiers_lock: Final = threading.Lock()


def _verifier(cls: type) -> _Verifier | None:
    """The _Verifier of ``cls``; None for a class without a scan (checked by a decode)."""
    try:
        return _verifiers[cls]
    except KeyError:
        with _verifiers_lock:
            building: dict[type, _Verifier | None] = {}
            verifier = _build_verifier(cls, building)
            _verifiers.update(building)
        return verifier


def _build_verifier(cls: type, building: dict[type, _Verifier | None]) -> _Verifier | None:
    if cls in _verifiers:
        return _verifiers[cls]
    if cls in building:
        return building[cls]
    if getattr(cls, "_pb_scan", None) is None:
        building[cls] = None
        return None
    info: MessageInfo = getattr(cls, "_pb_info")
    verifier = building[cls] = _Verifier(cls, bool(info.extension_ranges))
    for field in info.fields:
        if field.map_key is not None and field.map_value is not None:
            entry = _Verifier(None, False)
            _add_action(entry, field.map_key, building)
            _add_action(entry, field.map_value, building)
            entry.message_value = field.map_value.kind == TYPE_MESSAGE
            entry.text_pair = (entry.actions.get(1 << 3 | wire.WIRE_LEN) in (_STRING, _BYTES)
                               and entry.actions.get(2 << 3 | wire.WIRE_LEN) in (_STRING, _BYTES))
            entry.complete()
            tag = field.number << 3 | wire.WIRE_LEN
            verifier.actions[tag] = _MAP
            verifier.children[tag] = entry
        else:
            _add_action(verifier, field, building)
    verifier.complete()
    return verifier


def _add_action(verifier: _Verifier, field: FieldInfo, building: dict[type, _Verifier | None]) -> None:
    """Enter the tags of ``field`` (not a map) in ``verifier``'s table."""
    number, kind = field.number, field.kind
    if kind in _VARINT_KINDS:
        actions = ((wire.WIRE_VARINT, _VARINT), (wire.WIRE_LEN, _PACKED_VARINTS))
    elif kind in _FIXED64_KINDS:
        actions = ((wire.WIRE_FIXED64, _FIXED64), (wire.WIRE_LEN, _PACKED_FIXED64))
    elif kind in _FIXED32_KINDS:
        actions = ((wire.WIRE_FIXED32, _FIXED32), (wire.WIRE_LEN, _PACKED_FIXED32))
    else:
        tag = number << 3 | (wire.WIRE_START_GROUP if kind == TYPE_GROUP else wire.WIRE_LEN)
        if kind == TYPE_STRING:
            verifier.actions[tag] = _STRING if field.utf8 else _BYTES
        elif kind == TYPE_BYTES:
            verifier.actions[tag] = _BYTES
        elif field.unverified_lazy:
            verifier.actions[tag] = _UNVERIFIED_LAZY
        elif field.message_type is not None and kind in (TYPE_MESSAGE, TYPE_GROUP):
            child = _build_verifier(field.message_type, building) if kind == TYPE_MESSAGE else None
            verifier.actions[tag] = _GROUP if kind == TYPE_GROUP else _MESSAGE if child is not None else _BY_DECODE
            verifier.children[tag] = child if child is not None else field.message_type
        return  # one tag (a message field of no known type: none, skipped as unknown)
    verifier.actions[number << 3 | actions[0][0]] = actions[0][1]
    if field.repeated:  # read packed or expanded, whichever it declares
        verifier.actions[number << 3 | actions[1][0]] = actions[1][1]


def _verify(verifier: _Verifier, buf: bytes, pos: int, end: int, depth: int) -> None:
    """Check ``buf[pos:end]`` as ``verifier``'s class's scan would, with depth limit ``depth``;
    raise _Unverified (or the error of a runtime helper) where it might not accept them.

    One loop for every level: a message inside is entered by pushing where its parent stands
    (no call a level: each map entry is a level too)."""
    stack: list[tuple[_Verifier, int, int]] = []
    actions = verifier.short_actions
    varint_end = _VARINT_END.match
    while True:
        if pos >= end:
            if pos != end:
                raise _Unverified
            if not stack:
                return
            verifier, end, depth = stack.pop()
            actions = verifier.short_actions
            continue
        tag = buf[pos]
        if tag < 0x80:
            pos += 1
            action = actions[tag]
        else:
            tag, pos = wire.dec_tag(buf, pos)
            action = verifier.actions.get(tag, _UNKNOWN)
        if action == _VARINT:
            if buf[pos] < 0x80:
                pos += 1
            else:
                varint = varint_end(buf, pos, end)
                if varint is None:
                    raise _Unverified
                pos = varint.end()
        elif action <= _UNVERIFIED_LAZY:  # length-delimited
            n = buf[pos]
            if n < 0x80:
                pos += 1
            else:
                n, pos = wire.dec_len(buf, pos)
            stop = pos + n
            if stop > end:
                raise _Unverified
            if action == _STRING:
                if not buf[pos:stop].isascii():  # no str made for ASCII text
                    buf[pos:stop].decode()
            elif action == _MESSAGE:
                if depth <= 0:
                    raise _Unverified
                stack.append((verifier, end, depth))
                verifier = verifier.children[tag]
                actions = verifier.short_actions
                end = stop
                depth -= 1
                continue
            elif action == _MAP:
                entry: _Verifier = verifier.children[tag]
                if entry.text_pair and stop - pos >= 4:  # a map<string, string> entry's usual shape in one test
                    key = pos + 2 + buf[pos + 1]
                    if (buf[pos] == 0x0A and key + 1 < stop and buf[key] == 0x12 and key + 2 + buf[key + 1] == stop
                            and buf[pos:stop].isascii()):  # lengths under 0x80 and valid UTF-8
                        pos = stop
                        continue
                if depth <= 0 and entry.message_value:
                    raise _Unverified
                stack.append((verifier, end, depth))
                verifier = entry
                actions = verifier.short_actions
                end = stop
                continue
            elif action == _PACKED_VARINTS:
                if _VARINT_RUN.fullmatch(buf, pos, stop) is None:
                    raise _Unverified
            elif action == _PACKED_FIXED64:
                if n & 7:
                    raise _Unverified
            elif action == _PACKED_FIXED32:
                if n & 3:
                    raise _Unverified
            elif action == _BY_DECODE:
                if depth <= 0:
                    raise _Unverified
                scan_by_decode(verifier.children[tag], buf, pos, stop, depth - 1, -1)
            elif action == _UNVERIFIED_LAZY:
                if depth <= 0:
                    raise _Unverified
            pos = stop
        elif action == _FIXED64:
            pos += 8
        elif action == _FIXED32:
            pos += 4
        elif action == _UNKNOWN:
            if verifier.extendable:
                pos = scan_unknown(verifier.cls, buf, tag, pos, end, depth)
            else:
                wire.check_tag(tag, pos)
                pos = wire.skip_field(buf, tag, pos, end, depth)
        elif action == _GROUP:
            if depth <= 0:
                raise _Unverified
            pos = scan_by_decode(verifier.children[tag], buf, pos, end, depth - 1, tag + 1)


# ----------------------------------------------------------------------------- length prefixes


# parse(lazy=True) and lazy repeated elements keep their input in the message's _pb_unknown
# until first access, so that no message pays a slot for that state. Kept input starts with
# a 0 byte, which unknown fields never do (it would be a tag of field number 0). Generated
# code tests `u is not _pb_no_unknown and u and u[0] == 0` (_pb_no_unknown: the module's b"",
# the shared empty bytes): compiled, the common case is one pointer comparison. A copy is
# `0, limit (varint), the fields`, the limit being the depth limit times four, plus 2 when
# serialize may not write the fields back as they are (not canonical), plus 1 when the bytes
# were verified at parse (a [lazy] element, and parse(lazy=True) always). A lazy element keeps
# such a copy, and so does parse(lazy=True) of an input under KEEP_COPY_BELOW bytes; a longer
# input is kept by reference, in a one-byte KeptInput.
_NOT_VERBATIM: Final = 2
_VERIFIED: Final = 1
# Compiled, a KeptInput (a Python object and its attribute dictionary) costs as much as copying
# about this many bytes.
KEEP_COPY_BELOW: Final = 2048


@mypyc_attr(native_class=False)  # mypyc compiles no subclass of bytes as a native class
class KeptInput(bytes):
    """The input of ``parse(lazy=True)`` (``input``, referenced: a large input is not copied),
    its depth limit, and whether it is ``canonical``: byte for byte what serialize() would
    write for it (the scan's verdict), so that it may be written back as it is; itself the one
    byte 0."""

    input: bytes
    max_depth: int
    canonical: bool


_PREFIXES: Final = tuple(b"\0" + wire.varint_bytes(limit) for limit in range(0x200))


def _prefix(limit: int) -> bytes:
    return _PREFIXES[limit] if 0 <= limit < 0x200 else b"\0" + wire.varint_bytes(limit)


def keep_input(data: bytes, max_depth: int, canonical: bool) -> bytes:
    """Return what a message keeps of ``data`` from ``parse(lazy=True)`` (``canonical``: see KeptInput)."""
    if len(data) < KEEP_COPY_BELOW:
        return _prefix(max_depth << 2 | (0 if canonical else _NOT_VERBATIM) | _VERIFIED) + data
    kept = KeptInput(b"\0")
    kept.input = data
    kept.max_depth = max_depth
    kept.canonical = canonical
    return kept  # typed as bytes: compiled code would check a KeptInput by its exact type


def keep_fields(buf: bytes, pos: int, end: int, depth: int, verified: bool = False) -> bytes:
    """Return what a lazy element keeps of ``buf[pos:end]``, to decode with the depth limit
    ``depth``; ``verified``: check_structure verified them."""
    return _prefix(depth << 2 | (_VERIFIED if verified else 0)) + buf[pos:end]


def kept_fields(kept: bytes | bytearray) -> tuple[bytes, int, int, int]:
    """Return ``(buffer, start, depth limit, lazy)`` of kept input: its fields are
    ``buffer[start:]``, to decode with _pb_merge's ``lazy`` argument ``lazy``."""
    if type(kept) is KeptInput:
        return kept.input, 0, kept.max_depth, NESTING_CHECKED
    fields = cast(bytes, kept)  # kept input is bytes (only unknown fields grow into a bytearray)
    limit, start = wire.dec_varint(fields, 1)
    return fields, start, limit >> 2, NESTING_CHECKED if limit & _VERIFIED else True


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
    fields = cast(bytes, kept)
    limit, start = wire.dec_varint(fields, 1)
    return None if limit & _NOT_VERBATIM else fields[start:]


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
_MAX_VARINT_BYTES: Final = 10


def scan_varint(buf: bytes, pos: i64, kind: i64) -> i64:
    """Return the position after the varint of two bytes or more at ``pos`` (rejecting one over
    ten bytes), or its bitwise complement (negative) when it is not the varint the encoder
    writes for a value of ``kind`` (VARINT_*): not minimal, or out of the kind's range.

    For the scans that keep no value. The scan of a deferred parse, which stores each integer in
    its slot, decodes it once and judges that value and its last byte by the same rule
    (templates/_codec.py.j2, keep_varint): calling this first would walk the varint twice."""
    second = buf[pos + 1]
    if second < 0x80:  # two bytes, the commonest: below 2**14, in every kind's range but bool's
        return pos + 2 if second != 0 and kind != VARINT_BOOL else ~(pos + 2)
    start = pos
    if wire.NATIVE and pos + 8 <= len(buf):  # its first eight bytes in one word: no loop over 64-bit values' bytes
        high: i64 = 0x80808080  # not a module constant: one beyond 62 bits stays boxed (mypyc)
        high |= high << 32
        word = wire.read_i64_le(buf, pos)
        stops = ~word & high  # the top bit of each byte that ends a varint
        if stops == 0:
            pos += 8
        else:  # it ends in the word: its size and last byte from the word, no byte read nor loop
            # its bytes: those up to the first stop bit; their lowest bits summed into the top byte
            # by one multiplication (compiled, it wraps: extensions are built with CPython's flags,
            # -fwrapv up to 3.11, -fno-strict-overflow from 3.12, which make signed overflow wrap)
            ones: i64 = 0x0101010101010101
            size = (((stops ^ (stops - 1)) & ones) * ones) >> 56
            pos += size
            last64 = (word >> ((size - 1) * 8)) & 0xFF
            if last64 == 0 or kind == VARINT_BOOL:
                return ~pos
            if kind == VARINT_64 or size < 5:
                return pos
            # six to eight bytes: beyond 32 bits, and not the ten of a negative int32
            return pos if size == 5 and last64 < (0x10 if kind == VARINT_UINT32 else 0x08) else ~pos
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
    else:  # an int32 below zero: ten bytes, bits 31 to 63 set (byte 4's top four, then all), no int made
        canonical = (size == _MAX_VARINT_BYTES and last == 1 and buf[start + 4] & 0x78 == 0x78
                     and buf[start + 5] == 0xFF and buf[start + 6] == 0xFF and buf[start + 7] == 0xFF
                     and buf[start + 8] == 0xFF)
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
        if known is None and pos + 1 < end:
            second = buf[pos + 1]
            if second < 0x80:  # two bytes, as in scan_varint, without the call
                if second == 0 or kind == VARINT_BOOL:
                    canonical = False
                pos += 2
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
    if wire.NATIVE:
        unique = _keys_unique_in_place(buf, pos, end, tag_size, MAP_KEYS_COMPARED_IN_PLACE)
        if unique >= 0:
            return unique == 1
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


def _keys_unique_in_place(buf: bytes, pos: i64, end: i64, tag_size: i64, most: i64) -> i64:
    """map_keys_unique by comparing each key with the ones after it, no object made: 1 (unique)
    or 0; -1 when there are more than ``most`` entries (counted while the first key is compared)."""
    first = True
    while pos < end:
        key = _entry_key(buf, pos)
        size = _key_end(buf, key) - key
        pos = _entry_end(buf, pos) + tag_size
        other = pos
        entries: i64 = 1
        while other < end:
            at = _entry_key(buf, other)
            other = _entry_end(buf, other)
            if at + size <= other:
                i: i64 = 0
                while i < size and buf[at + i] == buf[key + i]:
                    i += 1
                if i == size:
                    return 0
            other += tag_size
            entries += 1
        if first and entries > most:
            return -1
        first = False
    return 1


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
