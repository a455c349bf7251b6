"""The generated API in every style: construction, accessors, presence, oneofs, copies."""

from __future__ import annotations

import copy
import pickle

import pytest

from protoc_gen_pyopaque.runtime import DecodeError, EncodeError
from tests.behavior.conftest import Modules


def test_style_marker(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    expected = {"open": "open.v1", "hybrid": "hybrid.v1", "hybrid-opaque": "opaque.v1",
                "opaque": "opaque.v1", "deferred-classes": "opaque.v1"}[mods.style]
    assert Scalars.__pyopaque_api__ == expected


def test_keyword_constructor_and_round_trip(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    m = Scalars(f_int32=-7, f_string="héllo", f_double=-0.0, f_sint64=-(2**63), f_uint64=2**64 - 1,
                f_bytes=b"\x00\xff", opt_int32=0)
    back = Scalars.parse(m.serialize())
    assert back == m
    assert back.get_f_int32() == -7
    assert back.get_f_string() == "héllo"
    assert back.get_f_sint64() == -(2**63)
    assert back.get_f_uint64() == 2**64 - 1
    assert str(back.get_f_double()) == "-0.0"  # -0.0 is written even without presence
    assert back.get_opt_int32() == 0


def test_parse_makes_an_instance_of_the_class_it_is_called_on(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    data = Scalars(f_int32=5).serialize()
    assert type(Scalars.parse(data)) is Scalars
    assert type(Scalars.parse(data, lazy=True)) is Scalars
    if mods.compiled:  # native classes take no subclasses from Python code
        return

    class Sub(Scalars):
        __slots__ = ()

    got = Sub.parse(data)
    assert type(got) is Sub and got.get_f_int32() == 5


def test_presence(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    m = Scalars()
    assert m.get_opt_string() == ""
    if mods.attributes:
        assert m.opt_string is None
        m.opt_string = ""
        assert Scalars.parse(m.serialize()).opt_string == ""
    if mods.accessors:
        assert not m.has_opt_string() or mods.attributes
        m.set_opt_string("")
        assert m.has_opt_string()
        assert Scalars.parse(m.serialize()).has_opt_string()
        m.clear_opt_string()
        assert not m.has_opt_string()
        assert m.serialize() == b""


def test_oneof_never_holds_two_members(mods: Modules) -> None:
    mod = mods.load("collections")
    C = mod.Collections
    c = C(text="a")
    if mods.accessors:
        c.set_item(C.Item(key="k"))
        assert c.get_text() == ""
    else:
        c.item = C.Item(key="k")
        assert c.text is None
    assert c.which_choice() == "item"
    back = C.parse(c.serialize())
    assert back.which_choice() == "item"
    assert back.get_item() == C.Item(key="k")
    # on the wire the last member wins
    assert C.parse(C(text="x").serialize() + c.serialize()).which_choice() == "item"


def test_setters_copy_containers(mods: Modules) -> None:
    C = mods.load("collections").Collections
    names = ["a"]
    counts = {"x": 1}
    c = C(names=names, counts=counts)
    names.append("b")
    counts["y"] = 2
    assert c.get_names() == ["a"]
    assert c.get_counts() == {"x": 1}
    if mods.accessors:
        c.set_names(names)
        names.append("c")
        assert c.get_names() == ["a", "b"]


def test_opaque_hides_fields(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    m = Scalars(f_int32=3)
    assert not hasattr(m, "__dict__")
    if mods.attributes:
        assert m.f_int32 == 3
    else:
        assert not hasattr(m, "f_int32")
        with pytest.raises(AttributeError):
            m.f_int32 = 4  # type: ignore[attr-defined]


def test_copy_pickle_repr(mods: Modules) -> None:
    C = mods.load("collections").Collections
    c = C(names=["a"], items=[C.Item(key="k", color=C.Color.GREEN)], counts={"n": 5}, text="t")
    for clone in (copy.copy(c), copy.deepcopy(c), pickle.loads(pickle.dumps(c))):
        assert clone == c
        assert clone is not c
    deep = copy.deepcopy(c)
    deep.get_items()[0] = C.Item(key="other")
    assert c.get_items()[0].get_key() == "k"
    text = repr(c)
    assert "names=['a']" in text and "counts={'n': 5}" in text
    with pytest.raises(TypeError, match="unhashable"):  # mutable, like upb's messages
        hash(c)


def test_maps_and_packed(mods: Modules) -> None:
    C = mods.load("collections").Collections
    c = C(packed_ints=[1, -1, 300], counts={"b": 2, "a": 1}, items_by_id={7: C.Item(key="seven")},
          colors=[C.Color.RED, 5])
    data = c.serialize()
    assert b"\x0a" in data[:1]  # field 1 written packed (LEN)
    back = C.parse(data)
    assert back == c
    assert back.get_colors() == [1, 5]  # open enums keep unknown values
    assert C.parse(c.serialize(deterministic=True)) == c
    # both encodings of a repeated scalar are accepted whatever the declaration
    assert C.parse(b"\x08\x01\x08\x02").get_packed_ints() == [1, 2]


def test_unknown_fields_are_kept(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    unknown = b"\xa0\x06\x2a" + b"\xaa\x06\x03abc"  # fields 100 (varint) and 101 (bytes)
    m = Scalars.parse(b"\x28\x05" + unknown)
    assert m.get_f_int32() == 5
    assert m.unknown_fields() == unknown
    assert m.serialize() == b"\x28\x05" + unknown


def test_proto2_defaults_required_groups_extensions(mods: Modules) -> None:
    mod = mods.load("legacy")
    Legacy = mod.Legacy
    m = Legacy(id=1)
    assert m.get_label() == 'none "quoted" \\ end'
    assert m.get_level() == mod.Level.HIGH
    assert m.get_ratio() == float("inf")
    with pytest.raises(DecodeError, match="missing required fields: id"):
        Legacy.parse(b"")
    assert Legacy.parse(b"", partial=True).get_id() == 0
    with pytest.raises(EncodeError, match="missing required"):
        Legacy().serialize()
    point = Legacy.Point(x=1, y=2)
    m = Legacy(id=1, point=point)
    data = m.serialize()
    assert b"\x33" in data and b"\x34" in data  # start and end group tags of field 6
    assert Legacy.parse(data).get_point() == point
    m.set_extension(mod.note, "hi")
    m.set_extension(mod.tags, [1, 2])
    back = Legacy.parse(m.serialize())
    assert back.get_extension(mod.note) == "hi"
    assert back.get_extension(mod.tags) == [1, 2]
    assert back.has_extension(mod.note)
    # a closed enum's unknown value goes to unknown fields
    odd = Legacy.parse(b"\x08\x01\x18\x09")
    assert odd.get_level() == mod.Level.HIGH
    assert odd.unknown_fields() == b"\x18\x09"


def test_editions_features(mods: Modules) -> None:
    mod = mods.load("editions")
    E = mod.Edition2023
    m = E(required_legacy=1, explicit_by_default=0, implicit=0, expanded=[1, 2],
          delimited_child=E.Child(value=3), unchecked="\udcff")
    data = m.serialize()
    assert data.startswith(b"\x08\x00")  # explicit presence: zero is written
    assert b"\x20\x01\x20\x02" in data  # expanded repeated
    assert b"\x33\x08\x03\x34" in data  # delimited child is a group
    assert b"\xff" in data  # utf8_validation = NONE: invalid bytes survive as surrogate escapes
    assert E.parse(data) == m
    assert E.parse(b"\x18\x01\x38\x05").unknown_fields() == b"\x38\x05"  # closed enum


@pytest.mark.parametrize("data,message", [
    (b"\x28", "truncated"),
    (b"\x4a\x05ab", "runs past the end"),
    (b"\x4a\x02\xff\xfe", "invalid UTF-8"),
    (b"\x28\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "longer than 10 bytes"),
    (b"\x0f", "invalid wire type"),
    (b"\x00\x00", "invalid field number"),
    (b"\xa8\x80\x80\x80\x80\x00\x01", "tag longer than 5 bytes"),
    (b"\xa3\x06", "not terminated"),
    (b"\xa4\x06", "end-group"),
])
def test_malformed_input_raises_decode_error(mods: Modules, data: bytes, message: str) -> None:
    Scalars = mods.load("scalars").Scalars
    with pytest.raises(DecodeError, match=message):
        Scalars.parse(data)


def test_depth_limit(mods: Modules) -> None:
    C = mods.load("collections").Collections
    inner = C.Item(key="k").serialize()
    nested = C(item=C.Item(key="k")).serialize()
    assert C.parse(nested, max_depth=1).which_choice() == "item"
    with pytest.raises(DecodeError, match="nested deeper"):
        C.parse(nested, max_depth=0)
    assert inner


def test_unsigned_values_beyond_the_signed_range_after_a_fixed_width_field(mods: Modules) -> None:
    """Compiled, the first value read being fixed-width must not narrow later integers."""
    FixedFirst = mods.load("scalars").FixedFirst
    top64, top32 = 2**64 - 1, 2**32 - 1
    data = (b"\x09" + top64.to_bytes(8, "little") + b"\x10" + b"\xff" * 9 + b"\x01"
            + b"\x1d" + top32.to_bytes(4, "little"))
    msg = FixedFirst.parse(data)
    values = (msg.get_id(), msg.get_count(), msg.get_small()) if mods.accessors else (msg.id, msg.count, msg.small)
    assert values == (top64, top64, top32)
    assert msg.serialize() == data
