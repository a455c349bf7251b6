"""Canonical ProtoJSON for generated messages of every style, driven by the reflection tables.

``to_dict``/``to_json`` print a message; ``from_dict``/``from_json`` build one;
``merge_from_dict``/``merge_from_json`` merge into an existing one. Well-known types
(Any, Timestamp, Duration, FieldMask, Struct/Value/ListValue, wrappers, Empty) take
their special JSON forms. Every failure raises JsonError naming a JSON path.

``Any`` needs the class of its payload: types reachable from the message being
converted, every class given to ``register_message_class``/``register_module`` and
the well-known types are found by full name.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import importlib
import json
import math
import re
import struct
import sys
from decimal import Decimal, InvalidOperation
from json.encoder import encode_basestring
from types import ModuleType
from typing import Any, Callable, Final, TypeVar, cast

from .errors import JsonError
from .reflect import (
    TYPE_BOOL, TYPE_BYTES, TYPE_DOUBLE, TYPE_ENUM, TYPE_FIXED32, TYPE_FIXED64,
    TYPE_FLOAT, TYPE_GROUP, TYPE_INT32, TYPE_INT64, TYPE_MESSAGE, TYPE_SFIXED32,
    TYPE_SFIXED64, TYPE_SINT32, TYPE_SINT64, TYPE_STRING, TYPE_UINT32, TYPE_UINT64,
    INT_RANGES, KIND_NAMES, EnumInfo, ExtensionInfo, FieldInfo, MessageInfo, message_info,
)

__all__ = [
    "to_dict", "to_json", "from_dict", "from_json", "merge_from_dict", "merge_from_json",
    "register_message_class", "register_module", "find_message_class", "MAX_DEPTH",
]

M = TypeVar("M")

MAX_DEPTH: Final = 100  # JSON nesting (objects and arrays) accepted on input and printed on output

_INT_RANGES: Final = INT_RANGES
_INT64_KINDS: Final = frozenset((TYPE_INT64, TYPE_UINT64, TYPE_FIXED64, TYPE_SINT64, TYPE_SFIXED64))
_MESSAGE_KINDS: Final = frozenset((TYPE_MESSAGE, TYPE_GROUP))

_WKT_PREFIX: Final = "google.protobuf."
_WRAPPERS: Final = frozenset(_WKT_PREFIX + n for n in (
    "DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value",
    "BoolValue", "StringValue", "BytesValue"))
_ANY: Final = _WKT_PREFIX + "Any"
_TIMESTAMP: Final = _WKT_PREFIX + "Timestamp"
_DURATION: Final = _WKT_PREFIX + "Duration"
_FIELD_MASK: Final = _WKT_PREFIX + "FieldMask"
_STRUCT: Final = _WKT_PREFIX + "Struct"
_VALUE: Final = _WKT_PREFIX + "Value"
_LIST_VALUE: Final = _WKT_PREFIX + "ListValue"
_NULL_VALUE: Final = _WKT_PREFIX + "NullValue"
_WKT_MODULES: Final = ("any", "duration", "empty", "field_mask", "struct", "timestamp", "wrappers",
                       "source_context", "type", "api")

_TS_MIN: Final = -62135596800  # 0001-01-01T00:00:00Z
_TS_MAX: Final = 253402300799  # 9999-12-31T23:59:59Z
_DUR_MAX: Final = 315576000000
_NANOS_MAX: Final = 999999999
_EPOCH_ORDINAL: Final = datetime.date(1970, 1, 1).toordinal()


# ----------------------------------------------------------------------------- type registry

_registry: dict[str, type] = {}
_wkt_loaded = False
_reachable_cache: dict[type, dict[str, type]] = {}


def register_message_class(cls: type) -> None:
    """Make ``cls`` (a generated message class) known to Any by its full name."""
    info: MessageInfo = cls._pb_info  # type: ignore[attr-defined]
    _registry[info.full_name] = cls


def register_module(module: ModuleType) -> None:
    """Register every message class (nested ones too) defined in a generated module."""
    def walk(owner: object) -> None:
        for value in list(getattr(owner, "__dict__").values()):  # vars(): a dict to mypyc, not a mappingproxy
            if isinstance(value, type) and isinstance(getattr(value, "_pb_info", None), MessageInfo) \
                    and value.__module__ == module.__name__:
                register_message_class(value)
                walk(value)
    walk(module)


def _load_wkts() -> None:
    global _wkt_loaded
    if _wkt_loaded:
        return
    _wkt_loaded = True
    base = __name__.rpartition(".")[0] + ".google.protobuf."
    for name in _WKT_MODULES:
        try:
            module = importlib.import_module(base + name + "_pb")
        except ImportError:  # pragma: no cover - the runtime ships them
            continue
        module = sys.modules.get(base + name + "_pb", module)
        for value in list(vars(module).values()):
            if isinstance(value, type) and isinstance(getattr(value, "_pb_info", None), MessageInfo):
                _registry.setdefault(_info(value).full_name, value)


def _reachable(root: type) -> dict[str, type]:
    """Every message class reachable from ``root`` through fields and known extensions."""
    found = _reachable_cache.get(root)
    if found is not None:
        return found
    found = {}
    todo = [root]
    while todo:
        cls = todo.pop()
        info: MessageInfo | None = getattr(cls, "_pb_info", None)
        if info is None or info.full_name in found:
            continue
        found[info.full_name] = cls
        fields = list(info.fields) + [ext.field for ext in info.extensions.values()]
        for field in fields:
            for sub in (field, field.map_value):
                if sub is not None and sub.message_type is not None:
                    todo.append(sub.message_type)
    _reachable_cache[root] = found
    return found


def find_message_class(full_name: str, root: type | None = None) -> type | None:
    """Return the class of ``full_name``: reachable from ``root``, registered, or a WKT."""
    if root is not None:
        cls = _reachable(root).get(full_name)
        if cls is not None:
            return cls
    cls = _registry.get(full_name)
    if cls is None and not _wkt_loaded:
        _load_wkts()
        cls = _registry.get(full_name)
    return cls


# ----------------------------------------------------------------------------- helpers

_info = message_info


def _show(value: object) -> str:
    """A short JSON rendering of an input value for error messages."""
    if isinstance(value, Decimal):
        text = str(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return _show(value)


# Paths are built for every field but read only in error messages: keep them cheap.
def _key_path(path: str, key: str) -> str:
    if key.isidentifier() and key.isascii():
        return path + "." + key
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _map_path(path: str, key: str) -> str:
    if key.isascii() and key.isalnum():
        return path + '["' + key + '"]'
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


# one encoder for compact output (json.dumps with options builds a new one per call)
_COMPACT: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


class _Ctx:
    """Options and state of one conversion."""

    __slots__ = ("root", "proto_names", "always_print", "ignore_unknown", "rounded_floats")

    def __init__(self, root: type, proto_names: bool = False, always_print: bool = False,
                 ignore_unknown: bool = False, rounded_floats: bool = False) -> None:
        self.root = root
        self.proto_names = proto_names
        self.always_print = always_print
        self.ignore_unknown = ignore_unknown
        # JSON numbers with a fraction or exponent were read as floats (from_json's fast
        # path): integer fields refuse them, as they may have lost digits ("1.0000000000000001"
        # reads as 1.0); the exact decimals of the rerun decide
        self.rounded_floats = rounded_floats

    def resolve(self, type_url: str, path: str) -> type:
        name = type_url.rpartition("/")[2]
        cls = find_message_class(name, self.root) if name else None
        if cls is None:
            raise JsonError(f"{path}: cannot resolve Any type {type_url!r}: "
                            "register its class with json_format.register_message_class")
        return cls


# ============================================================================= printing

def to_dict(msg: object, *, preserving_proto_field_names: bool = False,
            always_print_fields_with_no_presence: bool = False) -> Any:
    """Return the ProtoJSON form of ``msg`` as Python values (a dict for most messages).

    Well-known types print their special forms (a string for Timestamp, etc.).
    Raise JsonError for values ProtoJSON cannot represent (e.g. out-of-range Timestamps).
    """
    if not preserving_proto_field_names and not always_print_fields_with_no_presence:
        text = _fast_text(msg)
        if text is not None:
            return json.loads(text)
    ctx = _Ctx(type(msg), preserving_proto_field_names, always_print_fields_with_no_presence)
    try:
        return _print_message(msg, ctx, "$", 0)
    except RecursionError:
        raise JsonError("$: message nested too deeply to print") from None


def to_json(msg: object, *, indent: int | None = None, preserving_proto_field_names: bool = False,
            always_print_fields_with_no_presence: bool = False, sort_keys: bool = False) -> str:
    """Return ``msg`` as canonical ProtoJSON text."""
    if indent is None and not sort_keys and not preserving_proto_field_names \
            and not always_print_fields_with_no_presence:
        text = _fast_text(msg)
        if text is not None:
            return text
    obj = to_dict(msg, preserving_proto_field_names=preserving_proto_field_names,
                  always_print_fields_with_no_presence=always_print_fields_with_no_presence)
    if indent is None and not sort_keys:
        return _COMPACT.encode(obj)
    return json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False, sort_keys=sort_keys,
                      separators=None if indent is not None else (",", ":"))


# What the generated JSON code raises when it gives up (on values of the wrong type too):
# the reflective code then runs again and decides, naming the JSON path of a failure.
_GIVE_UP: Final = (JsonError, RecursionError, TypeError, ValueError, AttributeError, OverflowError)


def _fast_text(msg: Any) -> str | None:
    """Compact ProtoJSON from the generated printers, or None when they give up."""
    try:
        text: str = msg._pb_json_text(_Ctx(type(msg)), 0)
    except _GIVE_UP:
        return None
    return text


def _print_message(msg: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise JsonError(f"{path}: messages nested deeper than {MAX_DEPTH}")
    info = _info(msg)
    special = _SPECIAL_PRINTERS.get(info.full_name)
    if special is not None:
        return special(msg, ctx, path, depth)
    out: dict[str, Any] = {}
    items = msg._pb_items()
    if ctx.always_print:
        have = {f.number for f, _ in items}
        values = dict((f.number, v) for f, v in items)
        fields = []
        for field in info.fields:
            if field.number in have:
                fields.append((field, values[field.number]))
            elif not field.presence and not field.oneof:
                if field.is_map:
                    fields.append((field, {}))
                elif field.repeated:
                    fields.append((field, []))
                elif field.kind not in _MESSAGE_KINDS:
                    fields.append((field, field.default))
        items = fields
    for field, value in items:
        name = field.name if ctx.proto_names else field.json_name
        out[name] = _print_field(field, value, ctx, _key_path(path, name), depth)
    out.update(_print_extensions(msg, info, ctx, path, depth))
    return out


def _print_extensions(msg: Any, info: MessageInfo, ctx: _Ctx, path: str, depth: int) -> list[tuple[str, Any]]:
    ext_values = getattr(msg, "_pb_ext", None)
    out: list[tuple[str, Any]] = []
    if ext_values:
        for number in sorted(ext_values):
            value = ext_values[number]
            ext = info.extensions.get(number)
            if ext is None or value is None or (ext.field.repeated and not value):
                continue
            name = f"[{ext.full_name}]"
            out.append((name, _print_field(ext.field, value, ctx, _map_path(path, name), depth)))
    return out


def _print_field(field: FieldInfo, value: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    if field.is_map:
        key_field = field.map_key
        value_field = field.map_value
        assert key_field is not None and value_field is not None
        result: dict[str, Any] = {}
        for k, v in value.items():
            if key_field.kind == TYPE_BOOL:
                key = "true" if k else "false"
            else:
                key = str(k) if key_field.kind != TYPE_STRING else k
            result[key] = _print_single(value_field, v, ctx, _map_path(path, key), depth + 1)
        return result
    if field.repeated:
        return [_print_single(field, v, ctx, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return _print_single(field, value, ctx, path, depth)


def _print_single(field: FieldInfo, value: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    kind = field.kind
    if kind in _MESSAGE_KINDS:
        return _print_message(value, ctx, path, depth + 1)
    return _print_scalar(kind, field, value, path)


def _print_scalar(kind: int, field: FieldInfo | None, value: Any, path: str) -> Any:
    if kind == TYPE_STRING:
        return value
    if kind == TYPE_BOOL:
        return bool(value)
    if kind in _INT64_KINDS:
        return str(int(value))
    if kind in _INT_RANGES:
        return int(value)
    if kind == TYPE_ENUM:
        enum = field.enum if field is not None else None
        number = int(value)
        if enum is not None:
            if enum.full_name == _NULL_VALUE:
                return None
            name = enum.numbers.get(number)
            if name is not None:
                return name
        return number
    if kind in (TYPE_DOUBLE, TYPE_FLOAT):
        return _print_float(float(value), kind == TYPE_FLOAT)
    if kind == TYPE_BYTES:
        return base64.b64encode(bytes(value)).decode("ascii")
    raise JsonError(f"{path}: cannot print field kind {kind}")  # pragma: no cover


def _print_float(value: float, single: bool) -> Any:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if single:
        # the shortest decimal that reads back as the same float32
        try:
            want = struct.pack("<f", value)
        except OverflowError:
            return value
        for digits in range(6, 10):
            text = f"{value:.{digits}g}"
            if struct.pack("<f", float(text)) == want:
                return float(text)
    return value


# -- well-known types: printing -------------------------------------------------------

def _fields_of(msg: Any) -> dict[str, Any]:
    return {f.name: v for f, v in msg._pb_items()}


def _print_any(msg: Any, ctx: _Ctx, path: str, depth: int) -> Any:
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
    printed = _print_message(sub, ctx, path, depth)
    if _info(cls).full_name in _SPECIAL_PRINTERS:
        return {"@type": type_url, "value": printed}
    out = {"@type": type_url}
    out.update(printed)
    return out


def _print_timestamp(msg: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    values = _fields_of(msg)
    return _timestamp_text(int(values.get("seconds", 0)), int(values.get("nanos", 0)), path)


def _timestamp_text(seconds: int, nanos: int, path: str) -> str:
    if not _TS_MIN <= seconds <= _TS_MAX:
        raise JsonError(f"{path}: Timestamp seconds {seconds} out of range (years 1 to 9999)")
    if not 0 <= nanos <= _NANOS_MAX:
        raise JsonError(f"{path}: Timestamp nanos {nanos} out of range 0..999999999")
    days, rest = divmod(seconds, 86400)
    day = datetime.date.fromordinal(_EPOCH_ORDINAL + days)
    return "%04d-%02d-%02dT%02d:%02d:%02d%sZ" % (
        day.year, day.month, day.day, rest // 3600, rest // 60 % 60, rest % 60, _fraction(nanos))


def _fraction(nanos: int) -> str:
    if nanos == 0:
        return ""
    if nanos % 1000000 == 0:
        return ".%03d" % (nanos // 1000000)
    if nanos % 1000 == 0:
        return ".%06d" % (nanos // 1000)
    return ".%09d" % nanos


def _print_duration(msg: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    values = _fields_of(msg)
    return _duration_text(int(values.get("seconds", 0)), int(values.get("nanos", 0)), path)


def _duration_text(seconds: int, nanos: int, path: str) -> str:
    if not -_DUR_MAX <= seconds <= _DUR_MAX:
        raise JsonError(f"{path}: Duration seconds {seconds} out of range ±{_DUR_MAX}")
    if not -_NANOS_MAX <= nanos <= _NANOS_MAX:
        raise JsonError(f"{path}: Duration nanos {nanos} out of range")
    if (seconds > 0 and nanos < 0) or (seconds < 0 and nanos > 0):
        raise JsonError(f"{path}: Duration seconds and nanos have different signs")
    sign = "-" if seconds < 0 or nanos < 0 else ""
    return f"{sign}{abs(seconds)}{_fraction(abs(nanos))}s"


def _print_field_mask(msg: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    paths = _fields_of(msg).get("paths", [])
    out = []
    for p in paths:
        camel = _snake_to_camel(p) if p and "," not in p else None  # ',' separates paths
        if camel is None or _camel_to_snake(camel) != p:
            raise JsonError(f"{path}: FieldMask path {p!r} cannot be represented in JSON")
        out.append(camel)
    return ",".join(out)


def _snake_to_camel(name: str) -> str | None:
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


def _camel_to_snake(name: str) -> str:
    return "".join("_" + ch.lower() if "A" <= ch <= "Z" else ch for ch in name)


def _print_wrapper(msg: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    field = _info(msg).by_number[1]
    values = _fields_of(msg)
    return _print_scalar(field.kind, field, values.get("value", field.default), path)


def _print_struct(msg: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    fields = _fields_of(msg).get("fields", {})
    return {k: _print_message(v, ctx, _map_path(path, k), depth + 1) for k, v in fields.items()}


def _print_list_value(msg: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    values = _fields_of(msg).get("values", [])
    return [_print_message(v, ctx, f"{path}[{i}]", depth + 1) for i, v in enumerate(values)]


def _print_value(msg: Any, ctx: _Ctx, path: str, depth: int) -> Any:
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
    return _print_message(value, ctx, path, depth)


_Printer = Callable[[Any, _Ctx, str, int], Any]
_SPECIAL_PRINTERS: Final[dict[str, _Printer]] = {
    _ANY: _print_any, _TIMESTAMP: _print_timestamp, _DURATION: _print_duration,
    _FIELD_MASK: _print_field_mask, _STRUCT: _print_struct, _VALUE: _print_value,
    _LIST_VALUE: _print_list_value,
    **{name: _print_wrapper for name in _WRAPPERS},
}


# ============================================================================= parsing

class _Skip(Exception):
    """An unknown enum name under ignore_unknown_fields: drop the value."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return out


def _load(text: str | bytes | bytearray) -> Any:
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonError(f"$: invalid UTF-8 in JSON input at byte {exc.start}") from None
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_float=Decimal,
                          parse_constant=_no_constant)
    except RecursionError:
        raise JsonError("$: JSON nested too deeply") from None
    except ValueError as exc:
        raise JsonError(f"$: invalid JSON: {exc}") from None


def from_json(cls: type[M], text: str | bytes | bytearray, *, ignore_unknown_fields: bool = False) -> M:
    """Parse ProtoJSON ``text`` into a new ``cls``; raise JsonError on any problem."""
    if type(text) is str:
        # fast path: numbers read as floats (in C), no Decimal
        try:
            obj = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            pass  # _load below names the problem
        else:
            msg = cls()
            try:
                cast(Any, msg)._pb_json_merge(obj, _Ctx(cls, ignore_unknown=ignore_unknown_fields,
                                                         rounded_floats=True), 0)
                return msg
            except _GIVE_UP:
                pass
    return from_dict(cls, _load(text), ignore_unknown_fields=ignore_unknown_fields)


def from_dict(cls: type[M], obj: Any, *, ignore_unknown_fields: bool = False) -> M:
    """Build a ``cls`` from ProtoJSON-shaped Python values (as json.loads returns)."""
    msg = cls()
    if _fast_merge(msg, obj, ignore_unknown_fields):
        return msg
    msg = cls()
    _reflective_merge(msg, obj, ignore_unknown_fields)
    return msg


def merge_from_json(msg: object, text: str | bytes | bytearray, *, ignore_unknown_fields: bool = False) -> None:
    """Merge ProtoJSON ``text`` into ``msg`` (see merge_from_dict)."""
    merge_from_dict(msg, _load(text), ignore_unknown_fields=ignore_unknown_fields)


def merge_from_dict(msg: object, obj: Any, *, ignore_unknown_fields: bool = False) -> None:
    """Merge ProtoJSON-shaped values into ``msg``.

    Scalars given replace the current value, sub-messages are merged, repeated and map
    fields given are replaced; ``null`` leaves a field as it is.
    """
    if not _fast_merge(msg, obj, ignore_unknown_fields):
        _reflective_merge(msg, obj, ignore_unknown_fields)


def _reflective_merge(msg: object, obj: Any, ignore_unknown: bool) -> None:
    ctx = _Ctx(type(msg), ignore_unknown=ignore_unknown)
    try:
        _merge_message(msg, obj, ctx, "$", 0)
    except RecursionError:
        raise JsonError("$: JSON nested too deeply") from None


def _fast_merge(msg: Any, obj: Any, ignore_unknown: bool) -> bool:
    """Merge with the generated parsers; False when they give up (see _GIVE_UP).

    The caller then runs the reflective parser (merging the same values twice changes nothing).
    """
    try:
        msg._pb_json_merge(obj, _Ctx(type(msg), ignore_unknown=ignore_unknown), 0)
    except _GIVE_UP:
        return False
    return True


def _merge_message(msg: Any, obj: Any, ctx: _Ctx, path: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise JsonError(f"{path}: nested deeper than {MAX_DEPTH}")
    info = _info(msg)
    special = _SPECIAL_PARSERS.get(info.full_name)
    if special is not None:
        special(msg, obj, ctx, path, depth)
        return
    if not isinstance(obj, dict):
        raise JsonError(f"{path}: expected an object for {info.full_name}, got {_describe(obj)}")
    current = {f.number: v for f, v in msg._pb_items()}
    seen: dict[tuple[bool, int], str] = {}
    oneofs: dict[str, str] = {}
    for key, value in obj.items():
        if info.legacy_json:  # json_name clashes are allowed there: the proto name wins
            field = info.by_name.get(key) or info.by_json_name.get(key)
        else:
            field = info.by_json_name.get(key) or info.by_name.get(key)
        ext: ExtensionInfo | None = None
        if field is None and key.startswith("[") and key.endswith("]"):
            ext = _find_extension(info, key[1:-1])
            if ext is not None:
                field = ext.field
        fpath = _key_path(path, key)
        if field is None:
            if ctx.ignore_unknown:
                continue
            raise JsonError(f"{fpath}: {info.full_name} has no field named {key!r}")
        number = field.number
        other_key = seen.get((ext is not None, number))
        if other_key is not None:
            raise JsonError(f"{fpath}: field {field.name!r} given twice (also as {other_key!r})")
        seen[(ext is not None, number)] = key
        if value is None and not _null_is_value(field):
            continue
        if field.oneof:
            other = oneofs.get(field.oneof)
            if other is not None:
                raise JsonError(f"{fpath}: oneof {field.oneof!r} already set by {other!r}")
            oneofs[field.oneof] = key
        try:
            if ext is not None:
                _merge_extension(msg, ext, value, ctx, fpath, depth)
            else:
                existing = current.get(number)
                result = _parse_field(field, value, existing, ctx, fpath, depth)
                if result is not existing or field.kind not in _MESSAGE_KINDS:
                    msg._pb_set(field, result)
        except _Skip:
            continue


def _find_extension(info: MessageInfo, name: str) -> ExtensionInfo | None:
    for ext in info.extensions.values():
        if ext.full_name == name:
            return ext
    return None


def _merge_extension(msg: Any, ext: ExtensionInfo, value: Any, ctx: _Ctx, path: str, depth: int) -> None:
    store = getattr(msg, "_pb_ext", None)
    if store is None:  # pragma: no cover - extendable messages always have one
        raise JsonError(f"{path}: {type(msg).__name__} cannot hold extensions")
    existing = None if ext.field.repeated else store.get(ext.field.number)
    store[ext.field.number] = _parse_field(ext.field, value, existing, ctx, path, depth)


def _null_is_value(field: FieldInfo) -> bool:
    """Say whether JSON null is a value (not "unset") for this field."""
    if field.repeated or field.is_map:
        return False
    if field.kind in _MESSAGE_KINDS:
        return field.message_type is not None and _info(field.message_type).full_name == _VALUE
    return field.enum is not None and field.enum.full_name == _NULL_VALUE


def _parse_field(field: FieldInfo, value: Any, existing: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    if field.is_map:
        if not isinstance(value, dict):
            raise JsonError(f"{path}: expected an object for map field {field.name!r}, got {_describe(value)}")
        key_field = field.map_key
        value_field = field.map_value
        assert key_field is not None and value_field is not None
        result: dict[Any, Any] = {}
        for k, v in value.items():
            kpath = _map_path(path, k)
            key = _parse_map_key(key_field.kind, k, kpath)
            if v is None and not _null_is_value(value_field):
                raise JsonError(f"{kpath}: map values cannot be null")
            try:
                result[key] = _parse_single(value_field, v, None, ctx, kpath, depth + 1)
            except _Skip:
                continue
        return result
    if field.repeated:
        if not isinstance(value, list):
            raise JsonError(f"{path}: expected an array for repeated field {field.name!r}, got {_describe(value)}")
        items: list[Any] = []
        for i, v in enumerate(value):
            ipath = f"{path}[{i}]"
            if v is None and not (field.kind in _MESSAGE_KINDS and field.message_type is not None
                                  and _info(field.message_type).full_name == _VALUE):
                raise JsonError(f"{ipath}: repeated field elements cannot be null")
            try:
                items.append(_parse_single(field, v, None, ctx, ipath, depth + 1))
            except _Skip:
                continue
        return items
    return _parse_single(field, value, existing, ctx, path, depth)


def _parse_map_key(kind: int, key: str, path: str) -> Any:
    if kind == TYPE_STRING:
        _check_utf8(key, path)
        return key
    if kind == TYPE_BOOL:
        if key == "true":
            return True
        if key == "false":
            return False
        raise JsonError(f"{path}: map key must be \"true\" or \"false\", got {_show(key)}")
    if kind in _INT_RANGES:
        return _parse_int(kind, key, path)
    raise JsonError(f"{path}: map key of kind {kind} not supported")  # pragma: no cover


def _parse_single(field: FieldInfo, value: Any, existing: Any, ctx: _Ctx, path: str, depth: int) -> Any:
    kind = field.kind
    if kind in _MESSAGE_KINDS:
        cls = field.message_type
        assert cls is not None
        sub = existing if existing is not None else cls()
        _merge_message(sub, value, ctx, path, depth + 1)
        return sub
    return _parse_scalar(kind, field, value, ctx, path)


def _parse_scalar(kind: int, field: FieldInfo | None, value: Any, ctx: _Ctx | None, path: str) -> Any:
    if kind in _INT_RANGES:
        if ctx is not None and ctx.rounded_floats and type(value) is float:
            raise json_refuse()
        return _parse_int(kind, value, path)
    if kind == TYPE_STRING:
        if not isinstance(value, str):
            raise JsonError(f"{path}: expected a string, got {_describe(value)}")
        _check_utf8(value, path)
        return value
    if kind == TYPE_BOOL:
        if not isinstance(value, bool):
            raise JsonError(f"{path}: expected true or false, got {_describe(value)}")
        return value
    if kind in (TYPE_DOUBLE, TYPE_FLOAT):
        return _parse_float(kind == TYPE_FLOAT, value, path)
    if kind == TYPE_BYTES:
        return _parse_bytes(value, path)
    if kind == TYPE_ENUM:
        return _parse_enum(field, value, ctx, path)
    raise JsonError(f"{path}: cannot parse field kind {kind}")  # pragma: no cover


def _check_utf8(value: str, path: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise JsonError(f"{path}: string contains an unpaired surrogate") from None


_INT_TEXT: Final = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")


def _parse_int(kind: int, value: Any, path: str) -> int:
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        raise JsonError(f"{path}: expected an integer, got {_describe(value)}")
    number: int
    if isinstance(value, int):
        number = value
    elif isinstance(value, (float, Decimal)):
        number = _integral(value, path)
    elif isinstance(value, str):
        if not _INT_TEXT.match(value):
            raise JsonError(f"{path}: expected an integer, got {_show(value)}")
        if value.lstrip("-").isdigit():
            number = int(value)
        else:
            # an exponent or fraction: must still denote an exact integer
            mantissa, _, exponent = value.lower().partition("e")
            if exponent and abs(int(exponent)) > 400:
                raise JsonError(f"{path}: integer out of range: {_show(value)}")
            number = _integral(Decimal(value), path)
    else:
        raise JsonError(f"{path}: expected an integer, got {_describe(value)}")
    low, high = _INT_RANGES[kind]
    if not low <= number <= high:
        raise JsonError(f"{path}: integer {number} out of range for {KIND_NAMES[kind]}")
    return number


def _integral(value: float | Decimal, path: str) -> int:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or not value.is_integer():
            raise JsonError(f"{path}: expected an integer, got {_show(value)}")
        return int(value)
    try:
        if not value.is_finite() or value != value.to_integral_value():
            raise JsonError(f"{path}: expected an integer, got {_show(value)}")
        if value.adjusted() > 400:
            raise JsonError(f"{path}: integer out of range: {_show(value)}")
        return int(value)
    except InvalidOperation:
        raise JsonError(f"{path}: expected an integer, got {_show(value)}") from None


_FLOAT_TEXT: Final = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")


def _parse_float(single: bool, value: Any, path: str) -> float:
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        raise JsonError(f"{path}: expected a number, got {_describe(value)}")
    if isinstance(value, str):
        if value == "NaN":
            return math.nan
        if value == "Infinity":
            return math.inf
        if value == "-Infinity":
            return -math.inf
        if not _FLOAT_TEXT.match(value):
            raise JsonError(f"{path}: expected a number, got {_show(value)}")
        number = float(value)
    elif isinstance(value, (int, float, Decimal)):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            raise JsonError(f"{path}: NaN and infinities must be given as strings")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
    else:
        raise JsonError(f"{path}: expected a number, got {_describe(value)}")
    if math.isinf(number):
        raise JsonError(f"{path}: number {_show(value)} out of range for double")
    if single:
        # out of range unless it rounds to a finite float32 (so FLT_MAX printed
        # as its shortest form, 3.4028235e+38, reads back)
        try:
            number = struct.unpack("<f", struct.pack("<f", number))[0]
        except OverflowError:
            raise JsonError(f"{path}: number {_show(value)} out of range for float") from None
    return number


def _parse_bytes(value: Any, path: str) -> bytes:
    if not isinstance(value, str):
        raise JsonError(f"{path}: expected a base64 string, got {_describe(value)}")
    text = value
    if "-" in text or "_" in text:
        text = text.replace("-", "+").replace("_", "/")
    text += "=" * (-len(text) % 4)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise JsonError(f"{path}: invalid base64: {_show(value)}") from None


def _parse_enum(field: FieldInfo | None, value: Any, ctx: _Ctx | None, path: str) -> int:
    return _parse_enum_of(field.enum if field is not None else None, value, ctx, path)


def _parse_enum_of(enum: EnumInfo | None, value: Any, ctx: _Ctx | None, path: str) -> int:
    if enum is not None and enum.full_name == _NULL_VALUE and value is None:
        return 0
    if isinstance(value, str):
        if enum is not None:
            number = enum.names.get(value)
            if number is not None:
                return number
        if ctx is not None and ctx.ignore_unknown:
            raise _Skip
        name = enum.full_name if enum is not None else "enum"
        raise JsonError(f"{path}: {_show(value)} is not a value of {name}")
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise JsonError(f"{path}: expected an enum name or number, got {_describe(value)}")
    if ctx is not None and ctx.rounded_floats and type(value) is float:
        raise json_refuse()
    number = _parse_int(TYPE_INT32, value, path)
    if enum is not None and enum.closed and number not in enum.numbers:
        raise JsonError(f"{path}: {number} is not a value of closed enum {enum.full_name}")
    return number


# -- well-known types: parsing ----------------------------------------------------------

def _set_fields(msg: Any, **values: Any) -> None:
    info = _info(msg)
    for name, value in values.items():
        msg._pb_set(info.by_name[name], value)


def _parse_any(msg: Any, obj: Any, ctx: _Ctx, path: str, depth: int) -> None:
    if not isinstance(obj, dict):
        raise JsonError(f"{path}: expected an object for google.protobuf.Any, got {_describe(obj)}")
    if not obj:
        return
    type_url = obj.get("@type")
    if not isinstance(type_url, str):
        raise JsonError(f"{path}: Any object needs a string \"@type\"")
    cls = ctx.resolve(type_url, _key_path(path, "@type"))
    sub = cls()
    rest = {k: v for k, v in obj.items() if k != "@type"}
    if _info(cls).full_name in _SPECIAL_PARSERS:
        extra = set(rest) - {"value"}
        if extra:
            raise JsonError(f"{path}: Any of {_info(cls).full_name} takes only \"@type\" and \"value\", "
                            f"got {sorted(extra)!r}")
        if "value" in rest:
            _merge_message(sub, rest["value"], ctx, _key_path(path, "value"), depth)
    else:
        _merge_message(sub, rest, ctx, path, depth)
    try:
        payload = sub.serialize(deterministic=True, partial=True)
    except Exception as exc:  # EncodeError
        raise JsonError(f"{path}: Any payload cannot be serialized: {exc}") from None
    _set_fields(msg, type_url=type_url, value=payload)


_TIMESTAMP_TEXT: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})\Z")


def _parse_timestamp(msg: Any, obj: Any, ctx: _Ctx, path: str, depth: int) -> None:
    seconds, nanos = _timestamp_value(obj, path)
    _set_fields(msg, seconds=seconds, nanos=nanos)


def _timestamp_value(obj: Any, path: str) -> tuple[int, int]:
    """The seconds and nanos of an RFC 3339 timestamp string; JsonError naming ``path``."""
    m = _TIMESTAMP_TEXT.match(obj) if isinstance(obj, str) else None
    if m is None:
        raise JsonError(f"{path}: expected an RFC 3339 timestamp like \"1972-01-01T10:00:20.021Z\", "
                        f"got {_describe(obj)}")
    year, month, day, hh, mm, ss = map(int, m.group(1, 2, 3, 4, 5, 6))
    try:
        date = datetime.date(year, month, day)
    except ValueError as exc:
        raise JsonError(f"{path}: invalid date in timestamp {_show(obj)}: {exc}") from None
    if hh > 23 or mm > 59 or ss > 59:
        raise JsonError(f"{path}: invalid time of day in timestamp {_show(obj)}")
    seconds = (date.toordinal() - _EPOCH_ORDINAL) * 86400 + hh * 3600 + mm * 60 + ss
    frac = m.group(7)
    nanos = int((frac[1:] + "000000000")[:9]) if frac else 0
    zone = m.group(8)
    if zone != "Z":
        oh, om = int(zone[1:3]), int(zone[4:6])
        if oh > 23 or om > 59:
            raise JsonError(f"{path}: invalid UTC offset in timestamp {_show(obj)}")
        offset = oh * 3600 + om * 60
        seconds -= offset if zone[0] == "+" else -offset
    if not _TS_MIN <= seconds <= _TS_MAX:
        raise JsonError(f"{path}: timestamp {_show(obj)} out of range (years 1 to 9999)")
    return seconds, nanos


_DURATION_TEXT: Final = re.compile(r"(-)?([0-9]+)(\.[0-9]{1,9})?s\Z")


def _parse_duration(msg: Any, obj: Any, ctx: _Ctx, path: str, depth: int) -> None:
    seconds, nanos = _duration_value(obj, path)
    _set_fields(msg, seconds=seconds, nanos=nanos)


def _duration_value(obj: Any, path: str) -> tuple[int, int]:
    """The seconds and nanos of a ProtoJSON duration string; JsonError naming ``path``."""
    m = _DURATION_TEXT.match(obj) if isinstance(obj, str) else None
    if m is None:
        raise JsonError(f"{path}: expected a duration like \"1.5s\", got {_describe(obj)}")
    seconds = int(m.group(2))
    frac = m.group(3)
    nanos = int((frac[1:] + "000000000")[:9]) if frac else 0
    if seconds > _DUR_MAX:
        raise JsonError(f"{path}: duration {_show(obj)} out of range ±{_DUR_MAX}s")
    if m.group(1):
        seconds, nanos = -seconds, -nanos
    return seconds, nanos


def _parse_field_mask(msg: Any, obj: Any, ctx: _Ctx, path: str, depth: int) -> None:
    if not isinstance(obj, str):
        raise JsonError(f"{path}: expected a FieldMask string like \"a,bC\", got {_describe(obj)}")
    paths = []
    _check_utf8(obj, path)
    for p in obj.split(",") if obj else []:
        if "_" in p or not p:
            raise JsonError(f"{path}: FieldMask path {p!r} must be lowerCamelCase")
        paths.append(_camel_to_snake(p))
    _set_fields(msg, paths=paths)


def _parse_wrapper(msg: Any, obj: Any, ctx: _Ctx, path: str, depth: int) -> None:
    field = _info(msg).by_number[1]
    if obj is None:
        raise JsonError(f"{path}: expected a value for {_info(msg).full_name}, got null")
    msg._pb_set(field, _parse_scalar(field.kind, field, obj, ctx, path))


def _parse_struct(msg: Any, obj: Any, ctx: _Ctx, path: str, depth: int) -> None:
    if not isinstance(obj, dict):
        raise JsonError(f"{path}: expected an object for google.protobuf.Struct, got {_describe(obj)}")
    info = _info(msg)
    field = info.by_name["fields"]
    value_cls = field.map_value.message_type  # type: ignore[union-attr]
    current = dict(_fields_of(msg).get("fields", {}))
    for key, value in obj.items():
        _check_utf8(key, path)
        sub = value_cls()  # type: ignore[misc]
        _merge_message(sub, value, ctx, _map_path(path, key), depth + 1)
        current[key] = sub
    msg._pb_set(field, current)


def _parse_list_value(msg: Any, obj: Any, ctx: _Ctx, path: str, depth: int) -> None:
    if not isinstance(obj, list):
        raise JsonError(f"{path}: expected an array for google.protobuf.ListValue, got {_describe(obj)}")
    field = _info(msg).by_name["values"]
    value_cls = field.message_type
    assert value_cls is not None
    values = []
    for i, value in enumerate(obj):
        sub = value_cls()
        _merge_message(sub, value, ctx, f"{path}[{i}]", depth + 1)
        values.append(sub)
    msg._pb_set(field, values)


def _parse_value(msg: Any, obj: Any, ctx: _Ctx, path: str, depth: int) -> None:
    info = _info(msg)
    if obj is None:
        msg._pb_set(info.by_name["null_value"], 0)
    elif isinstance(obj, bool):
        msg._pb_set(info.by_name["bool_value"], obj)
    elif isinstance(obj, str):
        _check_utf8(obj, path)
        msg._pb_set(info.by_name["string_value"], obj)
    elif isinstance(obj, (int, float, Decimal)):
        number = _parse_float(False, obj, path)
        msg._pb_set(info.by_name["number_value"], number)
    elif isinstance(obj, dict):
        field = info.by_name["struct_value"]
        sub = field.message_type()  # type: ignore[misc]
        _merge_message(sub, obj, ctx, path, depth)
        msg._pb_set(field, sub)
    elif isinstance(obj, list):
        field = info.by_name["list_value"]
        sub = field.message_type()  # type: ignore[misc]
        _merge_message(sub, obj, ctx, path, depth)
        msg._pb_set(field, sub)
    else:
        raise JsonError(f"{path}: {type(obj).__name__} is not a JSON value")


_Parser = Callable[[Any, Any, _Ctx, str, int], None]
_SPECIAL_PARSERS: Final[dict[str, _Parser]] = {
    _ANY: _parse_any, _TIMESTAMP: _parse_timestamp, _DURATION: _parse_duration,
    _FIELD_MASK: _parse_field_mask, _STRUCT: _parse_struct, _VALUE: _parse_value,
    _LIST_VALUE: _parse_list_value,
    **{name: _parse_wrapper for name in _WRAPPERS},
}


# ============================================================================= generated fast path
#
# Generated messages print and parse their own fields (_pb_json_text, _pb_json_merge)
# with inline code for the common cases; they call these helpers for the rest. They
# track no JSON paths: what fails raises a bare JsonError and the reflective code above
# runs again to name the path. Messages with special JSON forms (the well-known types;
# Timestamp and Duration print through their bases in wkt.py) and messages where a JSON
# key names two fields (legacy_json) keep the reflective code, through Message's defaults.

JsonCtx = _Ctx

json_out_str: Final[Callable[[str], str]] = encode_basestring  # a JSON string literal (C)
_F32: Final = struct.Struct("<f")


def json_text_reflective(msg: Any, ctx: _Ctx, depth: int) -> str:
    """Print ``msg`` with the reflective printer (special forms), as compact JSON text."""
    return _COMPACT.encode(_print_message(msg, ctx, "$", depth))


def json_merge_reflective(msg: Any, obj: Any, ctx: _Ctx, depth: int) -> None:
    """Merge ``obj`` into ``msg`` with the reflective parser (special forms)."""
    _merge_message(msg, obj, ctx, "$", depth)


def json_out_extensions(msg: Any, ctx: _Ctx, depth: int) -> list[str]:
    """The ``"[ext.name]":value`` members of the extensions set on ``msg``."""
    return [_COMPACT.encode(name) + ":" + _COMPACT.encode(value)
            for name, value in _print_extensions(msg, _info(msg), ctx, "$", depth)]


def json_out_int(value: Any) -> str:
    """An integer that is not a plain int (a bool, an IntEnum, ...), as the reflective printer."""
    return str(int(value))


def json_out_int64(value: Any) -> str:
    """A 64-bit integer as a JSON string."""
    return '"' + str(int(value)) + '"'


def json_out_double(value: Any) -> str:
    """A double that is not a finite float: NaN and infinities are strings."""
    return _float_text(float(value), False)


def json_out_float(value: Any) -> str:
    """A float32 in its shortest decimal form that reads back as the same float32 (6 digits at least)."""
    number = value if type(value) is float else float(value)
    if number == 0.0 or number - number != 0.0:
        return _float_text(number, True)
    try:
        want = _F32.pack(number)
    except OverflowError:
        return repr(number)
    text = "%.7g" % number
    if _F32.pack(float(text)) == want:
        shorter = "%.6g" % number
        if _F32.pack(float(shorter)) == want:
            text = shorter
    # 7 digits do not read back: neither do 6 when reading back is monotonic in the digit
    # count, as it is when the float32's rounding interval is symmetric: a float32 value
    # (not a double between two) that is no power of two
    elif (want[0] | want[1] | want[2] & 0x7F) and _F32.unpack(want)[0] == number:
        text = "%.8g" % number
        if _F32.pack(float(text)) != want:
            text = "%.9g" % number
    else:
        return _float_text(number, True)
    # repr() of that float writes these digits (at most 9 of them) the same way, except
    # for large exponents, and with ".0" after a whole number
    if "e" not in text:
        return text if "." in text else text + ".0"
    return repr(float(text))


def _float_text(number: float, single: bool) -> str:
    printed = _print_float(number, single)
    return repr(printed) if isinstance(printed, float) else '"' + printed + '"'


def json_out_bytes(value: Any) -> str:
    """Bytes in base64, as a JSON string."""
    return '"' + binascii.b2a_base64(bytes(value), newline=False).decode("ascii") + '"'


def json_out_enum(enum: EnumInfo, value: Any) -> str:
    """An enum value without a name (open enums keep unknown numbers): its number."""
    number = int(value)
    name = enum.numbers.get(number)
    return '"' + name + '"' if name is not None else str(number)


def json_in_other(msg: Any, key: str, value: Any, ctx: _Ctx, depth: int) -> None:
    """A key that names no field: an extension ``[full.name]``, else unknown (skipped or refused)."""
    info = _info(msg)
    if key.startswith("[") and key.endswith("]"):
        ext = _find_extension(info, key[1:-1])
        if ext is not None:
            if value is None and not _null_is_value(ext.field):
                return
            try:
                _merge_extension(msg, ext, value, ctx, "$", depth)
            except _Skip:
                pass
            return
    if not ctx.ignore_unknown:
        raise JsonError(f"$: {info.full_name} has no field named {key!r}")


def json_refuse() -> JsonError:
    """The bare error of the generated parsers (the reflective rerun names the problem)."""
    return JsonError("$: refused by the generated parser")


def json_in_int(kind: int, value: Any) -> int:
    """An integer of ``kind``: a JSON number or a decimal string (the form 64-bit ones print in).

    Floats are refused: they may have lost digits that decide (see _Ctx.rounded_floats).
    """
    if type(value) is str:
        digits = value[1:] if value[:1] == "-" else value
        if digits.isdigit() and digits.isascii() and (digits[0] != "0" or len(digits) == 1):
            number = int(value)
            low, high = _INT_RANGES[kind]
            if low <= number <= high:
                return number
    elif type(value) is float:
        raise json_refuse()
    return _parse_int(kind, value, "$")


def json_in_key(kind: int, key: str) -> Any:
    """A map key of ``kind`` (not string), from its JSON object key."""
    return _parse_map_key(kind, key, "$")


def json_in_str(value: Any) -> str:
    """A string (checked for unpaired surrogates)."""
    result: str = _parse_scalar(TYPE_STRING, None, value, None, "$")
    return result


def json_in_bool(value: Any) -> bool:
    """A bool that is not a JSON true or false: refused."""
    result: bool = _parse_scalar(TYPE_BOOL, None, value, None, "$")
    return result


def json_in_double(value: Any) -> float:
    """A double: a JSON number, or "NaN", "Infinity", "-Infinity", or a number in a string."""
    if type(value) is Decimal:
        number = float(value)
        if number - number == 0.0:
            return number
    elif type(value) is float and value - value == 0.0:
        return value
    return _parse_float(False, value, "$")


def json_in_float(value: Any) -> float:
    """A float32: as a double, then rounded to float32 (out of its range: refused)."""
    if type(value) is Decimal or type(value) is float:
        number = float(value)
        if number - number == 0.0:
            try:
                rounded: float = _F32.unpack(_F32.pack(number))[0]
                return rounded
            except OverflowError:
                pass
    return _parse_float(True, value, "$")


def json_in_bytes(value: Any) -> bytes:
    """Bytes from base64 (standard or URL-safe, padding optional)."""
    return _parse_bytes(value, "$")


def json_in_enum(enum: EnumInfo, value: Any, ctx: _Ctx) -> int | None:
    """An enum value given by number (or by unknown name): None to skip it (ignore_unknown_fields)."""
    try:
        return _parse_enum_of(enum, value, ctx, "$")
    except _Skip:
        return None


def json_in_enums(enum: EnumInfo, value: Any, ctx: _Ctx) -> list[int]:
    """A repeated enum field's values (unknown names skipped under ignore_unknown_fields)."""
    if type(value) is not list:
        raise json_refuse()
    out: list[int] = []
    for item in value:
        if item is None:
            raise json_refuse()
        number = enum.names.get(item) if type(item) is str else None
        if number is None:
            number = json_in_enum(enum, item, ctx)
        if number is not None:
            out.append(number)
    return out
