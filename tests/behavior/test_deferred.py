"""The deferred parse: ``parse(lazy=True)``, and the default parse of the compiled opaque build.

It checks everything a decode checks (wire structure, lengths, varints, groups, depth, UTF-8,
required fields), keeps the input and decodes it on first access; an untouched message
serializes as its input. Open and hybrid classes decode at parse; the same tests check that
they give the same answers.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from protoc_gen_pyopaque.runtime import DecodeError
from protoc_gen_pyopaque.runtime._kept import KEEP_COPY_BELOW, MAP_KEYS_COMPARED_IN_PLACE
from protoc_gen_pyopaque.runtime._wire import NATIVE
from protoc_gen_pyopaque.runtime.message import DEFER_MIN_BYTES
from tests.behavior.conftest import Modules


def deferred(mods: Modules) -> bool:
    return mods.style in ("opaque", "hybrid-opaque", "deferred-classes")


def written_back(msg: Any) -> bool:
    """Whether serialize() writes ``msg``'s kept input back as it was read (neither decoded nor
    encoded again): a short input is kept as a copy, so the output is equal, not the same object."""
    return msg._pb_kept_input() is not None


def ln(number: int, payload: bytes) -> bytes:
    """A length-delimited field (payloads under 128 bytes)."""
    return bytes([number << 3 | 2, len(payload)]) + payload


def item(key: bytes = b"", color: int = 0) -> bytes:
    """A Collections.Item: key (1, string), color (2, enum)."""
    return (ln(1, key) if key else b"") + (bytes([0x10, color]) if color else b"")


BAD_UTF8 = b"\xff\xfe"
# Collections: packed_ints (1), names (2), items (3), counts (5: map<string, int64>),
# items_by_id (6: map<int32, Item>), text (7) and item (8) in a oneof
INVALID = {
    "a nested string": ln(3, item(BAD_UTF8)),
    "a repeated string": ln(2, b"ok") + ln(2, BAD_UTF8),
    "a map key": ln(5, ln(1, BAD_UTF8) + b"\x10\x01"),
    "a map value's string": ln(6, b"\x08\x01" + ln(2, item(BAD_UTF8))),
    "a oneof string": ln(7, BAD_UTF8),
    "a varint over 10 bytes": b"\x08" + b"\xff" * 10 + b"\x01",
    "a packed varint over 10 bytes": ln(1, b"\xff" * 10 + b"\x01"),
    "a packed run cut short": ln(1, b"\x01\x80"),
    "a length past the end": b"\x1a\x05\x0a\x01a",
    "a nested length past its message": ln(3, b"\x0a\x05abc"),
    "a field number 0": b"\x00\x01",
    "an unterminated group": b"\xa3\x06",
    "a stray end-group": b"\xa4\x06",
}


@pytest.mark.parametrize("what", list(INVALID))
def test_invalid_input_is_rejected_at_parse(mods: Modules, what: str) -> None:
    Collections = mods.load("collections").Collections
    for lazy in (True, None, False):
        with pytest.raises(DecodeError):
            Collections.parse(INVALID[what], lazy=lazy)


def test_depth_limit_is_checked_at_parse(mods: Modules) -> None:
    Collections = mods.load("collections").Collections
    data = ln(3, item(b"k")) + ln(6, b"\x08\x01" + ln(2, item(b"v")))
    for lazy in (True, None, False):
        with pytest.raises(DecodeError, match="deeper than the limit"):
            Collections.parse(data, lazy=lazy, max_depth=0)
        assert Collections.parse(data, lazy=lazy, max_depth=1).get_items()[0].get_key() == "k"


def test_required_fields_are_checked_at_parse(mods: Modules) -> None:
    Legacy = mods.load("legacy").Legacy
    for lazy in (True, None, False):
        with pytest.raises(DecodeError, match="missing required fields: id"):
            Legacy.parse(b"", lazy=lazy)
        assert not Legacy.parse(b"", lazy=lazy, partial=True).is_initialized()


def test_merge_semantics_of_repeated_interleaved_and_split_fields(mods: Modules) -> None:
    Collections = mods.load("collections").Collections
    data = (ln(2, b"a") + ln(3, item(b"x")) + b"\x0a\x01\x05" + ln(8, item(b"k"))  # oneof item, part 1
            + ln(2, b"b") + ln(5, ln(1, b"n") + b"\x10\x01") + ln(3, item(b"y", 2))
            + b"\x08\x06" + ln(8, item(color=1))  # oneof item, part 2: merged into part 1
            + ln(5, ln(1, b"n") + b"\x10\x07") + ln(2, b"c"))  # a repeated map key: the last value wins
    eager = Collections.parse(data, lazy=False)
    for lazy in (True, None):
        msg = Collections.parse(data, lazy=lazy)
        assert msg == eager
        assert msg.get_names() == ["a", "b", "c"]
        assert [(i.get_key(), i.get_color()) for i in msg.get_items()] == [("x", 0), ("y", 2)]
        assert msg.get_packed_ints() == [5, 6]
        assert msg.get_counts() == {"n": 7}
        assert (msg.get_item().get_key(), msg.get_item().get_color()) == ("k", 1)


def test_an_untouched_message_serializes_as_its_input(mods: Modules) -> None:
    Collections = mods.load("collections").Collections
    data = b"\x0a\x01\x01" + ln(2, b"a") + ln(3, item(b"x"))  # canonical: as serialize writes it
    assert Collections.parse(data, lazy=False).serialize() == data
    assert written_back(Collections.parse(data, lazy=True)) is deferred(mods)
    assert not written_back(Collections.parse(data))  # under DEFER_MIN_BYTES: decoded at once
    large = b"\x0a\x01\x01" + ln(2, b"a") + ln(2, b"b" * 100) * 10 + ln(3, item(b"x"))  # 1 KiB and more
    assert DEFER_MIN_BYTES <= len(large) < KEEP_COPY_BELOW  # kept as a copy
    assert written_back(Collections.parse(large)) is (deferred(mods) and NATIVE)  # compiled: deferred by default
    larger = b"\x0a\x01\x01" + ln(2, b"a") + ln(2, b"b" * 100) * 25 + ln(3, item(b"x"))
    assert len(larger) >= KEEP_COPY_BELOW  # kept by reference: written back as the same object
    assert (Collections.parse(larger).serialize() is larger) is (deferred(mods) and NATIVE)
    msg = Collections.parse(data, lazy=True)
    assert msg.get_names() == ["a"]  # a read decodes: serialize encodes again
    assert msg.serialize() == data and not written_back(msg)


def varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    return bytes(out + bytes([v]))


def fixed(v: int, width: int) -> bytes:
    return v.to_bytes(width, "little")


# Input that is not what serialize writes (the scan must notice: serialize encodes again), and
# its nearest canonical counterpart (written back as read). (module, class, non-canonical, canonical)
# Scalars: every field without presence but opt_int32 (16) and opt_string (17).
CANONICAL_PAIRS = {
    "fields out of order": ("scalars", "Scalars", b"\x28\x01\x18\x01", b"\x18\x01\x28\x01"),
    "a singular field twice": ("scalars", "Scalars", b"\x28\x01\x28\x02", b"\x28\x02"),
    "an unknown field before a known one": ("scalars", "Scalars", b"\xa0\x1f\x01\x28\x01",
                                            b"\x28\x01\xa0\x1f\x01"),
    "a varint at its default (implicit presence)": ("scalars", "Scalars", b"\x18\x01\x28\x00", b"\x18\x01"),
    "an empty string (implicit presence)": ("scalars", "Scalars", b"\x4a\x00", b"\x4a\x01a"),
    "empty bytes (implicit presence)": ("scalars", "Scalars", b"\x52\x00", b"\x52\x01\x00"),
    "a fixed32 zero (implicit presence)": ("scalars", "Scalars", b"\x3d" + fixed(0, 4), b"\x3d" + fixed(1, 4)),
    "a double +0.0 (implicit; -0.0 is written)": ("scalars", "Scalars", b"\x09" + fixed(0, 8),
                                                  b"\x09" + fixed(1 << 63, 8)),
    "a float +0.0 (implicit; -0.0 is written)": ("scalars", "Scalars", b"\x15" + fixed(0, 4),
                                                 b"\x15" + fixed(1 << 31, 4)),
    "a float32 signalling NaN (comes back quiet)": ("scalars", "Scalars", b"\x15" + fixed(0xFF800001, 4),
                                                    b"\x15" + fixed(0xFFC00001, 4)),
    "a sfixed64 zero (implicit presence)": ("scalars", "Scalars", b"\x69" + fixed(0, 8), b"\x69" + fixed(5, 8)),
    "a default with explicit presence is written": ("scalars", "Scalars", b"\x80\x01\x01\x80\x01\x00",
                                                    b"\x80\x01\x00"),
    "a varint longer than it needs": ("scalars", "Scalars", b"\x28\x81\x00", b"\x28\x81\x01"),
    "a uint64 with a zero last byte": ("scalars", "Scalars", b"\x20\xff\x80\x00", b"\x20\xff\x7f"),
    "a tag longer than it needs": ("scalars", "Scalars", b"\xa8\x00\x01", b"\x28\x01"),
    "a two-byte tag longer than it needs": ("scalars", "Scalars", b"\x80\x81\x00\x01", b"\x80\x01\x01"),
    "a length longer than it needs": ("scalars", "Scalars", b"\x4a\x81\x00a", b"\x4a\x01a"),
    "a bool of 2": ("scalars", "Scalars", b"\x40\x02", b"\x40\x01"),
    "a bool of 0 (implicit presence)": ("scalars", "Scalars", b"\x40\x00", b"\x40\x01"),
    "a bool in two bytes": ("scalars", "Scalars", b"\x40\x81\x00", b"\x40\x01"),
    "a negative int32 in five bytes (ten are written)": ("scalars", "Scalars", b"\x28" + b"\xff" * 4 + b"\x0f",
                                                         b"\x28" + varint((1 << 64) - 1)),
    "an int32 beyond 32 bits (truncated)": ("scalars", "Scalars", b"\x28" + varint((1 << 32) + 1),
                                            b"\x28" + varint((1 << 31) - 1)),
    "a ten-byte int32 that is not a sign extension": ("scalars", "Scalars", b"\x28" + varint((1 << 63) + 5),
                                                      b"\x28" + varint((1 << 64) - (1 << 31))),
    "a uint32 beyond 32 bits": ("scalars", "Scalars", b"\x58" + varint(1 << 32), b"\x58" + varint((1 << 32) - 1)),
    "a sint32 beyond 32 bits": ("scalars", "Scalars", b"\x70" + varint(1 << 32), b"\x70" + varint((1 << 32) - 1)),
    "a uint64's tenth byte beyond bit 63": ("scalars", "Scalars", b"\x20" + b"\xff" * 9 + b"\x7f",
                                            b"\x20" + b"\xff" * 9 + b"\x01"),
    "expanded where the field is packed": ("collections", "Collections", b"\x08\x01\x08\x02",
                                           b"\x0a\x02\x01\x02"),
    "two packed runs": ("collections", "Collections", b"\x0a\x01\x01\x0a\x01\x02", b"\x0a\x02\x01\x02"),
    "an empty packed run": ("collections", "Collections", b"\x0a\x00" + ln(2, b"a"), ln(2, b"a")),
    "a packed varint longer than it needs": ("collections", "Collections", b"\x0a\x02\x81\x00",
                                             b"\x0a\x02\x81\x01"),
    "a packed float32 signalling NaN": ("collections", "Collections", b"\x5a\x04" + fixed(0x7F800001, 4),
                                        b"\x5a\x04" + fixed(0x7FC00001, 4)),
    "a repeated field interleaved": ("collections", "Collections", ln(2, b"a") + ln(3, b"") + ln(2, b"b"),
                                     ln(2, b"a") + ln(2, b"b") + ln(3, b"")),
    "a oneof given twice": ("collections", "Collections", ln(7, b"t") + ln(8, b""), ln(8, b"")),
    "a sub-message not canonical": ("collections", "Collections", ln(3, b"\x10\x00"), ln(3, b"\x10\x01")),
    "a sub-message in a oneof not canonical": ("collections", "Collections", ln(8, b"\x10\x00"),
                                               ln(8, b"\x10\x01")),
    "a map entry without its value (both are written)": ("collections", "Collections", ln(5, ln(1, b"n")),
                                                         ln(5, ln(1, b"n") + b"\x10\x00")),
    "a map entry's value before its key": ("collections", "Collections", ln(5, b"\x10\x01" + ln(1, b"n")),
                                           ln(5, ln(1, b"n") + b"\x10\x01")),
    "a map entry with another field (kept among the unknown fields)": (
        "collections", "Collections", ln(5, ln(1, b"n") + b"\x10\x01\x18\x01") + ln(2, b"a"),
        ln(2, b"a") + ln(5, ln(1, b"n") + b"\x10\x01")),
    "a map key given twice": ("collections", "Collections",
                              ln(5, ln(1, b"n") + b"\x10\x01") + ln(5, ln(1, b"n") + b"\x10\x02"),
                              ln(5, ln(1, b"n") + b"\x10\x01") + ln(5, ln(1, b"m") + b"\x10\x02")),
    "an int map key given twice": ("collections", "Collections",
                                   ln(6, b"\x08\x05" + ln(2, b"")) + ln(6, b"\x08\x07" + ln(2, b""))
                                   + ln(6, b"\x08\x05" + ln(2, b"")),
                                   ln(6, b"\x08\x05" + ln(2, b"")) + ln(6, b"\x08\x07" + ln(2, b""))
                                   + ln(6, b"\x08\x06" + ln(2, b""))),
    "a map's entries interleaved": ("collections", "Collections",
                                    ln(5, ln(1, b"n") + b"\x10\x01") + ln(2, b"a") + ln(5, ln(1, b"m") + b"\x10\x01"),
                                    ln(2, b"a") + ln(5, ln(1, b"n") + b"\x10\x01") + ln(5, ln(1, b"m") + b"\x10\x01")),
    "a map value message not canonical": ("collections", "Collections", ln(6, b"\x08\x01" + ln(2, b"\x10\x00")),
                                          ln(6, b"\x08\x01" + ln(2, b"\x10\x01"))),
    "a map bool key of 2": ("collections", "Collections", ln(10, b"\x08\x02\x10\x01"),
                            ln(10, b"\x08\x01\x10\x01")),
    "a [lazy] field twice (merged)": ("edition2024", "Node", ln(3, b"\x08\x01") + ln(3, b"\x08\x02"),
                                      ln(3, b"\x08\x02")),
    # Stamped: name (1), at (2: Timestamp), detail (3: Any), meta (4: Struct), history (5: repeated
    # Timestamp), by_key (6: map<string, Timestamp>); their classes ship in the runtime
    "a Timestamp's fields out of order": ("wellknown", "Stamped", ln(2, b"\x10\x01\x08\x01"),
                                          ln(2, b"\x08\x01\x10\x01")),
    "a Timestamp's seconds at zero": ("wellknown", "Stamped", ln(2, b"\x08\x00\x10\x01"), ln(2, b"\x10\x01")),
    "an Any's value before its type": ("wellknown", "Stamped", ln(3, ln(2, b"v") + ln(1, b"t")),
                                       ln(3, ln(1, b"t") + ln(2, b"v"))),
    "a Struct's Value a bool of 2": ("wellknown", "Stamped", ln(4, ln(1, ln(1, b"k") + ln(2, b"\x20\x02"))),
                                     ln(4, ln(1, ln(1, b"k") + ln(2, b"\x20\x01")))),
    "a Struct's key given twice": ("wellknown", "Stamped",
                                   ln(4, ln(1, ln(1, b"k") + ln(2, b"\x20\x01")) + ln(1, ln(1, b"k") + ln(2, b"\x20\x00"))),
                                   ln(4, ln(1, ln(1, b"k") + ln(2, b"\x20\x01")) + ln(1, ln(1, b"j") + ln(2, b"\x20\x00")))),
    "a repeated Timestamp's varint longer than it needs": ("wellknown", "Stamped", ln(5, b"\x08\x81\x00"),
                                                           ln(5, b"\x08\x81\x01")),
    "a map's Timestamp value not canonical": ("wellknown", "Stamped", ln(6, ln(1, b"k") + ln(2, b"\x10\x01\x08\x01")),
                                              ln(6, ln(1, b"k") + ln(2, b"\x08\x01\x10\x01"))),
}


@pytest.mark.parametrize("what", list(CANONICAL_PAIRS))
def test_only_canonical_input_is_written_back_as_read(mods: Modules, what: str) -> None:
    module, name, other, canonical = CANONICAL_PAIRS[what]
    cls = getattr(mods.load(module), name)
    encoded = cls.parse(other, lazy=False).serialize()
    assert encoded != other
    assert cls.parse(other, lazy=True).serialize() == encoded
    assert cls.parse(other).serialize() == encoded
    assert cls.parse(canonical, lazy=False).serialize() == canonical
    assert written_back(cls.parse(canonical, lazy=True)) is deferred(mods)
    assert cls.parse(canonical, lazy=True).serialize() == canonical


@pytest.mark.parametrize("n", [2, MAP_KEYS_COMPARED_IN_PLACE, MAP_KEYS_COMPARED_IN_PLACE + 1, 1000])
def test_a_map_key_given_twice_is_found_in_a_map_of_any_size(mods: Modules, n: int) -> None:
    """Every key of a map is checked, in linear time (compiled, small maps in place, larger ones
    through a set): distinct keys come back as read, sorted or not; a key given twice anywhere
    is encoded again (the last value, in the first one's place)."""
    import random

    Collections = mods.load("collections").Collections
    rng = random.Random(n)
    names = [b"k%d" % i for i in range(n)]
    numbers = [rng.randrange(1 << 31) for _ in range(n)]
    numbers = sorted(set(numbers))

    def counts(keys: list[bytes]) -> bytes:  # map<string, int64>
        return b"".join(ln(5, ln(1, k) + b"\x10\x01") for k in keys)

    def items_by_id(keys: list[int]) -> bytes:  # map<int32, Item>
        return b"".join(ln(6, b"\x08" + varint(k) + ln(2, b"")) for k in keys)

    for data in (counts(names), counts(rng.sample(names, n)),
                 items_by_id(numbers), items_by_id(rng.sample(numbers, len(numbers)))):
        assert written_back(Collections.parse(data, lazy=True)) is deferred(mods)
        assert Collections.parse(data, lazy=False).serialize() == data
    shuffled = rng.sample(names, len(names))
    for twice in (names + names[:1], shuffled[:-1] + shuffled[-2:-1], names[:1] + names,
                  shuffled[: n // 2] + shuffled[n // 2 - 1:]):
        data = counts(twice)
        encoded = Collections.parse(data, lazy=False).serialize()
        assert encoded != data
        assert Collections.parse(data, lazy=True).serialize() == encoded
    data = items_by_id(numbers + numbers[-1:])
    assert Collections.parse(data, lazy=True).serialize() == Collections.parse(data, lazy=False).serialize() != data


def test_an_embedded_message_is_written_back_only_when_canonical(mods: Modules) -> None:
    Collections = mods.load("collections").Collections
    canonical, other = b"\x0a\x01k\x10\x01", b"\x10\x01\x0a\x01k"
    for data in (canonical, other):
        child = Collections.Item.parse(data, lazy=True)
        assert Collections(item=child).serialize() == ln(8, canonical)
        assert child.serialize(deterministic=True) == canonical


@pytest.mark.parametrize("child", ["at", "detail", "meta"])
def test_a_well_known_child_is_written_back_while_untouched(mods: Modules, child: str) -> None:
    """Children of the well-known types (hybrid classes, or their opaque twins) are checked by
    their own scans: canonical input comes back as read, until a child is changed."""
    Stamped = mods.load("wellknown").Stamped
    data = (ln(1, b"n") + ln(2, b"\x08\x05\x10\x01") + ln(3, ln(1, b"t") + ln(2, b"v"))
            + ln(4, ln(1, ln(1, b"k") + ln(2, b"\x20\x01"))) + ln(5, b"\x08\x07") + ln(6, ln(1, b"k") + ln(2, b"\x08\x09")))
    assert Stamped.parse(data, lazy=False).serialize() == data
    assert written_back(Stamped.parse(data, lazy=True)) is deferred(mods)
    msg = Stamped.parse(data, lazy=True)
    sub = msg.get(child)
    # the accessors, which hybrid classes and their opaque twins both have: which of the two a
    # module holds depends on what the process imported first (the protoopaque switch)
    if child == "at":
        sub.set_seconds(6)
        changed = data.replace(b"\x08\x05", b"\x08\x06")
    elif child == "detail":
        sub.set_value(b"w")
        changed = data.replace(ln(2, b"v"), ln(2, b"w"))
    else:
        sub.copy_from(type(sub).from_python({"k": False}))  # a bool Value: written even when false
        changed = data.replace(b"\x20\x01", b"\x20\x00")
    assert msg.serialize() == changed
    assert Stamped.parse(changed, lazy=False).serialize() == changed


def test_lazy_field_contents_are_written_back_as_read(mods: Modules) -> None:
    """A [lazy] field keeps its bytes in a decode too: the scan takes them as they are."""
    Node = mods.load("edition2024").Node
    data = b"\x08\x01" + ln(3, b"\x08\x81\x00")  # the lazy child's varint is not minimal
    assert written_back(Node.parse(data, lazy=True)) is deferred(mods)
    assert Node.parse(data, lazy=True).serialize() == Node.parse(data).serialize()


@pytest.mark.parametrize("change", ["list", "dict", "sub-message", "setter"])
def test_mutation_ends_verbatim_reemission(mods: Modules, change: str) -> None:
    Collections = mods.load("collections").Collections
    data = ln(2, b"a") + ln(3, item(b"x")) + ln(5, ln(1, b"n") + b"\x10\x01")
    msg = Collections.parse(data, lazy=True)
    if change == "list":
        msg.get_names().append("b")
    elif change == "dict":
        msg.get_counts()["m"] = 2
    elif change == "sub-message" and mods.accessors:
        msg.get_items()[0].set_key("y")
    elif change == "sub-message":
        msg.items[0].key = "y"
    elif mods.accessors:
        msg.set_text("t")
    else:
        msg.text = "t"
    again = Collections.parse(msg.serialize(), lazy=False)
    assert again.get_names() == (["a", "b"] if change == "list" else ["a"])
    assert again.get_counts() == ({"n": 1, "m": 2} if change == "dict" else {"n": 1})
    assert again.get_items()[0].get_key() == ("y" if change == "sub-message" else "x")
    assert again.get_text() == ("t" if change == "setter" else "")


def test_a_kept_input_is_held_until_first_access(mods: Modules) -> None:
    """The documented trade-off: an untouched message keeps its whole input alive; a read (or
    parse(lazy=False)) lets it go."""
    Collections = mods.load("collections").Collections
    data = bytes(ln(2, b"a") * 1000)
    before = sys.getrefcount(data)
    msg = Collections.parse(data, lazy=True)
    assert sys.getrefcount(data) - before == (1 if deferred(mods) else 0)
    assert len(msg.get_names()) == 1000
    assert sys.getrefcount(data) == before
    eager = Collections.parse(data, lazy=False)
    assert sys.getrefcount(data) == before
    assert eager == msg


def test_written_back_as_read_only_when_a_decode_would_write_the_same(mods: Modules) -> None:
    """Seeded shuffles, repeats and byte changes of a message's fields: whatever parses, a
    deferred parse serializes as an eager one does, and canonical variants come back as read."""
    import random

    from protoc_gen_pyopaque.runtime import _wire

    Collections = mods.load("collections").Collections
    base = (b"\x0a\x04\x01\x81\x01\x7f" + ln(2, b"a") + ln(2, b"") + ln(3, item(b"x", 1)) + ln(3, b"")
            + b"\x22\x02\x01\x02" + ln(5, ln(1, b"n") + b"\x10\x05") + ln(5, ln(1, b"") + b"\x10\x00")
            + ln(6, b"\x08\x07" + ln(2, item(b"v"))) + ln(8, item(b"k", 2))
            + ln(10, b"\x08\x01\x10\x02") + b"\x5a\x04\x00\x00\x80\x3f" + ln(12, ln(1, b"w") + b"\x15\x00\x00\x00\x00")
            + b"\xa0\x1f\x01")  # an unknown field last
    assert Collections.parse(base, lazy=False).serialize() == base
    fields = []
    pos = 0
    while pos < len(base):
        tag, end = _wire.dec_tag(base, pos)
        end = _wire.skip_field(base, tag, end, len(base), 100)
        fields.append(base[pos:end])
        pos = end
    rnd = random.Random(20)
    verbatim = 0
    for _ in range(400):
        parts = list(fields)
        for _ in range(rnd.randint(0, 2)):
            i, j = rnd.randrange(len(parts)), rnd.randrange(len(parts))
            if rnd.random() < 0.5:
                parts[i], parts[j] = parts[j], parts[i]
            else:
                parts.insert(i, parts[j])
        data = bytearray(b"".join(parts))
        for _ in range(rnd.randint(0, 1)):
            data[rnd.randrange(len(data))] = rnd.choice([0, 1, 2, 0x7F, 0x80, 0xFF])
        data = bytes(data)
        try:
            encoded = Collections.parse(data, lazy=False).serialize()
        except DecodeError:
            continue
        msg = Collections.parse(data, lazy=True)
        out = msg.serialize()
        assert out == encoded, data.hex()
        verbatim += written_back(msg)
    assert (verbatim > 50) is deferred(mods)
