"""Protobuf text format for generated messages of every style, driven by the reflection tables.

``to_text`` prints a message as protobuf's TextFormat does (``name: value``, nested
``name { ... }``, extensions as ``[full.name]``, expanded Any, groups by type name, unknown
fields by number on request). ``from_text`` builds a message, ``merge_from_text`` merges into
one; both accept the full grammar (comments, ``{}``/``<>``, ``,``/``;`` separators, ``[a, b]``
lists, hex/octal integers, ``inf``/``nan``, every string escape, adjacent string literals).
Every parse failure raises TextFormatError naming ``line:column``.

Any payloads are resolved by full name the way json_format resolves them
(``json_format.register_message_class``/``register_module``, reachable types, WKTs).
"""

from __future__ import annotations

import math
import re
from typing import Any, Final, TypeVar

from . import _wire as wire
from ._codec import nested_too_deep
from .errors import DecodeError, EncodeError, TextFormatError
from ._registry import find_message_class
from .reflect import (
    TYPE_BOOL, TYPE_BYTES, TYPE_DOUBLE, TYPE_ENUM, TYPE_FLOAT, TYPE_GROUP, TYPE_INT32, TYPE_MESSAGE,
    TYPE_STRING, TYPE_UINT64,
    INT_RANGES, KIND_NAMES, MAX_DEPTH, ExtensionInfo, FieldInfo, MessageInfo, message_info,
)

__all__ = ["TextFormatError", "to_text", "from_text", "merge_from_text", "MAX_DEPTH"]

M = TypeVar("M")

_MESSAGE_KINDS: Final = frozenset((TYPE_MESSAGE, TYPE_GROUP))
_INT_RANGES: Final = INT_RANGES
_ANY: Final = "google.protobuf.Any"


_info = message_info


def _group_like(field: FieldInfo, scope: str) -> bool:
    """Say whether ``field`` prints by its type name: a group (or a DELIMITED field shaped like one)."""
    if field.kind != TYPE_GROUP or field.message_type is None:
        return False
    type_scope, _, short = _info(field.message_type).full_name.rpartition(".")
    return short.lower() == field.name and type_scope == scope


def _text_name(field: FieldInfo, info: MessageInfo) -> str:
    if _group_like(field, info.full_name):
        return _info(field.message_type).full_name.rpartition(".")[2]
    return field.name


# ============================================================================= printing

def _escape_table(for_str: bool) -> dict[int, str]:
    table = {c: f"\\{c:03o}" for c in range(0x20)}
    table[0x7F] = "\\177"
    table.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
                  ord("'"): "\\'", ord("\\"): "\\\\"})
    if for_str:
        # bytes kept by surrogateescape (strings without UTF-8 validation) print as octal
        table.update({0xDC00 + b: f"\\{b:03o}" for b in range(0x80, 0x100)})
    else:
        table.update({b: f"\\{b:03o}" for b in range(0x80, 0x100)})
    return table


_STR_ESCAPES: Final = _escape_table(True)
_BYTES_ESCAPES: Final = _escape_table(False)
_LONE_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")  # a raw pattern: mypyc rejects surrogates in literals


def _quote_bytes(value: bytes) -> str:
    return '"' + bytes(value).decode("latin-1").translate(_BYTES_ESCAPES) + '"'


def _quote_str(value: str) -> str:
    text = value.translate(_STR_ESCAPES)
    if _LONE_SURROGATE.search(text):  # cannot be UTF-8: show the code point's bytes
        text = _LONE_SURROGATE.sub(
            lambda m: "".join(f"\\{b:03o}" for b in m.group().encode("utf-8", "surrogatepass")), text)
    return '"' + text + '"'


def _format_float(value: float, single: bool) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if single:
        want = wire.pack_float(value)
        for digits in range(6, 10):
            text = f"{value:.{digits}g}"
            if wire.pack_float(float(text)) == want:
                return text if "." in text or "e" in text else text + ".0"  # like doubles: 3.0
    return repr(value)


def _format_scalar(field: FieldInfo, value: Any) -> str:
    kind = field.kind
    if kind == TYPE_STRING:
        return _quote_str(value)
    if kind == TYPE_BYTES:
        return _quote_bytes(value)
    if kind == TYPE_BOOL:
        return "true" if value else "false"
    if kind == TYPE_ENUM:
        number = int(value)
        enum = field.enum
        name = enum.numbers.get(number) if enum is not None else None
        return name if name is not None else str(number)
    if kind in (TYPE_DOUBLE, TYPE_FLOAT):
        return _format_float(float(value), kind == TYPE_FLOAT)
    return str(int(value))


class _Printer:
    __slots__ = ("out", "one_line", "unknown", "root")

    def __init__(self, root: type, one_line: bool, unknown: bool) -> None:
        self.out: list[str] = []
        self.one_line = one_line
        self.unknown = unknown
        self.root = root

    def line(self, indent: int, text: str) -> None:
        if self.one_line:
            self.out.append(text)
        else:
            self.out.append("  " * indent + text + "\n")

    def open(self, indent: int, name: str) -> None:
        self.line(indent, name + " {")

    def message(self, msg: Any, indent: int) -> None:
        info = _info(msg)
        if info.full_name == _ANY and self.any(msg, indent):
            return
        items = list(msg._pb_items())
        ext_values = getattr(msg, "_pb_ext", None)
        if ext_values:
            for number in sorted(ext_values):
                ext = info.extensions.get(number)
                value = ext_values[number]
                if ext is None or value is None or (ext.field.repeated and not value):
                    continue
                items.append((ext, value))
            items.sort(key=lambda item: item[0].field.number if isinstance(item[0], ExtensionInfo)
                       else item[0].number)
        for field, value in items:
            if isinstance(field, ExtensionInfo):
                self.field(field.field, f"[{field.full_name}]", value, indent)
            else:
                self.field(field, _text_name(field, info), value, indent)
        if self.unknown:
            raw = msg.unknown_fields()
            if raw:
                self.unknown_fields(raw, indent, 0)

    def field(self, field: FieldInfo, name: str, value: Any, indent: int) -> None:
        if field.is_map:
            key_field, value_field = field.map_key, field.map_value
            assert key_field is not None and value_field is not None
            for key in sorted(value):
                self.open(indent, name)
                self.single(key_field, "key", key, indent + 1)
                self.single(value_field, "value", value[key], indent + 1)
                self.line(indent, "}")
        elif field.repeated:
            for item in value:
                self.single(field, name, item, indent)
        else:
            self.single(field, name, value, indent)

    def single(self, field: FieldInfo, name: str, value: Any, indent: int) -> None:
        if field.kind in _MESSAGE_KINDS:
            self.open(indent, name)
            self.message(value, indent + 1)
            self.line(indent, "}")
        else:
            self.line(indent, f"{name}: {_format_scalar(field, value)}")

    def any(self, msg: Any, indent: int) -> bool:
        values = {f.name: v for f, v in msg._pb_items()}
        type_url = values.get("type_url", "")
        prefix, _, name = type_url.rpartition("/")
        if not name or not prefix or not _valid_url_prefix(prefix):
            return False  # printed as its raw fields
        cls = find_message_class(name, self.root)
        if cls is None:
            return False
        sub = cls()
        try:
            sub.merge_from_bytes(values.get("value", b""), partial=True)
        except DecodeError:
            return False
        self.open(indent, f"[{type_url}]")
        self.message(sub, indent + 1)
        self.line(indent, "}")
        return True

    def unknown_fields(self, raw: bytes, indent: int, depth: int) -> None:
        try:
            fields = _split_unknown(raw, depth)
        except (DecodeError, IndexError):  # not well-formed: text format cannot show it
            return
        for number, wire_type, value in fields:
            if wire_type == wire.WIRE_VARINT:
                self.line(indent, f"{number}: {value}")
            elif wire_type == wire.WIRE_FIXED32:
                self.line(indent, f"{number}: 0x{value:08x}")
            elif wire_type == wire.WIRE_FIXED64:
                self.line(indent, f"{number}: 0x{value:016x}")
            elif wire_type == wire.WIRE_START_GROUP:
                self.open(indent, str(number))
                self.unknown_fields(value, indent + 1, depth + 1)
                self.line(indent, "}")
            elif value and depth < MAX_DEPTH and _parses_as_message(value, depth + 1):
                self.open(indent, str(number))
                self.unknown_fields(value, indent + 1, depth + 1)
                self.line(indent, "}")
            else:
                self.line(indent, f"{number}: {_quote_bytes(value)}")


def _split_unknown(raw: bytes, depth: int) -> list[tuple[int, int, Any]]:
    """Split encoded fields into ``(number, wire type, value)``; a group's value is its body."""
    out: list[tuple[int, int, Any]] = []
    pos, end = 0, len(raw)
    value: Any
    while pos < end:
        tag, pos = wire.dec_varint(raw, pos)
        wire.check_tag(tag, pos)
        number, wire_type = tag >> 3, tag & 7
        if wire_type == wire.WIRE_VARINT:
            value, pos = wire.dec_varint(raw, pos)
        elif wire_type == wire.WIRE_FIXED32:
            if pos + 4 > end:
                raise DecodeError("truncated fixed32")
            value = wire.unpack_u32(raw, pos)[0]
            pos += 4
        elif wire_type == wire.WIRE_FIXED64:
            if pos + 8 > end:
                raise DecodeError("truncated fixed64")
            value = wire.unpack_u64(raw, pos)[0]
            pos += 8
        elif wire_type == wire.WIRE_LEN:
            n, pos = wire.dec_varint(raw, pos)
            if pos + n > end:
                raise DecodeError("truncated length-delimited field")
            value = raw[pos:pos + n]
            pos += n
        else:  # start group: find the matching end
            start = pos
            stop = wire.skip_field(raw, tag, pos, end, MAX_DEPTH - depth)
            end_tag = wire.varint_bytes((number << 3) | wire.WIRE_END_GROUP)
            value = raw[start:stop - len(end_tag)]
            pos = stop
        out.append((number, wire_type, value))
    if pos != end:
        raise DecodeError("truncated field")
    return out


def _parses_as_message(raw: bytes, depth: int) -> bool:
    try:
        _check_unknown(raw, depth)
    except (DecodeError, IndexError):
        return False
    return True


def _check_unknown(raw: bytes, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise DecodeError("nested too deeply")
    for _, wire_type, value in _split_unknown(raw, depth):
        if wire_type == wire.WIRE_START_GROUP:
            _check_unknown(value, depth + 1)


def to_text(msg: object, *, print_unknown_fields: bool = False, as_one_line: bool = False) -> str:
    """Return ``msg`` in protobuf text format.

    ``print_unknown_fields`` adds the fields the message did not know, by number;
    ``as_one_line`` separates fields with spaces instead of lines.
    """
    printer = _Printer(type(msg), as_one_line, print_unknown_fields)
    try:
        printer.message(msg, 0)
    except RecursionError:
        raise nested_too_deep(msg) from None
    if as_one_line:
        return " ".join(printer.out)
    return "".join(printer.out)


# ============================================================================= tokenizer

_TOKEN: Final = re.compile(r"""
    (?:[ \t\r\n\f\v]+|\#[^\n]*)*
    (?:
        (?P<id>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<num>(?:0[xX][0-9A-Fa-f]+|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?)
                [A-Za-z0-9_.]*)
      | (?P<str>"(?:[^"\\\n]|\\[^\n])*"|'(?:[^'\\\n]|\\[^\n])*')
      | (?P<sym>.)
    )?
""", re.VERBOSE | re.DOTALL)
_NUMBER: Final = re.compile(
    r"(?:0[xX][0-9A-Fa-f]+|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?)\Z")


class _Tokens:
    """A cursor over the tokens of a text; ``kind`` is id, num, str, sym or eof."""

    __slots__ = ("text", "pos", "kind", "value", "start")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.kind = ""
        self.value = ""
        self.start = 0
        self.next()

    def where(self, offset: int | None = None) -> str:
        at = self.start if offset is None else offset
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return f"{line}:{column}"

    def error(self, message: str, offset: int | None = None) -> TextFormatError:
        return TextFormatError(f"{self.where(offset)}: {message}")

    def next(self) -> None:
        m = _TOKEN.match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()
        kind = m.lastgroup
        if kind is None:  # only whitespace and comments were left
            self.kind, self.value, self.start = "eof", "", self.pos
            return
        self.kind, self.value, self.start = kind, m.group(kind), m.start(kind)
        if kind == "num" and not _NUMBER.match(self.value):
            raise self.error(f"invalid number {self.value!r}")
        if kind == "sym" and self.value in "\"'":
            raise self.error("string literal is missing its closing quote (or has a line break)")

    def describe(self) -> str:
        if self.kind == "eof":
            return "end of input"
        value = self.value if len(self.value) <= 40 else self.value[:37] + "..."
        return repr(value)

    def at(self, symbol: str) -> bool:
        return self.kind == "sym" and self.value == symbol

    def take(self, symbol: str) -> bool:
        if self.kind == "sym" and self.value == symbol:
            self.next()
            return True
        return False

    def expect(self, symbol: str) -> None:
        if not self.take(symbol):
            raise self.error(f"expected {symbol!r}, got {self.describe()}")

    def bracket_name(self) -> str:
        """Read ``[...]`` (the cursor is at ``[``): whitespace and comments inside are dropped."""
        text = self.text
        pos = self.start + 1
        chars: list[str] = []
        while True:
            if pos >= len(text):
                raise self.error("missing ']' after extension or type name")
            ch = text[pos]
            if ch == "]":
                break
            if ch == "#":
                newline = text.find("\n", pos)
                pos = len(text) if newline < 0 else newline
                continue
            if ch not in " \t\r\n\f\v":
                chars.append(ch)
            pos += 1
        self.pos = pos + 1
        self.next()
        return "".join(chars)


# ============================================================================= values

_SIMPLE_ESCAPES: Final = {
    "a": b"\a", "b": b"\b", "f": b"\f", "n": b"\n", "r": b"\r", "t": b"\t", "v": b"\v",
    "\\": b"\\", "'": b"'", '"': b'"', "?": b"?",
}
_ESCAPE: Final = re.compile(
    r"\\(?:([0-7]{1,3})|[xX]([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.DOTALL)


def _unescape(toks: _Tokens) -> bytes:
    token = toks.value
    body = token[1:-1]
    if "\\" not in body:
        return body.encode("utf-8", "surrogatepass")
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(body):
        out += body[pos:m.start()].encode("utf-8", "surrogatepass")
        pos = m.end()
        octal, hexa, short, long, other = m.groups()
        if octal is not None:
            code = int(octal, 8)
            if code > 0xFF:
                raise toks.error(f"octal escape \\{octal} is out of range")
            out.append(code)
        elif hexa is not None:
            out.append(int(hexa, 16))
        elif short is not None or long is not None:
            code = int(short if short is not None else long, 16)
            if 0xD800 <= code <= 0xDFFF:
                raise toks.error(f"escape {m.group()} is a surrogate, not a character")
            if code > 0x10FFFF:
                raise toks.error(f"escape {m.group()} is beyond U+10FFFF")
            out += chr(code).encode("utf-8")
        else:
            simple = _SIMPLE_ESCAPES.get(other)
            if simple is None:
                raise toks.error(f"invalid escape sequence \\{other}")
            out += simple
    out += body[pos:].encode("utf-8", "surrogatepass")
    return bytes(out)


def _string_value(toks: _Tokens) -> bytes:
    if toks.kind != "str":
        raise toks.error(f"expected a string, got {toks.describe()}")
    parts = []
    while toks.kind == "str":
        parts.append(_unescape(toks))
        toks.next()
    return b"".join(parts)


def _parse_integer_text(toks: _Tokens, text: str, negative: bool, kind: int, start: int) -> int:
    low, high = _INT_RANGES[kind]
    if text.isdigit() and (text[0] != "0" or len(text) == 1) and len(text) < 25:  # fast path: decimal
        number = -int(text) if negative else int(text)
        if not low <= number <= high:
            raise toks.error(f"integer {number} out of range for {KIND_NAMES[kind]}", start)
        return number
    lowered = text.lower()
    if lowered.startswith("0x"):
        digits, base = lowered[2:], 16
    elif len(lowered) > 1 and lowered.startswith("0"):
        digits, base = lowered[1:], 8
    else:
        digits, base = lowered, 10
    if not digits or any(c not in "0123456789abcdef"[:base] for c in digits):
        raise toks.error(f"expected an integer, got {text!r}", start)
    if len(digits.lstrip("0")) > 25:
        raise toks.error(f"integer {'-' if negative else ''}{text} out of range for {KIND_NAMES[kind]}", start)
    number = int(digits, base)
    if negative:
        number = -number
    if not low <= number <= high:
        raise toks.error(f"integer {number} out of range for {KIND_NAMES[kind]}", start)
    return number


def _integer(toks: _Tokens, kind: int) -> int:
    start = toks.start
    negative = toks.take("-")
    if toks.kind != "num":
        raise toks.error(f"expected an integer, got {toks.describe()}")
    number = _parse_integer_text(toks, toks.value, negative, kind, start)
    toks.next()
    return number


_FLOAT_WORDS: Final = {"inf": math.inf, "infinity": math.inf, "nan": math.nan}


def _float(toks: _Tokens, single: bool) -> float:
    start = toks.start
    negative = toks.take("-")
    if toks.kind == "id":
        value = _FLOAT_WORDS.get(toks.value.lower())
        if value is None:
            raise toks.error(f"expected a number, got {toks.describe()}")
    elif toks.kind == "num":
        text = toks.value
        lowered = text.lower()
        if lowered.startswith("0x"):
            raise toks.error(f"hexadecimal is not allowed for floating-point values: {text!r}", start)
        if len(text) > 1 and text[0] == "0" and text[1].isdigit() and not any(c in lowered for c in ".e"):
            raise toks.error(f"octal is not allowed for floating-point values: {text!r}", start)
        if lowered.endswith("f"):
            text = text[:-1]
        try:
            value = float(text)
        except (ValueError, OverflowError):
            raise toks.error(f"expected a number, got {toks.describe()}") from None
    else:
        raise toks.error(f"expected a number, got {toks.describe()}")
    toks.next()
    if negative:
        value = -value
    if single:
        value = wire.unpack_f32(wire.pack_float(value))[0]
    return value


_TRUE: Final = frozenset(("true", "True", "t"))
_FALSE: Final = frozenset(("false", "False", "f"))


def _bool(toks: _Tokens) -> bool:
    if toks.kind == "id":
        if toks.value in _TRUE:
            toks.next()
            return True
        if toks.value in _FALSE:
            toks.next()
            return False
    elif toks.kind == "num":
        start = toks.start
        try:
            number = _parse_integer_text(toks, toks.value, False, TYPE_UINT64, start)
        except TextFormatError:
            number = -1
        if number in (0, 1):
            toks.next()
            return number == 1
    raise toks.error(f"expected true or false, got {toks.describe()}")


def _enum(toks: _Tokens, field: FieldInfo) -> Any:
    """The value of ``field``'s enum, as the field holds it (see _json.parse_enum_of)."""
    enum = field.enum
    if toks.kind == "id":
        named = enum.names.get(toks.value) if enum is not None else None
        if named is None:
            name = enum.full_name if enum is not None else "enum"
            raise toks.error(f"{toks.value!r} is not a value of {name}")
        toks.next()
        return named
    start = toks.start
    number = _integer(toks, TYPE_INT32)
    if enum is not None and enum.closed:
        member = enum.members.get(number)
        if member is None:
            raise toks.error(f"{number} is not a value of closed enum {enum.full_name}", start)
        return member
    return number


def _scalar(toks: _Tokens, field: FieldInfo) -> Any:
    kind = field.kind
    if kind in _INT_RANGES:
        return _integer(toks, kind)
    if kind in (TYPE_DOUBLE, TYPE_FLOAT):
        return _float(toks, kind == TYPE_FLOAT)
    if kind == TYPE_BOOL:
        return _bool(toks)
    if kind == TYPE_ENUM:
        return _enum(toks, field)
    if kind == TYPE_BYTES:
        return _string_value(toks)
    if kind == TYPE_STRING:
        start = toks.start
        raw = _string_value(toks)
        if not field.utf8:
            return raw.decode("utf-8", "surrogateescape")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise toks.error(f"invalid UTF-8 in string field {field.name!r} (byte {exc.start} of the value)",
                             start) from None
    raise toks.error(f"cannot parse field kind {kind}")  # pragma: no cover


# ============================================================================= parsing

class _Entry:
    """A map entry being parsed: looks like a message with fields key (1) and value (2)."""

    __slots__ = ("_pb_info", "values")

    def __init__(self, info: MessageInfo) -> None:
        self._pb_info = info
        self.values: dict[int, Any] = {}

    def _pb_items(self) -> list[tuple[FieldInfo, Any]]:
        return [(f, self.values[f.number]) for f in self._pb_info.fields if f.number in self.values]

    def _pb_set(self, field: FieldInfo, value: Any) -> None:
        self.values[field.number] = value


_entry_infos: dict[int, tuple[FieldInfo, MessageInfo]] = {}
_type_names: dict[int, tuple[MessageInfo, dict[str, FieldInfo]]] = {}


def _entry_info(field: FieldInfo) -> MessageInfo:
    cached = _entry_infos.get(id(field))
    if cached is None or cached[0] is not field:
        key_field, value_field = field.map_key, field.map_value
        assert key_field is not None and value_field is not None
        cached = (field, MessageInfo(f"{field.name}.entry", (key_field, value_field)))
        _entry_infos[id(field)] = cached
    return cached[1]


def _group_names(info: MessageInfo) -> dict[str, FieldInfo]:
    """The type names by which the group-like fields of ``info`` are written."""
    cached = _type_names.get(id(info))
    if cached is None or cached[0] is not info:
        names = {_text_name(f, info): f for f in info.fields if _group_like(f, info.full_name)}
        cached = (info, names)
        _type_names[id(info)] = cached
    return cached[1]


def _reserved(info: MessageInfo) -> frozenset[str]:
    return info.reserved_names


class _Parser:
    __slots__ = ("toks", "root")

    def __init__(self, text: str, root: type) -> None:
        self.toks = _Tokens(text)
        self.root = root

    def block(self, msg: Any, close: str, depth: int) -> None:
        """Parse fields into ``msg`` up to ``close`` (``""``: the end of input)."""
        toks = self.toks
        info: MessageInfo = msg._pb_info
        current = {f.number: v for f, v in msg._pb_items()}
        lists: dict[int, tuple[FieldInfo, Any]] = {}  # repeated and map fields first set here
        seen: set[int] = set()
        seen_ext: set[int] = set()
        oneofs: dict[str, FieldInfo] = {}
        real_oneofs = {o.name for o in info.oneofs if not o.synthetic}
        while True:
            if close:
                if toks.take(close):
                    break
                if toks.kind == "eof":
                    raise toks.error(f"expected {close!r} to end {info.full_name}, got end of input")
            elif toks.kind == "eof":
                break
            start = toks.start
            if toks.at("["):
                name = toks.bracket_name()
                if "/" in name:
                    if info.full_name != _ANY:
                        raise toks.error(f"{info.full_name} is not google.protobuf.Any: "
                                         f"[{name}] cannot expand here", start)
                    if 1 in seen or 2 in seen:
                        raise toks.error("Any given twice", start)
                    seen.update((1, 2))  # type_url and value: giving them again is an error
                    self.any(msg, info, name, start, depth)
                else:
                    ext = _find_extension(info, name)
                    if ext is None:
                        raise toks.error(f"{info.full_name} has no extension named [{name}]", start)
                    number = ext.field.number
                    if not ext.field.repeated and ext.field.kind not in _MESSAGE_KINDS:
                        if number in seen_ext:
                            raise toks.error(f"extension [{name}] given twice", start)
                        seen_ext.add(number)
                    self.extension(msg, ext, depth)
            elif toks.kind == "id":
                name = toks.value
                field = info.by_name.get(name) or _group_names(info).get(name)
                toks.next()
                if field is None:
                    if name in _reserved(info):
                        self.skip_value(depth)
                    else:
                        raise toks.error(f"{info.full_name} has no field named {name!r}", start)
                else:
                    self.field(msg, info, field, current, lists, seen, oneofs, real_oneofs, start, depth)
            else:
                raise toks.error(f"expected a field name, got {toks.describe()}")
            if not toks.take(","):
                toks.take(";")
        for field, value in lists.values():
            msg._pb_set(field, value)

    def field(self, msg: Any, info: MessageInfo, field: FieldInfo, current: dict[int, Any],
              lists: dict[int, tuple[FieldInfo, Any]], seen: set[int], oneofs: dict[str, FieldInfo],
              real_oneofs: set[str], start: int, depth: int) -> None:
        toks = self.toks
        number = field.number
        if field.oneof in real_oneofs:
            other = oneofs.get(field.oneof)
            if other is not None and other is not field:
                raise toks.error(f"oneof {field.oneof!r} already set by {other.name!r}", start)
            oneofs[field.oneof] = field
        if field.is_map or field.repeated:
            # a list or dict the message holds grows in place: copying it for each block that adds
            # to it (a sub-message given n times) would cost O(n²)
            target: Any = current.get(number)
            if target is None:
                entry = lists.get(number)
                if entry is None:
                    fresh: Any = {} if field.is_map else []
                    lists[number] = entry = (field, fresh)
                target = entry[1]
            if field.is_map:
                for key, value in self.values(field, depth, message=True):
                    target[key] = value
            else:
                target.extend(self.values(field, depth, message=field.kind in _MESSAGE_KINDS))
            return
        if field.kind in _MESSAGE_KINDS:
            toks.take(":")
            existing = current.get(number)
            if existing is None:
                sub = field.message_type()  # type: ignore[misc]
                self.message_value(sub, depth)
                msg._pb_set(field, sub)
                current[number] = sub
            else:
                self.message_value(existing, depth)
            seen.add(number)
            return
        if number in seen:
            raise toks.error(f"non-repeated field {field.name!r} given twice", start)
        seen.add(number)
        toks.expect(":")
        value = _scalar(toks, field)
        msg._pb_set(field, value)
        current[number] = value

    def values(self, field: FieldInfo, depth: int, message: bool) -> list[Any]:
        """The values after a repeated field's name: one value or a ``[...]`` list."""
        toks = self.toks
        colon = toks.take(":")
        if not colon and not message:
            raise toks.error(f"expected ':' after {field.name!r}, got {toks.describe()}")
        if not toks.take("["):
            return [self.one(field, depth)]
        items: list[Any] = []
        if toks.take("]"):
            return items
        while True:
            items.append(self.one(field, depth))
            if toks.take("]"):
                return items
            if not toks.take(","):
                raise toks.error(f"expected ',' or ']' in the list of {field.name!r}, got {toks.describe()}")

    def one(self, field: FieldInfo, depth: int) -> Any:
        if field.is_map:
            entry = _Entry(_entry_info(field))
            self.message_value(entry, depth)
            key_field, value_field = field.map_key, field.map_value
            assert key_field is not None and value_field is not None
            key = entry.values.get(1, key_field.default)
            value = entry.values.get(2)
            if value is None:
                value_cls = value_field.message_type
                value = value_field.default if value_cls is None else value_cls()
            return (key, value)
        if field.kind in _MESSAGE_KINDS:
            sub = field.message_type()  # type: ignore[misc]
            self.message_value(sub, depth)
            return sub
        return _scalar(self.toks, field)

    def message_value(self, msg: Any, depth: int) -> None:
        toks = self.toks
        if depth >= MAX_DEPTH:
            raise toks.error(f"messages nested deeper than {MAX_DEPTH}")
        if toks.take("{"):
            self.block(msg, "}", depth + 1)
        elif toks.take("<"):
            self.block(msg, ">", depth + 1)
        else:
            raise toks.error(f"expected '{{' or '<' to start {msg._pb_info.full_name}, got {toks.describe()}")

    def extension(self, msg: Any, ext: ExtensionInfo, depth: int) -> None:
        toks = self.toks
        store = getattr(msg, "_pb_ext", None)
        if store is None:  # pragma: no cover - extendable messages always have one
            raise toks.error(f"{type(msg).__name__} cannot hold extensions")
        field = ext.field
        number = field.number
        if field.repeated:
            items = self.values(field, depth, message=field.kind in _MESSAGE_KINDS)
            existing = store.get(number)
            if existing is None:
                store[number] = items
            else:
                existing.extend(items)  # in place: [ext] given n times costs O(n), not O(n²)
        elif field.kind in _MESSAGE_KINDS:
            toks.take(":")
            sub = store.get(number)
            if sub is None:
                sub = field.message_type()  # type: ignore[misc]
            self.message_value(sub, depth)
            store[number] = sub
        else:
            toks.expect(":")
            store[number] = _scalar(toks, field)

    def any(self, msg: Any, info: MessageInfo, type_url: str, start: int, depth: int) -> None:
        toks = self.toks
        prefix, _, name = type_url.rpartition("/")
        if not prefix or not name or not _valid_url_prefix(prefix):
            raise toks.error(f"invalid Any type URL {type_url!r}", start)
        cls = find_message_class(name, self.root)
        if cls is None:
            raise toks.error(f"cannot resolve Any type {type_url!r}: register its class with "
                             "json_format.register_message_class", start)
        toks.take(":")
        sub = cls()
        self.message_value(sub, depth)
        try:
            payload = sub.serialize(deterministic=True, partial=True)
        except EncodeError as exc:
            raise toks.error(f"Any payload cannot be serialized: {exc}", start) from None
        msg._pb_set(info.by_name["type_url"], type_url)
        msg._pb_set(info.by_name["value"], payload)

    # -- skipping the values of reserved fields ---------------------------------------

    def skip_value(self, depth: int) -> None:
        toks = self.toks
        colon = toks.take(":")
        if toks.at("{") or toks.at("<"):
            self.skip_message(depth)
        elif not colon:
            raise toks.error(f"expected ':' or a message, got {toks.describe()}")
        elif toks.take("["):
            if toks.take("]"):
                return
            while True:
                if toks.at("{") or toks.at("<"):
                    self.skip_message(depth)
                else:
                    self.skip_scalar()
                if toks.take("]"):
                    return
                toks.expect(",")
        else:
            self.skip_scalar()

    def skip_scalar(self) -> None:
        toks = self.toks
        if toks.kind == "str":
            while toks.kind == "str":
                _unescape(toks)
                toks.next()
            return
        toks.take("-")
        if toks.kind not in ("id", "num"):
            raise toks.error(f"expected a value, got {toks.describe()}")
        toks.next()

    def skip_message(self, depth: int) -> None:
        toks = self.toks
        if depth >= MAX_DEPTH:
            raise toks.error(f"messages nested deeper than {MAX_DEPTH}")
        close = "}" if toks.take("{") else ">"
        if close == ">":
            toks.expect("<")
        while not toks.take(close):
            if toks.at("["):
                toks.bracket_name()
            elif toks.kind in ("id", "num"):
                toks.next()
            else:
                raise toks.error(f"expected a field name, got {toks.describe()}")
            self.skip_value(depth + 1)
            if not toks.take(","):
                toks.take(";")


_URL_PREFIX: Final = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*\Z")


def _valid_url_prefix(prefix: str) -> bool:
    return _URL_PREFIX.match(prefix) is not None


def _find_extension(info: MessageInfo, name: str) -> ExtensionInfo | None:
    for ext in info.extensions.values():
        if ext.full_name == name:
            return ext
    return None


def from_text(cls: type[M], text: str | bytes | bytearray) -> M:
    """Parse text-format ``text`` into a new ``cls``; raise TextFormatError on any problem."""
    msg = cls()
    merge_from_text(msg, text)
    return msg


def merge_from_text(msg: object, text: str | bytes | bytearray) -> None:
    """Merge the fields given in ``text`` into ``msg``.

    Scalars given replace the current value (giving one twice is an error), sub-messages
    are merged, repeated and map fields are appended to.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TextFormatError(f"invalid UTF-8 in text-format input at byte {exc.start}") from None
    info = _info(msg)
    parser = _Parser(text, type(msg))
    try:
        parser.block(msg, "", 0)
    except RecursionError:
        raise TextFormatError(f"{info.full_name}: text nested too deeply") from None
