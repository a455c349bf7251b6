"""The generated ProtoJSON code (templates/_json.py.j2) against the reflective codec it stands in for.

The generated printer and parser are the default path of to_json/to_dict/from_json/
from_dict; they must print the same text, accept the same inputs and read the same
messages as the reflective code, which still names the JSON path of every failure.
"""

from __future__ import annotations

import json
import math
import random
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from librt.strings import StringWriter

from protoc_gen_pyopaque.runtime import EncodeError, JsonError
from protoc_gen_pyopaque.runtime import _json, _json_gen, _json_wkt
from protoc_gen_pyopaque.runtime import json_format as jf
from protoc_gen_pyopaque.runtime.google.protobuf import any_pb, duration_pb, struct_pb, timestamp_pb, type_pb
from tests.behavior.conftest import Modules, mods  # noqa: F401  (the per-style fixture)


def _reflective_text(msg: Any) -> str:
    return _json.COMPACT.encode(_json.print_message(msg, _json.JsonCtx(type(msg)), "$", 0))


def _fast_text(msg: Any, depth: int = 0) -> str:
    out = StringWriter()
    msg._pb_json_write(out, _json.JsonCtx(type(msg)), depth)
    return out.getvalue()


def _double_text(value: float) -> str:
    out = StringWriter()
    _json_gen.json_write_double(out, value)
    return out.getvalue()


def _float_text(value: float) -> str:
    out = StringWriter()
    _json_gen.json_write_float(out, value)
    return out.getvalue()


def _shortest_digits(value: float, single: bool) -> str:
    """The text _shortest_digits writes, "" when it leaves ``value`` to the search."""
    out = StringWriter()
    return out.getvalue() if _json_gen._shortest_digits(out, value, single) else ""


def _reflective_parse(cls: Any, obj: Any, ignore_unknown: bool = False) -> Any:
    msg = cls()
    _json.merge_message(msg, obj, _json.JsonCtx(cls, ignore_unknown=ignore_unknown), "$", 0)
    return msg


def _fast_parse(cls: Any, obj: Any, ignore_unknown: bool = False) -> Any:
    msg = cls()
    msg._pb_json_merge(obj, _json.JsonCtx(cls, ignore_unknown=ignore_unknown), 0)
    return msg


def _samples(mods: Modules) -> list[Any]:
    S = mods.load("scalars").Scalars
    C = mods.load("collections").Collections
    legacy = mods.load("legacy")
    L = mods.load("edition2024").LogEntry
    E = mods.load("editions").Edition2023
    full = S(f_double=-0.0, f_float=0.1, f_int64=-(2**63), f_uint64=2**64 - 1, f_int32=-7,
             f_fixed64=5, f_fixed32=6, f_bool=True, f_string="h\u00e9\"llo\n\u2028", f_bytes=b"\x00\xff\xfe",
             f_uint32=4294967295, f_sfixed32=-3, f_sfixed64=-4, f_sint32=-5, f_sint64=-6,
             opt_int32=0, opt_string="")
    odd = S(f_double=float("nan"), f_float=float("-inf"), opt_int32=1, f_int64=-1)
    coll = C(packed_ints=[1, -2, 2**31 - 1], names=["a", "\u00e9"], items=[C.Item(key="k", color=2), C.Item()],
             colors=[1, 7, 0], counts={"x": 3, "": -1}, items_by_id={-4: C.Item(key="v"), 0: C.Item()},
             scalars=full, text="")
    leg = legacy.Legacy(id=1, level=1, ratio=float("inf"), samples=[3, -9], point=legacy.Legacy.Point(x=1))
    leg.set_extension(legacy.note, "n")
    leg.set_extension(legacy.tags, [4, 5])
    log = L.parse(L(detail=L.Detail(lines=["a", "b"])).serialize())  # lazy fields in opaque styles
    return [S(), full, odd, coll, C(item=C.Item(color=1)), leg, log,
            E(explicit_by_default=0, state=1)]


def test_generated_printer_prints_what_the_reflective_one_does(mods: Modules) -> None:
    for msg in _samples(mods):
        assert _fast_text(msg) == _reflective_text(msg), type(msg).__name__
        assert jf.to_json(msg) == _reflective_text(msg)
        assert jf.to_dict(msg) == json.loads(_reflective_text(msg))


_INT32 = st.integers(-(2**31), 2**31 - 1)
_INT64 = st.integers(-(2**63), 2**63 - 1)
_UINT64 = st.integers(0, 2**64 - 1)
_DOUBLE = st.floats() | st.sampled_from([0.0, -0.0, 1e-320, 5e-324, 1.7976931348623157e308, 1e16, 1e-7])
_FLOAT32 = st.floats(width=32)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_generated_printer_prints_random_messages_as_the_reflective_one(mods: Modules, data: st.DataObject) -> None:
    """Every field kind the generated printer writes (scalars, repeated scalars written one by one or
    joined, 64-bit integers in quotes, maps, nested and repeated messages, absent fields), with random
    values: the same text as the reflective printer."""
    collections = mods.load("collections")
    C, S = collections.Collections, mods.load("scalars").Scalars
    item = st.builds(C.Item, key=st.text(), color=st.integers(0, 2))
    bag = data.draw(st.builds(
        collections.Bag, title=st.text(), blob=st.binary(), count=_INT64, delta=st.none() | _INT32,
        ratio=_DOUBLE, flag=st.booleans(), ints=st.lists(_INT32), tags=st.lists(st.text()),
        items=st.lists(item, max_size=3), counts=st.dictionaries(st.text(), _INT64),
        items_by_id=st.dictionaries(_INT32, item, max_size=3), stamps=st.lists(_UINT64), color=st.integers(0, 2),
        note=st.none() | st.text(), big=_UINT64, weight=_FLOAT32, ratios=st.lists(_DOUBLE)))
    scalars = data.draw(st.builds(
        S, f_double=_DOUBLE, f_float=_FLOAT32, f_int64=_INT64, f_uint64=_UINT64, f_int32=_INT32,
        f_fixed64=_UINT64, f_fixed32=st.integers(0, 2**32 - 1), f_bool=st.booleans(), f_string=st.text(),
        f_bytes=st.binary(), f_sint64=_INT64, opt_int32=st.none() | _INT32))
    coll = data.draw(st.builds(
        C, packed_ints=st.lists(_INT32), ratios=st.lists(_FLOAT32), weights=st.dictionaries(st.text(), _FLOAT32),
        color_by_flag=st.dictionaries(st.booleans(), st.integers(0, 2)), scalars=st.just(scalars)))
    for msg in (bag, scalars, coll):
        assert _fast_text(msg) == _reflective_text(msg)


def test_integers_are_written_as_str_writes_them() -> None:
    """json_write_ints (compiled: digits written without a string, in runs of 8, beyond 62 bits by
    str()) at every digit count, either side of each power of ten and of the 62-bit limit."""
    values: list[int] = [True, False]
    for e in range(20):
        values += [10**e - 1, 10**e, 10**e + 1, -(10**e) + 1, -(10**e), -(10**e) - 1]
    values += [b + d for b in (2**62, -(2**62), 2**63, -(2**63), 2**64) for d in (-2, -1, 0, 1)]
    rng = random.Random(3)
    values += [rng.randrange(-(2**64), 2**64) >> rng.randrange(64) for _ in range(2000)]
    for separator in (",", '","'):
        out = StringWriter()
        _json_gen.json_write_ints(out, values, separator)
        assert out.getvalue() == separator.join(str(int(v)) for v in values)
    for value in values:  # json_write_int, one at a time
        out = StringWriter()
        _json_gen.json_write_int(out, value)
        assert out.getvalue() == str(int(value)), value


def test_strings_are_written_as_json_writes_them() -> None:
    """json_write_str (compiled: a string without escapes written as it is, else by json_out_str):
    every character below 128 and some beyond, alone, at either end and in the middle of a string."""
    characters = [chr(c) for c in range(128)] + ["\u00e9", "\u2028", "\ufeff", "\U0001f600", "\ud7ff"]
    texts = ["", "plain text", "x" * 1000, "\u65e5\u672c\u8a9e" * 50]
    texts += [c + t for c in characters for t in ("", "ab", "\u00e9")]
    texts += ["ab" + c for c in characters] + ["\u00e9" + c + "z" for c in characters]
    texts += ["".join(characters), "".join(reversed(characters))]
    for text in texts:
        out = StringWriter()
        out.write("[")
        _json_gen.json_write_str(out, text)
        assert out.getvalue() == "[" + json.dumps(text, ensure_ascii=False), repr(text)


def test_generated_parser_reads_what_the_reflective_one_does(mods: Modules) -> None:
    for msg in _samples(mods):
        text = jf.to_json(msg)
        for obj in (_json._load(text), json.loads(text)):
            assert _fast_parse(type(msg), obj) == _reflective_parse(type(msg), obj)
        assert jf.from_json(type(msg), text) == _reflective_parse(type(msg), _json._load(text))


def test_generated_parser_refuses_what_the_reflective_one_refuses(mods: Modules) -> None:
    C = mods.load("collections").Collections
    S = mods.load("scalars").Scalars
    bad = [
        (S, {"fInt32": 2**31}), (S, {"fInt32": True}), (S, {"fInt64": "01"}), (S, {"fInt64": "1 "}),
        (S, {"fUint32": -1}), (S, {"fBool": 1}), (S, {"fString": 1}), (S, {"fString": "\ud800"}),
        (S, {"fBytes": "!"}), (S, {"fFloat": 1e39}), (S, {"fDouble": "1e400"}), (S, {"fInt32": 1.5}),
        (S, {"fInt32": 1, "f_int32": 1}), (S, {"nope": 1}), (S, []), (C, {"colors": ["BLUE"]}),
        (C, {"colors": [None]}), (C, {"counts": {"a": None}}), (C, {"counts": []}),
        (C, {"itemsById": {"x": {}}}), (C, {"text": "a", "item": {}}), (C, {"items": [None]}),
        (C, {"items": {}}), (C, {"scalars": 1}), (C, {"names": "a"}),
    ]
    for cls, obj in bad:
        with pytest.raises(JsonError) as reflective:
            _reflective_parse(cls, obj)
        with pytest.raises(JsonError):
            _fast_parse(cls, obj)
        with pytest.raises(JsonError) as public:  # the reflective rerun names the path
            jf.from_dict(cls, obj)
        assert str(public.value) == str(reflective.value)


def test_ignore_unknown_fields_in_the_generated_parser(mods: Modules) -> None:
    C = mods.load("collections").Collections
    obj = {"colors": ["RED", "BLUE", 2], "items": [{"color": "BLUE", "key": "k"}], "nope": {"x": 1},
           "counts": {"a": "1"}}
    fast = _fast_parse(C, obj, ignore_unknown=True)
    assert fast == _reflective_parse(C, obj, ignore_unknown=True)
    assert fast.serialize() == C(colors=[1, 2], items=[C.Item(key="k")], counts={"a": 1}).serialize()


def test_numbers_keep_their_exact_value(mods: Modules) -> None:
    S = mods.load("scalars").Scalars
    # from_json reads numbers as floats first: integers written with a fraction or an
    # exponent go to the exact decimals of the reflective parser
    assert jf.from_json(S, '{"fInt32": 1.0, "fInt64": 1e2}') == S(f_int32=1, f_int64=100)
    assert jf.from_json(S, '{"fInt64": 9007199254740993.0}').get_f_int64() == 9007199254740993
    with pytest.raises(JsonError, match=r"^\$\.fInt64: expected an integer"):
        jf.from_json(S, '{"fInt64": 1.0000000000000001}')
    with pytest.raises(JsonError, match=r"^\$\.fDouble: number 1E\+400 out of range for double"):
        jf.from_json(S, '{"fDouble": 1e400}')
    f32 = struct.unpack("<f", struct.pack("<f", 0.1))[0]
    assert jf.from_json(S, '{"fDouble": 0.1, "fFloat": 0.1}') == S(f_double=0.1, f_float=f32)


def test_printer_failures_name_their_path() -> None:
    Type, Option = type_pb.Type, type_pb.Option
    lost = any_pb.Any(type_url="type.googleapis.com/nowhere.Nothing")
    with pytest.raises(JsonError, match=r"^\$\.options\[1\]\.value: cannot resolve Any type"):
        jf.to_json(Type(name="t", options=[Option(name="a"), Option(name="b", value=lost)]))
    with pytest.raises(JsonError, match=r"^\$: Timestamp seconds -99999999999 out of range"):
        jf.to_json(timestamp_pb.Timestamp(seconds=-99999999999))
    with pytest.raises(JsonError, match=r'^\$\["a"\]\[0\]: Value\.number_value nan'):
        jf.to_json(struct_pb.Struct.from_python({"a": [float("nan")]}))
    assert jf.to_json(duration_pb.Duration(seconds=-1, nanos=-500)) == '"-1.000000500s"'


def _quoted(write: Any, seconds: int, nanos: int) -> str:
    out = StringWriter()
    write(out, seconds, nanos)
    return out.getvalue()


def test_timestamps_and_durations_are_written_as_their_texts() -> None:
    """_write_timestamp and _write_duration (json_write_timestamp's and json_write_duration's compiled
    paths, a character at a time; run here interpreted: the same code) write timestamp_text and
    duration_text in quotes: both ends of the range, leap days, days either side of the epoch, every
    fraction length; the public writers the same, and the texts' errors outside the range."""
    rng = random.Random(86400)
    seconds = [_json_wkt.TS_MIN, _json_wkt.TS_MAX, 0, -1, 1, 86399, 86400, -86400, -86401, 951782400, 951868800,
               4107542399, 4107542400, -62104060800, 253370764800]
    seconds += [rng.randint(_json_wkt.TS_MIN, _json_wkt.TS_MAX) for _ in range(3000)]
    nanos = [0, 1, 999999999, 5000000, 123000, 100, 10**8]
    for s in seconds:
        for n in nanos + [rng.randrange(10**9)]:
            text = '"' + _json_wkt.timestamp_text(s, n, "$") + '"'
            assert _quoted(_json_gen._write_timestamp, s, n) == text, (s, n)
            assert _quoted(_json_gen.json_write_timestamp, s, n) == text, (s, n)
    spans = [0, 1, _json_wkt.DUR_MAX, 59, 10**9] + [rng.randint(0, _json_wkt.DUR_MAX) for _ in range(3000)]
    for s in spans:
        for n in nanos + [rng.randrange(10**9)]:
            for sign in (1, -1):
                text = '"' + _json_wkt.duration_text(sign * s, sign * n, "$") + '"'
                assert _quoted(_json_gen._write_duration, sign * s, sign * n) == text, (sign, s, n)
                assert _quoted(_json_gen.json_write_duration, sign * s, sign * n) == text, (sign, s, n)
    for s, n in ((_json_wkt.TS_MIN - 1, 0), (_json_wkt.TS_MAX + 1, 0), (0, -1), (0, 10**9)):
        with pytest.raises(JsonError, match=r"^\$: Timestamp (seconds|nanos) -?\d+ out of range"):
            _quoted(_json_gen.json_write_timestamp, s, n)
    for s, n in ((_json_wkt.DUR_MAX + 1, 0), (-_json_wkt.DUR_MAX - 1, 0), (0, 10**9), (1, -1), (-1, 1)):
        with pytest.raises(JsonError, match=r"^\$: Duration "):
            _quoted(_json_gen.json_write_duration, s, n)


@settings(max_examples=300, deadline=None)
@given(seconds=st.integers(_json_wkt.TS_MIN, _json_wkt.TS_MAX), nanos=st.integers(0, 10**9 - 1),
       span=st.integers(-_json_wkt.DUR_MAX, _json_wkt.DUR_MAX), fraction=st.integers(0, 10**9 - 1))
def test_timestamps_and_durations_print_as_the_reflective_printer_has_them(
        seconds: int, nanos: int, span: int, fraction: int) -> None:
    """The well-known types' printers (compiled: a character at a time) against the reflective one."""
    stamp = timestamp_pb.Timestamp(seconds=seconds, nanos=nanos)
    duration = duration_pb.Duration(seconds=span, nanos=-fraction if span < 0 else fraction)
    for msg in (stamp, duration):
        assert _fast_text(msg) == _reflective_text(msg)
        assert jf.to_json(msg) == _reflective_text(msg)


@pytest.mark.parametrize("depth", range(96, 102))
def test_nesting_depth_counts_as_in_the_reflective_parser(mods: Modules, depth: int) -> None:
    C = mods.load("collections").Collections
    for obj in ({"items": [{}]}, {"itemsById": {"1": {}}}, {"scalars": {}}, {"item": {}}, {}):
        try:
            _json.merge_message(C(), obj, _json.JsonCtx(C), "$", depth)
        except JsonError:
            with pytest.raises(JsonError):
                C()._pb_json_merge(obj, _json.JsonCtx(C), depth)
        else:
            C()._pb_json_merge(obj, _json.JsonCtx(C), depth)
        m = jf.from_dict(C, obj)
        try:
            expected = _json.COMPACT.encode(_json.print_message(m, _json.JsonCtx(C), "$", depth))
        except EncodeError:  # too deep to print; the generated printer gives up there
            with pytest.raises(JsonError):
                _fast_text(m, depth)
        else:
            assert _fast_text(m, depth) == expected


def test_float32_shortest_form_matches_the_reflective_printer() -> None:
    f32 = struct.Struct("<f")
    rng = random.Random(7)
    values = [f32.unpack(struct.pack("<I", rng.getrandbits(32)))[0] for _ in range(20000)]
    values += [2.0 ** e for e in range(-149, 128)] + [rng.uniform(-10, 10) for _ in range(2000)]
    values += [0.1, 1.5, 3e10, 1e-5, 3.4028235e38, 1e39, -0.0, 0.0, float("inf"), 16777216.0, 1e-45]
    values += [k / 16 for k in range(-66000, 66000, 7)] + [4096.5, -4095.9375, 4095.9375 + 2 ** -10]  # the 1/16 path
    for v in values:
        expected = _json.print_float(v, True)
        want = expected if isinstance(expected, str) and expected[:1] == '"' else (
            '"' + expected + '"' if isinstance(expected, str) else repr(expected))
        if v == v:
            assert _float_text(v) == want, v


def _float32s(bits: list[int]) -> list[float]:
    return [struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0] for b in bits]


def _near_powers_of_ten(low: int, high: int, step: Any) -> list[float]:
    """The values next to 10**k on both sides, ``step`` going from a value to the next."""
    out = []
    for k in range(low, high):
        x = step(float(f"1e{k}"), 0.0)
        out += [x, step(x, math.inf), step(step(x, math.inf), math.inf), step(x, 0.0), step(step(x, 0.0), 0.0)]
    return out


def _next_float32(x: float, toward: float) -> float:
    """The float32 next to float32 ``x`` toward ``toward`` (for a double: the float32 nearest to it)."""
    if toward == 0.0 and x == 0.0:
        return x
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    if x == struct.unpack("<f", struct.pack("<I", bits))[0]:
        bits += 1 if (toward > x) == (x > 0) else -1
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def test_shortest_digits_of_float32s_are_the_reflective_printers_text() -> None:
    """json_write_float's compiled path (_shortest_digits for a float32) writes the text of the
    reflective printer (the shortest decimal of 6 digits at least that reads back, as a double and
    then as a float32); it leaves to the f-string search only doubles that are no float32 and the
    powers of two whose nearest decimals lie outside their narrower interval below (run here
    interpreted: the same code)."""
    rng = random.Random(12)
    values = _float32s([rng.getrandbits(32) for _ in range(30000)])
    values += [struct.unpack("<f", struct.pack("<f", rng.random() * 10.0 ** rng.randint(-45, 38)))[0]
               for _ in range(20000)]
    # subnormals: from the least, random, and around the least normal, whose interval is no
    # narrower below; the 24-bit significand of a subnormal is scaled as a normal one's
    values += _float32s(list(range(1, 3000)) + [rng.getrandbits(23) for _ in range(10000)])
    values += _float32s(list(range(0x7FF000, 0x801000)) + [rng.randrange(1 << 23) | 1 << rng.randrange(23)
                                                          for _ in range(3000)])
    values += _float32s([1, 2, 3, 0x7FFFFF, 0x800000, 0x800001, 0x7F7FFFFF, 0x7F7FFFFE, 0x00FFFFFF])  # limits
    values += [2.0 ** e for e in range(-149, 128)] + [-(2.0 ** e) for e in range(-149, 128, 7)]
    values += [x * 3.0 for x in (2.0 ** e for e in range(-149, 126))]
    values += _near_powers_of_ten(-45, 39, _next_float32)
    # exact decimals whose digit after the 7th or 8th is a 5 (ties of the rounding)
    values += [rng.randrange(1 << 21, 1 << 24) / d for d in (2, 4, 8) for _ in range(2000)]
    # whole float32s past 2**24 and fractions of 24 bits: decimals exactly halfway to a neighbour,
    # which read back (ties to even) when the significand is even
    values += [struct.unpack("<f", struct.pack("<f", float(rng.randrange(1 << 24, 10**12))))[0] for _ in range(5000)]
    values += [rng.randrange(1 << 23, 1 << 24) / 2.0 ** rng.randint(1, 30) for _ in range(5000)]
    values += [struct.unpack("<f", struct.pack("<f", x))[0] for x in (
        0.1, 1.5, 3e10, 1e-5, 1e8, 123456.0, 999999.94, 3.4028235e38, 1.1754944e-38, 4194304.5, 16777215.0, 1e-45,
        4.2e-45, 9.99e-39)]
    left = []
    for v in values:
        if v == 0.0 or v - v != 0.0:
            continue
        expected = _json.print_float(v, True)
        want = '"' + expected + '"' if isinstance(expected, str) else repr(expected)
        assert _float_text(v) == want, v
        text = _shortest_digits(v, True)
        if text:
            assert text == want, v
        else:
            left.append(abs(v))
    assert sorted(set(left)) == [2.0**-96, 2.0**87, 2.0**90]


def test_float32_decimals_read_back_as_a_double_first() -> None:
    """print_float reads a decimal back as a double, then rounds that to a float32: 7.038531e-26
    lies within half a double ulp of the midpoint between these two float32s, so it reads back as
    the midpoint, then (ties to even) as the upper one; the lower needs 8 digits."""
    lower, upper = 7.038530691851209e-26, 7.038531308148791e-26
    assert struct.unpack("<f", struct.pack("<f", lower))[0] == lower
    assert struct.unpack("<f", struct.pack("<f", upper))[0] == upper
    assert repr(_json.print_float(lower, True)) == "7.0385307e-26"
    assert repr(_json.print_float(upper, True)) == "7.038531e-26"
    for v in (lower, upper, -lower, -upper):
        assert _shortest_digits(v, True) == repr(_json.print_float(v, True)), v
        assert _float_text(v) == repr(_json.print_float(v, True)), v


def test_shortest_digits_leave_doubles_between_float32s_to_the_search() -> None:
    """A double that is no float32 (print_float rounds it for reading back, and writes the double's
    own digits) or lies beyond the float32 range is left to the f-string search."""
    rng = random.Random(14)
    values = [rng.uniform(-1.0, 1.0) * 10.0 ** rng.randint(-30, 30) for _ in range(3000)]
    values += [0.1, 1e-46, 7e-46, 3.5e38, 1e39, 1e-300, 5e-324, -1.7976931348623157e308]
    for v in values:
        assert _shortest_digits(v, True) == "", v
        expected = _json.print_float(v, True)
        assert _float_text(v) == repr(expected), v


def test_shortest_digits_of_doubles_are_repr() -> None:
    """json_write_double's compiled path (_shortest_digits for a double) writes repr()'s text for
    every finite nonzero double, subnormals and the extremes included (run here interpreted: the
    same code)."""
    rng = random.Random(53)
    values = [rng.random() * 100.0 for _ in range(20000)]
    values += [rng.uniform(-1.0, 1.0) * 10.0 ** rng.randint(-47, 42) for _ in range(20000)]
    values += [float(f"{rng.randint(1, 10 ** rng.randint(1, 17))}e{rng.randint(-45, 40)}") for _ in range(20000)]
    values += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(5000)]
    values += [float(k) for k in range(-2000, 2000)] + [k / 16 for k in range(-3000, 3000)]
    values += [2.0 ** e for e in range(-1074, 1024)] + [3.0 * 2.0 ** e for e in range(-1074, 1023)]
    values += [math.nextafter(2.0 ** e, 0.0) for e in range(-1073, 1024)]
    values += [10.0 ** e for e in range(-307, 309)] + _near_powers_of_ten(-323, 308, math.nextafter)
    # subnormals (multiples of 2**-1074) and the least normals
    values += [struct.unpack("<d", struct.pack("<Q", b))[0] for b in range(1, 2000)]
    values += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(rng.randint(1, 52))))[0] for _ in range(5000)]
    values += [struct.unpack("<d", struct.pack("<Q", (1 << 52) + d))[0] for d in range(-1000, 1000)]
    # exact decimals of 17 digits with an 18th digit 5 (ties), and one ulp either side; whole
    # doubles past 2**54, with decimals exactly halfway to a neighbour (they read back when the
    # significand is even)
    for _ in range(3000):
        x = rng.randrange(1 << 52, 1 << 53) / 2.0 ** rng.randint(0, 3)
        values += [x, math.nextafter(x, 0.0), math.nextafter(x, math.inf)]
    values += [float(rng.randrange(1 << 54, 10**17)) for _ in range(5000)]
    values += [rng.randrange(1 << 52, 1 << 53) / 2.0 ** rng.randint(1, 40) for _ in range(5000)]
    values += [3.141592653589793, -2.5e-08, 6.02214076e23, 0.1, 0.3, 1e16, 9.999999999999999e16, 1e-5,
               1e-4, 123456789012345678.0, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308,
               2.225073858507201e-308, 9007199254740993.0, 4.35e-45, 9.99999999999999e40, 1e23, 8.41e21,
               5.0e-324, 1e-323, 2.4703282292062328e-324, 1.7976931348623155e308, 1.2345678901234567e-300,
               1e16, 1.2345678e16, 123456789012345.67, 0.0001, 0.00012345, 1e-05, 1.5e+300, 1e100]
    for v in values:
        if v == 0.0 or v - v != 0.0:
            continue
        assert _shortest_digits(v, False) == repr(v), v
        assert _shortest_digits(-v, False) == repr(-v), v
        assert _double_text(v) == repr(v)


def test_float32_of_the_compiled_path_rounds_as_struct() -> None:
    """json_in_float's compiled rounding (exact double arithmetic) gives struct's float32, ties to
    even included, or leaves the value to struct (run here interpreted: the same code)."""
    f32 = struct.Struct("<f")
    rng = random.Random(32)
    values = [rng.random() for _ in range(10000)]
    values += [rng.uniform(-1.0, 1.0) * 10.0 ** rng.randint(-40, 40) for _ in range(20000)]
    values += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(5000)]
    for _ in range(10000):  # halfway between two float32s, and a double either side
        bits = rng.getrandbits(31)
        low, high = (f32.unpack(struct.pack("<I", b))[0] for b in (bits, bits + 1))
        if high - high == 0.0:
            middle = (low + high) / 2
            values += [middle, -middle, math.nextafter(middle, 0.0), math.nextafter(middle, math.inf)]
    values += [3.4028234663852886e38, 3.4028235677973366e38, 3.402823567797336e38, 1.1754943508222875e-38,
               1.1754942e-38, 0.1571283, 1.5, 3e10]
    decided = 0
    for v in values:
        if v == 0.0 or v - v != 0.0:
            continue
        rounded = _json_gen.float32_of(v)
        try:
            want = f32.unpack(f32.pack(v))[0]
        except OverflowError:
            want = math.nan
        if rounded == rounded:
            decided += 1
            assert rounded == want and math.copysign(1.0, rounded) == math.copysign(1.0, want), v
        if want == want:
            assert _json_gen.json_in_float(v, _json.JsonCtx(object)) == want
    assert decided > len(values) * 0.8  # beyond the normal float32 range: struct


def _int64_text_reference(text: str, unsigned: bool) -> tuple[bool, int]:
    canonical = text.isascii() and (text.lstrip("-") == "0" or text.lstrip("-")[:1] in "123456789") \
        and text.lstrip("-").isdigit() and text.count("-") <= 1 and not (unsigned and text[:1] == "-")
    if not canonical:
        return False, 0
    low, high = (0, 2**64 - 1) if unsigned else (-(2**63), 2**63 - 1)
    number = int(text)
    return (True, number) if low <= number <= high else (False, 0)


def test_int64_text_reads_exactly_the_printed_form_in_range() -> None:
    """int64_text (json_in_int's compiled reader; here interpreted: the same code) around every
    digit count and both limits: what it reads is int()'s value, what it refuses parse_int decides."""
    rng = random.Random(64)
    texts = ["0", "-0", "", "-", "00", "01", "-01", "+1", " 1", "1 ", "1_0", "1e2", "1.0", "٣", "1٣", "--1",
             "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
             "9223372036854775810", "9300000000000000000", "18446744073709551615", "18446744073709551616",
             "18446744073709551619", "18446744073709551705", "18446744073709552615", "18446744073709561615",
             "19000000000000000000", "99999999999999999999", "100000000000000000000", "-18446744073709551615",
             "9999999999999999999", "-9999999999999999999", "1844674407370955161x", "922337203685477580x"]
    for digits in range(1, 22):
        texts += [str(rng.randrange(10 ** (digits - 1), 10 ** digits)) for _ in range(40)]
        texts += ["9" * digits, "1" + "0" * (digits - 1)]
    texts += [str(n + d) for n in (2**62, 2**63, 2**64, 10**18, 10**19) for d in range(-3, 4)]
    texts += ["-" + t for t in texts if t[:1] != "-"]
    for text in texts:
        for unsigned in (False, True):
            assert _json_gen.int64_text(text, unsigned) == _int64_text_reference(text, unsigned), (text, unsigned)


def test_64_bit_strings_at_the_limits(mods: Modules) -> None:
    """Strings at and just past each 64-bit limit, through the generated parser (json_in_int for
    19 and 20 digits and negatives): in range read, out of range refused naming the field."""
    Scalars = mods.load("scalars").Scalars
    cases = {"fInt64": ("9223372036854775807", "-9223372036854775808", "-0", "1e2", "-1000000000000000000"),
             "fSfixed64": ("-9223372036854775807", "999999999999999999"),
             "fUint64": ("18446744073709551615", "9223372036854775808", "9999999999999999999", "0"),
             "fFixed64": ("18446744073709551610", "10000000000000000000")}
    for key, texts in cases.items():
        for text in texts:
            m = jf.from_json(Scalars, json.dumps({key: text}))
            assert jf.to_dict(m).get(key, "0") == str(int(float(text)) if "e" in text else int(text)), (key, text)
    refused = {"fInt64": ("9223372036854775808", "-9223372036854775809", "10000000000000000000", "01",
                          "+1", "1.5", "9" * 25, "12345678901234567890"),
               "fSint64": ("-18446744073709551615", "9300000000000000000"),
               "fUint64": ("18446744073709551616", "18446744073709551620", "99999999999999999999",
                           "100000000000000000000", "-1", "-18446744073709551615", "007"),
               "fFixed64": ("18446744073709552000", "-9223372036854775808")}
    for key, texts in refused.items():
        for text in texts:
            with pytest.raises(JsonError, match=rf"^\$\.{key}: "):
                jf.from_json(Scalars, json.dumps({key: text}))


def test_values_of_the_wrong_type_print_as_the_reflective_printer_has_them(mods: Modules) -> None:
    if not mods.attributes:
        pytest.skip("only attribute styles can hold a value of the wrong type")
    if mods.compiled:
        pytest.skip("compiled classes reject a value of the wrong type when it is set (test_values checks that)")
    S = mods.load("scalars").Scalars
    m = S()
    m.f_string = 5  # type: ignore[assignment]  # the generated printer gives up; the reflective one decides
    m.f_int32 = True  # type: ignore[assignment]
    assert jf.to_json(m) == _reflective_text(m) == '{"fInt32":1,"fString":5}'
