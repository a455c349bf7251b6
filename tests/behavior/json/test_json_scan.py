"""The reader of compiled from_json (runtime/_json_scan.py, the generated ``_pb_json_scan``) against
json.loads and the whole path it gives up to (runtime/_json.py's from_json).

What the scan accepts, the whole path accepts and reads to the same message; what the whole
path refuses, the scan refuses; and json_format.from_json (the scan where the runtime is compiled,
the whole path interpreted) reads or refuses as the whole path does, with its error messages.
The scan is driven directly here too, so that interpreted runs test its logic as well.
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protoc_gen_pyopaque.runtime import JsonError
from protoc_gen_pyopaque.runtime import _json, _json_scan
from protoc_gen_pyopaque.runtime import json_format as jf
from protoc_gen_pyopaque.runtime.reflect import message_info
from tests.behavior.conftest import Modules, mods  # noqa: F401  (the per-style fixture)

_SCAN_ERRORS = (_json_scan.JsonOther, *_json.GIVE_UP)
_NUMBER = r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,24})?([eE][+-]?[0-9]{1,3})?"


def _scanned(cls: Any, text: str) -> Any:
    """``text`` read by the scan alone (no whole path): the message, or the exception it gave up with."""
    msg = cls()
    try:
        reader = _json_scan.JsonScan(text)
        ctx = _json.JsonCtx(cls, rounded_floats=True)
        ctx.text = text
        msg._pb_json_scan(reader, ctx, 0)
        reader.finish()
    except _SCAN_ERRORS as exc:
        return exc
    return msg


def _whole(cls: Any, text: str) -> Any:
    try:
        return _json.from_json(cls, text)
    except JsonError as exc:
        return exc


def _check(cls: Any, text: str) -> bool:
    """Assert the scan agrees with the whole path on ``text``; return whether the scan read it."""
    scanned = _scanned(cls, text)
    whole = _whole(cls, text)
    if isinstance(whole, JsonError):
        assert isinstance(scanned, BaseException), (text, scanned)
    elif not isinstance(scanned, BaseException):
        assert scanned == whole, text
    try:
        public = jf.from_json(cls, text)
    except JsonError as exc:
        assert isinstance(whole, JsonError) and str(exc) == str(whole), (text, exc, whole)
    else:
        assert not isinstance(whole, JsonError) and public == whole, (text, whole)
    return not isinstance(scanned, BaseException)


def _samples(mods: Modules) -> list[Any]:
    S = mods.load("scalars").Scalars
    C = mods.load("collections").Collections
    W = mods.load("wellknown").Stamped
    legacy = mods.load("legacy")
    full = S(f_double=-0.0, f_float=0.1, f_int64=-(2**63), f_uint64=2**64 - 1, f_int32=-7,
             f_fixed64=5, f_fixed32=6, f_bool=True, f_string="h\u00e9\"llo\n\u2028\U0001f600", f_bytes=b"\x00\xff\xfe",
             f_uint32=4294967295, f_sfixed32=-3, f_sfixed64=-4, f_sint32=-5, f_sint64=-6,
             opt_int32=0, opt_string="")
    odd = S(f_double=float("nan"), f_float=float("-inf"), opt_int32=1, f_int64=-1, f_bytes=b"\xfb\xff")
    coll = C(packed_ints=[1, -2, 2**31 - 1], names=["a", "\u00e9"], items=[C.Item(key="k", color=2), C.Item()],
             colors=[1, 2, 0], counts={"x": 3, "": -1}, items_by_id={-4: C.Item(key="v"), 0: C.Item()},
             color_by_flag={True: 1}, ratios=[0.5, 1e-3], weights={"w": 2.5}, scalars=full)
    stamp = '"2023-11-14T22:13:20.000005Z"'  # the Timestamp class of the style: read by the whole path
    well = _json.from_json(W, f'{{"name": "w", "at": {stamp}, "meta": {{"a": [1, "x", null, {{"b": true}}]}}, '
                              f'"history": [{stamp}, "1970-01-01T00:00:00Z"], "byKey": {{"k": {stamp}}}}}')
    leg = legacy.Legacy(id=1, level=1, ratio=float("inf"), samples=[3, -9], point=legacy.Legacy.Point(x=1))
    return [S(), full, odd, coll, C(item=C.Item(color=1)), C(number=-5), C(text="t"), well, leg]


def _texts(msg: Any) -> list[str]:
    """``msg`` as to_json prints it, and in other forms the scan reads: whitespace, proto names,
    members in another order, escapes."""
    text = jf.to_json(msg)
    obj = json.loads(text)
    shuffled = dict(sorted(obj.items(), reverse=True)) if type(obj) is dict else obj
    return [text, json.dumps(obj, indent=2), json.dumps(shuffled), json.dumps(obj, ensure_ascii=True),
            jf.to_json(msg, preserving_proto_field_names=True), " \n" + text + "\t\r\n "]


def test_the_scan_reads_printed_messages(mods: Modules) -> None:
    for msg in _samples(mods):
        for text in _texts(msg):
            assert _check(type(msg), text), text


def test_the_scan_reads_values_itself_where_it_can(mods: Modules, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scalars, strings, repeated and map fields and sub-messages are read without json.loads;
    well-known types' special forms with it, member by member."""
    loaded: list[str] = []
    scan = _json_scan.scan_json

    def counting(text: str) -> Any:
        loaded.append(text)
        return scan(text)

    monkeypatch.setattr(_json_scan, "scan_json", counting)
    samples = _samples(mods)
    for msg in samples[:4]:
        assert not isinstance(_scanned(type(msg), jf.to_json(msg)), BaseException)
    if not mods.compiled:  # compiled, the module's global is read natively
        assert loaded == []
    W = mods.load("wellknown").Stamped
    text = jf.to_json(samples[7])
    assert _scanned(W, text) == jf.from_json(W, text)
    if not mods.compiled:
        # the fields of well-known types with special forms, each whole
        assert loaded == ['"2023-11-14T22:13:20.000005Z"', '{"a":[1.0,"x",null,{"b":true}]}',
                          '["2023-11-14T22:13:20.000005Z","1970-01-01T00:00:00Z"]',
                          '{"k":"2023-11-14T22:13:20.000005Z"}']


# -- random values and corrupted documents ---------------------------------------------------


class _Raw:
    """JSON text put in a document as it is (numbers in forms json.dumps does not write)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"_Raw({self.text!r})"


_RAW_NUMBERS = st.from_regex(_NUMBER, fullmatch=True).map(_Raw)
_ODD_STRINGS = st.sampled_from([
    "NaN", "Infinity", "-Infinity", "1e3", "-0", "01", "1.0", "1.5", " 1", "AQID", "AQ", "-_8=", "AQ==", "RED",
    "GREEN", "COLOR_UNSPECIFIED", "BLUE", "true", "18446744073709551615", "18446744073709551616",
    "-9223372036854775808", "-9223372036854775809", "9223372036854775807", "2147483648", "-2147483649",
    "1970-01-01T00:00:00Z", "\ud800", "a\\b", "\u00e9", "x:y",
])
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False),
    _RAW_NUMBERS, st.text(max_size=6), _ODD_STRINGS,
    st.integers(-(2**66), 2**66).map(str),
)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["key", "color", "x", "a", "fString", "f_string"]) | st.text(max_size=4), inner, max_size=3),
    max_leaves=6)


def _dump(obj: Any, ascii_only: bool) -> str:
    """json.dumps, with _Raw values as their text."""
    raws: list[str] = []

    def mark(value: Any) -> Any:
        if isinstance(value, _Raw):
            raws.append(value.text)
            return f"\x00{len(raws) - 1}\x00"
        if isinstance(value, list):
            return [mark(v) for v in value]
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        return value

    text = json.dumps(mark(obj), ensure_ascii=ascii_only)
    for i, raw in enumerate(raws):
        text = text.replace(f'"\\u0000{i}\\u0000"', raw)
    return text


_EDITS = '{}[]",:\\0123456789eE.+-ntrufals \u00e9\ud83d'


def _corrupt(text: str, rng: random.Random) -> str:
    """``text`` with one random edit: a character deleted, inserted or replaced, a member
    given twice, or the text cut short."""
    i = rng.randrange(len(text) + 1)
    edit = rng.randrange(5)
    if edit == 0:
        return text[:i] + text[i + 1:]
    if edit == 1:
        return text[:i] + rng.choice(_EDITS) + text[i:]
    if edit == 2:
        return text[:i] + rng.choice(_EDITS) + text[i + 1:]
    if edit == 3:
        comma = text.find(",", i)
        start = text.rfind("{", 0, i)
        if comma > 0 and start >= 0:  # the members from after the object's brace up to the comma, again
            return text[:comma] + "," + text[start + 1:comma] + text[comma:]
    return text[:i]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_values_in_fields(mods: Modules, data: st.DataObject) -> None:
    msg = data.draw(st.sampled_from(_samples(mods)))
    obj = json.loads(jf.to_json(msg))
    if type(obj) is not dict:
        return
    names = [f.json_name for f in message_info(msg).fields]
    key = data.draw(st.sampled_from(names))
    obj[key] = data.draw(_VALUES)
    _check(type(msg), _dump(obj, data.draw(st.booleans())))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_corrupted_documents(mods: Modules, data: st.DataObject, seed: int) -> None:
    rng = random.Random(seed)
    msg = data.draw(st.sampled_from(_samples(mods)))
    text = rng.choice(_texts(msg))
    for _ in range(data.draw(st.integers(1, 3))):
        text = _corrupt(text, rng)
    _check(type(msg), text)


# -- the reader's values ------------------------------------------------------------------------


@settings(max_examples=2000, deadline=None)
@given(text=st.from_regex(_NUMBER, fullmatch=True))
def test_doubles_read_as_json_numbers(text: str) -> None:
    expected = float(text)  # "-0" too: negative zero (json.loads reads it as the int 0)
    try:
        number = _json_scan.JsonScan(text).double()
    except _json_scan.JsonOther:
        assert math.isinf(expected)
    else:
        assert number == expected and math.copysign(1.0, number) == math.copysign(1.0, expected), text


@pytest.mark.parametrize("zero", ["-0", "-0 ", "\n-0\t"])
def test_negative_zero_is_read_as_negative_zero(mods: Modules, zero: str) -> None:
    """ProtoJSON reads numbers as JSON numbers: -0 is negative zero in double and float fields and
    in google.protobuf.Value (IEEE and upb read it so), on the scan and on the whole path; 0 in
    integer fields."""
    S = mods.load("scalars").Scalars
    W = mods.load("wellknown").Stamped
    text = f'{{"fDouble":{zero},"fFloat":{zero},"fInt32":{zero},"fInt64":{zero},"optInt32":{zero}}}'
    wanted = '{"fDouble":-0.0,"fFloat":-0.0,"optInt32":0}'
    meta = f'{{"meta":{{"a":{zero},"b":[{zero},"-0"]}}}}'
    for cls, source, printed in ((S, text, wanted), (W, meta, '{"meta":{"a":-0.0,"b":[-0.0,"-0"]}}')):
        scanned = _scanned(cls, source)
        # the scan reads doubles itself; Values with json.loads, which reads -0 as 0: it gives up
        assert isinstance(scanned, BaseException) == (cls is W), scanned
        read = [_whole(cls, source), jf.from_json(cls, source), _json.from_dict(cls, _json._load(source))]
        for msg in read if cls is W else [scanned, *read]:
            assert jf.to_json(msg) == printed, (source, jf.to_json(msg))
    # a 0 next to a -0: the rerun that keeps -0's sign reads 0 as 0
    both = '{"fDouble":0,"fFloat":-0}'
    for msg in (_scanned(S, both), _whole(S, both), jf.from_json(S, both)):
        assert jf.to_json(msg) == '{"fFloat":-0.0}'



@settings(max_examples=1000, deadline=None)
@given(number=st.integers(-(2**65), 2**65), quoted=st.booleans())
def test_integers_by_range(number: int, quoted: bool) -> None:
    text = f'"{number}"' if quoted else str(number)
    for method, low, high in (("int32", -(2**31), 2**31 - 1), ("uint32", 0, 2**32 - 1),
                              ("int64", -(2**63), 2**63 - 1), ("uint64", 0, 2**64 - 1)):
        try:
            value = getattr(_json_scan.JsonScan(text), method)()
        except _json_scan.JsonOther:
            assert not low <= number <= high
        else:
            assert value == number and low <= number <= high


@settings(max_examples=1000, deadline=None)
@given(value=st.text(), ascii_only=st.booleans())
def test_strings_read_as_json_loads_reads_them(value: str, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    reader = _json_scan.JsonScan(text)
    assert reader.string() == value
    reader.finish()


@pytest.mark.parametrize("text", ['"\\ud800"', '"a\\udc00b"', '"\\ud800\\u0041"', '"\x01"', '"abc', '"\\x"'])
def test_bad_strings_are_refused(text: str) -> None:
    with pytest.raises((ValueError, JsonError)):  # json's scanstring, or the reader's refusal
        _json_scan.JsonScan(text).string()


# -- hostile input --------------------------------------------------------------------------------


def test_hostile_input_gets_a_json_error(mods: Modules) -> None:
    S = mods.load("scalars").Scalars
    C = mods.load("collections").Collections
    W = mods.load("wellknown").Stamped
    cases: list[tuple[Any, str, str | None]] = [
        (S, '{"fString": "\\ud800"}', "unpaired surrogate"),
        (S, '{"fString": "a\ud800"}', None),
        (S, '{"fInt32": ' + "9" * 5000 + "}", None),
        (S, '{"fInt64": "' + "9" * 5000 + '"}', None),
        (S, '{"fDouble": 1e999999}', None),
        (S, '{"fDouble": ' + "1" * 5000 + "}", None),
        (C, '{"scalars": ' * 200 + "{}" + "}" * 200, None),
        (C, '{"items": [' * 5000 + "]" * 5000 + "}", None),
        (W, '{"meta": ' + '{"a": [' * 3000 + "]}" * 3000 + "}", None),
        (S, '{"fString": "x"', None),
        (S, '{"fString": "x"} {}', None),
        (S, '{"fString": "x", "fString": "y"}', "duplicate"),
        (S, '{"fString": "x", "f_string": "y"}', None),
    ]
    for cls, text, part in cases:
        with pytest.raises(JsonError, match=part):
            jf.from_json(cls, text)
        assert isinstance(_whole(cls, text), JsonError)
        assert isinstance(_scanned(cls, text), BaseException)
