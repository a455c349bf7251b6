"""The reader of compiled from_json: generated ``_pb_json_scan`` methods read their members
straight from the text's UTF-8 bytes with it, no json.loads in between.

A message's scan matches each key as two words of 7 bytes and a length (JsonScan.key), reads
the value by its field's kind with a method of the reader and stores it. Values in a form the
reader leaves to the generic code (null, numbers with a fraction where an integer is wanted,
unknown enum names, quoted or odd numbers, URL-safe base64, well-known types' special forms,
...) raise JsonOther: the message's loop then reads that one member with json.loads and merges
it with the generated ``_pb_json_merge`` (JsonScan.other); a message without a scan of its own
(special forms, split classes) reads its whole value that way (Message._pb_json_scan). What
could be wrong or ambiguous (a key with an escape, an unknown or repeated key, invalid JSON,
anything merged that is refused) raises JsonError: from_json then runs the whole path again,
which decides and names the JSON path of the problem.

Interpreted, json.loads (C) costs less than reading byte by byte in Python: the reader runs
only compiled (NATIVE), and interpreted from_json is the whole path as before.
"""

from __future__ import annotations

import binascii
import json.decoder
import json.scanner
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from librt.strings import read_i32_le

from ._json import GIVE_UP, JsonCtx, member_colons, scan_json, json_refuse
from ._json import from_json as whole_from_json
from ._json_gen import float32_of
from ._wire import NATIVE
from .reflect import (
    INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, TYPE_BOOL, TYPE_BYTES, TYPE_DOUBLE, TYPE_ENUM, TYPE_FIXED32,
    TYPE_FIXED64, TYPE_FLOAT, TYPE_INT32, TYPE_INT64, TYPE_SFIXED32, TYPE_SFIXED64, TYPE_SINT32, TYPE_SINT64,
    TYPE_STRING, TYPE_UINT32, TYPE_UINT64, UINT32_MAX, UINT64_MAX,
)

if TYPE_CHECKING:  # i64: an annotation only (mypyc compiles it to a C int64_t, Python runs plain ints)
    from mypy_extensions import i64

    from .message import Message

M = TypeVar("M")

# json's C string reader (not in the type stubs): escapes decoded, control characters refused
_SCANSTRING: Final[Callable[[str, int], tuple[str, int]]] = getattr(json.decoder, "scanstring")

# 10**k for 0 <= k <= 22: exact doubles, so a decimal of at most 15 digits scaled by one of
# them is correctly rounded (one rounding of an exact quotient or product)
_POW10: Final[tuple[float, ...]] = (1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22)
_TRUE: Final = 0x65757274  # b"true" as a little-endian int32
_ALSE: Final = 0x65736C61  # b"alse"
_KEY_LONG: Final = 15  # the length in a key's second word: longer than 14 bytes


class JsonOther(Exception):
    """A value in a form the reader leaves to json.loads and the generated merge (JsonScan.other)."""


class JsonScan:
    """A position in the UTF-8 bytes of a JSON text, and the values read there. Methods that read
    a value skip the whitespace before it and leave ``pos`` just after it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()  # a flag of the str: byte offsets are character offsets
        self.buf = text.encode()  # UnicodeEncodeError (a ValueError) for unpaired surrogates
        self.pos: i64 = 0
        self.end: i64 = len(self.buf)
        self.k1: i64 = 0  # the second word of the last key (see key)
        self.key_start: i64 = 0
        self.key_size: i64 = 0

    # -- structure -------------------------------------------------------------------

    def _next(self) -> i64:
        """The byte at the first position from ``pos`` that is no whitespace (``pos`` moved there);
        -1 at the end."""
        buf = self.buf
        pos = self.pos
        end = self.end
        while pos < end:
            c: i64 = buf[pos]
            if c != 32 and c != 10 and c != 13 and c != 9:
                self.pos = pos
                return c
            pos += 1
        self.pos = pos
        return -1

    def open_object(self) -> bool:
        """Move past the ``{`` of an object (JsonOther if the value is none): whether a member follows."""
        if self._next() != 123:
            raise JsonOther()
        self.pos += 1
        if self._next() == 125:
            self.pos += 1
            return False
        return True

    def object_next(self) -> None:
        """JsonOther unless the next value is an object (null, a special form)."""
        if self._next() != 123:
            raise JsonOther()

    def more(self) -> bool:
        """Move past the comma after a member (True) or the ``}`` that ends the object (False)."""
        c = self._next()
        self.pos += 1
        if c == 44:
            return True
        if c != 125:
            raise json_refuse()
        return False

    def open_array(self) -> bool:
        """Move past the ``[`` of an array (JsonOther if the value is none): whether an item follows."""
        if self._next() != 91:
            raise JsonOther()
        self.pos += 1
        if self._next() == 93:
            self.pos += 1
            return False
        return True

    def next_item(self) -> bool:
        """Move past the comma after an item (True) or the ``]`` that ends the array (False)."""
        c = self._next()
        self.pos += 1
        if c == 44:
            return True
        if c != 93:
            raise json_refuse()
        return False

    def key(self) -> i64:
        """Read a member's key and its colon; return the key's first 7 bytes as a little-endian
        word. ``k1`` holds the next 7 and, from bit 56, the key's length (_KEY_LONG past 14 bytes:
        key_tail compares the rest). A key with an escape is refused: the whole path reads it."""
        if self._next() != 34:
            raise json_refuse()
        buf = self.buf
        start = self.pos + 1
        pos = start
        end = self.end
        k0: i64 = 0
        k1: i64 = 0
        while True:
            if pos >= end:
                raise json_refuse()
            c: i64 = buf[pos]
            if c == 34:
                break
            if c == 92 or c < 32:
                raise json_refuse()
            n = pos - start
            if n < 7:
                k0 |= c << (n * 8)
            elif n < 14:
                k1 |= c << ((n - 7) * 8)
            pos += 1
        size = pos - start
        self.k1 = k1 | (min(size, _KEY_LONG) << 56)
        self.key_start = start
        self.key_size = size
        self.pos = pos + 1
        if self._next() != 58:
            raise json_refuse()
        self.pos += 1
        return k0

    def key_tail(self, tail: bytes) -> bool:
        """Whether the last key, longer than 14 bytes, ends with ``tail`` from its 15th byte."""
        return self.key_size == 14 + len(tail) and self.buf.startswith(tail, self.key_start + 14)

    def finish(self) -> None:
        """Refuse anything but whitespace after the top-level value."""
        if self._next() != -1:
            raise json_refuse()

    def _string_end(self, pos: i64) -> i64:
        """The position of the quote that ends the string whose text starts at ``pos``."""
        buf = self.buf
        end = self.end
        while pos < end:
            c: i64 = buf[pos]
            if c == 34:
                return pos
            pos += 2 if c == 92 else 1
        raise json_refuse()

    def _skip(self) -> None:
        """Move past the value at ``pos`` (and whitespace after it), without checking it."""
        buf = self.buf
        pos = self.pos
        end = self.end
        nest: i64 = 0
        while pos < end:
            c: i64 = buf[pos]
            if c == 34:
                pos = self._string_end(pos + 1) + 1
                continue
            if c == 123 or c == 91:
                nest += 1
            elif c == 125 or c == 93:
                if nest == 0:
                    break
                nest -= 1
            elif c == 44 and nest == 0:
                break
            pos += 1
        self.pos = pos

    # -- the generic code ------------------------------------------------------------

    def value(self) -> Any:
        """The value at ``pos`` as json.loads reads it (numbers as floats); refused if that refuses
        it or if an object in it gives a key twice."""
        self._next()
        start = self.pos
        self._skip()
        text = self.buf[start:self.pos].decode()
        try:
            obj = scan_json(text)
        except (ValueError, StopIteration):
            raise json_refuse() from None
        # each member has one colon outside strings: a key given twice loses one (see _no_key_twice)
        if text.count(":") != member_colons(obj):
            raise json_refuse()
        return obj

    def other(self, msg: Message, at: i64, ctx: JsonCtx, depth: i64) -> None:
        """Merge into ``msg`` (at ``depth``) the member whose key starts at ``at`` (after
        whitespace), its value read by json.loads."""
        self.pos = at
        self._next()
        start = self.pos + 1
        close = self._string_end(start)
        key = self.buf[start:close].decode()
        self.pos = close + 1
        self._next()
        self.pos += 1  # the colon (key() saw it)
        msg._pb_json_merge({key: self.value()}, ctx, depth)

    # -- scalars -----------------------------------------------------------------------

    def string(self) -> str:
        """A string (JsonOther for anything else)."""
        if self._next() != 34:
            raise JsonOther()
        buf = self.buf
        start = self.pos + 1
        pos = start
        end = self.end
        while True:
            if pos >= end:
                raise json_refuse()
            c: i64 = buf[pos]
            if c == 34:
                break
            if c == 92:
                return self._escaped(start)
            if c < 32:
                raise json_refuse()
            pos += 1
        self.pos = pos + 1
        if self.ascii:
            return self.text[start:pos]
        return buf[start:pos].decode()

    def _escaped(self, start: i64) -> str:
        """The string whose text (with an escape) starts at ``start``; an unpaired surrogate
        (\\ud800) is refused: the whole path names it."""
        close = self._string_end(start)
        value = _SCANSTRING(self.buf[start - 1:close + 1].decode(), 1)[0]  # ValueError if invalid
        if not value.isascii():
            value.encode()  # UnicodeEncodeError for an unpaired surrogate
        self.pos = close + 1
        return value

    def _int(self) -> int:
        """An integer, a JSON number or in a string; JsonOther for a fraction, an exponent, a
        leading zero and the like (json.loads and the merge decide)."""
        c = self._next()
        buf = self.buf
        pos = self.pos
        end = self.end
        quoted = c == 34
        if quoted:
            pos += 1
        start = pos
        negative = pos < end and buf[pos] == 45
        if negative:
            pos += 1
        first = pos
        value: i64 = 0
        while pos < end:
            c = buf[pos]
            if c < 48 or c > 57:
                break
            if pos - first < 18:  # 18 digits fit an int64
                value = value * 10 + (c - 48)
            pos += 1
        count = pos - first
        if count == 0 or (count > 1 and buf[first] == 48):
            raise JsonOther()
        digits_end = pos
        if quoted:
            if pos >= end or buf[pos] != 34:
                raise JsonOther()
            pos += 1
        elif pos < end:
            c = buf[pos]
            if c == 46 or c == 101 or c == 69:  # . e E
                raise JsonOther()
        self.pos = pos
        if count > 18:
            return int(buf[start:digits_end])
        return -value if negative else value

    def int32(self) -> i64:
        """An int32, sint32 or sfixed32."""
        number = self._int()
        if number < INT32_MIN or number > INT32_MAX:
            raise JsonOther()
        return number

    def uint32(self) -> i64:
        """A uint32 or fixed32."""
        number = self._int()
        if number < 0 or number > UINT32_MAX:
            raise JsonOther()
        return number

    def int64(self) -> int:
        """An int64, sint64 or sfixed64."""
        number = self._int()
        if number < INT64_MIN or number > INT64_MAX:
            raise JsonOther()
        return number

    def uint64(self) -> int:
        """A uint64 or fixed64."""
        number = self._int()
        if number < 0 or number > UINT64_MAX:
            raise JsonOther()
        return number

    def double(self) -> float:
        """A double: a JSON number, or "NaN", "Infinity", "-Infinity" (other strings: JsonOther).

        Up to 15 significant digits and a decimal exponent within 22: the digits as a double
        scaled by an exact power of ten, correctly rounded; else float() of the text."""
        c = self._next()
        if c == 34:
            return self._named_double()
        buf = self.buf
        pos = self.pos
        end = self.end
        start = pos
        negative = c == 45
        if negative:
            pos += 1
        mantissa: i64 = 0
        significant: i64 = 0  # digits from the first nonzero one
        scale: i64 = 0  # the power of ten the digits are multiplied by
        first = pos
        while pos < end:
            c = buf[pos]
            if c < 48 or c > 57:
                break
            if significant < 16:
                mantissa = mantissa * 10 + (c - 48)
            else:
                scale += 1
            if mantissa:
                significant += 1
            pos += 1
        count = pos - first
        if count == 0 or (count > 1 and buf[first] == 48):
            raise JsonOther()
        if pos < end and buf[pos] == 46:  # .
            pos += 1
            first = pos
            while pos < end:
                c = buf[pos]
                if c < 48 or c > 57:
                    break
                if significant < 16:
                    mantissa = mantissa * 10 + (c - 48)
                    scale -= 1
                if mantissa:
                    significant += 1
                pos += 1
            if pos == first:
                raise JsonOther()
        if pos < end and (buf[pos] == 101 or buf[pos] == 69):  # e E
            pos += 1
            exponent_negative = False
            if pos < end and (buf[pos] == 43 or buf[pos] == 45):
                exponent_negative = buf[pos] == 45
                pos += 1
            first = pos
            exponent: i64 = 0
            while pos < end:
                c = buf[pos]
                if c < 48 or c > 57:
                    break
                if exponent < 100000:
                    exponent = exponent * 10 + (c - 48)
                pos += 1
            if pos == first:
                raise JsonOther()
            scale += -exponent if exponent_negative else exponent
        self.pos = pos
        number: float
        if significant <= 15 and -22 <= scale <= 22:
            number = float(mantissa)
            if scale >= 0:
                number *= _POW10[scale]
            else:
                number /= _POW10[-scale]
            return -number if negative else number  # -0 too: negative zero, as a JSON number
        number = float(buf[start:pos])
        if number - number != 0.0:  # beyond the double range
            raise JsonOther()
        return number

    def _named_double(self) -> float:
        """The quoted forms: "NaN", "Infinity", "-Infinity"; JsonOther for the rest."""
        start = self.pos + 1
        close = self._string_end(start)
        name = self.buf[start:close]
        self.pos = close + 1
        if name == b"NaN":
            return float("nan")
        if name == b"Infinity":
            return float("inf")
        if name == b"-Infinity":
            return float("-inf")
        raise JsonOther()

    def float32(self) -> float:
        """A float: a double rounded to the nearest float32 (beyond the normal float32 range: JsonOther)."""
        number = self.double()
        if number == 0.0 or number - number != 0.0:
            return number
        rounded = float32_of(number)
        if rounded != rounded:
            raise JsonOther()
        return rounded

    def boolean(self) -> bool:
        """true or false."""
        c = self._next()
        pos = self.pos
        if c == 116 and pos + 4 <= self.end and read_i32_le(self.buf, pos) == _TRUE:
            self.pos = pos + 4
            return True
        if c == 102 and pos + 5 <= self.end and read_i32_le(self.buf, pos + 1) == _ALSE:
            self.pos = pos + 5
            return False
        raise JsonOther()

    def bytes_(self) -> bytes:
        """Bytes in standard base64 with padding (URL-safe or unpadded ones: JsonOther)."""
        if self._next() != 34:
            raise JsonOther()
        start = self.pos + 1
        close = self._string_end(start)
        if (close - start) % 4:
            raise JsonOther()
        try:
            value = binascii.a2b_base64(self.buf[start:close], strict_mode=True)
        except binascii.Error:
            raise JsonOther() from None
        self.pos = close + 1
        return value

    def enum(self, names: dict[str, Any]) -> Any:
        """An enum value given by a known name, as ``names`` maps it (numbers, unknown names: JsonOther)."""
        if self._next() != 34:
            raise JsonOther()
        value = names.get(self.string())
        if value is None:
            raise JsonOther()
        return value

    def scalar(self, kind: i64, names: dict[str, Any] | None) -> Any:
        """A value of field kind ``kind`` (an enum's: by ``names``)."""
        if kind == TYPE_STRING:
            return self.string()
        if kind == TYPE_INT32 or kind == TYPE_SINT32 or kind == TYPE_SFIXED32:
            return self.int32()
        if kind == TYPE_INT64 or kind == TYPE_SINT64 or kind == TYPE_SFIXED64:
            return self.int64()
        if kind == TYPE_UINT32 or kind == TYPE_FIXED32:
            return self.uint32()
        if kind == TYPE_UINT64 or kind == TYPE_FIXED64:
            return self.uint64()
        if kind == TYPE_DOUBLE:
            return self.double()
        if kind == TYPE_FLOAT:
            return self.float32()
        if kind == TYPE_BOOL:
            return self.boolean()
        if kind == TYPE_BYTES:
            return self.bytes_()
        if kind == TYPE_ENUM and names is not None:
            return self.enum(names)
        raise JsonOther()

    def scalars(self, kind: i64, names: dict[str, Any] | None) -> list[Any]:
        """A repeated field's values of kind ``kind``."""
        out: list[Any] = []
        more = self.open_array()
        while more:
            out.append(self.scalar(kind, names))
            more = self.next_item()
        return out

    def map_key(self, kind: i64) -> Any:
        """A map key of field kind ``kind`` and its colon (JsonOther for what the merge decides)."""
        if kind == TYPE_STRING:
            key: Any = self.string()
        elif self._next() != 34:
            raise json_refuse()
        elif kind == TYPE_BOOL:
            name = self.string()
            if name != "true" and name != "false":
                raise JsonOther()
            key = name == "true"
        else:
            key = self.scalar(kind, None)  # an integer, quoted
        if self._next() != 58:
            raise json_refuse()
        self.pos += 1
        return key

    def scalar_map(self, key_kind: i64, kind: i64, names: dict[str, Any] | None) -> dict[Any, Any]:
        """A map of keys of kind ``key_kind`` and values of kind ``kind``; a key given twice is refused."""
        out: dict[Any, Any] = {}
        more = self.open_object()
        while more:
            key = self.map_key(key_kind)
            if key in out:
                raise json_refuse()
            out[key] = self.scalar(kind, names)
            more = self.more()
        return out


def _scan_from_json(cls: type[M], text: str | bytes | bytearray, *, ignore_unknown_fields: bool = False) -> M:
    """from_json: a str read by the generated scans, else (or when they give up) the whole path."""
    if type(text) is str:
        msg = cls()
        try:
            reader = JsonScan(text)
            ctx = JsonCtx(cls, ignore_unknown=ignore_unknown_fields, rounded_floats=True)
            ctx.text = text  # its members read by scan_json (JsonScan.value) read -0 as 0
            cast("Message", msg)._pb_json_scan(reader, ctx, 0)  # compiled: a native call
            reader.finish()
        except JsonOther:
            pass
        except GIVE_UP:
            pass
        else:
            return msg
    return whole_from_json(cls, text, ignore_unknown_fields=ignore_unknown_fields)


from_json: Final = _scan_from_json if NATIVE else whole_from_json
