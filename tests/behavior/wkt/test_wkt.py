"""Pythonic helpers of the well-known types (runtime/wkt.py), in hybrid classes and opaque twins.

Every helper runs on both styles; random values are cross-checked against protobuf's
own well-known-type helpers (google.protobuf.*_pb2, upb backend).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import pytest
from google.protobuf import any_pb2, duration_pb2, field_mask_pb2, struct_pb2, timestamp_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import protoc_gen_pyopaque.runtime.google.protobuf.any_protoopaque_pb as any_op
import protoc_gen_pyopaque.runtime.google.protobuf.duration_protoopaque_pb as duration_op
import protoc_gen_pyopaque.runtime.google.protobuf.field_mask_protoopaque_pb as field_mask_op
import protoc_gen_pyopaque.runtime.google.protobuf.struct_protoopaque_pb as struct_op
import protoc_gen_pyopaque.runtime.google.protobuf.timestamp_protoopaque_pb as timestamp_op
from protoc_gen_pyopaque.runtime import _json_wkt, _registry
from protoc_gen_pyopaque.runtime import wkt
from protoc_gen_pyopaque.runtime.errors import DecodeError, JsonError
from protoc_gen_pyopaque.runtime.google.protobuf import (
    any_pb, duration_pb, empty_pb, field_mask_pb, struct_pb, timestamp_pb,
)

HYBRID = SimpleNamespace(
    Timestamp=timestamp_pb.Timestamp, Duration=duration_pb.Duration, Any=any_pb.Any,
    Struct=struct_pb.Struct, Value=struct_pb.Value, ListValue=struct_pb.ListValue,
    FieldMask=field_mask_pb.FieldMask)
OPAQUE = SimpleNamespace(
    Timestamp=timestamp_op.Timestamp, Duration=duration_op.Duration, Any=any_op.Any,
    Struct=struct_op.Struct, Value=struct_op.Value, ListValue=struct_op.ListValue,
    FieldMask=field_mask_op.FieldMask)
STYLES = {"hybrid": HYBRID, "opaque": OPAQUE}
style = pytest.mark.parametrize("w", [HYBRID, OPAQUE], ids=["hybrid", "opaque"])

TS_MIN, TS_MAX, DUR_MAX = -62135596800, 253402300799, 315576000000
PLUS_2 = timezone(timedelta(hours=2))
MINUS_5_30 = timezone(-timedelta(hours=5, minutes=30))
CHECK = settings(max_examples=150, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(autouse=True, scope="module")
def _restore_registry() -> Iterator[None]:
    """Importing the opaque twins registers them for Any; give other tests the registry back."""
    saved = dict(_registry._registry)
    yield
    _registry._registry.clear()
    _registry._registry.update(saved)


def test_the_classes_derive_from_the_bases() -> None:
    for w in (HYBRID, OPAQUE):
        assert issubclass(w.Timestamp, wkt.TimestampBase)
        assert issubclass(w.Duration, wkt.DurationBase)
        assert issubclass(w.Any, wkt.AnyBase)
        assert issubclass(w.Struct, wkt.StructBase)
        assert issubclass(w.Value, wkt.ValueBase)
        assert issubclass(w.ListValue, wkt.ListValueBase)
        assert issubclass(w.FieldMask, wkt.FieldMaskBase)
    assert OPAQUE.Timestamp.__pyopaque_api__ == "opaque.v1"
    assert not hasattr(OPAQUE.Timestamp(), "seconds")  # the twin really has only accessors


def test_the_bases_only_declare_the_accessors() -> None:
    with pytest.raises(NotImplementedError):
        wkt.TimestampBase().get_seconds()
    with pytest.raises(NotImplementedError):
        wkt.ValueBase().which_kind()


# ============================================================================= Timestamp

@style
def test_timestamp_from_datetime(w: Any) -> None:
    t = w.Timestamp.from_datetime(datetime(2017, 1, 15, 1, 30, 15, 10000, tzinfo=timezone.utc))
    assert (t.get_seconds(), t.get_nanos()) == (1484443815, 10000000)
    assert type(t) is w.Timestamp
    # naive datetimes are UTC, as protobuf's FromDatetime takes them
    assert w.Timestamp.from_datetime(datetime(2017, 1, 15, 1, 30, 15, 10000)) == t
    # an offset is applied
    assert w.Timestamp.from_datetime(datetime(2017, 1, 15, 3, 30, 15, 10000, tzinfo=PLUS_2)) == t
    # pre-epoch: seconds go negative, nanos stay non-negative
    pre = w.Timestamp.from_datetime(datetime(1969, 12, 31, 23, 59, 59, 999999))
    assert (pre.get_seconds(), pre.get_nanos()) == (-1, 999999000)
    epoch = w.Timestamp.from_datetime(datetime(1970, 1, 1))
    assert (epoch.get_seconds(), epoch.get_nanos()) == (0, 0)


@style
def test_timestamp_range_ends(w: Any) -> None:
    low = w.Timestamp.from_datetime(datetime(1, 1, 1))
    assert (low.get_seconds(), low.get_nanos()) == (TS_MIN, 0)
    high = w.Timestamp.from_datetime(datetime(9999, 12, 31, 23, 59, 59, 999999))
    assert (high.get_seconds(), high.get_nanos()) == (TS_MAX, 999999000)
    assert low.to_datetime() == datetime(1, 1, 1, tzinfo=timezone.utc)
    assert high.to_datetime() == datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)
    assert w.Timestamp(seconds=TS_MAX, nanos=999999999).to_nanoseconds() == TS_MAX * 10**9 + 999999999
    # in UTC before year 1 / after 9999, though the local date is in range
    with pytest.raises(ValueError, match="out of range"):
        w.Timestamp.from_datetime(datetime(1, 1, 1, 1, tzinfo=PLUS_2))
    with pytest.raises(ValueError, match="out of range"):
        w.Timestamp.from_datetime(datetime(9999, 12, 31, 23, tzinfo=MINUS_5_30))


@style
def test_timestamp_from_datetime_rejects_other_types(w: Any) -> None:
    with pytest.raises(TypeError):
        w.Timestamp.from_datetime(date(2020, 1, 1))
    with pytest.raises(TypeError):
        w.Timestamp.from_datetime("2020-01-01T00:00:00Z")


@style
def test_timestamp_to_datetime(w: Any) -> None:
    t = w.Timestamp(seconds=-1, nanos=999999999)  # leap-ish: the last nanosecond of 1969
    dt = t.to_datetime()
    assert dt.tzinfo is timezone.utc
    assert dt == datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)  # truncated
    naive = t.to_datetime(None)
    assert naive.tzinfo is None and naive == dt.replace(tzinfo=None)
    local = t.to_datetime(PLUS_2)
    assert local.utcoffset() == timedelta(hours=2) and local == dt
    assert (local.hour, local.minute) == (1, 59)


@style
@pytest.mark.parametrize("seconds, nanos", [
    (TS_MIN - 1, 0), (TS_MAX + 1, 0), (0, -1), (0, 10**9), (-1, -5), (10**30, 0)])
def test_timestamp_invalid_values_raise(w: Any, seconds: int, nanos: int) -> None:
    t = w.Timestamp()
    if seconds >= 2**63:  # beyond the int64 field: refused when set
        with pytest.raises(ValueError, match="out of range for int64"):
            t.set_seconds(seconds)
    else:
        t.set_seconds(seconds)
        t.set_nanos(nanos)
        for read in (t.to_datetime, t.to_seconds, t.to_nanoseconds):
            with pytest.raises(ValueError, match="out of range"):
                read()
    if not TS_MIN <= seconds <= TS_MAX:
        with pytest.raises(ValueError, match="out of range"):
            w.Timestamp.from_nanoseconds(seconds * 10**9)


@style
def test_timestamp_now(w: Any) -> None:
    before = time.time_ns()
    t = w.Timestamp.now()
    after = time.time_ns()
    assert type(t) is w.Timestamp
    assert before <= t.to_nanoseconds() <= after
    assert 0 <= t.get_nanos() < 10**9


@style
def test_timestamp_seconds(w: Any) -> None:
    t = w.Timestamp.from_seconds(1.5)
    assert (t.get_seconds(), t.get_nanos()) == (1, 500000000)
    assert t.to_seconds() == 1.5
    t = w.Timestamp.from_seconds(-0.25)
    assert (t.get_seconds(), t.get_nanos()) == (-1, 750000000)
    assert t.to_seconds() == -0.25
    t = w.Timestamp.from_seconds(1_600_000_000)
    assert (t.get_seconds(), t.get_nanos()) == (1_600_000_000, 0)
    # the float's exact value, rounded to the nanosecond
    assert w.Timestamp.from_seconds(1e-9).get_nanos() == 1
    assert w.Timestamp.from_seconds(0.1).get_nanos() == 100000000
    assert w.Timestamp.from_seconds(5e-10).get_nanos() == 1  # 5e-10 is a bit above half
    t = w.Timestamp.from_seconds(0.9999999999)  # rounds up into the next second
    assert (t.get_seconds(), t.get_nanos()) == (1, 0)
    for bad in (math.nan, math.inf, -math.inf, float(TS_MAX + 1), float(TS_MIN - 1)):
        with pytest.raises(ValueError):
            w.Timestamp.from_seconds(bad)
    with pytest.raises(TypeError):
        w.Timestamp.from_seconds(True)
    with pytest.raises(TypeError):
        w.Timestamp.from_seconds("1")


@style
def test_timestamp_nanoseconds_round_trip(w: Any) -> None:
    for total in (0, 1, -1, 10**9 - 1, -(10**9) - 1, TS_MIN * 10**9, TS_MAX * 10**9 + 999999999):
        t = w.Timestamp.from_nanoseconds(total)
        assert 0 <= t.get_nanos() < 10**9
        assert t.to_nanoseconds() == total
        assert w.Timestamp.parse(t.serialize()).to_nanoseconds() == total
    with pytest.raises(ValueError):
        w.Timestamp.from_nanoseconds(TS_MIN * 10**9 - 1)


@style
def test_timestamp_helpers_agree_with_json(w: Any) -> None:
    t = w.Timestamp.from_datetime(datetime(1900, 2, 28, 12, 0, 1, 5, tzinfo=timezone.utc))
    assert t.to_dict() == "1900-02-28T12:00:01.000005Z"
    back = w.Timestamp.from_json('"1900-02-28T13:00:01.000005+01:00"')
    assert back == t and back.to_datetime() == t.to_datetime()


# ============================================================================= Duration

@style
def test_duration_from_timedelta(w: Any) -> None:
    d = w.Duration.from_timedelta(timedelta(days=1, seconds=2, microseconds=3))
    assert (d.get_seconds(), d.get_nanos()) == (86402, 3000)
    assert type(d) is w.Duration
    # negative: timedelta normalises days negative, Duration makes both parts negative
    d = w.Duration.from_timedelta(timedelta(microseconds=-1))
    assert (d.get_seconds(), d.get_nanos()) == (0, -1000)
    d = w.Duration.from_timedelta(timedelta(seconds=-1.5))
    assert (d.get_seconds(), d.get_nanos()) == (-1, -500000000)
    d = w.Duration.from_timedelta(timedelta(days=-1, seconds=1))
    assert (d.get_seconds(), d.get_nanos()) == (-86399, 0)
    assert w.Duration.from_timedelta(timedelta(0)) == w.Duration()
    with pytest.raises(TypeError):
        w.Duration.from_timedelta(5)
    with pytest.raises(ValueError, match="out of range"):
        w.Duration.from_timedelta(timedelta(days=999999999))


@style
def test_duration_to_timedelta_truncates_toward_zero(w: Any) -> None:
    assert w.Duration(seconds=-1, nanos=-1500).to_timedelta() == timedelta(seconds=-1, microseconds=-1)
    assert w.Duration(seconds=1, nanos=1500).to_timedelta() == timedelta(seconds=1, microseconds=1)
    assert w.Duration(nanos=-999).to_timedelta() == timedelta(0)
    top = w.Duration(seconds=DUR_MAX, nanos=999999999)
    assert top.to_timedelta() == timedelta(seconds=DUR_MAX, microseconds=999999)
    assert w.Duration.from_timedelta(top.to_timedelta()).to_timedelta() == top.to_timedelta()


@style
@pytest.mark.parametrize("total, seconds, nanos", [
    (0, 0, 0), (1, 0, 1), (-1, 0, -1), (10**9, 1, 0), (-(10**9), -1, 0),
    (1_500_000_000, 1, 500000000), (-1_500_000_000, -1, -500000000),
    (-(10**9) - 1, -1, -1), (DUR_MAX * 10**9 + 999999999, DUR_MAX, 999999999),
    (-(DUR_MAX * 10**9 + 999999999), -DUR_MAX, -999999999),
])
def test_duration_normalises(w: Any, total: int, seconds: int, nanos: int) -> None:
    d = w.Duration.from_nanoseconds(total)
    assert (d.get_seconds(), d.get_nanos()) == (seconds, nanos)
    assert d.to_nanoseconds() == total
    assert w.Duration.parse(d.serialize()) == d


@style
def test_duration_seconds(w: Any) -> None:
    d = w.Duration.from_seconds(-1.5)
    assert (d.get_seconds(), d.get_nanos()) == (-1, -500000000)
    assert d.to_seconds() == -1.5
    d = w.Duration.from_seconds(-0.000000001)
    assert (d.get_seconds(), d.get_nanos()) == (0, -1)
    assert w.Duration.from_seconds(DUR_MAX).get_seconds() == DUR_MAX
    assert w.Duration.from_seconds(-DUR_MAX).get_seconds() == -DUR_MAX
    for bad in (DUR_MAX + 1, -DUR_MAX - 1, float(DUR_MAX) + 1.0, math.nan, math.inf):
        with pytest.raises(ValueError):
            w.Duration.from_seconds(bad)


@style
@pytest.mark.parametrize("seconds, nanos", [
    (1, -1), (-1, 1), (0, 10**9), (0, -(10**9)), (DUR_MAX + 1, 0), (-DUR_MAX - 1, 0)])
def test_duration_invalid_values_raise(w: Any, seconds: int, nanos: int) -> None:
    d = w.Duration()
    d.set_seconds(seconds)
    d.set_nanos(nanos)
    for read in (d.to_timedelta, d.to_seconds, d.to_nanoseconds):
        with pytest.raises(ValueError):
            read()


@style
def test_duration_helpers_agree_with_json(w: Any) -> None:
    d = w.Duration.from_timedelta(timedelta(seconds=-3, microseconds=-10))
    assert d.to_dict() == "-3.000010s"
    assert w.Duration.from_json('"-3.00001s"') == d


# ============================================================================= Any

@style
def test_any_pack_unpack(w: Any) -> None:
    t = w.Timestamp(seconds=5, nanos=6)
    a = w.Any.pack(t)
    assert type(a) is w.Any
    assert a.get_type_url() == "type.googleapis.com/google.protobuf.Timestamp"
    assert a.get_value() == t.serialize()
    assert a.type_name() == "google.protobuf.Timestamp"
    assert a.is_(w.Timestamp) and a.is_(HYBRID.Timestamp) and a.is_(OPAQUE.Timestamp)
    assert not a.is_(w.Duration)
    back = a.unpack(w.Timestamp)
    assert type(back) is w.Timestamp and back == t
    # the other style's class reads the same payload
    other = OPAQUE if w is HYBRID else HYBRID
    assert other.Any.pack(t).unpack(other.Timestamp).to_nanoseconds() == 5 * 10**9 + 6
    with pytest.raises(TypeError, match="google.protobuf.Timestamp"):
        a.unpack(w.Duration)


@style
def test_any_type_url_prefix(w: Any) -> None:
    d = w.Duration(seconds=1)
    assert w.Any.pack(d, "example.com").get_type_url() == "example.com/google.protobuf.Duration"
    assert w.Any.pack(d, "example.com/x/").get_type_url() == "example.com/x/google.protobuf.Duration"
    assert w.Any.pack(d, "").get_type_url() == "/google.protobuf.Duration"
    assert w.Any.pack(d, "example.com").is_(w.Duration)
    # a type URL without '/' is nothing, as in protobuf's Is()
    bare = w.Any(type_url="google.protobuf.Duration", value=d.serialize())
    assert not bare.is_(w.Duration)
    with pytest.raises(TypeError):
        w.Any.pack(object())


@style
def test_any_pack_deterministic(w: Any) -> None:
    s = w.Struct.from_python({"b": 1, "a": 2, "c": {"z": 1, "y": 2}})
    a = w.Any.pack(s, deterministic=True)
    assert a.get_value() == s.serialize(deterministic=True)


@style
def test_any_unpack_any(w: Any) -> None:
    payload = w.Struct.from_python({"k": [1, "two"]})
    got = w.Any.pack(payload).unpack_any()
    assert isinstance(got, wkt.StructBase)
    assert got.to_python() == {"k": [1.0, "two"]}
    assert w.Any.pack(empty_pb.Empty()).unpack_any().serialize() == b""
    with pytest.raises(ValueError, match="no type_url"):
        w.Any().unpack_any()
    with pytest.raises(LookupError, match="not registered"):
        w.Any(type_url="type.googleapis.com/no.such.Type").unpack_any()
    with pytest.raises(DecodeError):
        w.Any(type_url="type.googleapis.com/google.protobuf.Duration", value=b"\x08").unpack_any()


@style
def test_any_unpack_bad_payload(w: Any) -> None:
    a = w.Any(type_url="type.googleapis.com/google.protobuf.Timestamp", value=b"\xff")
    with pytest.raises(DecodeError):
        a.unpack(w.Timestamp)


# ============================================================================= Struct, Value, ListValue

PY: dict[str, Any] = {"null": None, "t": True, "f": False, "n": -1.25, "i": 3, "s": "héllo",
      "l": [1, "x", None, [], {}, [True]], "o": {"deep": {"er": [{"a": 0}]}}, "e": {}}
PY_BACK: dict[str, Any] = {**PY, "i": 3.0, "l": [1.0, "x", None, [], {}, [True]], "o": {"deep": {"er": [{"a": 0.0}]}}}


@style
def test_struct_round_trip(w: Any) -> None:
    s = w.Struct.from_python(PY)
    assert type(s) is w.Struct
    assert s.to_python() == PY_BACK
    # the values are the family's own classes (opaque Struct → opaque Value ...)
    fields = s.get_fields()
    assert all(type(v) is w.Value for v in fields.values())
    assert type(fields["l"].get_list_value()) is w.ListValue
    assert type(fields["o"].get_struct_value()) is w.Struct
    assert w.Struct.parse(s.serialize()).to_python() == PY_BACK
    # ProtoJSON of a Struct is the same plain dict
    assert s.to_dict() == PY_BACK
    assert w.Struct.from_dict(PY) == s


@style
def test_value_round_trip(w: Any) -> None:
    cases: list[tuple[Any, str | None, Any]] = [
        (None, "null_value", None), (True, "bool_value", True), (0, "number_value", 0.0),
        (2**53, "number_value", float(2**53)), (-0.0, "number_value", -0.0), ("", "string_value", ""),
        ([], "list_value", []), ((1, 2), "list_value", [1.0, 2.0]), ({}, "struct_value", {}),
    ]
    for obj, kind, back in cases:
        v = w.Value.from_python(obj)
        assert type(v) is w.Value
        assert v.which_kind() == kind
        got = v.to_python()
        assert got == back and type(got) is type(back)
    # NaN and infinities have no JSON form but Value holds them
    assert math.isnan(w.Value.from_python(math.nan).to_python())
    assert w.Value.from_python(-math.inf).to_python() == -math.inf
    assert w.Value().to_python() is None  # no kind set
    assert w.ListValue.from_python(iter([1, "a"])).to_python() == [1.0, "a"]


@style
def test_python_helpers_take_messages(w: Any) -> None:
    other = OPAQUE if w is HYBRID else HYBRID
    inner = other.Struct.from_python({"a": [1]})
    assert w.Struct.from_python(inner).to_python() == {"a": [1.0]}
    assert w.Value.from_python(inner).to_python() == {"a": [1.0]}
    assert w.Value.from_python(other.ListValue.from_python([True])).to_python() == [True]
    assert w.Value.from_python(other.Value.from_python("s")).to_python() == "s"
    assert w.ListValue.from_python(other.ListValue.from_python([None])).to_python() == [None]


@style
def test_python_helpers_reject(w: Any) -> None:
    with pytest.raises(TypeError, match="keys must be str"):
        w.Struct.from_python({1: 2})
    with pytest.raises(TypeError):
        w.Struct.from_python([("a", 1)])
    with pytest.raises(TypeError, match="bytes"):
        w.Value.from_python(b"x")
    with pytest.raises(TypeError):
        w.Value.from_python({"a": {1, 2}})
    with pytest.raises(TypeError):
        w.ListValue.from_python("abc")
    with pytest.raises(TypeError):
        w.ListValue.from_python({"a": 1})
    with pytest.raises(ValueError, match="too large"):
        w.Value.from_python(10**400)


# ============================================================================= FieldMask

@style
def test_field_mask_paths_and_json(w: Any) -> None:
    m = w.FieldMask.from_paths(["foo_bar", "a.b_c", "x"])
    assert type(m) is w.FieldMask
    assert m.get_paths() == ["foo_bar", "a.b_c", "x"]
    assert m.to_json_string() == "fooBar,a.bC,x"
    assert m.to_json_string() == m.to_dict()
    back = w.FieldMask.from_json_string("fooBar,a.bC,x")
    assert back == m
    assert w.FieldMask.from_json_string("") == w.FieldMask()
    assert w.FieldMask.from_paths(p for p in ("a",)).get_paths() == ["a"]
    for bad in ("foo_bar", "a,,b", ","):
        with pytest.raises(ValueError):
            w.FieldMask.from_json_string(bad)
    for path in ("foo__bar", "foo_1", "fooBar", "foo_"):
        with pytest.raises(ValueError, match="cannot be represented"):
            w.FieldMask.from_paths([path]).to_json_string()
    with pytest.raises(TypeError):
        w.FieldMask.from_paths("abc")
    with pytest.raises(TypeError):
        w.FieldMask.from_paths([1])


@style
def test_field_mask_canonical_union_intersect(w: Any) -> None:
    m = w.FieldMask.from_paths(["b.c", "a", "b", "a.x", "a", "d.e.f", "d.e"])
    assert m.canonical().get_paths() == ["a", "b", "d.e"]
    one = w.FieldMask.from_paths(["a.b", "c", "e.f"])
    two = w.FieldMask.from_paths(["a", "c.d", "e.g"])
    assert one.union(two).get_paths() == ["a", "c", "e.f", "e.g"]
    assert one.intersect(two).get_paths() == ["a.b", "c.d"]
    assert two.intersect(one).get_paths() == ["a.b", "c.d"]
    other = OPAQUE if w is HYBRID else HYBRID
    assert type(one.union(other.FieldMask.from_paths(["z"]))) is w.FieldMask
    assert one.intersect(w.FieldMask()).get_paths() == []


# ============================================================================= cross-checks with protobuf

aware_datetimes = st.datetimes(
    min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31),
    timezones=st.sampled_from([timezone.utc, PLUS_2, MINUS_5_30, timezone(timedelta(hours=14))]))
naive_datetimes = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59))
ts_nanos = st.integers(TS_MIN * 10**9, TS_MAX * 10**9 + 999999999)
dur_nanos = st.integers(-(DUR_MAX * 10**9 + 999999999), DUR_MAX * 10**9 + 999999999)
timedeltas = st.timedeltas(min_value=timedelta(seconds=-DUR_MAX), max_value=timedelta(seconds=DUR_MAX))


def _same_ts(ours: Any, theirs: Any) -> None:
    assert (ours.get_seconds(), ours.get_nanos()) == (theirs.seconds, theirs.nanos)
    assert ours.serialize() == theirs.SerializeToString()


@style
@CHECK
@given(dt=st.one_of(aware_datetimes, naive_datetimes))
def test_from_datetime_matches_protobuf(w: Any, dt: datetime) -> None:
    theirs = timestamp_pb2.Timestamp()
    theirs.FromDatetime(dt)
    ours = w.Timestamp.from_datetime(dt)
    _same_ts(ours, theirs)
    assert ours.to_datetime() == theirs.ToDatetime(tzinfo=timezone.utc)
    assert ours.to_datetime(None) == theirs.ToDatetime()
    assert ours.to_datetime() == (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc))


@style
@CHECK
@given(total=ts_nanos)
def test_timestamp_nanoseconds_match_protobuf(w: Any, total: int) -> None:
    theirs = timestamp_pb2.Timestamp()
    theirs.FromNanoseconds(total)
    ours = w.Timestamp.from_nanoseconds(total)
    _same_ts(ours, theirs)
    assert ours.to_nanoseconds() == theirs.ToNanoseconds() == total
    assert ours.get_seconds() == theirs.ToSeconds()
    assert ours.to_datetime() == theirs.ToDatetime(tzinfo=timezone.utc)
    if ours.get_seconds() < TS_MAX - 7200:  # else the +02:00 local time is past year 9999
        assert ours.to_datetime(PLUS_2) == theirs.ToDatetime(tzinfo=PLUS_2)
    assert ours.to_dict() == theirs.ToJsonString()
    assert ours.to_seconds() == total / 10**9


@style
@CHECK
@given(total=ts_nanos, digits=st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))
def test_timestamp_text_reads_as_protobuf_reads_it(w: Any, total: int, digits: int) -> None:
    # every fraction length, not only the 0, 3, 6 or 9 digits printers write
    theirs = timestamp_pb2.Timestamp()
    theirs.FromNanoseconds(total - total % 10 ** (9 - digits))
    text = theirs.ToJsonString()
    if digits:
        whole, _, fraction = text[:-1].partition(".")
        text = f"{whole}.{(fraction + '000000000')[:digits]}Z"
    back = timestamp_pb2.Timestamp()
    back.FromJsonString(text)
    _same_ts(w.Timestamp.from_json(f'"{text}"'), back)
    assert _json_wkt._utc_timestamp(text) == (back.seconds, back.nanos)  # compiled builds' reader


def test_timestamp_text_refused_or_read_as_dates_are() -> None:
    T = timestamp_pb.Timestamp
    for text in ("2000-02-29T00:00:00Z", "2024-02-29T23:59:59.5Z", "0001-01-01T00:00:00Z",
                 "9999-12-31T23:59:59.999999999Z", "1970-01-01T00:00:00.000000001Z", "1969-12-31T23:59:59Z",
                 "2023-01-01T01:00:00+01:00", "2023-01-01T00:00:00-00:30"):
        theirs = timestamp_pb2.Timestamp()
        theirs.FromJsonString(text)
        _same_ts(T.from_json(f'"{text}"'), theirs)
        if text.endswith("Z"):  # the form compiled builds read digit by digit
            assert _json_wkt._utc_timestamp(text) == (theirs.seconds, theirs.nanos)
    for text in ("2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2023-13-01T00:00:00Z",
                 "2023-00-10T00:00:00Z", "2023-01-00T00:00:00Z", "2023-04-31T00:00:00Z",
                 "2023-01-01T24:00:00Z", "2023-01-01T00:60:00Z", "2023-01-01T00:00:60Z",
                 "0000-01-01T00:00:00Z", "2023-01-01T00:00:00.Z", "2023-01-01T00:00:00.1234567890Z",
                 "2023-01-01t00:00:00Z", "2023-01-01T00:00:00z", "2023-01-01T00:00:0\u0661Z",
                 "\u0662023-01-01T00:00:00Z", "2023-01-01 00:00:00Z", "2023-1-01T00:00:00Z",
                 "9999-12-31T23:59:59-01:00", "2023-01-01T00:00:00+24:00"):
        with pytest.raises(JsonError, match="timestamp"):
            T.from_json(f'"{text}"')
        assert _json_wkt._utc_timestamp(json.loads(f'"{text}"'))[0] < TS_MIN


@style
@CHECK
@given(seconds=st.integers(TS_MIN, TS_MAX))
def test_timestamp_from_seconds_matches_protobuf(w: Any, seconds: int) -> None:
    theirs = timestamp_pb2.Timestamp()
    theirs.FromSeconds(seconds)
    _same_ts(w.Timestamp.from_seconds(seconds), theirs)


@style
@CHECK
@given(x=st.floats(min_value=TS_MIN, max_value=TS_MAX, allow_nan=False))
def test_timestamp_float_seconds(w: Any, x: float) -> None:
    t = w.Timestamp.from_seconds(x)
    # within half a nanosecond of the float's exact value, and back to the same float
    # whenever the float's spacing exceeds a nanosecond
    assert abs(Fraction(t.to_nanoseconds()) - Fraction(x) * 10**9) <= Fraction(1, 2)
    if abs(x) >= 2**23:  # ulp >= 2**-29 s > 1 ns: the nearest float is x again
        assert t.to_seconds() == x


@style
@CHECK
@given(td=timedeltas)
def test_from_timedelta_matches_protobuf(w: Any, td: timedelta) -> None:
    theirs = duration_pb2.Duration()
    theirs.FromTimedelta(td)
    ours = w.Duration.from_timedelta(td)
    _same_ts(ours, theirs)
    assert ours.to_timedelta() == theirs.ToTimedelta() == td
    assert ours.to_dict() == theirs.ToJsonString()


@style
@CHECK
@given(total=dur_nanos)
def test_duration_nanoseconds_match_protobuf(w: Any, total: int) -> None:
    theirs = duration_pb2.Duration()
    theirs.FromNanoseconds(total)
    ours = w.Duration.from_nanoseconds(total)
    _same_ts(ours, theirs)
    assert ours.to_nanoseconds() == theirs.ToNanoseconds() == total
    assert ours.to_timedelta() == theirs.ToTimedelta()
    assert ours.get_seconds() == theirs.ToSeconds()
    assert ours.to_dict() == theirs.ToJsonString()


json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12)


@style
@CHECK
@given(obj=st.dictionaries(st.text(max_size=4), json_values, max_size=5))
def test_struct_matches_protobuf(w: Any, obj: dict[str, Any]) -> None:
    theirs = struct_pb2.Struct()
    theirs.update(obj)
    ours = w.Struct.from_python(obj)
    # (bytes may differ: upb writes empty map keys that the spec lets us omit)
    assert w.Struct.parse(theirs.SerializeToString(deterministic=True)) == ours
    assert ours.to_python() == obj
    back = struct_pb2.Struct.FromString(ours.serialize())
    assert back == theirs


@style
@CHECK
@given(obj=json_values)
def test_value_matches_protobuf(w: Any, obj: Any) -> None:
    theirs = struct_pb2.Value()
    holder = struct_pb2.Struct()  # protobuf's Value has no from-python helper: go through a Struct
    holder["v"] = obj
    theirs.CopyFrom(holder.fields["v"])
    ours = w.Value.from_python(obj)
    assert w.Value.parse(theirs.SerializeToString()) == ours
    assert struct_pb2.Value.FromString(ours.serialize()) == theirs
    assert ours.to_python() == obj


@style
@CHECK
@given(total=ts_nanos, url=st.sampled_from(["type.googleapis.com/", "example.com", "a/b/"]))
def test_any_pack_matches_protobuf(w: Any, total: int, url: str) -> None:
    payload = timestamp_pb2.Timestamp()
    payload.FromNanoseconds(total)
    theirs = any_pb2.Any()
    theirs.Pack(payload, url)
    ours = w.Any.pack(w.Timestamp.from_nanoseconds(total), url)
    assert ours.serialize() == theirs.SerializeToString()
    assert ours.type_name() == theirs.TypeName()
    assert ours.is_(w.Timestamp) == theirs.Is(timestamp_pb2.Timestamp.DESCRIPTOR)
    assert ours.unpack(w.Timestamp).to_nanoseconds() == total


mask_paths = st.lists(
    st.lists(st.sampled_from(["a", "b", "c_d"]), min_size=1, max_size=3).map(".".join), max_size=6)


@style
@CHECK
@given(one=mask_paths, two=mask_paths)
def test_field_mask_matches_protobuf(w: Any, one: list[str], two: list[str]) -> None:
    a, b = field_mask_pb2.FieldMask(paths=one), field_mask_pb2.FieldMask(paths=two)
    ours_a, ours_b = w.FieldMask.from_paths(one), w.FieldMask.from_paths(two)
    canon = field_mask_pb2.FieldMask()
    canon.CanonicalFormFromMask(a)
    assert ours_a.canonical().get_paths() == list(canon.paths)
    union = field_mask_pb2.FieldMask()
    union.Union(a, b)
    assert ours_a.union(ours_b).get_paths() == list(union.paths)
    inter = field_mask_pb2.FieldMask()
    inter.Intersect(a, b)
    assert ours_a.intersect(ours_b).get_paths() == list(inter.paths)
    assert ours_a.to_json_string() == a.ToJsonString()
    assert w.FieldMask.from_json_string(a.ToJsonString()).get_paths() == one
