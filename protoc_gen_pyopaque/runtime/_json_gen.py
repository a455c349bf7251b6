"""The helpers generated JSON code calls (``_pb_json_write``, ``_pb_json_merge``).

Generated messages print and parse their own fields (_pb_json_write, _pb_json_merge)
with inline code for the common cases; they call these helpers for the rest. They
track no JSON paths: what fails raises a bare JsonError and the reflective code above
runs again to name the path. Messages with special JSON forms (the well-known types;
Timestamp and Duration print through their bases in wkt.py) and messages where a JSON
key names two fields (legacy_json) keep the reflective code, through Message's defaults.
"""

from __future__ import annotations

import binascii
import math
import struct
from decimal import Decimal
from json.encoder import encode_basestring
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from ._json import (
    COMPACT, JsonCtx, Skip, find_extension, json_refuse, merge_extension, merge_message,
    null_is_value, parse_bytes, parse_enum_of, parse_float, parse_int, parse_map_key, parse_scalar,
    print_extensions, print_float, print_message,
)
from ._wire import NATIVE
from .errors import JsonError
from .reflect import (
    INT_RANGES, TYPE_BOOL, TYPE_FIXED64, TYPE_INT64, TYPE_SFIXED64, TYPE_SINT64, TYPE_STRING, TYPE_UINT64, EnumInfo,
    message_info,
)

if TYPE_CHECKING:  # i64: an annotation only (mypyc compiles it to a C int64_t, Python runs plain ints)
    from mypy_extensions import i64

json_out_str: Final[Callable[[str], str]] = encode_basestring  # a JSON string literal (C)
_F32: Final = struct.Struct("<f")


def json_text_reflective(msg: Any, ctx: JsonCtx, depth: int) -> str:
    """Print ``msg`` with the reflective printer (special forms), as compact JSON text."""
    return COMPACT.encode(print_message(msg, ctx, "$", depth))


def json_merge_reflective(msg: Any, obj: Any, ctx: JsonCtx, depth: int) -> None:
    """Merge ``obj`` into ``msg`` with the reflective parser (special forms)."""
    merge_message(msg, obj, ctx, "$", depth)


def json_write_extensions(out: list[str], msg: Any, ctx: JsonCtx, depth: int) -> None:
    """Append the ``,"[ext.name]":value`` members of the extensions set on ``msg``."""
    for name, value in print_extensions(msg, message_info(msg), ctx, "$", depth):
        out.append("," + COMPACT.encode(name) + ":" + COMPACT.encode(value))


def json_out_int(value: Any) -> str:
    """An integer that is not a plain int (a bool, an IntEnum, ...), as the reflective printer."""
    return str(int(value))


def json_out_double(value: float) -> str:
    """A double: its shortest decimal form as repr() writes it; NaN and infinities are strings."""
    number = float(value)
    if number - number != 0.0:
        return _float_text(number, False)
    if NATIVE and number != 0.0:  # interpreted, repr() costs less than the steps of _shortest_digits
        text = _shortest_digits(number, False)
        if text:
            return text
    return repr(number)


def json_out_float(value: float) -> str:
    """A float32 in its shortest decimal form that reads back as the same float32 (6 digits at least)."""
    number = float(value)
    if number == 0.0 or number - number != 0.0:
        return _float_text(number, True)
    # a multiple of 1/16 below 4096 (exact: scaled by a power of two) is a float32 whose decimal
    # expansion is its shortest form: a decimal with a digit less is 0.0005 away at least, more
    # than its half ulp (0.000122 at most); repr() writes that expansion
    sixteenths = number * 16.0
    if -65536.0 < sixteenths < 65536.0 and sixteenths == math.floor(sixteenths):
        return json_out_double(number)
    if NATIVE:  # interpreted, the steps of _shortest_digits cost more than the search below
        text = _shortest_digits(number, True)
        if text:
            return text
    try:
        want = _F32.pack(number)
    except OverflowError:
        return repr(number)
    # f-strings: "%.7g" % number parses its format on every call, at several times the cost
    text = f"{number:.7g}"
    if _F32.pack(float(text)) == want:
        shorter = f"{number:.6g}"
        if _F32.pack(float(shorter)) == want:
            text = shorter
    # 7 digits do not read back: neither do 6 when reading back is monotonic in the digit
    # count, as it is when the float32's rounding interval is symmetric: a float32 value
    # (not a double between two) that is no power of two
    elif (want[0] | want[1] | want[2] & 0x7F) and _F32.unpack(want)[0] == number:
        text = f"{number:.8g}"
        if _F32.pack(float(text)) != want:
            text = f"{number:.9g}"
    else:
        return _float_text(number, True)
    # repr() of that float writes these digits (at most 9 of them) the same way, except
    # for large exponents, and with ".0" after a whole number
    if "e" not in text:
        return text if "." in text else text + ".0"
    return repr(float(text))


# the decimal exponents _shortest_digits decides (beyond, repr() writes the value; all float32s
# are within): 10**(16 - e10) scales a value of exponent e10 to 17 digits before the point
_E10_LOW: Final = -45
_E10_HIGH: Final = 40


def _pow10_pair(k: int) -> tuple[float, float]:
    """10**k as the sum of two doubles: the nearest double and what it is off by, rounded."""
    if k >= 0:
        exact = 10**k
        near = float(exact)
        return near, float(exact - int(near))
    den = 10**-k
    near = 1 / den  # int division rounds correctly
    num, two_power = near.as_integer_ratio()
    return near, (two_power - num * den) / (two_power * den)


_POW10_PAIRS: Final = tuple(_pow10_pair(16 - e10) for e10 in range(_E10_LOW, _E10_HIGH + 1))
_POW10_NEAR: Final = tuple(pair[0] for pair in _POW10_PAIRS)
_POW10_OFF: Final = tuple(pair[1] for pair in _POW10_PAIRS)
_STEPS: Final = tuple(10**(17 - n) for n in range(18))  # by digit count n: 10**(17 - n)
_LN10: Final = math.log(10.0)
_LN2: Final = math.log(2.0)
_TWO_23: Final = 8388608.0
_TWO_52: Final = 4503599627370496.0
_FLT_MIN: Final = 1.1754943508222875e-38  # the least normal float32; below, multiples of _FLT_SUB_ULP
_FLT_MAX: Final = 3.4028234663852886e38
_FLT_SUB_ULP: Final = 2.0**-149
_VELTKAMP: Final = 134217729.0  # 2**27 + 1: splits a double into two halves of 26 bits
# how near (in units of the 17th digit) a tie of two decimals or the limit of reading back
# must be to be left undecided: the double-double arithmetic is off by ~1e-14; a float32's
# decimal is read back as a double first (as _json.print_float does), which moves it by up
# to half a double ulp, 11 units
_SLACK: Final = 1e-6
_SLACK_FLOAT32: Final = 16.0


def _shortest_digits(number: float, single: bool) -> str:
    """The shortest decimal of finite nonzero ``number`` that reads back as the same double
    (repr()'s text), or with ``single`` as the same float32 (6 digits at least, the text of
    _json.print_float), found in integer and double-double arithmetic (dtoa's big integers
    cost ~5,700 instructions a double compiled, this ~2,400 and _decimal_text's text ~1,200);
    "" when that cannot decide, for repr() or the f-string search to write it: powers of two
    (their interval below is half as wide), a double that is no float32 or beyond the
    float32 range with ``single``, exponents outside _E10_LOW.._E10_HIGH.

    Scaled by 10**(16 - exponent) to 17 digits before the point, the value is ``whole`` + ``err``
    (0 <= err < 1: a product of two doubles kept exactly as their sum, 10**k as two doubles: off by
    ~1e-14 of the last digit). Its nearest multiple of 10**(17 - n) is its n-digit decimal, which
    reads back when it lies within half an ulp of the value; the 17-digit one always does for a
    double, the 9-digit one for a float32, and the fewer digits of the shortest: when n digits read
    back, n + 1 do (the n-digit decimal is an n + 1-digit one), so a binary search on n finds it.
    """
    v = math.fabs(number)
    log_v = math.log(v)
    e10 = math.floor(log_v / _LN10)
    if e10 < _E10_LOW or e10 > _E10_HIGH:
        return ""
    if single:
        if v > _FLT_MAX:
            return ""
        digits: i64 = 9
        fewest: i64 = 5  # print_float's search starts at 6 digits
        slack = _SLACK_FLOAT32
        significand = _TWO_23
    else:
        digits = 17
        fewest = 0
        slack = _SLACK
        significand = _TWO_52
    if single and v < _FLT_MIN:
        ulp = _FLT_SUB_ULP
    else:
        ulp = _ulp(v, log_v, significand)
        if v == ulp * significand:  # a power of two: the interval below is half as wide
            return ""
    half_units = v / ulp * 0.5
    if single and half_units * 2.0 != math.floor(half_units * 2.0):  # a double between two float32s
        return ""
    even = half_units == math.floor(half_units)
    near: float = _POW10_NEAR[e10 - _E10_LOW]
    near_off: float = _POW10_OFF[e10 - _E10_LOW]
    scaled = v * near
    if not 1e16 <= scaled < 1e17:  # the logarithm rounded across a power of ten
        return ""
    # scaled, an integer (past 2**53), plus the rounding errors of v * near, and v * the error of near
    split = v * _VELTKAMP
    v_high = split - (split - v)
    v_low = v - v_high
    split = near * _VELTKAMP
    near_high = split - (split - near)
    near_low = near - near_high
    err = ((v_high * near_high - scaled) + v_high * near_low + v_low * near_high) + v_low * near_low \
        + v * near_off
    carry = math.floor(err)  # scaled's ulp is 2 to 16: err may pass several integers
    whole: i64 = int(scaled) + carry
    err -= carry  # now in [0, 1): exact
    reach = ulp * 0.5 * near
    exact = near_off == 0.0  # 10**k is a double (0 <= k <= 22): whole + err is the value exactly
    most = digits
    quotient: i64 = -1
    while digits - fewest > 1:  # fewest digits do not read back (or are not searched), digits do
        n = (digits + fewest) >> 1
        found = _nearest_multiple(whole, err, _STEPS[n], reach, slack, exact, even)
        if found == -2:
            return ""
        if found >= 0:
            digits = n
            quotient = found
        else:
            fewest = n
    if digits == most:  # none shorter: the most digits, unless theirs is a tie
        quotient = _nearest_multiple(whole, err, _STEPS[most], reach, slack, exact, even)
        if quotient < 0:
            return ""
    while quotient % 10 == 0:  # a rounding that carried (10**n), or a float32's 6 digits
        quotient //= 10
        digits -= 1
    return _decimal_text(number < 0.0, str(quotient), e10, digits)


def _ulp(v: float, log_v: float, significand: float) -> float:
    """The unit in the last place of ``v`` (> 0, normal; ``log_v`` its natural logarithm) in a
    binary format whose significand has ``significand`` steps (2**52 a double's, 2**23 a float32's)."""
    # a float exponent: compiled, math.pow(float, int) is a call through the math module
    ulp = math.pow(2.0, float(math.floor(log_v / _LN2))) / significand
    units = v / ulp  # the significand, unless the logarithm rounded across a power of two
    if units >= significand * 2.0:
        return ulp * 2.0
    if units < significand:
        return ulp * 0.5
    return ulp


def _nearest_multiple(whole: i64, err: float, step: i64, reach: float, slack: float, exact: bool,
                      even: bool) -> i64:
    """The nearest multiple of ``step`` to ``whole + err`` (0 <= err < 1), divided by ``step``, when it lies
    within ``reach``; -1 when it does not, -2 when that (or which multiple is nearer) is within
    ``slack`` of the other answer. ``exact``: ``whole + err`` is the value itself (not off by the
    arithmetic), and ties are decided as correctly rounded formatting and reading have it: halfway
    between two multiples is the even one; one exactly ``reach`` away reads back when ``even`` (the
    value's significand is)."""
    rest = whole % step
    quotient = whole // step
    tie = float(2 * rest - step) + 2.0 * err  # below 0: the multiple below is the nearer (exact)
    if tie < 0.0 or exact and tie == 0.0:
        if tie == 0.0:  # halfway: the even multiple
            quotient += quotient & 1
        off = float(rest) + err
        on_limit = err == reach - float(rest)  # off == reach, without off's rounding
    else:
        quotient += 1
        off = float(step - rest) - err
        on_limit = err == float(step - rest) - reach
    if exact and on_limit:
        return quotient if even else -1
    if off > reach + slack:
        return -1
    if off < reach - slack and (exact or not -slack <= tie <= slack):
        return quotient
    return -2


def _decimal_text(negative: bool, text: str, e10: int, digits: int) -> str:
    """repr() of the float whose decimal digits are ``text`` (``digits`` of them, one more when
    rounding carried; no zeros at the end), the first of them at 10**e10.

    f-strings: compiled, one string built of the pieces (a + b + c makes a string of a + b first)."""
    e10 += len(text) - digits
    sign = "-" if negative else ""
    if e10 < -4 or e10 >= 16:
        mantissa = f"{text[0]}.{text[1:]}" if len(text) > 1 else text
        exponent_sign = "e-" if e10 < 0 else "e+"
        pad = "0" if -10 < e10 < 10 else ""
        return f"{sign}{mantissa}{exponent_sign}{pad}{abs(e10)}"
    if e10 < 0:
        zeros = "0" * (-e10 - 1)
        return f"{sign}0.{zeros}{text}"
    if len(text) <= e10 + 1:
        zeros = "0" * (e10 + 1 - len(text))
        return f"{sign}{text}{zeros}.0"
    return f"{sign}{text[:e10 + 1]}.{text[e10 + 1:]}"


def _float_text(number: float, single: bool) -> str:
    printed = print_float(number, single)
    return repr(printed) if isinstance(printed, float) else '"' + printed + '"'


def json_out_bytes(value: Any) -> str:
    """Bytes in base64, as a JSON string."""
    return '"' + binascii.b2a_base64(bytes(value), newline=False).decode("ascii") + '"'


def json_out_enum(enum: EnumInfo, value: Any) -> str:
    """An enum value without a name (open enums keep unknown numbers): its number."""
    number = int(value)
    name = enum.numbers.get(number)
    return '"' + name + '"' if name is not None else str(number)


def json_in_other(msg: Any, key: str, value: Any, ctx: JsonCtx, depth: int) -> None:
    """A key that names no field: an extension ``[full.name]``, else unknown (skipped or refused)."""
    info = message_info(msg)
    if key.startswith("[") and key.endswith("]"):
        ext = find_extension(info, key[1:-1])
        if ext is not None:
            if value is None and not null_is_value(ext.field):
                return
            try:
                merge_extension(msg, ext, value, ctx, "$", depth)
            except Skip:
                pass
            return
    if not ctx.ignore_unknown:
        raise JsonError(f"$: {info.full_name} has no field named {key!r}")


def json_in_int(kind: int, value: Any) -> int:
    """An integer of ``kind``: a JSON number or a decimal string (the form 64-bit ones print in).

    Floats are refused: they may have lost digits that decide (see JsonCtx.rounded_floats).
    """
    if type(value) is str:
        if NATIVE and (kind == TYPE_INT64 or kind == TYPE_SINT64 or kind == TYPE_SFIXED64
                       or kind == TYPE_UINT64 or kind == TYPE_FIXED64):
            read, number = int64_text(value, kind == TYPE_UINT64 or kind == TYPE_FIXED64)
            if read:
                return number
        else:  # interpreted, int() costs less than reading digit by digit
            digits = value[1:] if value[:1] == "-" else value
            if digits.isdigit() and digits.isascii() and (digits[0] != "0" or len(digits) == 1):
                number = int(value)
                low, high = INT_RANGES[kind]
                if low <= number <= high:
                    return number
    elif type(value) is float:
        raise json_refuse()
    return parse_int(kind, value, "$")


# the first 18 digits of the 64-bit limits 9223372036854775807 and 18446744073709551615
_INT64_MAX_HEAD: Final = 922337203685477580
_UINT64_MAX_HEAD: Final = 184467440737095516
_TWO_63: Final = 1 << 63  # = _INT64_MAX_HEAD * 10 + 8 = _INT64_MAX_HEAD // 10 * 100 + 8


def int64_text(text: str, unsigned: bool) -> tuple[bool, int]:
    """(True, the value) of ``text`` in the form 64-bit integers print in (digits without a leading
    zero, a "-" first unless ``unsigned``) when in range; else (False, 0): parse_int decides.

    Compiled, in native ints: int() of a str costs ~500 instructions for "42", ~1,000 for 19 digits;
    this ~190 and ~600. Up to 18 digits cannot overflow an int64; the last one or two are compared
    with the limit's, and an unsigned value beyond an int64 is made from its distance to 2**63."""
    size: i64 = len(text)
    start: i64 = 1 if size > 1 and ord(text[0]) == 45 and not unsigned else 0  # "-"
    count = size - start
    if count < 1 or count > 20 or (count > 1 and ord(text[start]) == 48):  # a leading "0"
        return False, 0
    head_end = start + 18 if count > 18 else size
    head: i64 = 0
    tail: i64 = 0  # the digits past the 18th
    for i in range(start, size):
        c: i64 = ord(text[i])
        if c < 48 or c > 57:
            return False, 0
        if i < head_end:
            head = head * 10 + c - 48
        else:
            tail = tail * 10 + c - 48
    if count <= 18:
        return True, -head if start else head
    above: i64  # unsigned, beyond an int64: the value less 2**63
    if count == 19:
        if head < _INT64_MAX_HEAD or head == _INT64_MAX_HEAD and tail <= 7 + start:  # -...808 too
            return True, -head * 10 - tail if start else head * 10 + tail
        if not unsigned:
            return False, 0
        above = (head - _INT64_MAX_HEAD) * 10 + tail - 8
    else:
        if not unsigned or head > _UINT64_MAX_HEAD or head == _UINT64_MAX_HEAD and tail > 15:
            return False, 0
        above = (head - _INT64_MAX_HEAD // 10) * 100 + tail - 8
    wide: int = above  # an int mixed with an i64 would be made one
    return True, wide + _TWO_63


def json_in_key(kind: int, key: str) -> Any:
    """A map key of ``kind`` (not string), from its JSON object key."""
    return parse_map_key(kind, key, "$")


def json_in_str(value: Any) -> str:
    """A string (checked for unpaired surrogates)."""
    result: str = parse_scalar(TYPE_STRING, None, value, None, "$")
    return result


def json_in_bool(value: Any) -> bool:
    """A bool that is not a JSON true or false: refused."""
    result: bool = parse_scalar(TYPE_BOOL, None, value, None, "$")
    return result


def json_in_double(value: Any) -> float:
    """A double: a JSON number, or "NaN", "Infinity", "-Infinity", or a number in a string."""
    if type(value) is Decimal:
        number = float(value)
        if number - number == 0.0:
            return number
    elif type(value) is float and value - value == 0.0:
        return value
    return parse_float(False, value, "$")


def json_in_float(value: Any) -> float:
    """A float32: as a double, then rounded to float32 (out of its range: refused)."""
    if type(value) is Decimal or type(value) is float:
        number = float(value)
        if number - number == 0.0:
            if NATIVE:  # interpreted, the struct round trip costs less than the steps of _float32_of
                near = _float32_of(number)
                if near == near:
                    return near
            try:
                rounded: float = _F32.unpack(_F32.pack(number))[0]
                return rounded
            except OverflowError:
                pass
    return parse_float(True, value, "$")


def _float32_of(number: float) -> float:
    """Finite ``number`` rounded to the nearest float32 (ties to even), as a C cast rounds it, in
    exact double arithmetic: scaled by a power of two to 24 bits before the point, rounded there;
    NaN outside the normal float32 range (for struct to decide)."""
    v = math.fabs(number)
    if not _FLT_MIN <= v <= _FLT_MAX:
        return math.nan
    ulp = _ulp(v, math.log(v), _TWO_23)
    units = v / ulp
    whole = math.floor(units)
    half = units - whole  # exact
    if half > 0.5 or half == 0.5 and whole % 2 == 1:
        whole += 1
    rounded = whole * ulp
    if rounded > _FLT_MAX:
        return math.nan
    return -rounded if number < 0.0 else rounded


def json_in_bytes(value: Any) -> bytes:
    """Bytes from base64 (standard or URL-safe, padding optional)."""
    return parse_bytes(value, "$")


def json_in_enum(enum: EnumInfo, value: Any, ctx: JsonCtx) -> Any:
    """An enum value given by number (or by unknown name), as its fields hold it (a closed
    enum's member, an open enum's number): None to skip it (ignore_unknown_fields)."""
    try:
        return parse_enum_of(enum, value, ctx, "$")
    except Skip:
        return None


def json_in_enums(enum: EnumInfo, value: Any, ctx: JsonCtx) -> list[Any]:
    """A repeated enum field's values, as json_in_enum makes them (unknown names skipped under
    ignore_unknown_fields)."""
    if type(value) is not list:
        raise json_refuse()
    out: list[Any] = []
    for item in value:
        if item is None:
            raise json_refuse()
        number = enum.names.get(item) if type(item) is str else None
        if number is None:
            number = json_in_enum(enum, item, ctx)
        if number is not None:
            out.append(number)
    return out
