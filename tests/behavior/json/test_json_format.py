"""Canonical ProtoJSON (runtime.json_format) on the golden modules of every style and the WKTs."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from protoc_gen_pyopaque.runtime import JsonError
from protoc_gen_pyopaque.runtime import json_format as jf
from protoc_gen_pyopaque.runtime.google.protobuf import (
    any_pb, duration_pb, empty_pb, field_mask_pb, struct_pb, timestamp_pb, wrappers_pb,
)
from tests.behavior.conftest import Modules, mods  # noqa: F401  (the per-style fixture)
from tests.golden.golden import PROTOS

# ----------------------------------------------------------------------------- scalars


def _full_scalars(mods: Modules) -> Any:
    return mods.load("scalars").Scalars(
        f_double=1.5, f_float=0.1, f_int64=-(2**63), f_uint64=2**64 - 1, f_int32=-7,
        f_fixed64=5, f_fixed32=6, f_bool=True, f_string="héllo", f_bytes=b"\x00\xff\xfe",
        f_uint32=4294967295, f_sfixed32=-3, f_sfixed64=-4, f_sint32=-5, f_sint64=-6,
        opt_int32=0, opt_string="")


FULL_SCALARS_JSON = {
    "fDouble": 1.5, "fFloat": 0.1, "fInt64": "-9223372036854775808",
    "fUint64": "18446744073709551615", "fInt32": -7, "fFixed64": "5", "fFixed32": 6,
    "fBool": True, "fString": "héllo", "fBytes": "AP/+", "fUint32": 4294967295,
    "fSfixed32": -3, "fSfixed64": "-4", "fSint32": -5, "fSint64": "-6", "optInt32": 0,
    "optString": "",
}


def test_scalars_print_and_parse(mods: Modules) -> None:
    m = _full_scalars(mods)
    assert jf.to_dict(m) == FULL_SCALARS_JSON
    back = jf.from_json(type(m), jf.to_json(m))
    assert back.serialize() == type(m).parse(m.serialize()).serialize()
    assert jf.from_dict(type(m), FULL_SCALARS_JSON) == back


def test_empty_message_prints_empty_object(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    assert jf.to_dict(Scalars()) == {}
    assert jf.to_json(Scalars()) == "{}"


def test_proto_field_names_and_always_print(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    m = Scalars(f_int64=3)
    assert jf.to_dict(m, preserving_proto_field_names=True) == {"f_int64": "3"}
    full = jf.to_dict(Scalars(), always_print_fields_with_no_presence=True)
    assert full["fDouble"] == 0.0 and full["fInt64"] == "0" and full["fBytes"] == ""
    assert full["fBool"] is False and full["fString"] == ""
    assert "optInt32" not in full and "optString" not in full  # explicit presence: unset stays out
    assert len(full) == 15


def test_input_accepts_json_and_proto_names_but_not_both(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    assert jf.from_dict(Scalars, {"f_int32": 1}) == jf.from_dict(Scalars, {"fInt32": 1})
    with pytest.raises(JsonError, match=r"given twice"):
        jf.from_dict(Scalars, {"f_int32": 1, "fInt32": 2})
    with pytest.raises(JsonError, match=r"\$\.nope: .*no field named 'nope'"):
        jf.from_dict(Scalars, {"nope": 1})
    assert jf.from_dict(Scalars, {"nope": 1, "fInt32": 2}, ignore_unknown_fields=True) == Scalars(f_int32=2)


@pytest.mark.parametrize("value, expected", [
    (5, 5), ("5", 5), ("-5", -5), (1e5, 100000), ("1e5", 100000), ("2.5e1", 25), (100000.000, 100000),
    (2147483647, 2147483647), (-2147483648, -2147483648),
])
def test_int32_accepted(mods: Modules, value: Any, expected: int) -> None:
    Scalars = mods.load("scalars").Scalars
    assert jf.from_dict(Scalars, {"fInt32": value}).get_f_int32() == expected


@pytest.mark.parametrize("value", [
    0.5, "0.5", 2147483648, -2147483649, "", " 1", "1 ", "+1", "01x", "abc", True, [1], {},
    "1e536870000", math.nan, math.inf,
])
def test_int32_rejected(mods: Modules, value: Any) -> None:
    Scalars = mods.load("scalars").Scalars
    with pytest.raises(JsonError, match=r"^\$\.fInt32: "):
        jf.from_dict(Scalars, {"fInt32": value})


def test_int64_and_uint64(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    m = jf.from_json(Scalars, '{"fInt64": "9223372036854775807", "fUint64": 18446744073709551615,'
                              ' "fSint64": "-1e3", "fFixed64": 1.0e2}')
    assert (m.get_f_int64(), m.get_f_uint64(), m.get_f_sint64(), m.get_f_fixed64()) == \
        (2**63 - 1, 2**64 - 1, -1000, 100)
    for bad in ('{"fInt64": "9223372036854775808"}', '{"fUint64": "-1"}', '{"fUint64": "0.5"}',
                '{"fSfixed64": "-9223372036854775809"}', '{"fUint32": 4294967296}', '{"fUint32": -1}'):
        with pytest.raises(JsonError, match="out of range|expected an integer"):
            jf.from_json(Scalars, bad)


def test_integer_strings_longer_than_python_converts(mods: Modules) -> None:
    """Digits past what int() converts (4300) raised a bare ValueError: now out of range, as any
    integer beyond 64 bits; a long fraction of zeros still denotes an integer."""
    Scalars = mods.load("scalars").Scalars
    for bad in ('"' + "9" * 100_000 + '"', '"1e' + "9" * 100_000 + '"', '"-' + "1" * 5000 + '.0"'):
        with pytest.raises(JsonError, match=r"^\$\.fInt64: integer out of range"):
            jf.from_json(Scalars, '{"fInt64": ' + bad + "}")
    assert jf.from_json(Scalars, '{"fInt64": "7.' + "0" * 5000 + '"}').get_f_int64() == 7
    assert jf.from_json(Scalars, '{"fInt64": "7e00000000000000000"}').get_f_int64() == 7


def test_floats(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    m = jf.from_json(Scalars, '{"fDouble": "NaN", "fFloat": "-Infinity"}')
    assert math.isnan(m.get_f_double()) and m.get_f_float() == -math.inf
    assert jf.to_dict(m) == {"fDouble": "NaN", "fFloat": "-Infinity"}
    assert jf.to_dict(Scalars(f_double=math.inf)) == {"fDouble": "Infinity"}
    assert jf.from_dict(Scalars, {"fFloat": "1.5"}).get_f_float() == 1.5
    assert jf.from_dict(Scalars, {"fFloat": 3.4028234663852886e38}).get_f_float() == 3.4028234663852886e38
    flt_max = jf.from_dict(Scalars, {"fFloat": "3.4028235e38"})
    assert jf.from_json(Scalars, jf.to_json(flt_max)) == flt_max  # FLT_MAX survives its shortest form
    with pytest.raises(JsonError, match=r"\$\.fFloat: .*out of range for float"):
        jf.from_dict(Scalars, {"fFloat": 3.5e38})
    with pytest.raises(JsonError, match=r"\$\.fDouble: .*out of range"):
        jf.from_json(Scalars, '{"fDouble": 1e999}')
    for bad in ('{"fDouble": NaN}', '{"fDouble": Infinity}', '{"fDouble": "nan"}', '{"fDouble": true}'):
        with pytest.raises(JsonError):
            jf.from_json(Scalars, bad)
    # float32 values print as the shortest decimal that reads back as the same float32
    assert jf.to_json(jf.from_json(Scalars, '{"fFloat": 0.1}')) == '{"fFloat":0.1}'


def test_bytes_base64_forms(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    for text in ("AP/+", "AP_-", "AP/+", "AA", "AA=="):
        jf.from_dict(Scalars, {"fBytes": text})
    assert jf.from_dict(Scalars, {"fBytes": "AP_-"}).get_f_bytes() == b"\x00\xff\xfe"
    assert jf.from_dict(Scalars, {"fBytes": "AA"}).get_f_bytes() == b"\x00"
    with pytest.raises(JsonError, match=r"\$\.fBytes: invalid base64"):
        jf.from_dict(Scalars, {"fBytes": "A$=="})


def test_strings_and_bools(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    with pytest.raises(JsonError, match="unpaired surrogate"):
        jf.from_json(Scalars, '{"fString": "\\ud800"}')
    assert jf.from_json(Scalars, '{"fString": "\\ud83d\\ude00"}').get_f_string() == "😀"
    for bad in ('{"fBool": 1}', '{"fBool": "true"}', '{"fString": 1}'):
        with pytest.raises(JsonError, match="expected"):
            jf.from_json(Scalars, bad)


def test_strings_whatever_the_text_looks_like(mods: Modules) -> None:
    # from_json takes strings unchecked only from ASCII text without surrogate escapes, and
    # digits as ASCII only from text without \u escapes: every other text has its strings checked
    Scalars = mods.load("scalars").Scalars
    Collections = mods.load("collections").Collections
    surrogates = ['{"fString": "\\uDC00"}', '{"fString": "\u00fc\ud800"}', '{"fString": "\ud800"}']
    for text in surrogates:
        with pytest.raises(JsonError, match="unpaired surrogate"):
            jf.from_json(Scalars, text)
    for text in ('{"names": ["a", "\\udfff"]}', '{"counts": {"\\ud800": 1}}'):
        with pytest.raises(JsonError, match="unpaired surrogate"):
            jf.from_json(Collections, text)
    for text in ('{"fInt64": "\\u0661"}', '{"fInt64": "\u0661"}', '{"fInt64": "1\\u0662", "fString": "x"}'):
        with pytest.raises(JsonError, match="fInt64"):
            jf.from_json(Scalars, text)
    assert jf.from_json(Scalars, '{"fString": "\\u00fc", "fInt64": "12"}') == Scalars(f_string="ü", f_int64=12)
    assert jf.from_json(Collections, '{"names": ["\u00fc"], "counts": {"\\u00e9": "3"}}') == \
        Collections(names=["ü"], counts={"é": 3})


# ----------------------------------------------------------------------------- collections


def test_repeated_maps_enums_oneofs(mods: Modules) -> None:
    C = mods.load("collections").Collections
    m = C(packed_ints=[1, -2], names=["a"], items=[C.Item(key="k", color=2)], colors=[1, 7],
          counts={"x": 3}, items_by_id={-4: C.Item(key="v")}, scalars=mods.load("scalars").Scalars(f_bool=True))
    d = jf.to_dict(m)
    assert d == {
        "packedInts": [1, -2], "names": ["a"], "items": [{"key": "k", "color": "GREEN"}],
        "colors": ["RED", 7], "counts": {"x": "3"}, "itemsById": {"-4": {"key": "v"}},
        "scalars": {"fBool": True},
    }
    assert jf.from_dict(C, d) == C.parse(m.serialize())
    assert jf.from_dict(C, {"colors": [1, "GREEN"]}).serialize() == C(colors=[1, 2]).serialize()


def test_oneof_rules(mods: Modules) -> None:
    C = mods.load("collections").Collections
    with pytest.raises(JsonError, match="oneof 'choice' already set"):
        jf.from_dict(C, {"text": "a", "item": {}})
    m = jf.from_dict(C, {"text": None, "item": {"key": "z"}})
    assert m == C(item=C.Item(key="z"))
    assert jf.to_dict(C(text="")) == {"text": ""}  # a oneof member set to its default prints


def test_map_keys_and_nulls(mods: Modules) -> None:
    C = mods.load("collections").Collections
    m = jf.from_dict(C, {"itemsById": {"7": {"key": "a"}, "-1": {}}})
    assert m.serialize(deterministic=True) == C(items_by_id={7: C.Item(key="a"), -1: C.Item()}).serialize(
        deterministic=True)
    with pytest.raises(JsonError, match=r'\$\.itemsById\["x"\]: expected an integer'):
        jf.from_dict(C, {"itemsById": {"x": {}}})
    with pytest.raises(JsonError, match=r"\$\.counts\[\"a\"\]: map values cannot be null"):
        jf.from_dict(C, {"counts": {"a": None}})
    with pytest.raises(JsonError, match=r"\$\.names\[1\]: repeated field elements cannot be null"):
        jf.from_dict(C, {"names": ["a", None]})
    assert jf.from_dict(C, {"names": None, "counts": None}) == C()


def test_unknown_enum_names(mods: Modules) -> None:
    C = mods.load("collections").Collections
    with pytest.raises(JsonError, match=r"\$\.colors\[1\]: \"BLUE\" is not a value of golden.Collections.Color"):
        jf.from_dict(C, {"colors": ["RED", "BLUE"]})
    m = jf.from_dict(C, {"colors": ["RED", "BLUE", "GREEN"], "items": [{"color": "BLUE"}]},
                     ignore_unknown_fields=True)
    assert m.serialize() == C(colors=[1, 2], items=[C.Item()]).serialize()
    assert jf.from_dict(C.Item, {"color": 99}).get_color() == 99  # open enum: any number


def test_error_paths_name_nesting(mods: Modules) -> None:
    C = mods.load("collections").Collections
    with pytest.raises(JsonError) as err:
        jf.from_json(C, '{"items": [{"key": "a"}, {"color": {}}]}')
    assert str(err.value).startswith("$.items[1].color: ")
    with pytest.raises(JsonError, match=r'^\$\.scalars\.fInt32: expected an integer, got "x"$'):
        jf.from_dict(C, {"scalars": {"fInt32": "x"}})


def test_merge_from_dict_merges_messages_and_replaces_lists(mods: Modules) -> None:
    C = mods.load("collections").Collections
    S = mods.load("scalars").Scalars
    m = C(names=["a", "b"], scalars=S(f_int32=1, f_string="s"))
    jf.merge_from_dict(m, {"names": ["c"], "scalars": {"fBool": True}})
    assert m == C(names=["c"], scalars=S(f_int32=1, f_string="s", f_bool=True))


# ----------------------------------------------------------------------------- proto2 / editions


def test_proto2_group_closed_enum_and_extensions(mods: Modules) -> None:
    mod = mods.load("legacy")
    Legacy = mod.Legacy
    m = Legacy(id=1, level=1, ratio=2.5, samples=[3], point=Legacy.Point(x=1))
    m.set_extension(mod.note, "n")
    m.set_extension(mod.tags, [4, 5])
    d = jf.to_dict(m)
    assert d == {"id": 1, "level": "LOW", "ratio": 2.5, "samples": ["3"], "point": {"x": 1},
                 "[golden.note]": "n", "[golden.tags]": [4, 5]}
    back = jf.from_dict(Legacy, d)
    assert back.serialize() == m.serialize()
    assert back.get_extension(mod.tags) == [4, 5]
    with pytest.raises(JsonError, match=r"\$\.level: 3 is not a value of closed enum golden.Level"):
        jf.from_dict(Legacy, {"level": 3})
    with pytest.raises(JsonError, match="no field named"):
        jf.from_dict(Legacy, {"[golden.unknown]": 1})
    assert jf.to_dict(Legacy(id=0)) == {"id": 0}  # explicit presence: a set default prints


def test_editions_delimited_and_closed(mods: Modules) -> None:
    E = mods.load("editions").Edition2023
    m = jf.from_dict(E, {"explicitByDefault": 0, "delimitedChild": {"value": 2}, "state": "STATE_ON"})
    assert jf.to_dict(m) == {"explicitByDefault": 0, "delimitedChild": {"value": 2}, "state": "STATE_ON"}
    assert E.parse(m.serialize(partial=True), partial=True) == m
    with pytest.raises(JsonError, match="closed enum golden.State"):
        jf.from_dict(E, {"state": 5})


def test_edition2024(mods: Modules) -> None:
    L = mods.load("edition2024").LogEntry
    m = jf.from_json(L, '{"timestamp": "12", "detail": {"lines": ["a"]}}')
    assert jf.to_dict(m) == {"timestamp": "12", "detail": {"lines": ["a"]}}


# ----------------------------------------------------------------------------- well-known types


@pytest.mark.parametrize("text, seconds, nanos, canonical", [
    ("1970-01-01T00:00:00Z", 0, 0, None),
    ("1970-01-01T00:00:00.000000000Z", 0, 0, "1970-01-01T00:00:00Z"),
    ("1970-01-01T00:00:00.010000000Z", 0, 10000000, "1970-01-01T00:00:00.010Z"),
    ("1970-01-01T00:00:00.000010Z", 0, 10000, None),
    ("1970-01-01T00:00:00.5Z", 0, 500000000, "1970-01-01T00:00:00.500Z"),
    ("1969-12-31T23:59:59.999999999Z", -1, 999999999, None),
    ("1970-01-01T08:00:01+08:00", 1, 0, "1970-01-01T00:00:01Z"),
    ("1969-12-31T16:00:01-08:00", 1, 0, "1970-01-01T00:00:01Z"),
    ("0001-01-01T00:00:00Z", -62135596800, 0, None),
    ("9999-12-31T23:59:59.999999999Z", 253402300799, 999999999, None),
])
def test_timestamp(text: str, seconds: int, nanos: int, canonical: str | None) -> None:
    ts = jf.from_dict(timestamp_pb.Timestamp, text)
    assert (ts.get_seconds(), ts.get_nanos()) == (seconds, nanos)
    assert jf.to_dict(ts) == (canonical or text)


@pytest.mark.parametrize("text", [
    "0000-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "0001-01-01T00:00:00", "0001-01-01 00:00:00Z",
    "0001-01-01T00:00:00z", "0001-01-01t00:00:00Z", "1970-01-01T08:00:01+0800", "1970-02-30T00:00:00Z",
    "0001-01-01T00:00:00+01:00", "1970-01-01T00:00:00.1234567891Z",
])
def test_timestamp_rejected(text: str) -> None:
    with pytest.raises(JsonError, match=r"^\$: "):
        jf.from_dict(timestamp_pb.Timestamp, text)


def test_timestamp_out_of_range_does_not_print() -> None:
    for seconds, nanos in ((253402300800, 0), (-62135596801, 0), (0, -1), (0, 10**9)):
        with pytest.raises(JsonError, match="out of range"):
            jf.to_dict(timestamp_pb.Timestamp(seconds=seconds, nanos=nanos))


@pytest.mark.parametrize("text, seconds, nanos, canonical", [
    ("1.5s", 1, 500000000, "1.500s"), ("-1.5s", -1, -500000000, "-1.500s"), ("-0.5s", 0, -500000000, "-0.500s"),
    ("0s", 0, 0, None), ("315576000000s", 315576000000, 0, None), ("-315576000000s", -315576000000, 0, None),
    ("1.000000001s", 1, 1, None), ("1.010s", 1, 10000000, None),
])
def test_duration(text: str, seconds: int, nanos: int, canonical: str | None) -> None:
    d = jf.from_dict(duration_pb.Duration, text)
    assert (d.get_seconds(), d.get_nanos()) == (seconds, nanos)
    assert jf.to_dict(d) == (canonical or text)


def test_duration_rejected() -> None:
    for text in ("1.5", "315576000001s", "-315576000001s", "1.5S", "+1s", " 1s", "1.0000000001s", 1.5):
        with pytest.raises(JsonError):
            jf.from_dict(duration_pb.Duration, text)
    for seconds, nanos in ((315576000001, 0), (1, -1), (-1, 1), (0, 10**9)):
        with pytest.raises(JsonError):
            jf.to_dict(duration_pb.Duration(seconds=seconds, nanos=nanos))


def test_field_mask() -> None:
    fm = jf.from_dict(field_mask_pb.FieldMask, "foo,barBaz,a.bC")
    assert fm.get_paths() == ["foo", "bar_baz", "a.b_c"]
    assert jf.to_dict(fm) == "foo,barBaz,a.bC"
    assert jf.from_dict(field_mask_pb.FieldMask, "").get_paths() == []
    with pytest.raises(JsonError, match="lowerCamelCase"):
        jf.from_dict(field_mask_pb.FieldMask, "foo,bar_bar")
    for path in ("fooBar", "foo__bar", "foo_3_bar", "foo_"):
        with pytest.raises(JsonError, match="cannot be represented"):
            jf.to_dict(field_mask_pb.FieldMask(paths=[path]))


def test_struct_value_list() -> None:
    doc: dict[str, Any] = {"a": None, "b": 1.5, "c": "s", "d": True, "e": {"f": [1.0, None, {"g": []}]}}
    s = jf.from_dict(struct_pb.Struct, doc)
    assert jf.to_dict(s) == doc
    assert jf.from_json(struct_pb.Value, "null").which_kind() == "null_value"
    assert jf.to_dict(jf.from_json(struct_pb.Value, "[1, \"x\"]")) == [1.0, "x"]
    assert jf.to_dict(jf.from_json(struct_pb.ListValue, "[[]]")) == [[]]
    with pytest.raises(JsonError, match="not a JSON number"):
        jf.to_dict(struct_pb.Value(number_value=math.nan))
    with pytest.raises(JsonError, match="expected an object"):
        jf.from_dict(struct_pb.Struct, [])


def test_wrappers_and_empty() -> None:
    cases: list[tuple[type, Any, Any]] = [
        (wrappers_pb.Int64Value, "-5", -5), (wrappers_pb.UInt64Value, "5", 5), (wrappers_pb.Int32Value, 7, 7),
        (wrappers_pb.UInt32Value, 8, 8), (wrappers_pb.BoolValue, True, True),
        (wrappers_pb.StringValue, "s", "s"), (wrappers_pb.BytesValue, "AQ==", b"\x01"),
        (wrappers_pb.DoubleValue, "NaN", None), (wrappers_pb.FloatValue, 1.5, 1.5),
        (wrappers_pb.Int32Value, 0, 0),
    ]
    for cls, printed, value in cases:
        m: Any = jf.from_dict(cls, printed)
        assert jf.to_dict(m) == printed
        if value is not None:
            assert m.get_value() == value
    assert jf.to_dict(empty_pb.Empty()) == {}
    assert jf.from_dict(empty_pb.Empty, {}) == empty_pb.Empty()
    with pytest.raises(JsonError):
        jf.from_dict(empty_pb.Empty, {"x": 1})


def test_any_with_registered_message_and_wkts(mods: Modules) -> None:
    scalars_mod = mods.load("scalars")
    jf.register_module(scalars_mod)
    Scalars = scalars_mod.Scalars
    url = "type.googleapis.com/golden.Scalars"
    a = jf.from_dict(any_pb.Any, {"fInt32": 5, "@type": url})
    assert a.get_type_url() == url
    assert Scalars.parse(a.get_value()) == Scalars(f_int32=5)
    assert jf.to_dict(a) == {"@type": url, "fInt32": 5}
    for wkt_url, value in (("type.googleapis.com/google.protobuf.Duration", "1.500s"),
                           ("type.googleapis.com/google.protobuf.Value", {"x": [True]}),
                           ("type.googleapis.com/google.protobuf.Int32Value", 3)):
        a = jf.from_dict(any_pb.Any, {"@type": wkt_url, "value": value})
        assert jf.to_dict(a) == {"@type": wkt_url, "value": value}
    nested = {"@type": "type.googleapis.com/google.protobuf.Any", "value": {"@type": url, "fBool": True}}
    assert jf.to_dict(jf.from_dict(any_pb.Any, nested)) == nested
    empty = {"@type": "type.googleapis.com/google.protobuf.Empty"}
    assert jf.to_dict(jf.from_dict(any_pb.Any, empty)) == empty
    assert jf.to_dict(jf.from_dict(any_pb.Any, {})) == {}
    with pytest.raises(JsonError, match="cannot resolve Any type 'not_a_url'"):
        jf.from_dict(any_pb.Any, {"@type": "not_a_url", "value": ""})
    with pytest.raises(JsonError, match=r"needs a string \"@type\""):
        jf.from_dict(any_pb.Any, {"fInt32": 5})


def test_any_payload_reachable_from_root_without_registration(mods: Modules) -> None:
    C = mods.load("collections").Collections
    assert jf.find_message_class("golden.Collections.Item", C) is C.Item
    assert jf.find_message_class("golden.Scalars", C) is mods.load("scalars").Scalars


# ----------------------------------------------------------------------------- JSON text


def test_invalid_json_and_duplicates(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    for text in ('{"fInt32": 1,}', "{fInt32: 1}", '{"fInt32": 1 "fBool": true}', "", "{'fInt32': 1}",
                 '{"fInt32": 1} x', "// c\n{}"):
        with pytest.raises(JsonError, match=r"^\$: invalid JSON"):
            jf.from_json(Scalars, text)
    # keys given twice are found also where strings hold colons, escaped or not, and in
    # objects the generated parsers do not read (an unknown field's value, a Struct)
    for text in ('{"fInt32": 1, "fInt32": 2}', '{"fString": "a:b", "fString": "c"}',
                 '{"fString": "\\u003a", "fInt32": 1, "fInt32": 2}', '{"fInt32" : 1, "fInt32":2}'):
        with pytest.raises(JsonError, match="duplicate key"):
            jf.from_json(Scalars, text)
    with pytest.raises(JsonError, match="duplicate key"):
        jf.from_json(Scalars, '{"unknown": {"a": 1, "a": 2}}', ignore_unknown_fields=True)
    with pytest.raises(JsonError, match="duplicate key"):
        jf.from_json(struct_pb.Struct, '{"a": {"b": "c:d", "b": 1}}')
    assert jf.from_json(Scalars, '{"fString": "a:b\\u003a"}').get_f_string() == "a:b:"
    with pytest.raises(JsonError, match="expected an object"):
        jf.from_json(Scalars, "null")
    assert jf.from_json(Scalars, b'{"fString": "\xc3\xa9"}').get_f_string() == "é"


def test_depth_is_bounded_without_recursion_error() -> None:
    ok = '{"a":' * 50 + "1" + "}" * 50
    jf.from_json(struct_pb.Struct, ok)
    for text in ('{"a":' * 150 + "1" + "}" * 150, "[" * 150 + "]" * 150, "[" * 100000 + "]" * 100000):
        with pytest.raises(JsonError, match="nested|deep"):
            jf.from_json(struct_pb.Value, text)


def test_to_json_indent() -> None:
    d = jf.from_dict(duration_pb.Duration, "2s")
    assert jf.to_json(d) == '"2s"'
    s = jf.from_dict(struct_pb.Struct, {"a": 1})
    assert jf.to_json(s, indent=2) == '{\n  "a": 1.0\n}'


# ----------------------------------------------------------------------------- against protobuf


def _official(tmp: Path) -> Any:
    """The official protobuf classes of the golden protos (skip when unavailable)."""
    pytest.importorskip("google.protobuf")
    pytest.importorskip("grpc_tools")
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # type: ignore[import-untyped]

    out = tmp / "golden.pb"
    protos = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    result = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTOS}", "--include_imports",
                             f"--descriptor_set_out={out}", *protos], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        pytest.skip(f"protoc failed: {result.stderr}")
    pool = descriptor_pool.DescriptorPool()
    for f in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file:
        pool.Add(f)
    classes = {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
               for name in ("golden.Scalars", "golden.Collections", "golden.Legacy")}
    message_factory.GetMessageClassesForFiles(["golden/legacy.proto"], pool)
    return pool, classes


def test_matches_official_json_format(mods: Modules, tmp_path: Path) -> None:
    from google.protobuf import json_format as official

    pool, classes = _official(tmp_path)
    mod = mods.load("legacy")
    legacy = mod.Legacy(id=3, label="x", level=2, ratio=-0.0, samples=[-1], point=mod.Legacy.Point(y=2))
    legacy.set_extension(mod.note, "n")
    C = mods.load("collections").Collections
    messages = [
        _full_scalars(mods),
        mods.load("scalars").Scalars(f_double=math.nan, f_float=-math.inf, f_bytes=b"\xfb\xff"),
        C(packed_ints=[1], names=["é"], items=[C.Item(key="k", color=1)], colors=[2, 5],
          counts={"a": -1}, items_by_id={9: C.Item()}, text=""),
        legacy,
    ]
    for ours in messages:
        cls = classes[ours._pb_info.full_name]
        theirs = cls.FromString(ours.serialize())
        for always in (False, True):
            expected = official.MessageToDict(theirs, always_print_fields_with_no_presence=always,
                                              descriptor_pool=pool)
            got = jf.to_dict(ours, always_print_fields_with_no_presence=always)
            assert json.loads(json.dumps(got)) == json.loads(json.dumps(expected)) or _same_floats(got, expected)
        # our JSON reads back in the official parser, and theirs in ours
        again = cls()
        official.Parse(jf.to_json(ours), again, descriptor_pool=pool)
        assert again == theirs
        ours_again = jf.from_json(type(ours), official.MessageToJson(theirs, descriptor_pool=pool))
        assert ours_again.serialize() == ours.serialize()



# JSON's escapes (quotes, backslashes and control characters; everything else as it is) at
# either end of a string, alone and inside, with non-ASCII and astral characters
AWKWARD_STRINGS = ["", "plain", '"', "\\", 'say "hi"', "C:\\dir\\", "\x00", "\x1f", "\x7f", "tab\tin",
                   "line\n", "\r\n\b\f", "".join(map(chr, range(32))), "héllo", "\u2028\u2029", "日本語",
                   "😀", "\ufeffbom", "é\"😀\\\n", "x" * 300 + '"', '"' + "y" * 300]
INT32_ENDS = [0, 1, -1, -(2**31), 2**31 - 1]
UINT32_ENDS = [0, 1, 2**32 - 1]
# past 2**62 compiled code holds integers boxed
INT64_ENDS = [0, 1, -1, 10**18, -(10**18), 2**62 - 1, 2**62, -(2**62), -(2**62) - 1, -(2**63), 2**63 - 1]
UINT64_ENDS = [0, 1, 2**62 - 1, 2**62, 2**63 - 1, 2**63, 10**19, 2**64 - 1]


def _awkward_messages(mods: Modules) -> list[Any]:
    Scalars = mods.load("scalars").Scalars
    C = mods.load("collections").Collections
    messages = [Scalars(f_string=s, opt_string=s) for s in AWKWARD_STRINGS]
    # one map entry each: the official maps' order is not their insertion order
    messages += [C(text=s, counts={s: -1}) for s in AWKWARD_STRINGS]
    for i in range(max(len(INT32_ENDS), len(UINT32_ENDS), len(INT64_ENDS), len(UINT64_ENDS))):
        s32, u32, s64, u64 = (ends[i % len(ends)] for ends in (INT32_ENDS, UINT32_ENDS, INT64_ENDS, UINT64_ENDS))
        messages.append(Scalars(f_int32=s32, f_sint32=s32, f_sfixed32=s32, opt_int32=s32,
                                f_uint32=u32, f_fixed32=u32, f_int64=s64, f_sint64=s64, f_sfixed64=s64,
                                f_uint64=u64, f_fixed64=u64))
        messages.append(C(number=s64, counts={str(s64): s64}, packed_ints=[s32]))
    return messages


def test_awkward_strings_and_integers_at_their_ends_print_as_the_official_printer_has_them(
        mods: Modules, tmp_path: Path) -> None:
    """The text of each string and integer field (singular, optional, oneof member, map key and
    value), compared as text: strings with JSON's escapes only, 64-bit integers in quotes, 32-bit
    ones as numbers."""
    from google.protobuf import json_format as official

    pool, classes = _official(tmp_path)
    for ours in _awkward_messages(mods):
        theirs = classes[ours._pb_info.full_name].FromString(ours.serialize())
        expected = json.dumps(official.MessageToDict(theirs, descriptor_pool=pool), ensure_ascii=False,
                              separators=(",", ":"))
        assert jf.to_json(ours) == expected

def _same_floats(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_floats(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_floats(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)
