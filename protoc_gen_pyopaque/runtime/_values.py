"""The values a field accepts: checked when set, as upb checks them.

Generated constructors and setters test the common case inline (a value of the field's
exact type, an integer in its range) and call ``checked`` for anything else, which
converts what protobuf converts (an int or bool to a float field, an IntEnum member to the
plain int the field holds, a float32 rounded) and raises TypeError for a value of the wrong
type, ValueError for an integer outside its kind's range, naming the field. Lists and dicts
given for repeated and map fields are checked element by element (``checked_list``,
``checked_map``: the generated code passes the elements' exact type and range). Serialize
checks the class of every sub-message again (``check_message``): repeated fields and maps
are plain lists and dicts, and open attributes plain slots, which nothing checks when they
change.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from math import copysign
from typing import TYPE_CHECKING, Any, Final

from ._wire import NATIVE
from .reflect import (
    INT_RANGES, KIND_NAMES, TYPE_BOOL, TYPE_BYTES, TYPE_DOUBLE, TYPE_ENUM, TYPE_FLOAT, TYPE_GROUP,
    TYPE_INT32, TYPE_MESSAGE, TYPE_STRING, ExtensionInfo, FieldInfo,
)

if TYPE_CHECKING:
    from .message import Message

__all__ = [
    "check_buffer", "check_message", "checked", "checked_extension", "checked_list", "checked_map",
    "round_f32",
]

_F32: Final = struct.Struct("<f")
_pack_f32: Final = _F32.pack
_unpack_f32: Final = _F32.unpack
_INF: Final = float("inf")
_F32_MAX: Final = 3.4028234663852886e38  # the largest float32
_F32_MIN: Final = 1.1754943508222875e-38  # the smallest normal float32 (2**-126)
_SPLIT: Final = 536870913.0  # 2**29 + 1: Veltkamp's split of a double into 24 + 29 bits
# the exact Python type of the values of the kinds other than integers and messages
_VALUE_TYPES: Final[dict[int, type]] = {
    TYPE_BOOL: bool, TYPE_STRING: str, TYPE_BYTES: bytes, TYPE_DOUBLE: float, TYPE_FLOAT: float}


def round_f32(value: float) -> float:
    """``value`` as a float field holds it: rounded to the nearest 32-bit float (what the
    wire keeps), beyond the float32 range an infinity as in C.

    Compiled, a value that is a float32 already (24 significant bits: the high part of
    Veltkamp's split; in the normal range, or zero) is returned as it is, without the round
    trip through struct: the test is plain float arithmetic. Interpreted, the test would
    cost about what the round trip does.
    """
    if NATIVE:
        split = value * _SPLIT
        if split - (split - value) == value and (_F32_MIN <= value <= _F32_MAX or -_F32_MAX <= value <= -_F32_MIN
                                                  or value == 0.0):
            return value
    try:
        rounded: float = _unpack_f32(_pack_f32(value))[0]
        return rounded
    except OverflowError:
        return copysign(_INF, value)


def checked(msg: Message, number: int, value: Any) -> Any:
    """``value`` as field ``number`` of ``msg`` holds it, or TypeError/ValueError naming the field
    (the slow path of generated setters: the inline test failed)."""
    field = type(msg)._pb_info.by_number[number]
    try:
        return _check(field, value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{_where(msg, field)}: {exc}") from None


def checked_list(msg: Message, number: int, given: Iterable[Any], exact: type | None,
                 low: int = 0, high: int = -1) -> list[Any]:
    """A list of the elements ``given`` for repeated field ``number``: each of type ``exact`` (in
    ``low..high`` when ``low <= high``), or converted as the field holds it, or the error naming
    the first one at fault. ``exact`` None: every element converted (float32: rounded)."""
    values = list(given)
    if low <= high:
        for v in values:
            if type(v) is not int or not low <= v <= high:
                return _elements(msg, number, values)
    elif exact is None:
        return _elements(msg, number, values)
    else:
        for v in values:
            if type(v) is not exact:
                return _elements(msg, number, values)
    return values


def checked_map(msg: Message, number: int, given: Mapping[Any, Any], key: type, value: type | None,
                low: int = 0, high: int = -1) -> dict[Any, Any]:
    """A dict of the entries ``given`` for map field ``number``: keys of type ``key``, values of
    type ``value`` (ints in ``low..high`` when ``low <= high``; None: converted), or converted as
    the field holds them, or the error naming the first key or value at fault. Integer keys
    are checked by the slow path when not of type ``key``, or out of range."""
    entries = dict(given)
    for k, v in entries.items():
        if type(k) is not key or (value is not None and type(v) is not value) or (low <= high and not low <= v <= high):
            return _entries(msg, number, entries)
    if value is None or (key is int and entries and not _keys_in_range(msg, number, entries)):
        return _entries(msg, number, entries)
    return entries


def _keys_in_range(msg: Message, number: int, entries: dict[int, Any]) -> bool:
    key = type(msg)._pb_info.by_number[number].map_key
    assert key is not None
    low, high = INT_RANGES[key.kind]
    return low <= min(entries) and max(entries) <= high


def checked_extension(ext: ExtensionInfo, value: Any) -> Any:
    """``value`` (a list for a repeated extension, copied) as extension ``ext`` holds it."""
    field = ext.field
    if field.repeated:
        return [_located(field, v, f"{ext.full_name}[{i}]") for i, v in enumerate(value)]
    return _located(field, value, ext.full_name)


def _elements(msg: Message, number: int, values: list[Any]) -> list[Any]:
    field = type(msg)._pb_info.by_number[number]
    where = _where(msg, field)
    return [_located(field, v, f"{where}[{i}]") for i, v in enumerate(values)]


def _entries(msg: Message, number: int, entries: dict[Any, Any]) -> dict[Any, Any]:
    field = type(msg)._pb_info.by_number[number]
    key, value = field.map_key, field.map_value
    assert key is not None and value is not None
    where = _where(msg, field)
    return {_located(key, k, f"{where} key {k!r}"): _located(value, v, f"{where}[{k!r}]") for k, v in entries.items()}


def _where(msg: Message, field: FieldInfo) -> str:
    return f"{type(msg)._pb_info.full_name}.{field.name}"


def _located(field: FieldInfo, value: Any, where: str) -> Any:
    try:
        return _check(field, value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where}: {exc}") from None


def _check(field: FieldInfo, value: Any) -> Any:
    """``value`` as ``field`` holds it; TypeError or ValueError saying why not (without where)."""
    kind = field.kind
    if kind in (TYPE_MESSAGE, TYPE_GROUP):
        if isinstance(value, field.message_type):  # type: ignore[arg-type]
            return value
        raise _not_a(field.message_type, value)  # type: ignore[arg-type]
    exact = _VALUE_TYPES.get(kind)
    if kind in (TYPE_DOUBLE, TYPE_FLOAT):
        if isinstance(value, (float, int)):  # bool too, as in upb
            v = float(value)  # OverflowError for an int beyond any float, as in upb
            return round_f32(v) if kind == TYPE_FLOAT else v
    elif exact is not None:
        if isinstance(value, exact):
            return value
    elif type(value) is not bool and isinstance(value, int):  # an integer kind or an enum (bool
        # first: compiled, isinstance narrows value to a native int, which forgets it was a bool)
        low, high = INT_RANGES[TYPE_INT32 if kind == TYPE_ENUM else kind]
        if not low <= value <= high:
            raise ValueError(f"{value} is out of range for {KIND_NAMES[kind]}")
        enum = field.enum
        if enum is not None and enum.closed:  # its member; a number it does not name refused, as upb does
            member = enum.members.get(value)
            if member is None:
                raise ValueError(f"{value} is not a value of the closed enum {enum.full_name}")
            return member
        return int(value)  # an IntEnum member becomes the plain int the field holds
    raise TypeError(f"expected {(exact or int).__name__}, got {type(value).__qualname__}")


def _not_a(cls: type, value: object) -> TypeError:
    return TypeError(f"expected {cls.__qualname__}, got {type(value).__qualname__}")


def check_message(cls: type, value: object) -> None:
    """At serialize: refuse a sub-message of another class than its field's (subclasses pass),
    rather than write its fields under this schema's numbers (serialize names the field)."""
    if not isinstance(value, cls):
        raise _not_a(cls, value)


def check_buffer(data: object) -> bytes:
    """The bytes to decode from ``data``: a bytearray, memoryview or other buffer, copied once;
    TypeError for anything else (``bytes(5)`` would be five zero bytes, ``bytes([1])`` one byte)."""
    try:
        view = memoryview(data)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"expected bytes, bytearray or memoryview, got {type(data).__qualname__}") from None
    return view.tobytes()
