"""Base classes of the well-known types: Pythonic helpers on top of the generated accessors.

The generated classes of google/protobuf/*.proto derive from these (see
gen/views.py WKT_BASES); each base declares the accessors it relies on, which
every generated style provides (hybrid and opaque classes have get_/set_).
"""

from __future__ import annotations

from .message import Message

__all__ = [
    "AnyBase", "TimestampBase", "DurationBase", "StructBase", "ValueBase", "ListValueBase",
    "FieldMaskBase",
]


class AnyBase(Message):
    """google.protobuf.Any."""

    __slots__ = ()


class TimestampBase(Message):
    """google.protobuf.Timestamp."""

    __slots__ = ()


class DurationBase(Message):
    """google.protobuf.Duration."""

    __slots__ = ()


class StructBase(Message):
    """google.protobuf.Struct."""

    __slots__ = ()


class ValueBase(Message):
    """google.protobuf.Value."""

    __slots__ = ()


class ListValueBase(Message):
    """google.protobuf.ListValue."""

    __slots__ = ()


class FieldMaskBase(Message):
    """google.protobuf.FieldMask."""

    __slots__ = ()
