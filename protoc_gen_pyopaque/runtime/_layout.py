"""Reflection through a class's layout (``MessageInfo.layout``): which attribute holds each field,
and how its presence is recorded. The base class's ``_pb_items`` and ``_pb_set`` read it, so
generated classes carry no per-field code for them: these are not the hot paths (parse,
serialize, JSON and the accessors are generated).

Each field's entry (``FieldLayout``) names its slot and, by ``test``, how to tell it is set:
``ONEOF`` (the oneof's case slot holds the field number), ``BIT`` (a presence word and mask),
``NOT_NONE`` (explicit presence or a message: None while unset), ``TRUTHY`` (repeated, map, or
implicit presence: a float is also set at -0.0). ``lazy`` and ``loader``: a field decoded on
first access (its kept bytes' slot and the method that decodes them).
"""

from __future__ import annotations

from math import copysign
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .message import Message
    from .reflect import FieldInfo

ONEOF: Final = 0
BIT: Final = 1
NOT_NONE: Final = 2
TRUTHY: Final = 3
_FLOAT_KINDS: Final = (1, 2)  # TYPE_DOUBLE, TYPE_FLOAT


class FieldLayout:
    """Where one field of a generated class lives (built by MessageInfo from its ``layout``)."""

    __slots__ = ("field", "number", "slot", "test", "word", "mask", "lazy", "loader", "negative_zero")

    def __init__(self, field: FieldInfo, entry: str | tuple[Any, ...]) -> None:
        """``entry``: the slot's name, or a tuple of it and the oneof's case slot, of it, the
        presence word and the mask, or of it, the lazy bytes' slot and the loader."""
        parts: tuple[Any, ...] = (entry,) if isinstance(entry, str) else entry
        self.field = field
        self.number: int = field.number
        self.slot: str = parts[0]
        self.word: str = ""
        self.mask: int = 0
        self.lazy: str = ""
        self.loader: str = ""
        self.test: int = TRUTHY  # repeated, map, or implicit presence
        if field.oneof:
            self.test = ONEOF
            self.word = parts[1]  # the case slot
        elif len(parts) == 3 and isinstance(parts[2], int):
            self.test = BIT
            self.word, self.mask = parts[1], parts[2]
        elif (field.presence or field.message_type is not None) and not field.repeated and field.map_key is None:
            self.test = NOT_NONE
            if len(parts) == 3:
                self.lazy, self.loader = parts[1], parts[2]
        self.negative_zero = self.test == TRUTHY and field.kind in _FLOAT_KINDS and not field.repeated


def items(msg: Message) -> list[tuple[FieldInfo, Any]]:
    """The fields of ``msg`` that are set, with their values, by number (the tests inline: this
    serves the text format, repr and the special JSON forms of the well-known types)."""
    if msg._pb_unknown:
        msg._pb_load_raw()
    info = msg._pb_info
    for entry in info.lazy_layout:
        if getattr(msg, entry.lazy) is not None:
            getattr(msg, entry.loader)()
    out: list[tuple[FieldInfo, Any]] = []
    for entry in info.layout_by_order:
        test = entry.test
        if test == BIT:
            if getattr(msg, entry.word) & entry.mask:
                out.append((entry.field, getattr(msg, entry.slot)))
        elif test == ONEOF:
            if getattr(msg, entry.word) == entry.number:
                out.append((entry.field, getattr(msg, entry.slot)))
        else:
            value = getattr(msg, entry.slot)
            if test == NOT_NONE:
                if value is not None:
                    out.append((entry.field, value))
            elif value or (entry.negative_zero and copysign(1.0, value) < 0.0):
                out.append((entry.field, value))
    return out


def set_field(msg: Message, field: FieldInfo, value: Any) -> None:
    """Set ``field`` of ``msg`` to ``value`` (a list or dict for repeated and map fields), unchecked."""
    if msg._pb_unknown:
        msg._pb_load_raw()
    entry = msg._pb_info.layout_by_number.get(field.number)
    if entry is None:
        raise KeyError(field.name)
    if entry.lazy and getattr(msg, entry.lazy) is not None:
        # forget the kept bytes, waiting for a decode of them under way in another thread (whose
        # result would otherwise overwrite this write)
        from .message import LAZY_LOCK

        with LAZY_LOCK:
            setattr(msg, entry.lazy, None)
    test = entry.test
    if test == ONEOF:
        setattr(msg, entry.word, field.number)
    elif field.map_key is not None:
        value = dict(value)
    elif field.repeated:
        value = list(value)
    setattr(msg, entry.slot, value)
    if test == BIT:
        setattr(msg, entry.word, getattr(msg, entry.word) | entry.mask)
