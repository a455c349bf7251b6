"""Canonical ProtoJSON driven by the reflection tables: the printer and parser behind
json_format, and the path the generated JSON code falls back to when it gives up.

Well-known types take their special forms from _json_wkt; every failure raises JsonError
naming a JSON path.
"""

from __future__ import annotations

import base64
import binascii
import json
import json.scanner
import math
import re
import struct
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from librt.strings import StringWriter

from . import _json_wkt  # by module: _json_wkt uses this one too (the WKT forms recurse into it)
from ._codec import nested_too_deep
from ._registry import find_message_class
from .errors import EncodeError, JsonError
from .reflect import (
    TYPE_BOOL, TYPE_BYTES, TYPE_DOUBLE, TYPE_ENUM, TYPE_FIXED64, TYPE_FLOAT, TYPE_GROUP, TYPE_INT32,
    TYPE_INT64, TYPE_MESSAGE, TYPE_SFIXED64, TYPE_SINT64, TYPE_STRING, TYPE_UINT64,
    INT_RANGES, KIND_NAMES, MAX_DEPTH, EnumInfo, ExtensionInfo, FieldInfo, MessageInfo, message_info,
)

if TYPE_CHECKING:
    from .message import Message

M = TypeVar("M")


_INT_RANGES: Final = INT_RANGES
_INT64_KINDS: Final = frozenset((TYPE_INT64, TYPE_UINT64, TYPE_FIXED64, TYPE_SINT64, TYPE_SFIXED64))
_MESSAGE_KINDS: Final = frozenset((TYPE_MESSAGE, TYPE_GROUP))


def show(value: object) -> str:
    """A short JSON rendering of an input value for error messages."""
    if isinstance(value, Decimal):
        text = str(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return show(value)


# Paths are built for every field but read only in error messages: keep them cheap.
def key_path(path: str, key: str) -> str:
    if key.isidentifier() and key.isascii():
        return path + "." + key
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def map_path(path: str, key: str) -> str:
    if key.isascii() and key.isalnum():
        return path + '["' + key + '"]'
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


# one encoder for compact output (json.dumps with options builds a new one per call)
COMPACT: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


class JsonCtx:
    """Options and state of one conversion."""

    __slots__ = ("root", "proto_names", "always_print", "ignore_unknown", "rounded_floats", "ascii_strings",
                 "keys", "colons", "text")

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
        # from_json's fast path knows every string the scanner read is ASCII, so free of
        # unpaired surrogates (see _read_text); else the generated parsers check each
        self.ascii_strings = False
        # members of the JSON objects the generated parsers read, colons of the strings of
        # well-known types they read (see _no_key_twice)
        self.keys = 0
        self.colons = 0
        # the JSON text of from_json's fast paths (scan_json's and the compiled scan's): their
        # integers are ints, -0 one as 0 (see may_be_negative_zero)
        self.text = ""

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
    Raise JsonError for values ProtoJSON cannot represent (e.g. out-of-range Timestamps),
    EncodeError for messages nested deeper than MAX_DEPTH or than the Python stack allows.
    """
    if not preserving_proto_field_names and not always_print_fields_with_no_presence:
        text = _fast_text(msg)
        if text is not None:
            return json.loads(text)
    ctx = JsonCtx(type(msg), preserving_proto_field_names, always_print_fields_with_no_presence)
    try:
        return print_message(msg, ctx, "$", 0)
    except RecursionError:
        raise nested_too_deep(msg) from None


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
        return COMPACT.encode(obj)
    return json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False, sort_keys=sort_keys,
                      separators=None if indent is not None else (",", ":"))


# What the generated JSON code raises when it gives up (on values of the wrong type too):
# the reflective code then runs again and decides, naming the JSON path of a failure.
GIVE_UP: Final = (JsonError, RecursionError, TypeError, ValueError, AttributeError, OverflowError)


def _fast_text(msg: Any) -> str | None:
    """Compact ProtoJSON from the generated printers, or None when they give up."""
    out = StringWriter()
    try:
        printer: Message = msg  # typed: compiled, a native call of the class's printer
        printer._pb_json_write(out, JsonCtx(type(msg)), 0)
    except GIVE_UP:
        return None
    return out.getvalue()


def print_message(msg: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    if depth > MAX_DEPTH:  # what could not be read back: an EncodeError, as for binary output
        raise EncodeError(f"{path}: messages nested deeper than {MAX_DEPTH}, the JSON nesting limit")
    info = message_info(msg)
    special = _json_wkt.SPECIAL_PRINTERS.get(info.full_name)
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
        # a JSON name two fields share (protoc allows it in proto2) names neither: their proto names do
        name = field.name if ctx.proto_names or info.by_json_name.get(field.json_name) is not field else field.json_name
        out[name] = _print_field(field, value, ctx, key_path(path, name), depth)
    out.update(print_extensions(msg, info, ctx, path, depth))
    return out


def print_extensions(msg: Any, info: MessageInfo, ctx: JsonCtx, path: str, depth: int) -> list[tuple[str, Any]]:
    ext_values = getattr(msg, "_pb_ext", None)
    out: list[tuple[str, Any]] = []
    if ext_values:
        for number in sorted(ext_values):
            value = ext_values[number]
            ext = info.extensions.get(number)
            if ext is None or value is None or (ext.field.repeated and not value):
                continue
            name = f"[{ext.full_name}]"
            out.append((name, _print_field(ext.field, value, ctx, map_path(path, name), depth)))
    return out


def _print_field(field: FieldInfo, value: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
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
            result[key] = _print_single(value_field, v, ctx, map_path(path, key), depth + 1)
        return result
    if field.repeated:
        return [_print_single(field, v, ctx, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return _print_single(field, value, ctx, path, depth)


def _print_single(field: FieldInfo, value: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    kind = field.kind
    if kind in _MESSAGE_KINDS:
        return print_message(value, ctx, path, depth + 1)
    return print_scalar(kind, field, value, path)


def print_scalar(kind: int, field: FieldInfo | None, value: Any, path: str) -> Any:
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
            if enum.full_name == _json_wkt.NULL_VALUE:
                return None
            name = enum.numbers.get(number)
            if name is not None:
                return name
        return number
    if kind in (TYPE_DOUBLE, TYPE_FLOAT):
        return print_float(float(value), kind == TYPE_FLOAT)
    if kind == TYPE_BYTES:
        return base64.b64encode(bytes(value)).decode("ascii")
    raise JsonError(f"{path}: cannot print field kind {kind}")  # pragma: no cover


def print_float(value: float, single: bool) -> Any:
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


# ============================================================================= parsing

class Skip(Exception):
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


# A JSON number -0 (or "-0" in a string), which json reads as the int 0: ProtoJSON reads numbers as
# JSON numbers, and -0 is negative zero. The reflective path reads integers with
# _int_keeping_negative_zero where the text has one; the fast paths read the int 0 and give up
# where a double takes it and the text has one (may_be_negative_zero): searching every text
# would cost ~1 ns a byte, 2-4 % of an interpreted from_json
_NEGATIVE_ZERO: Final = re.compile(r"-0(?![.eE0-9])")


def _int_keeping_negative_zero(text: str) -> int | float:
    """A JSON integer as json reads it, but -0, which no int holds, as the float -0.0 (an integer
    field takes it as 0, a double keeps its sign)."""
    return -0.0 if text == "-0" else int(text)


def _has_negative_zero(text: str) -> bool:
    return "-0" in text and _NEGATIVE_ZERO.search(text) is not None


def may_be_negative_zero(value: Any, ctx: JsonCtx | None) -> bool:
    """Whether ``value``, given for a double or float, is an int 0 that a fast path read from a text
    with a -0 in it: it may have been that -0 (the reflective rerun reads it as -0.0)."""
    return type(value) is int and value == 0 and ctx is not None and _has_negative_zero(ctx.text)


def _load(text: str | bytes | bytearray) -> Any:
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonError(f"$: invalid UTF-8 in JSON input at byte {exc.start}") from None
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_float=Decimal, parse_constant=_no_constant,
                          parse_int=_int_keeping_negative_zero if _has_negative_zero(text) else None)
    except RecursionError:
        raise JsonError("$: JSON nested too deeply") from None
    except ValueError as exc:
        raise JsonError(f"$: invalid JSON: {exc}") from None


# from_json's fast path calls the C scanner of one decoder: json.loads with options makes a
# new decoder per call, and its decode() matches whitespace with regular expressions. It
# keeps the last value of a key given twice (no object_pairs_hook: building a list of pairs
# per object costs more); _no_key_twice finds such keys afterwards
_SCAN: Final = json.scanner.make_scanner(cast(Any, json.JSONDecoder(parse_constant=_no_constant)))
_WHITESPACE: Final = " \t\n\r"


def scan_json(text: str) -> Any:
    """The JSON value of ``text``, numbers read as floats; ValueError, StopIteration or
    RecursionError when it is not valid JSON (_load then names the problem)."""
    obj, end = _SCAN(text, len(text) - len(text.lstrip(_WHITESPACE)))
    if end != len(text) and text[end:].strip(_WHITESPACE):
        raise ValueError("extra data")
    return obj


def _read_text(ctx: JsonCtx, text: str) -> None:
    """Note in ``ctx`` that the strings read from ASCII ``text`` are ASCII too (so free of
    unpaired surrogates) when it has no \\u escape. Where it has one, the generated parsers
    check each string: looking for escaped surrogate halves (\\uD800 to \\uDFFF) would read
    the whole text twice more, at a cost of about ten strings' checks per 300 characters."""
    if "\\" not in text or "\\u" not in text:  # one character is found with memchr, two are not
        ctx.ascii_strings = True


def _no_key_twice(text: str, obj: Any, ctx: JsonCtx) -> bool:
    """Say whether no object of ``text`` gives a key twice, ``obj`` being what scan_json read and
    ``ctx`` the context the generated parsers read it with (counting no more than it holds).

    Every member has one colon outside strings: the text has as many colons as its objects
    have members plus the colons of their strings exactly when no key came twice. Only an
    escape (\\u003a) writes a colon in a string without one in the text: then False.
    """
    colons = text.count(":")
    if colons == ctx.keys:
        return True
    if "\\u003" in text:
        return False
    try:
        return colons == ctx.keys + ctx.colons or colons == member_colons(obj)
    except RecursionError:
        return False


def member_colons(value: Any) -> int:
    """The members of the objects in ``value`` plus the colons of its strings."""
    if type(value) is str:
        return value.count(":")
    count = 0
    if type(value) is dict:
        count = len(value)
        for key, item in value.items():
            count += key.count(":") + member_colons(item)
    elif type(value) is list:
        for item in value:
            count += member_colons(item)
    return count


def from_json(cls: type[M], text: str | bytes | bytearray, *, ignore_unknown_fields: bool = False) -> M:
    """Parse ProtoJSON ``text`` into a new ``cls``; raise JsonError on any problem."""
    if type(text) is str:
        # fast path: numbers read as floats (in C), no Decimal
        try:
            obj = scan_json(text)
        except (ValueError, StopIteration, RecursionError):
            pass  # _load below names the problem
        else:
            msg = cls()
            ctx = JsonCtx(cls, ignore_unknown=ignore_unknown_fields, rounded_floats=True)
            ctx.text = text
            if text.isascii():  # a flag of the str: no scan
                _read_text(ctx, text)
            try:
                cast("Message", msg)._pb_json_merge(obj, ctx, 0)  # compiled: a native call
            except GIVE_UP:
                pass
            else:
                if _no_key_twice(text, obj, ctx):
                    return msg
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
    ctx = JsonCtx(type(msg), ignore_unknown=ignore_unknown)
    try:
        merge_message(msg, obj, ctx, "$", 0)
    except RecursionError:
        raise JsonError("$: JSON nested too deeply") from None


def _fast_merge(msg: Any, obj: Any, ignore_unknown: bool) -> bool:
    """Merge with the generated parsers; False when they give up (see GIVE_UP).

    The caller then runs the reflective parser (merging the same values twice changes nothing).
    """
    try:
        msg._pb_json_merge(obj, JsonCtx(type(msg), ignore_unknown=ignore_unknown), 0)
    except GIVE_UP:
        return False
    return True


def merge_message(msg: Any, obj: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise JsonError(f"{path}: nested deeper than {MAX_DEPTH}")
    info = message_info(msg)
    special = _json_wkt.SPECIAL_PARSERS.get(info.full_name)
    if special is not None:
        special(msg, obj, ctx, path, depth)
        return
    if not isinstance(obj, dict):
        raise JsonError(f"{path}: expected an object for {info.full_name}, got {describe(obj)}")
    current = {f.number: v for f, v in msg._pb_items()}
    seen: dict[tuple[bool, int], str] = {}
    oneofs: dict[str, str] = {}
    for key, value in obj.items():
        # a JSON name wins over another field's proto name, as in upb and json_format
        field = info.by_json_name.get(key) or info.by_name.get(key)
        ext: ExtensionInfo | None = None
        if field is None and key.startswith("[") and key.endswith("]"):
            ext = find_extension(info, key[1:-1])
            if ext is not None:
                field = ext.field
        fpath = key_path(path, key)
        if field is None:
            if ctx.ignore_unknown:
                continue
            raise JsonError(f"{fpath}: {info.full_name} has no field named {key!r}")
        number = field.number
        other_key = seen.get((ext is not None, number))
        if other_key is not None:
            raise JsonError(f"{fpath}: field {field.name!r} given twice (also as {other_key!r})")
        seen[(ext is not None, number)] = key
        if value is None and not null_is_value(field):
            continue
        if field.oneof:
            other = oneofs.get(field.oneof)
            if other is not None:
                raise JsonError(f"{fpath}: oneof {field.oneof!r} already set by {other!r}")
            oneofs[field.oneof] = key
        try:
            if ext is not None:
                merge_extension(msg, ext, value, ctx, fpath, depth)
            else:
                existing = current.get(number)
                result = _parse_field(field, value, existing, ctx, fpath, depth)
                if result is not existing or field.kind not in _MESSAGE_KINDS:
                    msg._pb_set(field, result)
        except Skip:
            continue


def find_extension(info: MessageInfo, name: str) -> ExtensionInfo | None:
    for ext in info.extensions.values():
        if ext.full_name == name:
            return ext
    return None


def merge_extension(msg: Any, ext: ExtensionInfo, value: Any, ctx: JsonCtx, path: str, depth: int) -> None:
    store = getattr(msg, "_pb_ext", None)
    if store is None:  # pragma: no cover - extendable messages always have one
        raise JsonError(f"{path}: {type(msg).__name__} cannot hold extensions")
    existing = None if ext.field.repeated else store.get(ext.field.number)
    store[ext.field.number] = _parse_field(ext.field, value, existing, ctx, path, depth)


def null_is_value(field: FieldInfo) -> bool:
    """Say whether JSON null is a value (not "unset") for this field."""
    if field.repeated or field.is_map:
        return False
    if field.kind in _MESSAGE_KINDS:
        return field.message_type is not None and message_info(field.message_type).full_name == _json_wkt.VALUE
    return field.enum is not None and field.enum.full_name == _json_wkt.NULL_VALUE


def _parse_field(field: FieldInfo, value: Any, existing: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    if field.is_map:
        if not isinstance(value, dict):
            raise JsonError(f"{path}: expected an object for map field {field.name!r}, got {describe(value)}")
        key_field = field.map_key
        value_field = field.map_value
        assert key_field is not None and value_field is not None
        result: dict[Any, Any] = {}
        for k, v in value.items():
            kpath = map_path(path, k)
            key = parse_map_key(key_field.kind, k, kpath)
            if v is None and not null_is_value(value_field):
                raise JsonError(f"{kpath}: map values cannot be null")
            try:
                result[key] = _parse_single(value_field, v, None, ctx, kpath, depth + 1)
            except Skip:
                continue
        return result
    if field.repeated:
        if not isinstance(value, list):
            raise JsonError(f"{path}: expected an array for repeated field {field.name!r}, got {describe(value)}")
        items: list[Any] = []
        for i, v in enumerate(value):
            ipath = f"{path}[{i}]"
            if v is None and not (field.kind in _MESSAGE_KINDS and field.message_type is not None
                                  and message_info(field.message_type).full_name == _json_wkt.VALUE):
                raise JsonError(f"{ipath}: repeated field elements cannot be null")
            try:
                items.append(_parse_single(field, v, None, ctx, ipath, depth + 1))
            except Skip:
                continue
        return items
    return _parse_single(field, value, existing, ctx, path, depth)


def parse_map_key(kind: int, key: str, path: str) -> Any:
    if kind == TYPE_STRING:
        check_utf8(key, path)
        return key
    if kind == TYPE_BOOL:
        if key == "true":
            return True
        if key == "false":
            return False
        raise JsonError(f"{path}: map key must be \"true\" or \"false\", got {show(key)}")
    if kind in _INT_RANGES:
        return parse_int(kind, key, path)
    raise JsonError(f"{path}: map key of kind {kind} not supported")  # pragma: no cover


def _parse_single(field: FieldInfo, value: Any, existing: Any, ctx: JsonCtx, path: str, depth: int) -> Any:
    kind = field.kind
    if kind in _MESSAGE_KINDS:
        cls = field.message_type
        assert cls is not None
        sub = existing if existing is not None else cls()
        merge_message(sub, value, ctx, path, depth + 1)
        return sub
    return parse_scalar(kind, field, value, ctx, path)


def parse_scalar(kind: int, field: FieldInfo | None, value: Any, ctx: JsonCtx | None, path: str) -> Any:
    if kind in _INT_RANGES:
        if ctx is not None and ctx.rounded_floats and type(value) is float:
            raise json_refuse()
        return parse_int(kind, value, path)
    if kind == TYPE_STRING:
        if not isinstance(value, str):
            raise JsonError(f"{path}: expected a string, got {describe(value)}")
        check_utf8(value, path)
        return value
    if kind == TYPE_BOOL:
        if not isinstance(value, bool):
            raise JsonError(f"{path}: expected true or false, got {describe(value)}")
        return value
    if kind in (TYPE_DOUBLE, TYPE_FLOAT):
        if may_be_negative_zero(value, ctx):
            raise json_refuse()
        return parse_float(kind == TYPE_FLOAT, value, path)
    if kind == TYPE_BYTES:
        return parse_bytes(value, path)
    if kind == TYPE_ENUM:
        return _parse_enum(field, value, ctx, path)
    raise JsonError(f"{path}: cannot parse field kind {kind}")  # pragma: no cover


def check_utf8(value: str, path: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise JsonError(f"{path}: string contains an unpaired surrogate") from None


_INT_TEXT: Final = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")


def parse_int(kind: int, value: Any, path: str) -> int:
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        raise JsonError(f"{path}: expected an integer, got {describe(value)}")
    number: int
    if isinstance(value, int):
        number = value
    elif isinstance(value, (float, Decimal)):
        number = _integral(value, path)
    elif isinstance(value, str):
        if not _INT_TEXT.match(value):
            raise JsonError(f"{path}: expected an integer, got {show(value)}")
        mantissa, _, exponent = value.lower().partition("e")
        # beyond 64 bits, and before int() meets a string longer than Python converts (ValueError)
        if len(mantissa.partition(".")[0]) > 400 or len(exponent.lstrip("+-0")) > 3:
            raise JsonError(f"{path}: integer out of range: {show(value)}")
        if value.lstrip("-").isdigit():
            number = int(value)
        else:
            # an exponent or fraction: must still denote an exact integer
            if exponent and abs(int(exponent)) > 400:
                raise JsonError(f"{path}: integer out of range: {show(value)}")
            number = _integral(Decimal(value), path)
    else:
        raise JsonError(f"{path}: expected an integer, got {describe(value)}")
    low, high = _INT_RANGES[kind]
    if not low <= number <= high:
        raise JsonError(f"{path}: integer {number} out of range for {KIND_NAMES[kind]}")
    return number


def _integral(value: float | Decimal, path: str) -> int:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or not value.is_integer():
            raise JsonError(f"{path}: expected an integer, got {show(value)}")
        return int(value)
    try:
        if not value.is_finite() or value != value.to_integral_value():
            raise JsonError(f"{path}: expected an integer, got {show(value)}")
        if value.adjusted() > 400:
            raise JsonError(f"{path}: integer out of range: {show(value)}")
        return int(value)
    except InvalidOperation:
        raise JsonError(f"{path}: expected an integer, got {show(value)}") from None


_FLOAT_TEXT: Final = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")


def parse_float(single: bool, value: Any, path: str) -> float:
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        raise JsonError(f"{path}: expected a number, got {describe(value)}")
    if isinstance(value, str):
        if value == "NaN":
            return math.nan
        if value == "Infinity":
            return math.inf
        if value == "-Infinity":
            return -math.inf
        if not _FLOAT_TEXT.match(value):
            raise JsonError(f"{path}: expected a number, got {show(value)}")
        number = float(value)
    elif isinstance(value, (int, float, Decimal)):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            raise JsonError(f"{path}: NaN and infinities must be given as strings")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
    else:
        raise JsonError(f"{path}: expected a number, got {describe(value)}")
    if math.isinf(number):
        raise JsonError(f"{path}: number {show(value)} out of range for double")
    if single:
        # out of range unless it rounds to a finite float32 (so FLT_MAX printed
        # as its shortest form, 3.4028235e+38, reads back)
        try:
            number = struct.unpack("<f", struct.pack("<f", number))[0]
        except OverflowError:
            raise JsonError(f"{path}: number {show(value)} out of range for float") from None
    return number


def parse_bytes(value: Any, path: str) -> bytes:
    if not isinstance(value, str):
        raise JsonError(f"{path}: expected a base64 string, got {describe(value)}")
    text = value
    if "-" in text or "_" in text:
        text = text.replace("-", "+").replace("_", "/")
    text += "=" * (-len(text) % 4)
    try:
        return binascii.a2b_base64(text, strict_mode=True)  # base64.b64decode(validate=True) without its Python frame
    except (binascii.Error, ValueError):
        raise JsonError(f"{path}: invalid base64: {show(value)}") from None


def _parse_enum(field: FieldInfo | None, value: Any, ctx: JsonCtx | None, path: str) -> Any:
    return parse_enum_of(field.enum if field is not None else None, value, ctx, path)


def parse_enum_of(enum: EnumInfo | None, value: Any, ctx: JsonCtx | None, path: str) -> Any:
    """An enum value as its fields hold it: a closed enum's member (typed Any: compiled, an
    ``int`` would be a native int, which forgets the member), an open enum's number."""
    if enum is not None and enum.full_name == _json_wkt.NULL_VALUE and value is None:
        return 0
    if isinstance(value, str):
        if enum is not None:
            named = enum.names.get(value)
            if named is not None:
                return named
        if ctx is not None and ctx.ignore_unknown:
            raise Skip
        name = enum.full_name if enum is not None else "enum"
        raise JsonError(f"{path}: {show(value)} is not a value of {name}")
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise JsonError(f"{path}: expected an enum name or number, got {describe(value)}")
    if ctx is not None and ctx.rounded_floats and type(value) is float:
        raise json_refuse()
    number = parse_int(TYPE_INT32, value, path)
    if enum is not None and enum.closed:
        member = enum.members.get(number)
        if member is None:
            raise JsonError(f"{path}: {number} is not a value of closed enum {enum.full_name}")
        return member
    return number


def json_refuse() -> JsonError:
    """The bare error of the generated parsers (the reflective rerun names the problem)."""
    return JsonError("$: refused by the generated parser")
