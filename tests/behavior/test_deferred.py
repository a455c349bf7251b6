"""The deferred parse: ``parse(lazy=True)``, and the default parse of the compiled opaque build.

It checks everything a decode checks (wire structure, lengths, varints, groups, depth, UTF-8,
required fields), keeps the input and decodes it on first access; an untouched message
serializes as its input. Open and hybrid classes decode at parse; the same tests check that
they give the same answers.
"""

from __future__ import annotations

import sys

import pytest

from protoc_gen_pyopaque.runtime import DecodeError, message
from tests.behavior.conftest import Modules


def deferred(mods: Modules) -> bool:
    return mods.style in ("opaque", "hybrid-opaque")


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
    data = ln(2, b"a") + b"\x08\x81\x00" + ln(3, item(b"x"))  # a two-byte varint 1: not canonical
    canonical = b"\x0a\x01\x01" + ln(2, b"a") + ln(3, item(b"x"))  # in field number order
    assert (Collections.parse(data, lazy=True).serialize() is data) is deferred(mods)
    default = Collections.parse(data)
    assert (default.serialize() is data) is (deferred(mods) and message.DEFER_BY_DEFAULT)
    assert Collections.parse(data, lazy=False).serialize() == canonical
    msg = Collections.parse(data, lazy=True)
    assert msg.get_names() == ["a"]  # a read decodes: serialize encodes again, canonically
    assert msg.serialize() == canonical


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
