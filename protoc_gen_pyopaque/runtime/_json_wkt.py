"""The special ProtoJSON forms of the well-known types (Any, Timestamp, Duration, FieldMask,
Struct, Value, ListValue, wrappers), printed and parsed for the reflective code in _json;
the text forms of Timestamp and Duration serve the WKT bases (wkt.py) too.
"""

from __future__ import annotations

import datetime
import math
import re
from decimal import Decimal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from . import _json  # by module: _json imports this one too (see there)
from ._wire import NATIVE
from .errors import JsonError
from .reflect import message_info

if TYPE_CHECKING:  # i64: an annotation only (mypyc compiles it to a C int64_t, Python runs plain ints)
    from mypy_extensions import i64

    from ._json import JsonCtx

_WKT_PREFIX: Final = "google.protobuf."
_WRAPPERS: Final = frozenset(_WKT_PREFIX + n for n in (
    "DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value",
    "BoolValue", "StringValue", "BytesValue"))
_ANY: Final = _WKT_PREFIX + "Any"
_TIMESTAMP: Final = _WKT_PREFIX + "Timestamp"
_DURATION: Final = _WKT_PREFIX + "Duration"
_FIELD_MASK: Final = _WKT_PREFIX + "FieldMask"
_STRUCT: Final = _WKT_PREFIX + "Struct"
VALUE: Final = _WKT_PREFIX + "Value"
_LIST_VALUE: Final = _WKT_PREFIX + "ListValue"
NULL_VALUE: Final = _WKT_PREFIX + "NullValue"

TS_MIN: Final = -62135596800  # 0001-01-01T00:00:00Z
TS_MAX: Final = 253402300799  # 9999-12-31T23:59:59Z
DUR_MAX: Final = 315576000000
NANOS_MAX: Final = 999999999
_EPOCH_ORDINAL: Final = datetime.date(1970, 1, 1).toordinal()


def _fields_of(msg: Any) -> dict[str, Any]:
    return {f.name: v for f, v in msg._pb_items()}


def _print_any(msg: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    values = _fields_of(msg)
    type_url = values.get("type_url", "")
    payload = values.get("value", b"")
    if not type_url:
        if payload:
            raise JsonError(f"{path}: Any has a value but no type_url")
        return {}
    cls = ctx.resolve(type_url, path)
    sub = cls()
    try:
        sub.merge_from_bytes(payload, partial=True)
    except Exception as exc:  # DecodeError and friends
        raise JsonError(f"{path}: Any payload of type {type_url!r} does not parse: {exc}") from None
    printed = _json.print_message(sub, ctx, path, depth)
    if message_info(cls).full_name in SPECIAL_PRINTERS:
        return {"@type": type_url, "value": printed}
    out = {"@type": type_url}
    out.update(printed)
    return out


def _print_timestamp(msg: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    values = _fields_of(msg)
    return timestamp_text(int(values.get("seconds", 0)), int(values.get("nanos", 0)), path)


def timestamp_text(seconds: int, nanos: int, path: str) -> str:
    if not TS_MIN <= seconds <= TS_MAX:
        raise JsonError(f"{path}: Timestamp seconds {seconds} out of range (years 1 to 9999)")
    if not 0 <= nanos <= NANOS_MAX:
        raise JsonError(f"{path}: Timestamp nanos {nanos} out of range 0..999999999")
    year, month, day = civil_date(seconds)
    rest = seconds % 86400
    two = _TWO_DIGITS
    return (f"{two[year // 100]}{two[year % 100]}-{two[month]}-{two[day]}T{two[rest // 3600]}:"
            f"{two[rest // 60 % 60]}:{two[rest % 60]}{_fraction(nanos)}Z")


def civil_date(seconds: i64) -> tuple[i64, i64, i64]:
    """The year, month and day of the UTC day ``seconds`` after the epoch fall in (H. Hinnant's
    days-to-civil): integer arithmetic only, which compiles to native code (datetime.date costs
    several generic calls per use)."""
    days = seconds // 86400 + 719468  # days since 0000-03-01
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153  # from March
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3
    year = year_of_era + era * 400
    if shifted_month >= 10:  # January or February: of the next year
        month -= 12
        year += 1
    return year, month, day


_TWO_DIGITS: Final = [f"{i:02d}" for i in range(100)]  # pasted, not formatted: % and format specs cost more


def _fraction(nanos: int) -> str:
    """Nanoseconds as ProtoJSON writes them after the seconds: nothing, or 3, 6 or 9 digits."""
    if nanos == 0:
        return ""
    # the digits of the number plus a power of ten, after its leading 1: no format spec to parse
    if nanos % 1000000 == 0:
        return "." + str(nanos // 1000000 + 1000)[1:]
    if nanos % 1000 == 0:
        return "." + str(nanos // 1000 + 1000000)[1:]
    return "." + str(nanos + 1000000000)[1:]


def _print_duration(msg: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    values = _fields_of(msg)
    return duration_text(int(values.get("seconds", 0)), int(values.get("nanos", 0)), path)


def duration_text(seconds: int, nanos: int, path: str) -> str:
    if not -DUR_MAX <= seconds <= DUR_MAX:
        raise JsonError(f"{path}: Duration seconds {seconds} out of range ±{DUR_MAX}")
    if not -NANOS_MAX <= nanos <= NANOS_MAX:
        raise JsonError(f"{path}: Duration nanos {nanos} out of range")
    if (seconds > 0 and nanos < 0) or (seconds < 0 and nanos > 0):
        raise JsonError(f"{path}: Duration seconds and nanos have different signs")
    sign = "-" if seconds < 0 or nanos < 0 else ""
    return f"{sign}{abs(seconds)}{_fraction(abs(nanos))}s"


def _print_field_mask(msg: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    paths = _fields_of(msg).get("paths", [])
    out = []
    for p in paths:
        camel = snake_to_camel(p) if p and "," not in p else None  # ',' separates paths
        if camel is None or camel_to_snake(camel) != p:
            raise JsonError(f"{path}: FieldMask path {p!r} cannot be represented in JSON")
        out.append(camel)
    return ",".join(out)


def snake_to_camel(name: str) -> str | None:
    out = []
    upper = False
    for ch in name:
        if ch == "_":
            if upper:
                return None  # two underscores in a row
            upper = True
        elif upper:
            if not ("a" <= ch <= "z"):
                return None  # '_' must be followed by a lowercase letter
            out.append(ch.upper())
            upper = False
        else:
            out.append(ch)
    if upper:
        return None
    return "".join(out)


def camel_to_snake(name: str) -> str:
    return "".join("_" + ch.lower() if "A" <= ch <= "Z" else ch for ch in name)


def _print_wrapper(msg: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    field = message_info(msg).by_number[1]
    values = _fields_of(msg)
    return _json.print_scalar(field.kind, field, values.get("value", field.default), path)


def _print_struct(msg: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    fields = _fields_of(msg).get("fields", {})
    return {k: _json.print_message(v, ctx, _json.map_path(path, k), depth + 1) for k, v in fields.items()}


def _print_list_value(msg: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    values = _fields_of(msg).get("values", [])
    return [_json.print_message(v, ctx, f"{path}[{i}]", depth + 1) for i, v in enumerate(values)]


def _print_value(msg: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    items = msg._pb_items()
    if not items:
        return None
    field, value = items[0]
    name = field.name
    if name == "null_value":
        return None
    if name == "number_value":
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            raise JsonError(f"{path}: Value.number_value {number} is not a JSON number")
        return number
    if name == "string_value":
        return value
    if name == "bool_value":
        return bool(value)
    return _json.print_message(value, ctx, path, depth)


_Printer = Callable[[Any, "JsonCtx", str, int], Any]
SPECIAL_PRINTERS: Final[dict[str, _Printer]] = {
    _ANY: _print_any, _TIMESTAMP: _print_timestamp, _DURATION: _print_duration,
    _FIELD_MASK: _print_field_mask, _STRUCT: _print_struct, VALUE: _print_value,
    _LIST_VALUE: _print_list_value,
    **{name: _print_wrapper for name in _WRAPPERS},
}


def _set_fields(msg: Any, **values: Any) -> None:
    info = message_info(msg)
    for name, value in values.items():
        msg._pb_set(info.by_name[name], value)


def _parse_any(msg: Any, obj: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    if not isinstance(obj, dict):
        raise JsonError(f"{path}: expected an object for google.protobuf.Any, got {_json.describe(obj)}")
    if not obj:
        return
    type_url = obj.get("@type")
    if not isinstance(type_url, str):
        raise JsonError(f"{path}: Any object needs a string \"@type\"")
    cls = ctx.resolve(type_url, _json.key_path(path, "@type"))
    sub = cls()
    rest = {k: v for k, v in obj.items() if k != "@type"}
    if message_info(cls).full_name in SPECIAL_PARSERS:
        extra = set(rest) - {"value"}
        if extra:
            raise JsonError(f"{path}: Any of {message_info(cls).full_name} takes only \"@type\" and \"value\", "
                            f"got {sorted(extra)!r}")
        if "value" in rest:
            _json.merge_message(sub, rest["value"], ctx, _json.key_path(path, "value"), depth)
    else:
        _json.merge_message(sub, rest, ctx, path, depth)
    try:
        payload = sub.serialize(deterministic=True, partial=True)
    except Exception as exc:  # EncodeError
        raise JsonError(f"{path}: Any payload cannot be serialized: {exc}") from None
    _set_fields(msg, type_url=type_url, value=payload)


_TIMESTAMP_TEXT: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})\Z")


def _parse_timestamp(msg: Any, obj: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    seconds, nanos = timestamp_value(obj, path)
    _set_fields(msg, seconds=seconds, nanos=nanos)


def timestamp_value(obj: Any, path: str) -> tuple[int, int]:
    """The seconds and nanos of an RFC 3339 timestamp string; JsonError naming ``path``."""
    if NATIVE and type(obj) is str:  # interpreted, the pattern is faster than reading digit by digit
        read = _utc_timestamp(obj)
        if read[0] >= TS_MIN:
            return read
    m = _TIMESTAMP_TEXT.match(obj) if isinstance(obj, str) else None
    if m is None:
        raise JsonError(f"{path}: expected an RFC 3339 timestamp like \"1972-01-01T10:00:20.021Z\", "
                        f"got {_json.describe(obj)}")
    year, month, day, hh, mm, ss = map(int, m.group(1, 2, 3, 4, 5, 6))
    try:
        date = datetime.date(year, month, day)
    except ValueError as exc:
        raise JsonError(f"{path}: invalid date in timestamp {_json.show(obj)}: {exc}") from None
    if hh > 23 or mm > 59 or ss > 59:
        raise JsonError(f"{path}: invalid time of day in timestamp {_json.show(obj)}")
    seconds = (date.toordinal() - _EPOCH_ORDINAL) * 86400 + hh * 3600 + mm * 60 + ss
    frac = m.group(7)
    nanos = int((frac[1:] + "000000000")[:9]) if frac else 0
    zone = m.group(8)
    if zone != "Z":
        oh, om = int(zone[1:3]), int(zone[4:6])
        if oh > 23 or om > 59:
            raise JsonError(f"{path}: invalid UTC offset in timestamp {_json.show(obj)}")
        offset = oh * 3600 + om * 60
        seconds -= offset if zone[0] == "+" else -offset
    if not TS_MIN <= seconds <= TS_MAX:
        raise JsonError(f"{path}: timestamp {_json.show(obj)} out of range (years 1 to 9999)")
    return seconds, nanos


def _utc_timestamp(text: str) -> tuple[int, int]:
    """The seconds and nanos of ``text`` in the form ProtoJSON prints, "1972-01-01T10:00:20.021Z"
    (UTC, 0 to 9 fraction digits), read digit by digit (compiled: native code, no objects made);
    seconds below TS_MIN when it is not in that form or not a valid time: the pattern decides."""
    size = len(text)
    if not (size == 20 or 22 <= size <= 30) or ord(text[size - 1]) != 90 or ord(text[4]) != 45 \
            or ord(text[7]) != 45 or ord(text[10]) != 84 or ord(text[13]) != 58 or ord(text[16]) != 58:
        return TS_MIN - 1, 0
    year = _digits(text, 0, 4)
    month = _digits(text, 5, 7)
    day = _digits(text, 8, 10)
    hours = _digits(text, 11, 13)
    minutes = _digits(text, 14, 16)
    secs = _digits(text, 17, 19)
    nanos: i64 = 0
    if size > 20:
        if ord(text[19]) != 46:
            return TS_MIN - 1, 0
        nanos = _digits(text, 20, size - 1)
        for _ in range(size, 30):  # 10 ** (9 - the fraction's digits), in native ints
            nanos *= 10
    if year < 1 or month < 1 or month > 12 or day < 1 or hours < 0 or hours > 23 or minutes < 0 \
            or minutes > 59 or secs < 0 or secs > 59 or nanos < 0:
        return TS_MIN - 1, 0
    if day > _MONTH_DAYS[month] and not (month == 2 and day == 29 and year % 4 == 0
                                         and (year % 100 != 0 or year % 400 == 0)):
        return TS_MIN - 1, 0
    # the day number of a civil date (H. Hinnant's civil-to-days), years from March
    march_year = year - 1 if month <= 2 else year
    era = march_year // 400
    year_of_era = march_year - era * 400
    day_of_year = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    days = era * 146097 + day_of_era - 719468
    return days * 86400 + hours * 3600 + minutes * 60 + secs, nanos


def _digits(text: str, start: i64, end: i64) -> i64:
    """The ASCII decimal digits text[start:end] as a number; -1 if any is not such a digit.

    Native ints compiled: no boxed arithmetic (at most 9 digits: no overflow)."""
    number: i64 = 0
    for i in range(start, end):
        digit: i64 = ord(text[i])  # then less "0" as a native int, not a tagged one
        digit -= 48
        if digit < 0 or digit > 9:
            return -1
        number = number * 10 + digit
    return number


_MONTH_DAYS: Final = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]  # February of a leap year: 29


_DURATION_TEXT: Final = re.compile(r"(-)?([0-9]+)(\.[0-9]{1,9})?s\Z")


def _parse_duration(msg: Any, obj: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    seconds, nanos = duration_value(obj, path)
    _set_fields(msg, seconds=seconds, nanos=nanos)


def duration_value(obj: Any, path: str) -> tuple[int, int]:
    """The seconds and nanos of a ProtoJSON duration string; JsonError naming ``path``."""
    m = _DURATION_TEXT.match(obj) if isinstance(obj, str) else None
    if m is None:
        raise JsonError(f"{path}: expected a duration like \"1.5s\", got {_json.describe(obj)}")
    seconds = int(m.group(2))
    frac = m.group(3)
    nanos = int((frac[1:] + "000000000")[:9]) if frac else 0
    if seconds > DUR_MAX:
        raise JsonError(f"{path}: duration {_json.show(obj)} out of range ±{DUR_MAX}s")
    if m.group(1):
        seconds, nanos = -seconds, -nanos
    return seconds, nanos


def _parse_field_mask(msg: Any, obj: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    if not isinstance(obj, str):
        raise JsonError(f"{path}: expected a FieldMask string like \"a,bC\", got {_json.describe(obj)}")
    paths = []
    _json.check_utf8(obj, path)
    for p in obj.split(",") if obj else []:
        if "_" in p or not p:
            raise JsonError(f"{path}: FieldMask path {p!r} must be lowerCamelCase")
        paths.append(camel_to_snake(p))
    _set_fields(msg, paths=paths)


def _parse_wrapper(msg: Any, obj: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    field = message_info(msg).by_number[1]
    if obj is None:
        raise JsonError(f"{path}: expected a value for {message_info(msg).full_name}, got null")
    msg._pb_set(field, _json.parse_scalar(field.kind, field, obj, ctx, path))


def _parse_struct(msg: Any, obj: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    if not isinstance(obj, dict):
        raise JsonError(f"{path}: expected an object for google.protobuf.Struct, got {_json.describe(obj)}")
    info = message_info(msg)
    field = info.by_name["fields"]
    value_cls = field.map_value.message_type  # type: ignore[union-attr]
    current = dict(_fields_of(msg).get("fields", {}))
    for key, value in obj.items():
        _json.check_utf8(key, path)
        sub = value_cls()  # type: ignore[misc]
        _json.merge_message(sub, value, ctx, _json.map_path(path, key), depth + 1)
        current[key] = sub
    msg._pb_set(field, current)


def _parse_list_value(msg: Any, obj: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    if not isinstance(obj, list):
        raise JsonError(f"{path}: expected an array for google.protobuf.ListValue, got {_json.describe(obj)}")
    field = message_info(msg).by_name["values"]
    value_cls = field.message_type
    assert value_cls is not None
    values = []
    for i, value in enumerate(obj):
        sub = value_cls()
        _json.merge_message(sub, value, ctx, f"{path}[{i}]", depth + 1)
        values.append(sub)
    msg._pb_set(field, values)


def _parse_value(msg: Any, obj: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    info = message_info(msg)
    if obj is None:
        msg._pb_set(info.by_name["null_value"], 0)
    elif isinstance(obj, bool):
        msg._pb_set(info.by_name["bool_value"], obj)
    elif isinstance(obj, str):
        _json.check_utf8(obj, path)
        msg._pb_set(info.by_name["string_value"], obj)
    elif isinstance(obj, (int, float, Decimal)):
        if _json.may_be_negative_zero(obj, ctx):
            raise _json.json_refuse()
        number = _json.parse_float(False, obj, path)
        msg._pb_set(info.by_name["number_value"], number)
    elif isinstance(obj, dict):
        field = info.by_name["struct_value"]
        sub = field.message_type()  # type: ignore[misc]
        _json.merge_message(sub, obj, ctx, path, depth)
        msg._pb_set(field, sub)
    elif isinstance(obj, list):
        field = info.by_name["list_value"]
        sub = field.message_type()  # type: ignore[misc]
        _json.merge_message(sub, obj, ctx, path, depth)
        msg._pb_set(field, sub)
    else:
        raise JsonError(f"{path}: {type(obj).__name__} is not a JSON value")


_Parser = Callable[[Any, Any, "JsonCtx", str, int], None]
SPECIAL_PARSERS: Final[dict[str, _Parser]] = {
    _ANY: _parse_any, _TIMESTAMP: _parse_timestamp, _DURATION: _parse_duration,
    _FIELD_MASK: _parse_field_mask, _STRUCT: _parse_struct, VALUE: _parse_value,
    _LIST_VALUE: _parse_list_value,
    **{name: _parse_wrapper for name in _WRAPPERS},
}
