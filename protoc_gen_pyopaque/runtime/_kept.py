"""Lazy decoding: kept input (parse(lazy=True), lazy elements) and its structure check."""

from __future__ import annotations

import re
from typing import Final, cast

from mypy_extensions import mypyc_attr

from . import _wire as wire
from ._codec import WIRE_OF_KIND, read_len, struct_error
from ._codec_errors import field_label, too_deep
from .errors import DecodeError
from .reflect import TYPE_GROUP, TYPE_MESSAGE, MessageInfo

__all__ = ["check_structure", "check_nesting", "nesting_bound", "UNBOUNDED", "KeptInput", "keep_input", "keep_fields", "kept_fields", "kept_bytes"]

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
                    cls: type | None = None) -> None:
    """Check the wire structure of ``buf[pos:end]`` without decoding it (verified lazy fields).

    Tags, wire types, varints, lengths and group nesting are checked at this level, and,
    given ``cls`` (the class those bytes encode), the nesting depth of the messages inside
    (check_nesting); what else needs the schema (UTF-8, nested messages' other contents) is
    checked on decode. Common one-byte tags take inline paths; the rest goes through skip_field.
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
    if cls is not None and end - start >= 2 * depth + 2 and nesting_bound(cls) > depth:
        check_nesting(cls, buf, start, end, depth, -1)  # could nest too deep: long and deep enough


# message class -> {tag: (class of the message it holds, whether a map entry holds it)}
_nesting_tables: Final[dict[type, dict[int, tuple[type, bool]]]] = {}
# message class -> the most messages its fields can nest (UNBOUNDED: recursive or extendable)
_nesting_bounds: Final[dict[type, int]] = {}
UNBOUNDED: Final = 1 << 62


def _nesting_table(cls: type) -> dict[int, tuple[type, bool]]:
    table = _nesting_tables.get(cls)
    if table is None:
        table = {}
        info: MessageInfo = getattr(cls, "_pb_info")
        for field in info.fields:
            value = field.map_value
            if value is not None and value.message_type is not None:
                table[field.number << 3 | wire.WIRE_LEN] = (value.message_type, True)
            elif field.message_type is not None and field.kind == TYPE_MESSAGE:
                table[field.number << 3 | wire.WIRE_LEN] = (field.message_type, False)
            elif field.message_type is not None and field.kind == TYPE_GROUP:
                table[field.number << 3 | wire.WIRE_START_GROUP] = (field.message_type, False)
        _nesting_tables[cls] = table
    return table


def nesting_bound(cls: type) -> int:
    """The most levels of messages the schema lets a ``cls`` message hold, one below another."""
    bound = _nesting_bounds.get(cls)
    if bound is None:
        _nesting_bounds[cls] = UNBOUNDED  # while computed: a cycle is unbounded
        bound = UNBOUNDED if getattr(cls, "_pb_info").extension_ranges else 0
        for child, _ in _nesting_table(cls).values():
            bound = max(bound, min(UNBOUNDED, 1 + nesting_bound(child)))
        _nesting_bounds[cls] = bound
    return bound


def check_nesting(cls: type, buf: bytes, pos: int, end: int, depth: int, end_tag: int) -> int:
    """Check that the messages encoded in ``buf[pos:end]`` (fields of a ``cls`` message, up to
    ``end_tag`` for a group) nest no deeper than ``depth`` allows, as decoding them would;
    return the end. A nesting level takes at least two bytes, so sub-messages too short or of
    too shallow a schema to reach the limit are skipped by their length.
    """
    table = _nesting_table(cls)
    info: MessageInfo = getattr(cls, "_pb_info")
    extensions = info.extensions
    try:
        while pos < end:
            tag, pos = wire.dec_tag(buf, pos)
            if tag == end_tag:
                return pos
            entry = table.get(tag)
            if entry is None and extensions:
                ext = extensions.get(tag >> 3)
                if ext is not None and ext.field.message_type is not None \
                        and tag & 7 == WIRE_OF_KIND[ext.field.kind]:
                    entry = (ext.field.message_type, False)
            if entry is None:
                wire.check_tag(tag, pos)
                pos = wire.skip_field(buf, tag, pos, end, depth)
                continue
            child, in_map_entry = entry
            if tag & 7 == wire.WIRE_START_GROUP:
                if depth <= 0:
                    raise too_deep(cls, tag, pos)
                pos = check_nesting(child, buf, pos, end, depth - 1, (tag & ~7) | wire.WIRE_END_GROUP)
                continue
            start, stop = read_len(cls, buf, tag, pos, end)
            if depth <= 0:
                raise too_deep(cls, tag, start)
            if stop - start >= 2 * depth and nesting_bound(child) >= depth:  # room for `depth` more levels
                if in_map_entry:
                    _check_entry_nesting(child, buf, start, stop, depth)
                else:
                    check_nesting(child, buf, start, stop, depth - 1, -1)
            pos = stop
    except (IndexError, struct_error):
        raise DecodeError(f"{info.full_name}: input truncated at offset {pos}") from None
    if pos != end or end_tag >= 0:
        raise DecodeError(f"{info.full_name}: field runs past the end of the message (offset {pos})")
    return pos


def _check_entry_nesting(child: type, buf: bytes, pos: int, end: int, depth: int) -> None:
    """check_nesting for the message value (field 2) of one map entry."""
    while pos < end:
        tag, pos = wire.dec_tag(buf, pos)
        if tag == 2 << 3 | wire.WIRE_LEN:
            start, stop = read_len(child, buf, tag, pos, end)
            check_nesting(child, buf, start, stop, depth - 1, -1)
            pos = stop
        else:
            wire.check_tag(tag, pos)
            pos = wire.skip_field(buf, tag, pos, end, depth)


# ----------------------------------------------------------------------------- length prefixes


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


def kept_fields(kept: bytes | bytearray) -> tuple[bytes, int, int]:
    """Return ``(buffer, start, depth limit)`` of kept input: its fields are ``buffer[start:]``."""
    if type(kept) is KeptInput:
        return kept.input, 0, kept.max_depth
    fields = cast(bytes, kept)  # kept input is bytes (only unknown fields grow into a bytearray)
    depth, start = wire.dec_varint(fields, 1)
    return fields, start, depth


def kept_bytes(kept: bytes | bytearray) -> bytes:
    """Return the encoded fields of kept input, as they were read."""
    buf, start, _ = kept_fields(kept)
    return buf[start:] if start else buf
