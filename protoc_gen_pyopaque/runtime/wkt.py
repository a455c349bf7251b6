"""Base classes of the well-known types: Pythonic helpers on top of the generated accessors.

The generated classes of google/protobuf/*.proto derive from these (see
gen/build.py WKT_BASES); each base declares the accessors it relies on (raising
NotImplementedError here, overridden by every generated style: hybrid classes and
their opaque twins both have get_/set_), so the helpers work the same on both.

Helpers (all raise ValueError for values outside the ranges the types allow):

* Timestamp: ``from_datetime``, ``to_datetime``, ``now``, ``from_seconds``/``to_seconds``
  (float seconds), ``from_nanoseconds``/``to_nanoseconds`` (exact int).
* Duration: ``from_timedelta``, ``to_timedelta``, ``from_seconds``/``to_seconds``,
  ``from_nanoseconds``/``to_nanoseconds``; always normalised (seconds and nanos of one
  sign, ``|nanos| < 1e9``).
* Struct, Value, ListValue: ``from_python``/``to_python`` (dict, JSON-like values, list).
* Any: ``pack``, ``unpack``, ``is_``, ``type_name``, ``unpack_any``.
* FieldMask: ``from_paths``, ``to_json_string``/``from_json_string``, ``canonical``,
  ``union``, ``intersect``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone, tzinfo
from operator import truediv  # compiled code (mypyc) divides ints as floats: inexact
from typing import Any, Final, TypeVar, cast

from librt.strings import StringWriter

from .errors import JsonError
from ._json import JsonCtx
from ._json_gen import json_write_duration, json_write_timestamp
from ._json_wkt import (
    DUR_MAX, NANOS_MAX, TS_MAX, TS_MIN, camel_to_snake, duration_value, snake_to_camel, timestamp_value,
)
from ._registry import find_message_class
from .message import Message
from .reflect import MAX_DEPTH

__all__ = [
    "AnyBase", "TimestampBase", "DurationBase", "StructBase", "ValueBase", "ListValueBase",
    "FieldMaskBase",
]

M = TypeVar("M", bound=Message)
TS = TypeVar("TS", bound="TimestampBase")
DU = TypeVar("DU", bound="DurationBase")
AN = TypeVar("AN", bound="AnyBase")
ST = TypeVar("ST", bound="StructBase")
VA = TypeVar("VA", bound="ValueBase")
LV = TypeVar("LV", bound="ListValueBase")
FM = TypeVar("FM", bound="FieldMaskBase")

_NANOS_PER_SECOND: Final = 1_000_000_000
_EPOCH_UTC: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_NAIVE: Final = datetime(1970, 1, 1)
_ZERO: Final = timedelta(0)
_DEFAULT_PREFIX: Final = "type.googleapis.com/"


# ----------------------------------------------------------------------------- helpers

def _check_timestamp(seconds: int, nanos: int) -> None:
    if not TS_MIN <= seconds <= TS_MAX:
        raise ValueError(f"Timestamp seconds {seconds} out of range [{TS_MIN}, {TS_MAX}] "
                         "(years 1 to 9999)")
    if not 0 <= nanos <= NANOS_MAX:
        raise ValueError(f"Timestamp nanos {nanos} out of range [0, {NANOS_MAX}]")


def _check_duration(seconds: int, nanos: int) -> None:
    if not -DUR_MAX <= seconds <= DUR_MAX:
        raise ValueError(f"Duration seconds {seconds} out of range [-{DUR_MAX}, {DUR_MAX}]")
    if not -NANOS_MAX <= nanos <= NANOS_MAX:
        raise ValueError(f"Duration nanos {nanos} out of range [-{NANOS_MAX}, {NANOS_MAX}]")
    if (seconds > 0 and nanos < 0) or (seconds < 0 and nanos > 0):
        raise ValueError(f"Duration seconds {seconds} and nanos {nanos} have different signs")


def _total_nanos(seconds: int | float) -> int:  # not float: mypyc would convert an int (or bool)
    """``seconds`` (an int or float) as a whole number of nanoseconds, rounded half to even.

    Exact: works on the float's binary value, so 1e-9 steps are not lost to float products.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"expected seconds as an int or float, got {type(seconds).__name__}")
    if isinstance(seconds, int):
        return seconds * _NANOS_PER_SECOND
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        raise ValueError(f"seconds must be finite, got {seconds!r}")
    num, den = seconds.as_integer_ratio()
    q, r = divmod(num * _NANOS_PER_SECOND, den)
    if 2 * r > den or (2 * r == den and q % 2 == 1):
        q += 1
    return q


def _toward_zero(nanos: int, unit: int) -> int:
    return nanos // unit if nanos >= 0 else -((-nanos) // unit)


def _split_duration(total: int) -> tuple[int, int]:
    """Total nanoseconds → normalised (seconds, nanos): one sign, ``|nanos| < 1e9``."""
    if total < 0:
        s, n = divmod(-total, _NANOS_PER_SECOND)
        return -s, -n
    s, n = divmod(total, _NANOS_PER_SECOND)
    return s, n


def _full_name(cls: type[Message]) -> str:
    return cls._pb_info.full_name


def _field_class(owner: type[Message], name: str) -> type:
    """The generated class of message field ``name`` (map value for maps) of ``owner``.

    The sibling classes (Struct ↔ Value ↔ ListValue) come from the owner's own table,
    so hybrid classes build hybrid siblings and opaque twins build opaque ones.
    """
    field = owner._pb_info.by_name[name]
    if field.map_value is not None:
        field = field.map_value
    cls = field.message_type
    if cls is None:  # pragma: no cover - the generated tables always name it
        raise TypeError(f"{_full_name(owner)}.{name} is not a message field")
    return cls


def _value_class(owner: type[Message], name: str) -> type[ValueBase]:
    cls = _field_class(owner, name)
    if not issubclass(cls, ValueBase):  # pragma: no cover
        raise TypeError(f"{_full_name(owner)}.{name} is not google.protobuf.Value")
    return cls


def _struct_class(owner: type[Message]) -> type[StructBase]:
    cls = _field_class(owner, "struct_value")
    if not issubclass(cls, StructBase):  # pragma: no cover
        raise TypeError(f"{_full_name(owner)}.struct_value is not google.protobuf.Struct")
    return cls


def _list_class(owner: type[Message]) -> type[ListValueBase]:
    cls = _field_class(owner, "list_value")
    if not issubclass(cls, ListValueBase):  # pragma: no cover
        raise TypeError(f"{_full_name(owner)}.list_value is not google.protobuf.ListValue")
    return cls


# ----------------------------------------------------------------------------- Any

class AnyBase(Message):
    """google.protobuf.Any: ``Any.pack(msg)``, ``any.unpack(Cls)``, ``any.unpack_any()``."""

    __slots__ = ()

    # -- accessors (generated) ---------------------------------------------------------

    def get_type_url(self) -> str:
        raise NotImplementedError

    def set_type_url(self, value: str) -> None:
        raise NotImplementedError

    def get_value(self) -> bytes:
        raise NotImplementedError

    def set_value(self, value: bytes) -> None:
        raise NotImplementedError

    # -- helpers -----------------------------------------------------------------------

    @classmethod
    def pack(cls: type[AN], msg: Message, type_url_prefix: str = _DEFAULT_PREFIX, *,
             deterministic: bool = False) -> AN:
        """Return a new Any holding ``msg``, typed ``<type_url_prefix>/<full name>``.

        As protobuf's ``Any.Pack``: a '/' is added after the prefix unless it ends with one.
        """
        if not isinstance(msg, Message):
            raise TypeError(f"Any.pack needs a generated message, got {type(msg).__name__}")
        name = msg._pb_info.full_name
        if type_url_prefix.endswith("/"):
            url = type_url_prefix + name
        else:
            url = type_url_prefix + "/" + name
        out = cls()
        out.set_type_url(url)
        out.set_value(msg.serialize(deterministic=deterministic))
        return out

    def type_name(self) -> str:
        """The full name of the packed type: the type URL after its last '/'."""
        return self.get_type_url().rpartition("/")[2]

    def is_(self, cls: type[Message]) -> bool:
        """Say whether this Any holds a message of ``cls``'s type (by full name)."""
        url = self.get_type_url()
        return "/" in url and url.rpartition("/")[2] == _full_name(cls)

    def unpack(self, cls: type[M]) -> M:
        """Return the packed message as a new ``cls``.

        Raise TypeError when the Any holds another type, DecodeError when the payload
        does not parse.
        """
        if not self.is_(cls):
            raise TypeError(f"Any holds {self.get_type_url()!r}, not {_full_name(cls)}")
        return cls.parse(self.get_value())

    def unpack_any(self) -> Message:
        """Return the packed message, its class found by full name in the type registry.

        Generated modules register their classes on import (the well-known types are
        always found). Raise ValueError for an empty type URL, LookupError for a type
        whose module was not imported, DecodeError when the payload does not parse.
        """
        name = self.type_name()
        if not name:
            raise ValueError("Any has no type_url")
        cls = find_message_class(name)
        if cls is None:
            raise LookupError(f"Any type {self.get_type_url()!r} is not registered: "
                              "import its generated module")
        if not issubclass(cls, Message):  # pragma: no cover - the registry holds messages
            raise TypeError(f"{name} is not a generated message class")
        return cls.parse(self.get_value())


# ----------------------------------------------------------------------------- Timestamp

class _SecondsNanosBase(Message):
    """What Timestamp and Duration share: the generated accessors of seconds and nanos."""

    __slots__ = ()

    # -- accessors (generated) ---------------------------------------------------------

    def get_seconds(self) -> int:
        raise NotImplementedError

    def set_seconds(self, value: int) -> None:
        raise NotImplementedError

    def get_nanos(self) -> int:
        raise NotImplementedError

    def set_nanos(self, value: int) -> None:
        raise NotImplementedError

    def _pb_set_seconds_nanos(self, seconds: int, nanos: int, /) -> None:
        """Set both fields to values in range (generated; compiled, native ints where the
        accessors take objects and check them)."""
        raise NotImplementedError

    # -- JSON --------------------------------------------------------------------------

    def _pb_json_merge(self, obj: Any, ctx: JsonCtx, depth: int) -> None:
        """Merge the ProtoJSON string; on an error the generated parsers give up and the
        reflective one runs again, naming the path."""
        if depth > MAX_DEPTH:
            raise JsonError("$: messages nested too deeply")
        seconds, nanos = self._pb_json_value(obj)
        self._pb_set_seconds_nanos(seconds, nanos)  # in range: _pb_json_value checked them
        text: str = obj  # a string, as read: compiled, its count() is then a native call, not a generic one
        ctx.colons += text.count(":")

    def _pb_json_value(self, obj: Any) -> tuple[int, int]:
        """The seconds and nanos of the ProtoJSON string ``obj``."""
        raise NotImplementedError


class TimestampBase(_SecondsNanosBase):
    """google.protobuf.Timestamp: conversions from and to datetime, seconds, nanoseconds.

    Every conversion checks the range the type allows (0001-01-01T00:00:00Z to
    9999-12-31T23:59:59.999999999Z, nanos in [0, 999999999]) and raises ValueError outside.
    """

    __slots__ = ()

    def _pb_json_write(self, out: StringWriter, ctx: JsonCtx, depth: int) -> None:
        """Write the ProtoJSON string (the reflective printer names the path of a failure)."""
        if depth > MAX_DEPTH:
            raise JsonError("$: messages nested too deeply")
        json_write_timestamp(out, int(self.get_seconds()), int(self.get_nanos()))

    def _pb_json_value(self, obj: Any) -> tuple[int, int]:
        return timestamp_value(obj, "$")

    # -- helpers -----------------------------------------------------------------------

    @classmethod
    def _make(cls: type[TS], seconds: int, nanos: int) -> TS:
        _check_timestamp(seconds, nanos)
        out = cls()
        out.set_seconds(seconds)
        out.set_nanos(nanos)
        return out

    @classmethod
    def from_datetime(cls: type[TS], dt: datetime) -> TS:
        """Return the Timestamp of ``dt``; a naive datetime is taken as UTC.

        Naive datetimes are UTC as in protobuf's ``Timestamp.FromDatetime``. Microsecond
        resolution (all datetime has). Raise TypeError for a non-datetime (a ``date``
        included), ValueError outside years 1 to 9999 (UTC).
        """
        if not isinstance(dt, datetime):
            raise TypeError(f"expected a datetime, got {type(dt).__name__}")
        delta = dt.replace(tzinfo=None) - _EPOCH_NAIVE
        offset = dt.utcoffset()
        if offset is not None:
            delta -= offset
        micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
        seconds, micros = divmod(micros, 1_000_000)
        return cls._make(seconds, micros * 1000)

    def to_datetime(self, tz: tzinfo | None = timezone.utc) -> datetime:
        """Return this Timestamp as an aware datetime in ``tz`` (UTC by default).

        ``tz=None`` gives a naive UTC datetime, as protobuf's ``ToDatetime()`` does.
        Nanoseconds are truncated to microseconds. Raise ValueError when out of range;
        converting to ``tz`` can overflow (OverflowError) at the very ends of the range.
        """
        seconds = self.get_seconds()
        nanos = self.get_nanos()
        _check_timestamp(seconds, nanos)
        delta = timedelta(seconds=seconds, microseconds=nanos // 1000)
        if tz is None:
            return _EPOCH_NAIVE + delta
        dt = _EPOCH_UTC + delta
        return dt if tz is timezone.utc else dt.astimezone(tz)

    @classmethod
    def now(cls: type[TS]) -> TS:
        """Return the current time (``time.time_ns()``, nanosecond resolution)."""
        seconds, nanos = divmod(time.time_ns(), _NANOS_PER_SECOND)
        return cls._make(seconds, nanos)

    @classmethod
    def from_seconds(cls: type[TS], seconds: int | float) -> TS:
        """Return the Timestamp ``seconds`` (int or float) after the Unix epoch.

        A float is rounded to the nearest nanosecond (half to even) from its exact value.
        """
        s, n = divmod(_total_nanos(seconds), _NANOS_PER_SECOND)
        return cls._make(s, n)

    @classmethod
    def from_nanoseconds(cls: type[TS], nanos: int) -> TS:
        """Return the Timestamp ``nanos`` nanoseconds after the Unix epoch."""
        s, n = divmod(nanos, _NANOS_PER_SECOND)
        return cls._make(s, n)

    def to_seconds(self) -> float:
        """Seconds since the Unix epoch as a float (correctly rounded; not protobuf's
        ``ToSeconds``, which drops the nanos: use ``get_seconds()`` for that)."""
        seconds: float = truediv(self.to_nanoseconds(), _NANOS_PER_SECOND)  # int/int, correctly rounded
        return seconds

    def to_nanoseconds(self) -> int:
        """Nanoseconds since the Unix epoch (exact)."""
        seconds = self.get_seconds()
        nanos = self.get_nanos()
        _check_timestamp(seconds, nanos)
        return seconds * _NANOS_PER_SECOND + nanos


# ----------------------------------------------------------------------------- Duration

class DurationBase(_SecondsNanosBase):
    """google.protobuf.Duration: conversions from and to timedelta, seconds, nanoseconds.

    Constructors normalise (seconds and nanos of one sign, ``|nanos| < 1e9``); every
    conversion raises ValueError beyond ±315576000000 s (about 10000 years) and the
    readers also for a sign mismatch or ``|nanos| >= 1e9``.
    """

    __slots__ = ()

    def _pb_json_write(self, out: StringWriter, ctx: JsonCtx, depth: int) -> None:
        """Write the ProtoJSON string (the reflective printer names the path of a failure)."""
        if depth > MAX_DEPTH:
            raise JsonError("$: messages nested too deeply")
        json_write_duration(out, int(self.get_seconds()), int(self.get_nanos()))

    def _pb_json_value(self, obj: Any) -> tuple[int, int]:
        return duration_value(obj, "$")

    # -- helpers -----------------------------------------------------------------------

    @classmethod
    def from_nanoseconds(cls: type[DU], nanos: int) -> DU:
        """Return the Duration of ``nanos`` nanoseconds (negative allowed)."""
        seconds, n = _split_duration(nanos)
        _check_duration(seconds, n)
        out = cls()
        out.set_seconds(seconds)
        out.set_nanos(n)
        return out

    @classmethod
    def from_timedelta(cls: type[DU], td: timedelta) -> DU:
        """Return the Duration of ``td`` (microsecond resolution)."""
        if not isinstance(td, timedelta):
            raise TypeError(f"expected a timedelta, got {type(td).__name__}")
        micros = (td.days * 86400 + td.seconds) * 1_000_000 + td.microseconds
        return cls.from_nanoseconds(micros * 1000)

    @classmethod
    def from_seconds(cls: type[DU], seconds: int | float) -> DU:
        """Return the Duration of ``seconds`` (int or float, rounded to the nanosecond)."""
        return cls.from_nanoseconds(_total_nanos(seconds))

    def to_nanoseconds(self) -> int:
        """This Duration in nanoseconds (exact)."""
        seconds = self.get_seconds()
        nanos = self.get_nanos()
        _check_duration(seconds, nanos)
        return seconds * _NANOS_PER_SECOND + nanos

    def to_seconds(self) -> float:
        """This Duration in seconds as a float (correctly rounded; protobuf's ``ToSeconds``
        drops the nanos: use ``get_seconds()`` for that)."""
        seconds: float = truediv(self.to_nanoseconds(), _NANOS_PER_SECOND)  # int/int, correctly rounded
        return seconds

    def to_timedelta(self) -> timedelta:
        """This Duration as a timedelta; nanoseconds are truncated toward zero."""
        seconds = self.get_seconds()
        nanos = self.get_nanos()
        _check_duration(seconds, nanos)
        return timedelta(seconds=seconds, microseconds=_toward_zero(nanos, 1000))


# ----------------------------------------------------------------------------- Struct

class StructBase(Message):
    """google.protobuf.Struct: ``Struct.from_python({...})``, ``struct.to_python()``.

    ``to_dict()``/``from_dict()`` (ProtoJSON) already take and give a plain dict; these
    also accept tuples and Struct/Value/ListValue messages, keep NaN and infinities,
    and raise TypeError/ValueError rather than JsonError.
    """

    __slots__ = ()

    # -- accessors (generated) ---------------------------------------------------------

    def get_fields(self) -> Mapping[str, ValueBase]:
        raise NotImplementedError

    def set_fields(self, value: Mapping[str, Any]) -> None:
        raise NotImplementedError

    # -- helpers -----------------------------------------------------------------------

    @classmethod
    def from_python(cls: type[ST], mapping: Mapping[str, Any] | StructBase) -> ST:
        """Return a Struct of ``mapping``'s items (str keys; values as Value.from_python)."""
        if isinstance(mapping, StructBase):
            mapping = mapping.to_python()
        elif not isinstance(mapping, Mapping):
            raise TypeError(f"Struct.from_python needs a mapping, got {type(mapping).__name__}")
        value_cls = _value_class(cls, "fields")
        fields: dict[str, ValueBase] = {}
        for key, item in cast(Mapping[Any, Any], mapping).items():  # keys are checked here
            if not isinstance(key, str):
                raise TypeError(f"Struct keys must be str, got {type(key).__name__}")
            fields[key] = value_cls.from_python(item)
        out = cls()
        out.set_fields(fields)
        return out

    def to_python(self) -> dict[str, Any]:
        """This Struct as a dict of plain Python values (see Value.to_python)."""
        return {key: value.to_python() for key, value in self.get_fields().items()}


class ValueBase(Message):
    """google.protobuf.Value: ``Value.from_python(x)``, ``value.to_python()``.

    None ↔ null_value, bool ↔ bool_value, int/float → number_value (→ float),
    str ↔ string_value, mapping ↔ struct_value (dict), list/tuple ↔ list_value (list).
    """

    __slots__ = ()

    # -- accessors (generated) ---------------------------------------------------------

    def which_kind(self) -> str | None:
        raise NotImplementedError

    def get_null_value(self) -> int:
        raise NotImplementedError

    def set_null_value(self, value: int) -> None:
        raise NotImplementedError

    def get_number_value(self) -> float:
        raise NotImplementedError

    def set_number_value(self, value: float) -> None:
        raise NotImplementedError

    def get_string_value(self) -> str:
        raise NotImplementedError

    def set_string_value(self, value: str) -> None:
        raise NotImplementedError

    def get_bool_value(self) -> bool:
        raise NotImplementedError

    def set_bool_value(self, value: bool) -> None:
        raise NotImplementedError

    def get_struct_value(self) -> StructBase | None:
        raise NotImplementedError

    def set_struct_value(self, value: Any) -> None:
        raise NotImplementedError

    def get_list_value(self) -> ListValueBase | None:
        raise NotImplementedError

    def set_list_value(self, value: Any) -> None:
        raise NotImplementedError

    # -- helpers -----------------------------------------------------------------------

    @classmethod
    def from_python(cls: type[VA], obj: Any) -> VA:
        """Return a Value holding ``obj``; raise TypeError for other types.

        ints become floats (number_value is a double; ValueError when too large for one).
        Struct, ListValue and Value messages are accepted and copied.
        """
        out = cls()
        if isinstance(obj, ValueBase):
            obj = obj.to_python()
        if obj is None:
            out.set_null_value(0)
        elif isinstance(obj, bool):
            out.set_bool_value(obj)
        elif isinstance(obj, str):
            out.set_string_value(obj)
        elif isinstance(obj, (int, float)):
            try:
                out.set_number_value(float(obj))
            except OverflowError:
                raise ValueError(f"integer {obj} too large for Value.number_value") from None
        elif isinstance(obj, (Mapping, StructBase)):
            out.set_struct_value(_struct_class(cls).from_python(obj))
        elif isinstance(obj, (list, tuple, ListValueBase)):
            out.set_list_value(_list_class(cls).from_python(obj))
        else:
            raise TypeError(f"cannot store a {type(obj).__name__} in google.protobuf.Value")
        return out

    def to_python(self) -> Any:
        """This Value as a plain Python value (None also when no kind is set)."""
        kind = self.which_kind()
        if kind == "number_value":
            return self.get_number_value()
        if kind == "string_value":
            return self.get_string_value()
        if kind == "bool_value":
            return self.get_bool_value()
        if kind == "struct_value":
            struct = self.get_struct_value()
            return {} if struct is None else struct.to_python()
        if kind == "list_value":
            values = self.get_list_value()
            return [] if values is None else values.to_python()
        return None


class ListValueBase(Message):
    """google.protobuf.ListValue: ``ListValue.from_python([...])``, ``lv.to_python()``."""

    __slots__ = ()

    # -- accessors (generated) ---------------------------------------------------------

    def get_values(self) -> Sequence[ValueBase]:
        raise NotImplementedError

    def set_values(self, value: Iterable[Any]) -> None:
        raise NotImplementedError

    # -- helpers -----------------------------------------------------------------------

    @classmethod
    def from_python(cls: type[LV], items: Iterable[Any] | ListValueBase) -> LV:
        """Return a ListValue of ``items`` (each as Value.from_python)."""
        if isinstance(items, ListValueBase):
            items = items.to_python()
        elif isinstance(items, (str, bytes, bytearray, Mapping)) or not isinstance(items, Iterable):
            raise TypeError(f"ListValue.from_python needs a list, got {type(items).__name__}")
        value_cls = _value_class(cls, "values")
        out = cls()
        out.set_values([value_cls.from_python(item) for item in items])
        return out

    def to_python(self) -> list[Any]:
        """This ListValue as a list of plain Python values."""
        return [value.to_python() for value in self.get_values()]


# ----------------------------------------------------------------------------- FieldMask

class FieldMaskBase(Message):
    """google.protobuf.FieldMask: ``from_paths``, JSON string form, canonical/union/intersect."""

    __slots__ = ()

    # -- accessors (generated) ---------------------------------------------------------

    def get_paths(self) -> list[str]:
        raise NotImplementedError

    def set_paths(self, value: Iterable[str]) -> None:
        raise NotImplementedError

    # -- helpers -----------------------------------------------------------------------

    @classmethod
    def from_paths(cls: type[FM], paths: Iterable[str]) -> FM:
        """Return a FieldMask of ``paths`` (in the order given)."""
        if isinstance(paths, str):
            raise TypeError("FieldMask.from_paths needs an iterable of paths, not a str")
        out = cls()
        checked: list[str] = []
        for path in paths:
            if not isinstance(path, str):
                raise TypeError(f"FieldMask paths must be str, got {type(path).__name__}")
            checked.append(path)
        out.set_paths(checked)
        return out

    def to_json_string(self) -> str:
        """The ProtoJSON form: the paths in lowerCamelCase joined by ','.

        Raise ValueError for a path that has no such form (as ``to_json`` raises JsonError).
        """
        out: list[str] = []
        for path in self.get_paths():
            camel = snake_to_camel(path)
            if camel is None or camel_to_snake(camel) != path:
                raise ValueError(f"FieldMask path {path!r} cannot be represented in JSON")
            out.append(camel)
        return ",".join(out)

    @classmethod
    def from_json_string(cls: type[FM], text: str) -> FM:
        """Parse the ProtoJSON form ("fooBar,baz.quxQuux"); raise ValueError on bad paths."""
        paths: list[str] = []
        for part in text.split(",") if text else []:
            if not part or "_" in part:
                raise ValueError(f"FieldMask path {part!r} must be lowerCamelCase")
            paths.append(camel_to_snake(part))
        return cls.from_paths(paths)

    def canonical(self: FM) -> FM:
        """A new FieldMask of the same paths, sorted, without duplicates or paths covered
        by a shorter one ("a" covers "a.b"), as protobuf's ``CanonicalFormFromMask``."""
        tree = _MaskTree()
        for path in self.get_paths():
            tree.add(path)
        return type(self).from_paths(tree.paths())

    def union(self: FM, other: FieldMaskBase) -> FM:
        """A new canonical FieldMask covering the fields either mask covers."""
        tree = _MaskTree()
        for path in self.get_paths():
            tree.add(path)
        for path in other.get_paths():
            tree.add(path)
        return type(self).from_paths(tree.paths())

    def intersect(self: FM, other: FieldMaskBase) -> FM:
        """A new canonical FieldMask covering the fields both masks cover."""
        mine = _MaskTree()
        for path in self.get_paths():
            mine.add(path)
        result = _MaskTree()
        for path in other.get_paths():
            mine.intersect_path(path, result)
        return type(self).from_paths(result.paths())


class _MaskTree:
    """Paths of a field mask as a tree; a leaf (no children) covers everything below it."""

    __slots__ = ("children",)

    def __init__(self) -> None:
        self.children: dict[str, _MaskTree] = {}

    def add(self, path: str) -> None:
        node = self
        created = False
        for name in path.split("."):
            child = node.children.get(name)
            if child is None:
                child = _MaskTree()
                node.children[name] = child
                created = True
            elif not created and not child.children:
                return  # already covered by a shorter path
            node = child
        node.children.clear()  # this path covers whatever was below it

    def paths(self) -> list[str]:
        out: list[str] = []
        self._collect("", out)
        return out

    def _collect(self, prefix: str, out: list[str]) -> None:
        for name in sorted(self.children):
            child = self.children[name]
            path = prefix + name
            if child.children:
                child._collect(path + ".", out)
            else:
                out.append(path)

    def intersect_path(self, path: str, out: _MaskTree) -> None:
        if not self.children:
            return
        node = self
        for name in path.split("."):
            child = node.children.get(name)
            if child is None:
                return
            if not child.children:
                out.add(path)  # covered by a leaf on the way
                return
            node = child
        for sub in node.paths():  # the path covers part of this tree: keep that part
            out.add(path + "." + sub)
