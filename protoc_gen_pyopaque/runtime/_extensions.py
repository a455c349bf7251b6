"""Extensions on the wire: decoding known ones (MessageSet items too), writing the set ones."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from . import _wire as wire
from ._codec import (
    WIRE_OF_KIND, add_unknown_varint, decode_value, merge_unknown, new_message, read_len, unknown_buffer,
    write_value,
)
from ._codec_errors import too_deep
from ._output import finish_len
from ._packed import dec_packed, dec_packed_closed_enum, write_packed
from ._wire import BytesWriter
from .errors import DecodeError
from .reflect import TYPE_BYTES, TYPE_GROUP, TYPE_MESSAGE, TYPE_STRING

if TYPE_CHECKING:
    from .message import ExtendableMessage

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
            dec_packed_closed_enum(msg, field.number, field.enum.members, buf, start, stop, values)
        else:
            dec_packed(field.kind, buf, start, stop, values)
        if not values:  # an empty run, or only unknown enum values: the extension stays unset
            del msg._pb_ext[field.number]
        return stop
    if wire_type != WIRE_OF_KIND[field.kind]:
        return merge_unknown(msg, buf, tag, pos, end, depth)
    existing = None if field.repeated else msg._pb_ext.get(field.number)
    value, pos = decode_value(field, msg, buf, tag, pos, end, depth, existing)
    if field.enum is not None and field.enum.closed:
        member = field.enum.members.get(value)
        if member is None:
            add_unknown_varint(msg, field.number, value)
            return pos
        value = member
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
        unknown = unknown_buffer(msg)
        unknown += wire.varint_bytes(_MSET_ITEM_START)
        unknown += buf[start:pos]
        return pos
    if depth <= 0:
        raise too_deep(msg, _MSET_ITEM_START, pos)
    sub = msg._pb_ext.get(type_id)
    if sub is None:
        sub = new_message(ext.field)
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
