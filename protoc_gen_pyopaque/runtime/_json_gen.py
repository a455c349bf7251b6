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

from librt.strings import StringWriter
from mypy_extensions import i32

from ._json import (
    COMPACT, JsonCtx, Skip, find_extension, json_refuse, may_be_negative_zero, merge_extension, merge_message,
    null_is_value, parse_bytes, parse_enum_of, parse_float, parse_int, parse_map_key, parse_scalar,
    print_extensions, print_float, print_message,
)
from ._json_wkt import DUR_MAX, NANOS_MAX, TS_MAX, TS_MIN, civil_date, duration_text, timestamp_text
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


def json_write_extensions(out: StringWriter, msg: Any, ctx: JsonCtx, depth: int, comma: bool) -> bool:
    """Write the ``"[ext.name]":value`` members of the extensions set on ``msg``, each after a comma
    (``comma``: members were written before them) or the object's brace; return whether members
    were written."""
    for name, value in print_extensions(msg, message_info(msg), ctx, "$", depth):
        out.append(44 if comma else 123)  # "," or "{"
        out.write(COMPACT.encode(name) + ":" + COMPACT.encode(value))
        comma = True
    return comma


def json_write_ints(out: StringWriter, values: list[int], separator: str) -> None:
    """Write the integers ``values`` in decimal, ``separator`` between them."""
    if not NATIVE:  # interpreted, str() and join (in C) cost less than a loop
        out.write(separator.join(map(str, map(int, values))))
        return
    comma = False
    for value in values:
        if comma:
            out.write(separator)
        comma = True
        json_write_int(out, value)


def json_write_str(out: StringWriter, value: str) -> None:
    """Write ``value`` as a JSON string, as json_out_str makes it: compiled, read a character at a time
    and written as it is when nothing in it needs escaping (json_out_str reads it twice and makes a
    new string)."""
    size: i64 = len(value)
    i: i64 = 0
    while i < size:
        c = ord(value[i])
        if c < 32 or c == 34 or c == 92:  # a control character, '"' or a backslash
            out.write(json_out_str(value))
            return
        i += 1
    out.append(34)
    out.write(value)
    out.append(34)


def json_write_double(out: StringWriter, value: float) -> None:
    """Write a double: its shortest decimal form as repr() writes it; NaN and infinities as strings."""
    number = float(value)
    if number - number != 0.0:
        out.write(_float_text(number, False))
    # interpreted, repr() costs less than the steps of _shortest_digits
    elif not NATIVE or number == 0.0 or not _shortest_digits(out, number, False):
        out.write(repr(number))


def json_write_float(out: StringWriter, value: float) -> None:
    """Write a float32: the shortest decimal (6 digits at least) that reads back as the same float32."""
    number = float(value)
    if number == 0.0 or number - number != 0.0:
        out.write(_float_text(number, True))
        return
    # a multiple of 1/16 below 4096 (exact: scaled by a power of two) is a float32 whose decimal
    # expansion is its shortest form: a decimal with a digit less is 0.0005 away at least, more
    # than its half ulp (0.000122 at most); repr() writes that expansion
    sixteenths = number * 16.0
    if -65536.0 < sixteenths < 65536.0 and sixteenths == math.floor(sixteenths):
        json_write_double(out, number)
        return
    # interpreted, the steps of _shortest_digits cost more than the search below
    if NATIVE and _shortest_digits(out, number, True):
        return
    try:
        want = _F32.pack(number)
    except OverflowError:
        out.write(repr(number))
        return
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
        out.write(_float_text(number, True))
        return
    # repr() of that float writes these digits (at most 9 of them) the same way, except
    # for large exponents, and with ".0" after a whole number
    if "e" in text:
        out.write(repr(float(text)))
    else:
        out.write(text if "." in text else text + ".0")


# The shortest digits by Schubfach (Raffaello Giulietti, "The Schubfach way to render doubles",
# 2020; Java's Double.toString since 19): the value c * 2**q and the ends of its rounding
# interval, scaled by 10**-k with k chosen from q so that the interval is 1 to 10 units wide,
# hold at most one multiple of 10 (the decimal with a digit less) and one or both of the integers
# either side of the value. Each scaled number is an integer below 2**60 with `frac` bits below
# the point, its lowest set when anything smaller is left (rounded to odd), which keeps its
# comparisons with integers exact. Compiled, all of it is i64 arithmetic.
_K_MIN: Final = -324  # k over the doubles (the float32s' lie within)
_K_MAX: Final = 292
_LIMB_MASK: Final = 0x3FFFFFFF  # 30-bit limbs: a product of two is below 2**60


def _log2_pow10(x: i64) -> i64:
    """floor(x * log2(10)), for -400 <= x <= 400."""
    return (x * 108853) >> 15


def _pow10_limbs(k: int) -> list[int]:
    """10**-k scaled by a power of two to 126 bits and rounded up (its floor plus one), as five
    30-bit limbs, the lowest first."""
    num, den = (10**-k, 1) if k <= 0 else (1, 10**k)
    shift = 125 - _log2_pow10(-k)
    g = ((num << shift) // den if shift >= 0 else num // (den << -shift)) + 1
    return [g >> (30 * i) & _LIMB_MASK for i in range(5)]


# Built at import (~1.2 ms), though only compiled code reads them: filled on first use, as lists
# (a Final must be set at import), they cost ~27 instructions more per double (list indexing,
# the test), 1.5 % of a double's text
_POW10_LIMBS: Final = tuple(limb for k in range(_K_MIN, _K_MAX + 1) for limb in _pow10_limbs(k))
_TWO_POWERS: Final = tuple(2.0**-e for e in range(-1023, 1024))  # 2**-e at e + 1023
_INV_LN2: Final = 1.0 / math.log(2.0)
_TWO_52: Final = 4503599627370496.0
_TWO_53: Final = 9007199254740992.0
_C_POWER_OF_TWO: Final = 4503599627370496  # 2**52: the significand of a power of two
_DBL_MIN: Final = 2.2250738585072014e-308  # the least normal double; below, multiples of 2**-1074
_TWO_600: Final = 2.0**600
_TWO_474: Final = 2.0**474
_TWO_23: Final = 8388608.0
_FLT_MIN: Final = 1.1754943508222875e-38  # the least normal float32
_FLT_MAX: Final = 3.4028234663852886e38
_FLT_TRUE_MIN: Final = 1.401298464324817e-45  # 2**-149, the least float32


def _shortest_digits(out: StringWriter, number: float, single: bool) -> bool:
    """Write repr()'s text of finite nonzero ``number``, or with ``single`` the text of
    _json.print_float: the fewest digits (6 at least) whose decimal, read as a double and that
    rounded to a float32, is the same float32. False (nothing written) for what that leaves to
    print_float: a double that is no float32, and the few float32s (powers of two, whose interval
    below is narrower) that need more digits than the search below tries."""
    v = math.fabs(number)
    # v = c * 2**q, c of 53 bits (fewer for a subnormal double)
    if v < _DBL_MIN:
        if single:
            return False
        c: i64 = int(v * _TWO_600 * _TWO_474)
        e: i64 = -1023
        q: i64 = -1074
    else:
        e = math.floor(math.log(v) * _INV_LN2)  # floor(log2(v)), or one off near a power of two
        if e > 1023:
            e = 1023
        elif e < -1022:
            e = -1022
        scaled = v * _TWO_POWERS[e + 1023] * _TWO_52
        if scaled >= _TWO_53:
            scaled *= 0.5
            e += 1
        elif scaled < _TWO_52:
            scaled *= 2.0
            e -= 1
        c = int(scaled)
        q = e - 52
    # in units of 2**(q - 2): the value (cb), half the gap to each neighbour (the interval's ends)
    cb = c << 2
    gap_above: i64 = 2
    gap_below: i64 = 2
    if single:
        if v > _FLT_MAX or v < _FLT_TRUE_MIN:
            return False
        lost: i64 = 29  # the double's significand bits below the float32's
        if e < -126:
            lost = -149 - q
        if (c >> lost) << lost != c:
            return False
        odd = (c >> lost) & 1
        gap_above <<= lost
        gap_below = gap_above
        if c == _C_POWER_OF_TWO and e > -126:
            gap_below >>= 1
        # print_float reads a decimal as a double first: within half a double ulp of the midpoint
        # to a neighbour float32 (2 units, 1 in the binade below a power of two) it rounds to that
        # double, then to the even float32 of the two: the interval widens by that when c is even
        # (closed), narrows when odd (open)
        below_slack: i64 = 2
        if c == _C_POWER_OF_TWO:
            below_slack = 1
        if odd:
            low_end = cb - gap_below + below_slack
            high_end = cb + gap_above - 2
        else:
            low_end = cb - gap_below - below_slack
            high_end = cb + gap_above + 2
        q_k = q + 29  # as a float32 of 24 bits (7 to 9 digits scaled)
        frac: i64 = 31
    else:
        odd = c & 1
        if c == _C_POWER_OF_TWO and q > -1074:
            gap_below = 1
        low_end = cb - gap_below
        high_end = cb + gap_above
        q_k = q
        frac = 2
    if gap_below == gap_above:
        k = (q_k * 78913) >> 18  # floor(log10(2**q_k))
    else:
        k = (q_k * 157827 - 65505) >> 19  # floor(log10(0.75 * 2**q_k))
    shift = q_k + _log2_pow10(-k) + 2  # 2 to 5: the products' 60 bits
    at = (k - _K_MIN) * 5
    g0: i64 = _POW10_LIMBS[at]
    g1: i64 = _POW10_LIMBS[at + 1]
    g2: i64 = _POW10_LIMBS[at + 2]
    g3: i64 = _POW10_LIMBS[at + 3]
    g4: i64 = _POW10_LIMBS[at + 4]
    vb = _scaled(g0, g1, g2, g3, g4, cb << shift)
    vbl = _scaled(g0, g1, g2, g3, g4, low_end << shift) + odd  # an open end: one unit in
    vbr = _scaled(g0, g1, g2, g3, g4, high_end << shift) - odd
    s = vb >> frac
    if single:
        # print_float's search: the value rounded (half to even) to 6, 7, ... digits, until
        # that reads back; s has 7 to 9 digits
        step: i64 = 10
        exponent = k + 1
        if s >= 100000000:
            step = 1000
            exponent = k + 3
        elif s >= 10000000:
            step = 100
            exponent = k + 2
        while step > 0:
            digits = s // step
            rest = vb - ((digits * step) << 31)
            half = step << 30
            if rest > half or rest == half and digits & 1:
                digits += 1
            scaled_digits = (digits * step) << 31
            if vbl <= scaled_digits <= vbr:
                _write_decimal(out, number < 0.0, digits, exponent)
                return True
            step //= 10
            exponent -= 1
        return False
    if s >= 10:  # a multiple of 10 in the interval: the decimal with a digit less
        down = s // 10 * 10
        down_in = vbl <= down << 2
        up_in = (down + 10) << 2 <= vbr
        if down_in != up_in:
            _write_decimal(out, number < 0.0, down if down_in else down + 10, k)
            return True
    # else the integer either side that is in the interval, the nearer when both are (ties: even)
    below_in = vbl <= s << 2
    above_in = (s + 1) << 2 <= vbr
    digits = s + 1
    if below_in and not above_in:
        digits = s
    elif below_in == above_in:
        nearer_above = vb - ((s << 2) + 2)  # 4 * (scaled value - (s + 1/2))
        if nearer_above < 0 or nearer_above == 0 and not s & 1:
            digits = s
    _write_decimal(out, number < 0.0, digits, k)
    return True


def _scaled(g0: i64, g1: i64, g2: i64, g3: i64, g4: i64, cp: i64) -> i64:
    """floor(g * cp / 2**127), g the 126 bits of a power of ten in 30-bit limbs g0 (lowest) to g4
    and cp below 2**60, with its lowest bit set when the rest is 2**-66 or more: g exceeds
    10**-k by less than a unit, which adds less than 2**-67 (Schubfach's round to odd)."""
    c0 = cp & _LIMB_MASK
    c1 = cp >> 30
    # the product's 30-bit columns, each with the carry of the one below
    carry = (g1 * c0 + g0 * c1 + ((g0 * c0) >> 30)) >> 30
    column2 = g2 * c0 + g1 * c1 + carry
    column3 = g3 * c0 + g2 * c1 + (column2 >> 30)
    column4 = g4 * c0 + g3 * c1 + (column3 >> 30)
    column5 = g4 * c1 + (column4 >> 30)
    high = (column5 << 23) + ((column4 & _LIMB_MASK) >> 7)
    if column4 & 127 or column3 & _LIMB_MASK or column2 & _LIMB_MASK > 1:
        return high | 1
    return high


def _write_decimal(out: StringWriter, negative: bool, digits: i64, exponent: i64) -> None:
    """Write repr() of the float ``digits`` * 10**``exponent`` (negated with ``negative``), a
    character at a time: compiled, str() of the digits and the pieces around the point would make
    a string each."""
    shorter = digits // 10
    while shorter * 10 == digits:
        digits = shorter
        exponent += 1
        shorter = digits // 10
    count: i64 = 1
    power: i64 = 10
    if digits >= 100000000:
        count = 9
        power = 1000000000
    while power <= digits:
        power *= 10
        count += 1
    point = count + exponent  # digits before the point
    if negative:
        out.append(45)  # "-"
    if point < -3 or point > 16:  # 1.2345e-05, 1.2345e+16
        _write_digits(out, digits, count, 1)
        power = point - 1
        out.append(101)  # "e"
        if power < 0:
            out.append(45)  # "-"
            power = -power
        else:
            out.append(43)  # "+"
        if power >= 100:
            out.append(i32(48 + power // 100))
        out.append(i32(48 + power // 10 % 10))
        out.append(i32(48 + power % 10))
    elif point <= 0:  # 0.00012345
        out.append(48)
        out.append(46)
        while point < 0:
            out.append(48)
            point += 1
        _write_digits(out, digits, count, -1)
    else:
        _write_digits(out, digits, count, point)
        if exponent >= 0:  # 12345000.0
            while exponent > 0:
                out.append(48)
                exponent -= 1
            out.append(46)
            out.append(48)


def _write_digits(out: StringWriter, digits: i64, count: i64, point: i64) -> None:
    """Write the ``count`` digits of ``digits`` (at most 17), a point after ``point`` of them
    (none when that is below 1 or not before the last)."""
    if count > 9:
        high = digits // 100000000
        _write_run(out, high, count - 8, point)
        _write_run(out, digits - high * 100000000, 8, point - count + 8)
    else:
        _write_run(out, digits, count, point)


_SHORT_INT: Final = (1 << 62) - 1  # compiled, ints within are native (not boxed)
_U64_MAX: Final = 2**64 - 1
_E8: Final = 100000000
_E16: Final = 10000000000000000


def json_write_int(out: StringWriter, value: int) -> None:
    """Write ``value`` in decimal, as str() does: compiled, without making a string."""
    if value > _SHORT_INT:  # boxed compiled: a uint64 past 62 bits (fixed64 ids, hashes) by halves
        if value > _U64_MAX:
            out.write(str(value))
            return
        half: i64 = value >> 1  # below 2**63; value // 10 is half // 5
        tens = half // 5
        _write_native_int(out, tens)
        out.append(i32(48 + (half - tens * 5) * 2 + (value & 1)))
    elif value < -_SHORT_INT:
        out.write(str(value))
    else:
        _write_native_int(out, value)


def _write_native_int(out: StringWriter, n: i64) -> None:
    """Write ``n`` (at least -2**62) in decimal."""
    if n < 0:
        out.append(45)  # "-"
        n = -n
    if n >= _E16:  # 17 to 19 digits: 1 to 3, then two runs of 8
        high = n // _E16
        _write_run(out, high, _digit_count(high), -1)
        n -= high * _E16
        high = n // _E8
        _write_run(out, high, 8, -1)
        _write_run(out, n - high * _E8, 8, -1)
    elif n >= _E8:
        high = n // _E8
        _write_run(out, high, _digit_count(high), -1)
        _write_run(out, n - high * _E8, 8, -1)
    else:
        _write_run(out, n, _digit_count(n), -1)


def _digit_count(n: i64) -> i64:
    """The decimal digits of 0 <= ``n`` < 10**9 (one for 0)."""
    count: i64 = 1
    power: i64 = 10
    while power <= n:
        power *= 10
        count += 1
    return count


_RUN_SCALE: Final = 1441151881  # 2**57 / 10**8 rounded up
_RUN_MASK: Final = 0x1FFFFFFFFFFFFFF  # 2**57 - 1


def _write_run(out: StringWriter, run: i64, count: i64, point: i64) -> None:
    """Write ``run`` (below 10**``count``, ``count`` at most 9) as ``count`` digits, a point before
    the one where ``point``, counting down a digit at a time, reaches 0. Without divisions: run
    / 10**8 in fixed point, 57 bits below the point (exact to 9 digits); each digit is the
    integer part, then the fraction times 10."""
    fixed = run * _RUN_SCALE
    skip = 9 - count
    while skip > 0:
        fixed = (fixed & _RUN_MASK) * 10
        skip -= 1
    while count > 0:
        if point == 0:
            out.append(46)  # "."
        out.append(i32(48 + (fixed >> 57)))
        fixed = (fixed & _RUN_MASK) * 10
        point -= 1
        count -= 1


def json_write_timestamp(out: StringWriter, seconds: int, nanos: int) -> None:
    """Write a Timestamp's ProtoJSON string (timestamp_text in quotes); raise JsonError when it has
    none (out of range)."""
    if NATIVE and TS_MIN <= seconds <= TS_MAX and 0 <= nanos <= NANOS_MAX:
        _write_timestamp(out, seconds, nanos)
        return
    # interpreted, timestamp_text's f-string costs less than a character at a time
    out.append(34)  # '"'
    out.write(timestamp_text(seconds, nanos, "$"))
    out.append(34)


def _write_timestamp(out: StringWriter, seconds: i64, nanos: i64) -> None:
    """Write timestamp_text of ``seconds`` and ``nanos`` (in range) in quotes, a character at a time:
    compiled, its f-string makes a string of each piece."""
    year, month, day = civil_date(seconds)
    rest = seconds % 86400
    out.append(34)  # '"'
    _write_two(out, year // 100)
    _write_two(out, year - year // 100 * 100)
    out.append(45)  # "-"
    _write_two(out, month)
    out.append(45)
    _write_two(out, day)
    out.append(84)  # "T"
    _write_two(out, rest // 3600)
    out.append(58)  # ":"
    _write_two(out, rest // 60 % 60)
    out.append(58)
    _write_two(out, rest % 60)
    _write_fraction(out, nanos)
    out.append(90)  # "Z"
    out.append(34)


def json_write_duration(out: StringWriter, seconds: int, nanos: int) -> None:
    """Write a Duration's ProtoJSON string (duration_text in quotes); raise JsonError when it has
    none (out of range, signs that differ)."""
    if NATIVE and -DUR_MAX <= seconds <= DUR_MAX and -NANOS_MAX <= nanos <= NANOS_MAX \
            and not (seconds > 0 and nanos < 0 or seconds < 0 and nanos > 0):
        _write_duration(out, seconds, nanos)
        return
    out.append(34)
    out.write(duration_text(seconds, nanos, "$"))
    out.append(34)


def _write_duration(out: StringWriter, seconds: i64, nanos: i64) -> None:
    """Write duration_text of ``seconds`` and ``nanos`` (in range, of one sign) in quotes, a character
    at a time."""
    out.append(34)
    if seconds < 0 or nanos < 0:
        out.append(45)  # "-"
        seconds = -seconds
        nanos = -nanos
    _write_native_int(out, seconds)
    _write_fraction(out, nanos)
    out.append(115)  # "s"
    out.append(34)


def _write_two(out: StringWriter, n: i64) -> None:
    """Write 0 <= ``n`` < 100 as two digits."""
    out.append(i32(48 + n // 10))
    out.append(i32(48 + n % 10))


def _write_fraction(out: StringWriter, nanos: i64) -> None:
    """Write the fraction of a second _json_wkt's _fraction makes of 0 <= ``nanos`` < 10**9: nothing,
    or a point and 3, 6 or 9 digits."""
    if nanos == 0:
        return
    out.append(46)  # "."
    if nanos % 1000000 == 0:
        _write_run(out, nanos // 1000000, 3, -1)
    elif nanos % 1000 == 0:
        _write_run(out, nanos // 1000, 6, -1)
    else:
        _write_run(out, nanos, 9, -1)


def _ulp(v: float, log_v: float, significand: float) -> float:
    """The unit in the last place of ``v`` (> 0, normal; ``log_v`` its natural logarithm) in a
    binary format whose significand has ``significand`` steps (2**52 a double's, 2**23 a float32's)."""
    # a float exponent: compiled, math.pow(float, int) is a call through the math module
    ulp = math.pow(2.0, float(math.floor(log_v * _INV_LN2))) / significand
    units = v / ulp  # the significand, unless the logarithm rounded across a power of two
    if units >= significand * 2.0:
        return ulp * 2.0
    if units < significand:
        return ulp * 0.5
    return ulp


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


def json_in_double(value: Any, ctx: JsonCtx) -> float:
    """A double: a JSON number, or "NaN", "Infinity", "-Infinity", or a number in a string."""
    if type(value) is Decimal:
        number = float(value)
        if number - number == 0.0:
            return number
    elif type(value) is float and value - value == 0.0:
        return value
    elif may_be_negative_zero(value, ctx):
        raise json_refuse()
    return parse_float(False, value, "$")


def json_in_float(value: Any, ctx: JsonCtx) -> float:
    """A float32: as a double, then rounded to float32 (out of its range: refused)."""
    if type(value) is Decimal or type(value) is float:
        number = float(value)
        if number - number == 0.0:
            if NATIVE:  # interpreted, the struct round trip costs less than the steps of float32_of
                near = float32_of(number)
                if near == near:
                    return near
            try:
                rounded: float = _F32.unpack(_F32.pack(number))[0]
                return rounded
            except OverflowError:
                pass
    elif may_be_negative_zero(value, ctx):
        raise json_refuse()
    return parse_float(True, value, "$")


def float32_of(number: float) -> float:
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
