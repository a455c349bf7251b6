"""The deferred layout (collections.proto's Bag, scalars.proto's Scalars): a deferred parse
stores the scalars as it checks the input, and makes each string, repeated field and map on its
first read, from where the scan found it.

Read, written, serialized or compared in any order, a deferred message answers as the same
message decoded at once; untouched, or only read (no container handed out), it serializes as
its input; whatever a decode rejects, its parse rejects. Styles without the layout decode at
parse: the same tests check that they give the same answers.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protoc_gen_pyopaque.runtime import DecodeError
from protoc_gen_pyopaque.runtime._wire import NATIVE
from protoc_gen_pyopaque.runtime.message import DEFER_MIN_BYTES, lazy_decoding
from tests.behavior.conftest import Modules
from tests.behavior.test_threads import run_together

INT32 = st.integers(-(2**31), 2**31 - 1)
INT64 = st.integers(-(2**63), 2**63 - 1)
UINT64 = st.integers(0, 2**64 - 1)
DOUBLE = st.floats(allow_nan=False)
FLOAT = st.floats(allow_nan=False, width=32)
TEXT = st.text(max_size=12)
COLOR = st.integers(0, 4)  # an open enum: 3 and 4 are numbers it does not name


def item(mods: Modules) -> Any:
    Item = mods.load("collections").Collections.Item
    return st.builds(lambda key, color: Item(key=key, color=color), TEXT, COLOR)


# Bag's fields: name -> the values its setter takes (repeated fields: a list, maps: a dict)
def bag_fields(mods: Modules) -> dict[str, Any]:
    items = item(mods)
    return {
        "title": TEXT, "blob": st.binary(max_size=12), "count": INT64, "delta": INT32, "ratio": DOUBLE,
        "flag": st.booleans(), "ints": st.lists(INT32, max_size=4), "tags": st.lists(TEXT, max_size=4),
        "items": st.lists(items, max_size=3), "counts": st.dictionaries(TEXT, INT64, max_size=3),
        "items_by_id": st.dictionaries(INT32, items, max_size=3), "stamps": st.lists(UINT64, max_size=3),
        "color": COLOR, "note": TEXT, "big": UINT64, "weight": FLOAT, "ratios": st.lists(DOUBLE, max_size=3),
    }


PRESENCE = ("delta", "note")  # the fields with has_x()
CONTAINERS = ("ints", "tags", "items", "counts", "items_by_id", "stamps", "ratios")


def varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


@st.composite
def bag_input(draw: st.DrawFn, mods: Modules) -> bytes:
    """A Bag's encoding: one message or two concatenated (a merge: scalars and strings given twice,
    the last winning; repeated fields and maps in two runs), fields out of order at times, and now
    and then an unknown field (input the layout keeps whole)."""
    Bag = mods.load("collections").Bag
    fields = bag_fields(mods)
    parts = []
    for _ in range(draw(st.integers(1, 2))):
        chosen = draw(st.lists(st.sampled_from(sorted(fields)), unique=True))
        parts.append(Bag(**{name: draw(fields[name]) for name in chosen}).serialize())
    if draw(st.booleans()) and len(parts[0]) > 2:  # a scalar written again after the rest: not canonical
        parts.append(b"\x18" + varint(draw(st.integers(0, 2**63 - 1))))
    if draw(st.integers(0, 5)) == 0:
        parts.insert(draw(st.integers(0, len(parts))), varint(draw(st.integers(100, 2000)) << 3) + b"\x01")
    return b"".join(parts)


@st.composite
def operation(draw: st.DrawFn, mods: Modules) -> tuple[str, str, Any]:
    """What to do to a Bag: read a field, test its presence, set or clear it, or change the
    container its getter hands out."""
    fields = bag_fields(mods)
    name = draw(st.sampled_from(sorted(fields)))
    verbs = ["get", "get", "set", "clear"] + (["has"] if name in PRESENCE else []) \
        + (["change"] if name in CONTAINERS else [])
    verb = draw(st.sampled_from(verbs))
    return verb, name, draw(fields[name]) if verb in ("set", "change") else None


def apply(msg: Any, verb: str, name: str, value: Any) -> Any:
    """Do one operation to ``msg``; return what it read."""
    if verb == "get":
        got = getattr(msg, f"get_{name}")()
        return dict(got) if isinstance(got, dict) else list(got) if isinstance(got, list) else got
    if verb == "has":
        return getattr(msg, f"has_{name}")()
    if verb == "set":
        getattr(msg, f"set_{name}")(value)
    elif verb == "clear":
        getattr(msg, f"clear_{name}")()
    else:  # change the container in place
        container = getattr(msg, f"get_{name}")()
        if isinstance(container, dict):
            container.update(value)
        else:
            container.extend(value)
    return None


def settle(test: Callable[..., None]) -> Callable[..., None]:
    return settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])(test)


def writes(ops: list[tuple[str, str, Any]]) -> bool:
    """Whether ``ops`` change the message or hand out a container (either ends the verbatim copy)."""
    return any(verb in ("set", "clear", "change") or (verb == "get" and name in CONTAINERS) for verb, name, _ in ops)


@given(data=st.data())
@settle
def test_deferred_bag_answers_as_the_decoded_bag(mods: Modules, data: st.DataObject) -> None:
    if not mods.accessors:
        pytest.skip("the deferred layout is opaque; the open style has no getters")
    Bag = mods.load("collections").Bag
    wire = data.draw(bag_input(mods))
    ops = data.draw(st.lists(operation(mods), max_size=8))
    deferred, decoded = Bag.parse(wire, lazy=True), Bag.parse(wire, lazy=False)
    for verb, name, value in ops:
        assert apply(deferred, verb, name, value) == apply(decoded, verb, name, value), (verb, name)
    canonical = wire == decoded.serialize()
    if canonical and not writes(ops):  # read only scalars and strings, or nothing: its input, as it was
        assert deferred.serialize() == wire
    assert deferred == decoded
    assert deferred.serialize(deterministic=True) == decoded.serialize(deterministic=True)
    assert Bag.parse(deferred.serialize()) == decoded
    assert deferred.to_json() == decoded.to_json()
    untouched, fresh = Bag.parse(wire, lazy=True), Bag.parse(wire, lazy=False)
    if canonical and deferred_layout(mods) and not fresh.unknown_fields():
        assert untouched.serialize() is wire  # the very input: nothing was made
    assert untouched == fresh


def deferred_layout(mods: Modules) -> bool:
    return mods.style in ("opaque", "hybrid-opaque", "deferred-classes")


@given(data=st.data())
@settle
def test_deferred_scalars_answer_as_the_decoded_ones(mods: Modules, data: st.DataObject) -> None:
    """scalars.proto's Scalars: every scalar kind (varints of each width, zigzag, fixed, floats),
    with and without presence."""
    if not mods.accessors:
        pytest.skip("the deferred layout is opaque; the open style has no getters")
    Scalars = mods.load("scalars").Scalars
    values = {
        "f_double": DOUBLE, "f_float": FLOAT, "f_int64": INT64, "f_uint64": UINT64, "f_int32": INT32,
        "f_fixed64": UINT64, "f_fixed32": st.integers(0, 2**32 - 1), "f_bool": st.booleans(), "f_string": TEXT,
        "f_bytes": st.binary(max_size=8), "f_uint32": st.integers(0, 2**32 - 1), "f_sfixed32": INT32,
        "f_sfixed64": INT64, "f_sint32": INT32, "f_sint64": INT64, "opt_int32": INT32, "opt_string": TEXT,
    }
    chosen = data.draw(st.lists(st.sampled_from(sorted(values)), unique=True))
    wire = Scalars(**{name: data.draw(values[name]) for name in chosen}).serialize()
    deferred, decoded = Scalars.parse(wire, lazy=True), Scalars.parse(wire, lazy=False)
    for name in data.draw(st.permutations(sorted(values))):
        assert getattr(deferred, f"get_{name}")() == getattr(decoded, f"get_{name}")(), name
    assert deferred.has_opt_int32() == decoded.has_opt_int32()
    assert deferred.has_opt_string() == decoded.has_opt_string()
    assert deferred.serialize() == wire
    deferred.set_f_int32(5)
    decoded.set_f_int32(5)
    assert deferred.serialize() == decoded.serialize()


def test_a_deferred_parse_keeps_the_input_and_makes_nothing(mods: Modules) -> None:
    """The scalars are in place after parse; strings, repeated fields and maps are made on first
    read, one by one; reads of scalars and strings keep the verbatim copy."""
    Bag = mods.load("collections").Bag
    wire = Bag(title="t", count=3, tags=["a", "b"], counts={"k": 1}, note="n").serialize()
    msg = Bag.parse(wire, lazy=True)
    if not deferred_layout(mods):
        assert not hasattr(msg, "_pb_deferred")
        return
    state = msg._pb_deferred
    assert state is not None and state.verbatim
    assert [getattr(state, f"s{n}") >= 0 for n in (1, 8, 10, 14)] == [True] * 4
    assert msg.get_count() == 3 and msg.get_title() == "t" and msg.has_note()
    assert state.s1 < 0 and state.s8 >= 0  # the title made, not the tags
    assert msg.serialize() is wire
    assert msg.get_tags() == ["a", "b"]
    assert not state.verbatim  # a list handed out may change
    assert msg.serialize() == wire
    assert msg._pb_deferred is None  # serialize made the rest
    msg = Bag.parse(wire, lazy=True)
    for name in ("title", "blob", "tags", "items", "counts"):  # blob and items: not in the input
        assert msg._pb_deferred is not None
        getattr(msg, f"get_{name}")()
    msg.get_note()  # the last field made: the input let go, as a decoded message holds none
    assert msg._pb_deferred is None and msg.serialize() == wire


def test_a_container_not_made_yet_holds_no_object_of_its_own(mods: Modules) -> None:
    """Until its first read, a repeated field or map found in the input holds a stand-in that every
    deferred message shares (no empty list or dict kept a message); the stand-in is never handed
    out: a read, a write, a clear, or a write that fails, gives the field a container of its own."""
    if not deferred_layout(mods):
        pytest.skip("the deferred layout is opaque")
    Bag = mods.load("collections").Bag
    wire = Bag(title="t", tags=["a"], counts={"k": 1}).serialize()
    first, second = Bag.parse(wire, lazy=True), Bag.parse(wire, lazy=True)
    stand_ins = first._f_tags, first._f_counts
    assert stand_ins == (second._f_tags, second._f_counts) and stand_ins[0] is second._f_tags
    assert stand_ins[1] is second._f_counts
    assert first._f_items is not second._f_items  # not in the input: empty, its own from the start

    def changed(msg: Any) -> None:
        tags, counts = msg.get_tags(), msg.get_counts()
        assert tags is not stand_ins[0] and counts is not stand_ins[1]
        tags.append("x")
        counts["x"] = 9

    changed(first)
    for change in (lambda m: m.clear_tags(), lambda m: m.set_tags([]), lambda m: m.clear_counts(),
                   lambda m: m.set_tags(["a", 5])):  # the last fails: a TypeError
        msg = Bag.parse(wire, lazy=True)
        try:
            change(msg)
        except TypeError:
            pass
        changed(msg)
    assert stand_ins == ([], {})
    for msg in (Bag.parse(wire, lazy=True), second):
        assert msg.get_tags() == ["a"] and msg.get_counts() == {"k": 1}
        assert msg.serialize() == wire


def test_a_write_that_fails_changes_nothing(mods: Modules) -> None:
    """A value a repeated field or map cannot hold is refused before anything changes: a deferred
    message keeps the field's value in the input, and its verbatim copy."""
    if not mods.accessors:
        pytest.skip("the open style has no setters")
    Bag = mods.load("collections").Bag
    wire = Bag(title="t", tags=["a"], counts={"k": 1}).serialize()
    for lazy in (True, False):
        msg = Bag.parse(wire, lazy=lazy)
        with pytest.raises(TypeError):
            msg.set_tags(["b", 5])
        with pytest.raises(TypeError):
            msg.set_counts({"j": "x"})
        assert msg.serialize() == wire
        assert msg.get_tags() == ["a"] and msg.get_counts() == {"k": 1}


def test_unknown_fields_keep_the_input_whole(mods: Modules) -> None:
    """Input with unknown fields is kept as before the layout: decoded whole on first access."""
    if not mods.accessors:
        pytest.skip("the deferred layout is opaque; the open style has no getters")
    Bag = mods.load("collections").Bag
    wire = Bag(title="t", count=3, tags=["a"]).serialize() + b"\xa0\x06\x07"  # field 100 = 7
    msg = Bag.parse(wire, lazy=True)
    if deferred_layout(mods):
        assert msg._pb_deferred is None and msg._pb_kept_input() == wire
    assert msg.get_count() == 3 and msg.get_tags() == ["a"]
    assert msg.unknown_fields() == b"\xa0\x06\x07"
    assert msg.serialize() == wire


def ln(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload



def test_a_container_is_made_from_its_first_occurrence_to_the_end_of_its_last(mods: Modules) -> None:
    """A repeated field's or map's place is where its first occurrence starts << 32 | where its last
    ends: its first read walks no further (the fields after it are not stepped over again)."""
    if not deferred_layout(mods):
        pytest.skip("the deferred layout is opaque")
    Bag = mods.load("collections").Bag
    head = ln(1, b"t")
    tags = ln(8, b"a") + ln(1, b"u") + ln(8, b"b")  # interleaved: merged as a decode merges them
    counts = ln(10, ln(1, b"k") + b"\x10\x01")
    wire = head + tags + counts + ln(14, b"n" * 40)
    msg = Bag.parse(wire, lazy=True)
    state = msg._pb_deferred
    assert state is not None
    assert (state.s8 >> 32, state.s8 & 0xFFFFFFFF) == (len(head), len(head) + len(tags))
    assert (state.s10 >> 32, state.s10 & 0xFFFFFFFF) == (len(head + tags), len(head + tags + counts))
    assert msg.get_tags() == ["a", "b"] and msg.get_counts() == {"k": 1} and msg.get_title() == "u"
    assert msg.serialize() == Bag.parse(wire, lazy=False).serialize()



def test_parse_defers_the_layout_at_every_size_where_it_defers(mods: Modules) -> None:
    """Compiled, parse(data) defers a class of the layout however short its input (its first reads
    make each field alone); lazy=False decodes at once."""
    if not deferred_layout(mods):
        pytest.skip("the deferred layout is opaque")
    Bag = mods.load("collections").Bag
    wire = Bag(title="t", count=3, tags=["a"]).serialize()
    assert len(wire) < DEFER_MIN_BYTES
    assert (Bag.parse(wire)._pb_deferred is not None) is (NATIVE and lazy_decoding())
    assert Bag.parse(wire, lazy=False)._pb_deferred is None
    assert Bag.parse(wire).get_tags() == ["a"]


BAD_UTF8 = b"\xff\xfe"
HOSTILE = {
    "a string of bad UTF-8": ln(1, BAD_UTF8),
    "a repeated string of bad UTF-8": ln(8, b"ok") + ln(8, BAD_UTF8),
    "a map key of bad UTF-8": ln(10, ln(1, BAD_UTF8) + b"\x10\x01"),
    "an element's bad UTF-8": ln(9, ln(1, BAD_UTF8)),
    "a map value's bad UTF-8": ln(11, b"\x08\x01" + ln(2, ln(1, BAD_UTF8))),
    "a string past the end": b"\x0a\x05ab",
    "a varint over 10 bytes": b"\x18" + b"\xff" * 10 + b"\x01",
    "a varint cut short": b"\x18\xff\xff",
    "a double cut short": b"\x29\x00\x00",
    "a packed run cut short": ln(7, b"\x01\x80"),
    "packed fixed64s of 7 bytes": ln(12, b"\x00" * 7),
    "a map entry past its length": ln(10, b"\x0a\x05ab"),
    "a field number 0": b"\x00\x01",
    "a two-byte tag cut short": b"\x80",
    "a stray end-group": b"\x1c",
}


@pytest.mark.parametrize("wire", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_input_fails_at_parse(mods: Modules, wire: bytes) -> None:
    Bag = mods.load("collections").Bag
    with pytest.raises(DecodeError) as eager:
        Bag.parse(wire, lazy=False)
    with pytest.raises(DecodeError) as deferred:
        Bag.parse(wire, lazy=True)
    if deferred_layout(mods):  # the scan's error, as before the layout
        with pytest.raises(DecodeError) as scanned:
            Bag._pb_scan(wire, 0, len(wire), 100)
        assert str(deferred.value) == str(scanned.value)
    assert str(eager.value) and str(deferred.value)


@pytest.mark.parametrize("size", range(18))
def test_strings_of_every_size_are_checked_wherever_they_lie(mods: Modules, size: int) -> None:
    """Compiled, a string of up to 16 bytes that is ASCII is checked inline, in the word that ends
    with it or the two it spans (templates/_codec.py.j2, check_utf8): a byte with its top bit set at
    any place in it sends it to the full check, which rejects bad UTF-8 and takes good, with or
    without eight bytes of input before its end."""
    Bag = mods.load("collections").Bag
    for before in (b"", ln(2, b"\xff" * 9)):  # the bytes before it: non-ASCII, not its
        assert Bag.parse(before + ln(1, b"a" * size)).get_title() == "a" * size
        for at in range(size):
            for lone in (b"\xff", b"\x80", b"\xc3"):
                with pytest.raises(DecodeError, match="UTF-8"):
                    Bag.parse(before + ln(1, b"a" * at + lone + b"a" * (size - at - 1)))
            text = "a" * at + "\u00e9" + "a" * (size - at - 1)
            assert Bag.parse(before + ln(1, text.encode())).get_title() == text
            assert Bag.parse(before + ln(8, text.encode())).get_tags() == [text]


@given(data=st.data())
@settle
def test_mutated_input_is_accepted_as_a_decode_accepts_it(mods: Modules, data: st.DataObject) -> None:
    Bag = mods.load("collections").Bag
    wire = bytearray(data.draw(bag_input(mods)))
    for _ in range(data.draw(st.integers(1, 3))):
        if wire:
            wire[data.draw(st.integers(0, len(wire) - 1))] = data.draw(st.integers(0, 255))
    wire = bytes(wire[:data.draw(st.integers(0, len(wire)))])
    try:
        decoded = Bag.parse(wire, lazy=False)
    except DecodeError:
        with pytest.raises(DecodeError):
            Bag.parse(wire, lazy=True)
        return
    deferred = Bag.parse(wire, lazy=True)
    assert deferred.serialize(deterministic=True) == decoded.serialize(deterministic=True)
    assert deferred == decoded


# -- threads: one value per field, and a write never undone by a first read -------------------

SAMPLE = {"title": "t" * 30, "tags": ["a"] * 30, "counts": {f"k{i}": i for i in range(30)},
          "blob": b"b" * 30, "count": 4}


def test_concurrent_first_reads_share_one_value(mods: Modules) -> None:
    if not mods.accessors:
        pytest.skip("the deferred layout is opaque; the open style has no getters")
    Bag = mods.load("collections").Bag
    wire = Bag(**SAMPLE).serialize()
    for _ in range(40):
        msg = Bag.parse(wire, lazy=True)
        tags = run_together(*[msg.get_tags] * 6)
        assert len({id(t) for t in tags}) == 1 and tags[0] == SAMPLE["tags"]
        counts = run_together(*[msg.get_counts] * 6)
        assert len({id(c) for c in counts}) == 1 and counts[0] == SAMPLE["counts"]
        assert run_together(*[msg.get_title] * 6) == [SAMPLE["title"]] * 6


@pytest.mark.parametrize("name, value", [("title", "new"), ("blob", b"new"), ("tags", ["new"]),
                                         ("counts", {"new": 1}), ("count", 9)])
def test_a_write_is_not_undone_by_a_concurrent_first_read(mods: Modules, name: str, value: Any) -> None:
    if not mods.accessors:
        pytest.skip("the deferred layout is opaque; the open style has no getters")
    Bag = mods.load("collections").Bag
    wire = Bag(**SAMPLE).serialize()
    get, put = f"get_{name}", f"set_{name}"
    for _ in range(40):
        msg = Bag.parse(wire, lazy=True)
        run_together(getattr(msg, get), partial(getattr(msg, put), value), getattr(msg, get), msg.serialize)
        assert getattr(msg, get)() == value
        assert Bag.parse(msg.serialize()) == Bag(**{**SAMPLE, name: value})
    for _ in range(40):
        msg = Bag.parse(wire, lazy=True)
        run_together(getattr(msg, get), getattr(msg, f"clear_{name}"), getattr(msg, get))
        assert Bag.parse(msg.serialize()) == Bag(**{k: v for k, v in SAMPLE.items() if k != name})


def test_float_fields_keep_their_bits(mods: Modules) -> None:
    """A double's and a float's bits as read (-0.0 and the extremes), stored by the scan."""
    if not mods.accessors:
        pytest.skip("the deferred layout is opaque; the open style has no getters")
    Bag = mods.load("collections").Bag
    for ratio in (-0.0, 5e-324, 1.7976931348623157e308, float("inf")):
        wire = b"\x29" + struct.pack("<d", ratio) + b"\x85\x01" + struct.pack("<f", -0.0)
        msg = Bag.parse(wire, lazy=True)
        assert struct.pack("<d", msg.get_ratio()) == struct.pack("<d", ratio)
        assert struct.pack("<f", msg.get_weight()) == struct.pack("<f", -0.0)


# varints as encoders write them and as they do not: padded, out of their kind's range, ten bytes
VARINTS = [b"\x01", b"\x81\x00", b"\xff\x7f", b"\xff\xff\xff\xff\x07", b"\x80\x80\x80\x80\x08",
           b"\xff\xff\xff\xff\x0f", b"\x80\x80\x80\x80\x10", b"\x80\x80\x80\x80\x80\x01", b"\xff" * 9 + b"\x01",
           b"\xff" * 9 + b"\x7f", b"\x80" * 9 + b"\x01", b"\xfe\xff\xff\xff\xff\xff\xff\xff\x7f", b"\x80\x00"]
# Scalars' integer varint fields: f_int64 (3), f_uint64 (4), f_int32 (5), f_uint32 (11), f_sint32 (14),
# f_sint64 (15), opt_int32 (16, with presence)
VARINT_FIELDS = {"f_int64": b"\x18", "f_uint64": b"\x20", "f_int32": b"\x28", "f_uint32": b"\x58",
                 "f_sint32": b"\x70", "f_sint64": b"\x78", "opt_int32": b"\x80\x01"}


@pytest.mark.parametrize("name", VARINT_FIELDS)
def test_varints_decode_and_judge_as_the_scan(mods: Modules, name: str) -> None:
    """The deferred parse decodes each varint once and judges its encoding from the value: the
    value a decode gives, and written back as it came exactly when the scan calls it canonical."""
    if not mods.accessors:
        pytest.skip("the deferred layout is opaque; the open style has no getters")
    Scalars = mods.load("scalars").Scalars
    for encoded in VARINTS:
        wire = VARINT_FIELDS[name] + encoded
        deferred, decoded = Scalars.parse(wire, lazy=True), Scalars.parse(wire, lazy=False)
        assert getattr(deferred, f"get_{name}")() == getattr(decoded, f"get_{name}")(), encoded
        if deferred_layout(mods):
            assert (deferred._pb_kept_input() is not None) == Scalars._pb_scan(wire, 0, len(wire), 100), encoded
        assert deferred.serialize() == (wire if deferred._pb_kept_input() is not None else decoded.serialize())
