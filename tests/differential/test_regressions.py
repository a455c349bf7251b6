"""Deterministic differential cases: edges the random tests found or should not miss.

A bug found by the random tests gets a test here with its exact input; while it is
open it is ``xfail(strict=True)`` with the cause, and the random tests in
test_upb_differential.py tolerate it (with an ``event``) so that they keep testing
everything else. When it is fixed, the xfail turns into XPASS (a failure): remove
the mark and the tolerance.
"""

from __future__ import annotations

import math
import struct

import pytest
from google.protobuf.message import DecodeError as UpbDecodeError

from tests.differential.harness import (
    CONFORMANCE_ROOTS, NAN_DEFAULTS, REQUIRED_VALUES, RICH2, RICH3, STYLE_NAMES, Backend, World,
)
from tests.differential.strategies import tag, upb_field_zero_quirk, varint
from tests.differential.test_upb_differential import differential

def _upb_accepts(world: World, full_name: str, data: bytes) -> bool:
    try:
        world.upb.cls(full_name).FromString(data)
    except UpbDecodeError:
        return False
    return True


def test_styles_are_what_they_claim(world: World) -> None:
    """hybrid-opaque really runs the hybrid modules' opaque twins (PYOPAQUE_PROTOOPAQUE=1)."""
    expected = {"open": "open.v1", "hybrid": "hybrid.v1", "hybrid-opaque": "opaque.v1", "opaque": "opaque.v1",
                "lazy": "opaque.v1"}
    for name in STYLE_NAMES:
        for root in world.roots:
            assert world.backends[name].check(root, b"").api == expected[name], (name, root)


# ----------------------------------------------------------------------------- well-known types

WKT_INPUTS = {
    # Rich3.ts (google.protobuf.Timestamp, field 70) = {seconds: 10}
    "timestamp": bytes.fromhex("b20402080a"),
    # the same Timestamp holding an unknown fixed64 field
    "timestamp-unknown": bytes.fromhex("b20409090000000000000000"),
    # Rich3.wrapped (Int64Value, 71) = {value: 5}; r_wrapped (StringValue, 72) = [{value: "a"}]
    "wrappers": bytes.fromhex("ba04020805c204030a0161"),
}


@pytest.mark.parametrize("case", sorted(WKT_INPUTS))
def test_fields_of_runtime_well_known_types_round_trip(world: World, backend: Backend, case: str) -> None:
    """Message fields typed with the well-known types the runtime ships (hybrid modules,
    imported without PYOPAQUE_PROTOOPAQUE) serialize in every style, opaque included."""
    data = WKT_INPUTS[case]
    res = backend.check(RICH3, data)
    assert not res.crash, res.crash
    assert res.accepted and res.wire == data


# ----------------------------------------------------------------------------- NaN and ==

def test_unset_nan_default_compares_equal(world: World, backend: Backend) -> None:
    """NanDefaults { optional double d = 1 [default = nan]; optional float f = 2 [default = nan]; }:
    two empty messages (parse(b"") twice) are equal, as in upb. (Opaque messages failed
    this until e9fe17a: their __eq__ compared the stored NaN defaults of unset fields.)"""
    assert world.upb.cls(NAN_DEFAULTS.full_name)() == world.upb.cls(NAN_DEFAULTS.full_name)()
    res = backend.check(NAN_DEFAULTS, b"")
    assert not res.crash, res.crash
    assert res.reparse_equal


def test_singular_nan_compares_equal(world: World, backend: Backend) -> None:
    """Rich3.f_double = NaN: parse(data) == parse(data), as in upb."""
    data = tag(12, 1) + struct.pack("<d", math.nan)
    assert world.upb.cls(RICH3.full_name).FromString(data) == world.upb.cls(RICH3.full_name).FromString(data)
    res = backend.check(RICH3, data)
    assert res.accepted and res.reparse_equal


NAN_CONTAINER_INPUTS = {
    # Rich3.r_double (repeated double, packed, field 35) = [NaN]
    "repeated-packed-double": tag(35, 2) + varint(8) + struct.pack("<d", math.nan),
    # Rich3.r_float_unpacked (repeated float, [packed = false], field 36) = [NaN]
    "repeated-float": tag(36, 5) + struct.pack("<f", math.nan),
    # Rich3.m_sint32_double (map<sint32, double>, field 54) = {1: NaN}
    "map-value-double": tag(54, 2) + varint(11) + tag(1, 0) + b"\x02" + tag(2, 1) + struct.pack("<d", math.nan),
    # Rich3.o_double (oneof member, field 65) = NaN
    "oneof-double": tag(65, 1) + struct.pack("<d", math.nan),
}


@pytest.mark.parametrize("case", sorted(NAN_CONTAINER_INPUTS))
def test_nan_in_containers_compares_equal(world: World, backend: Backend, case: str) -> None:
    data = NAN_CONTAINER_INPUTS[case]
    upb_cls = world.upb.cls(RICH3.full_name)
    assert upb_cls.FromString(data) == upb_cls.FromString(data)
    res = backend.check(RICH3, data)
    assert res.accepted and not res.crash, res.crash
    assert res.reparse_equal


# ----------------------------------------------------------------------------- bug: empty extension lists

EMPTY_EXTENSION_INPUTS = {
    # x_r_int32 (repeated int32, field 108) as an empty packed run
    "empty-packed-run": bytes.fromhex("e20600"),
    # x_r_color (repeated closed enum Color, packed, field 110) holding only the unknown value 5
    "only-unknown-closed-enum": bytes.fromhex("f2060105"),
}


@pytest.mark.parametrize("case", sorted(EMPTY_EXTENSION_INPUTS))
def test_empty_repeated_extension_keeps_equality(world: World, backend: Backend, case: str) -> None:
    data = EMPTY_EXTENSION_INPUTS[case]
    res = backend.check(RICH2, data)
    assert not res.crash, res.crash
    assert res.accepted and res.wire == res.det == bytes.fromhex("" if case == "empty-packed-run" else "f00605")
    assert res.reparse_equal


# ----------------------------------------------------------------------------- bug: long length prefixes

LONG_LENGTH_INPUTS = {
    # f_string (field 14): a length of 0 written in 6 bytes
    "known-field": bytes.fromhex("72808080808000"),
    # field 7 (f_fixed32) with wire type 2: an unknown field, same 6-byte length
    "unknown-field": bytes.fromhex("3a808080808000"),
    # f_bytes (field 15): a length of 1 written in 10 bytes
    "ten-bytes": bytes.fromhex("7a81808080808080800001") + b"",
}


@pytest.mark.parametrize("case", sorted(LONG_LENGTH_INPUTS))
def test_upb_rejects_long_length_prefixes(world: World, case: str) -> None:
    """Reference behaviour (upb, and C++'s ReadSize): a length is a varint of at most 5 bytes."""
    assert not _upb_accepts(world, RICH2.full_name, LONG_LENGTH_INPUTS[case])


@pytest.mark.parametrize("case", sorted(LONG_LENGTH_INPUTS))
def test_long_length_prefix_is_rejected(world: World, backend: Backend, case: str) -> None:
    res = backend.check(RICH2, LONG_LENGTH_INPUTS[case])
    assert not res.crash, res.crash
    assert not res.accepted


# ----------------------------------------------------------------------------- depth limit

def test_very_deep_input_is_a_decode_error(world: World, backend: Backend) -> None:
    """3000 nested Rich2.child: DecodeError at parse (lazy too), never another exception.
    (Lazy decoding used to restart the depth budget per lazy field, accepting any nesting
    and failing with RecursionError on access; fixed in f169fe6.)"""
    res = backend.check(RICH2, _nested_messages(3000))
    assert not res.crash, res.crash
    assert not res.accepted

def _nested_messages(n: int) -> bytes:
    """Rich2.child (field 17) nested ``n`` deep."""
    data = b""
    for _ in range(n):
        data = tag(17, 2) + varint(len(data)) + data
    return data


def _nested_groups(n: int) -> bytes:
    """Rich2.G (group 18) -> G.deep (Rich2, field 21), ``n`` times: two levels each."""
    data = b""
    for _ in range(n):
        inner = tag(21, 2) + varint(len(data)) + data
        data = tag(18, 3) + inner + tag(18, 4)
    return data


def _nested_unknown_groups(n: int) -> bytes:
    data = b""
    for _ in range(n):
        data = tag(900, 3) + data + tag(900, 4)
    return data


@pytest.mark.parametrize("shape,depths", [
    ("messages", (99, 100, 101, 102)),
    ("groups", (49, 50, 51)),
    ("unknown-groups", (99, 100, 101, 102)),
])
def test_depth_limit_matches_upb(world: World, backend: Backend, shape: str, depths: tuple[int, ...]) -> None:
    """Both sides allow 100 levels of nesting (messages, groups and unknown groups alike)."""
    make = {"messages": _nested_messages, "groups": _nested_groups,
            "unknown-groups": _nested_unknown_groups}[shape]
    for n in depths:
        data = make(n)
        res = backend.check(RICH2, data)
        assert not res.crash, res.crash
        assert res.accepted == _upb_accepts(world, RICH2.full_name, data), (shape, n)


# ----------------------------------------------------------------------------- lazy: every check at parse

EDITION2023 = CONFORMANCE_ROOTS[2]  # protobuf_test_messages.editions.TestAllTypesEdition2023
# repeated_fixed32 (field 37) as a packed run of 3 bytes, which upb and our decode reject
_BAD_PACKED = tag(37, 2) + varint(3) + b"\0\0\0"


def _len_field(number: int, body: bytes) -> bytes:
    return tag(number, 2) + varint(len(body)) + body


# NestedMessage.corecursive (field 2; lazy under lazy_all) holding the bad run
_BAD_NESTED = _len_field(2, _BAD_PACKED)
LAZY_CONTENT_INPUTS = {
    # found by test_fuzzed_bytes[lazy]: oneof_nested_message (112) holding it, then replaced
    # by oneof_uint32 (111) = 0, so that the lazy field is never decoded
    "oneof-replaced": bytes.fromhex("8207081206aa0203000000088000f80600"),
    # the same, not replaced
    "oneof-kept": _len_field(112, _BAD_NESTED),
    # optional_nested_message (18)
    "singular": _len_field(18, _BAD_NESTED),
    # repeated_nested_message (48): a good element, then the bad one
    "repeated": _len_field(48, b"") + _len_field(48, _BAD_NESTED),
    # recursive_message (27, lazy) inside recursive_message
    "nested-lazy": _len_field(27, _len_field(27, _BAD_PACKED)),
    # invalid UTF-8 in optional_string (14) inside optional_nested_message.corecursive
    "utf8": _len_field(18, _len_field(2, _len_field(14, b"\xff"))),
}


@pytest.mark.parametrize("case", sorted(LAZY_CONTENT_INPUTS))
def test_lazy_fields_are_checked_at_parse(world: World, backend: Backend, case: str) -> None:
    """Every style rejects at parse what upb rejects inside a [lazy] field; the lazy style's
    oracle reports a DecodeError after parse(lazy=True) accepted as a crash."""
    if EDITION2023 not in world.roots:
        pytest.skip("conformance test messages not available (no runner --protos)")
    data = LAZY_CONTENT_INPUTS[case]
    assert not _upb_accepts(world, EDITION2023.full_name, data)
    res = backend.check(EDITION2023, data)
    assert not res.crash, res.crash
    assert not res.accepted, f"accepted {data.hex()}"


# ----------------------------------------------------------------------------- lazy + deterministic

def _map_entry(key: int, value: int) -> bytes:
    entry = tag(1, 0) + varint(key) + tag(2, 0) + varint(value)
    return tag(50, 2) + varint(len(entry)) + entry  # Rich2.m_int32_color


LAZY_DETERMINISTIC_INPUTS = {
    # Rich2.child (a lazy field under lazy_all=true) holding m_int32_color {2: GREEN, 1: BLUE} in descending key order
    "lazy-field": tag(17, 2) + varint(14) + _map_entry(2, 1) + _map_entry(1, 2),
    # the same map at the top level of a message parsed with parse(lazy=True)
    "lazy-message": _map_entry(2, 1) + _map_entry(1, 2),
}


@pytest.mark.parametrize("case", sorted(LAZY_DETERMINISTIC_INPUTS))
def test_deterministic_sorts_maps_inside_lazy_data(world: World, case: str) -> None:
    cls = world.backends["lazy"].cls(RICH2)  # type: ignore[attr-defined]
    data = LAZY_DETERMINISTIC_INPUTS[case]
    eager = cls.parse(data, lazy=False).serialize(deterministic=True)
    assert cls.parse(data, lazy=True).serialize(deterministic=True) == eager


# ----------------------------------------------------------------------------- map entries: nothing lost

def _entry(number: int, *parts: bytes) -> bytes:
    payload = b"".join(parts)
    return tag(number, 2) + varint(len(payload)) + payload


_KEY_A = tag(1, 2) + b"\x01a"  # Rich3.m_string_string / m_int64_msg keys and values
_VALUE_B = tag(2, 2) + b"\x01b"
# (root, input, kept whole): Rich3.m_string_string (50), m_int64_msg (51); Rich2.m_int32_color (50)
MAP_ENTRY_INPUTS = {
    "unknown-varint": (RICH3, _entry(50, _KEY_A, _VALUE_B, tag(3, 0) + b"\x01"), True),
    "unknown-before-key": (RICH3, _entry(50, tag(9, 5) + b"\0\0\0\0", _KEY_A, _VALUE_B), True),
    "unknown-group": (RICH3, _entry(50, _KEY_A, tag(7, 3) + tag(1, 0) + b"\x05" + tag(7, 4), _VALUE_B), True),
    "key-of-another-wire-type": (RICH3, _entry(50, tag(1, 0) + b"\x07", _VALUE_B), True),
    "value-of-another-wire-type": (RICH3, _entry(50, _KEY_A, tag(2, 1) + bytes(8)), True),
    "message-value-of-another-wire-type": (RICH3, _entry(51, tag(1, 0) + b"\x01", tag(2, 0) + b"\x01"), True),
    "closed-enum-unknown-value": (RICH2, _entry(50, tag(1, 0) + b"\x01", tag(2, 0) + b"\x05"), True),
    # a duplicate: the last key or value wins, a message value merges (spec and upb alike)
    "duplicate-key": (RICH3, _entry(50, _KEY_A, tag(1, 2) + b"\x01c", _VALUE_B), False),
    "duplicate-value": (RICH3, _entry(50, _KEY_A, _VALUE_B, tag(2, 2) + b"\x01d"), False),
    "duplicate-message-value": (RICH3, _entry(51, tag(1, 0) + b"\x01", tag(2, 2) + b"\x02\x08\x05",
                                              tag(2, 2) + b"\x03\x72\x01x"), False),
    # an unknown field inside a message value is the value's own: the entry is a map entry
    "unknown-inside-message-value": (RICH3, _entry(51, tag(1, 0) + b"\x01", tag(2, 2) + b"\x04" + tag(3000, 0)
                                                   + b"\x01"), False),
}


@pytest.mark.parametrize("case", sorted(MAP_ENTRY_INPUTS))
def test_map_entry_that_a_map_cannot_hold_is_kept_whole(world: World, backend: Backend, case: str) -> None:
    """An entry holding anything but its key and value (unknown fields, a key or value of
    another wire type, a closed enum's unknown value) is kept whole among the unknown
    fields of its message, as upb does (C++ drops the extra): serialize forwards it byte
    for byte. Duplicates inside an entry are decoded, the last one winning."""
    root, data, kept = MAP_ENTRY_INPUTS[case]
    upb_msg, res = differential(world, backend, root, data)
    assert upb_msg is not None and res.accepted
    number = 51 if case.startswith(("message", "duplicate-message", "unknown-inside")) else 50
    assert (len(getattr(upb_msg, upb_msg.DESCRIPTOR.fields_by_number[number].name)) == 0) == kept, (
        "upb: kept whole or decoded, as the case says")
    if kept:
        assert res.wire == data, f"ours wrote {res.wire.hex()}, not the entry as read"


def test_map_entry_kept_whole_is_not_checked_for_required_fields(world: World, backend: Backend) -> None:
    """RequiredValues.m (map<int32, RequiredValue>, x required): an entry whose value lacks x
    is a missing required field, unless the entry is kept whole (it holds an unknown field):
    then, as in upb, it is unknown bytes, and parse() without partial=True accepts it."""
    missing = _entry(1, tag(1, 0) + b"\x01", tag(2, 2) + b"\x00")
    kept = _entry(1, tag(1, 0) + b"\x01", tag(2, 2) + b"\x00", tag(3, 0) + b"\x01")
    for data, initialized in ((missing, False), (kept, True)):
        upb_msg, res = differential(world, backend, REQUIRED_VALUES, data)
        assert upb_msg is not None and upb_msg.IsInitialized() == initialized
        assert res.strict_accepted == initialized, data.hex()
        if initialized:
            assert res.wire == data


# ----------------------------------------------------------------------------- field number 0

# Rich3: an unknown group (field 9000) holding field number 0; the same group inside an
# entry of m_int64_msg (51) whose key has another wire type, so upb keeps the entry whole
# (the input the random tests found, shortened)
FIELD_ZERO_INPUTS = {
    "unknown-group": tag(9000, 3) + tag(1, 0) + b"\x00" + b"\x00\x00" + tag(9000, 4),
    "group-in-entry-kept-whole": _entry(51, tag(1, 3) + tag(1, 0) + b"\x00" + b"\x00\x00" + tag(1, 4)),
}


@pytest.mark.parametrize("case", sorted(FIELD_ZERO_INPUTS))
def test_field_number_zero_is_rejected_where_upb_lets_it_through(world: World, backend: Backend, case: str) -> None:
    """Field number 0 is invalid everywhere (spec, C++, ours); upb skips unknown groups with
    its empty mini-table and accepts it there. The random tests tolerate exactly these
    places (upb_field_zero_quirk); this pins that they are recognised and that ours rejects."""
    data = FIELD_ZERO_INPUTS[case]
    upb_msg = world.upb.cls(RICH3.full_name).FromString(data)
    assert upb_field_zero_quirk(upb_msg), "the quirk detector misses this place"
    res = backend.check(RICH3, data)
    assert not res.crash, res.crash
    assert not res.accepted and "field number 0" in res.error, res.error
