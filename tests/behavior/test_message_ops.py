"""Whole-message and by-name operations of every style (the official runtime's Clear, CopyFrom,
MergeFrom, ByteSize, ParseFromString, FindInitializationErrors, DiscardUnknownFields, HasField,
ClearField, WhichOneof, and ``m.sub.x = 1``), generic on the base class."""

from __future__ import annotations

import pytest

from protoc_gen_pyopaque.runtime import _layout
from protoc_gen_pyopaque.runtime.google.protobuf import struct_pb, timestamp_pb
from protoc_gen_pyopaque.runtime.reflect import FieldInfo, message_info as info_of
from tests.behavior.conftest import Modules


def _collections(mods: Modules) -> tuple[type, type]:
    module = mods.load("collections")
    return module.Collections, module.Collections.Item


def test_clear_everything_in_place(mods: Modules) -> None:
    Collections, Item = _collections(mods)
    m = Collections.parse(Collections(names=["a"], counts={"k": 1}, text="t").serialize() + b"\xf8\x01\x01")
    same = m
    m.clear()
    assert same is m and m == Collections() and m.unknown_fields() == b""


def test_clear_one_field_or_oneof_keeps_the_rest(mods: Modules) -> None:
    Collections, Item = _collections(mods)
    Scalars = mods.load("scalars").Scalars
    m = Collections.parse(Collections(names=["a"], counts={"k": 1}, text="t").serialize() + b"\xf8\x01\x01")
    m.clear("names")
    assert m == Collections.parse(Collections(counts={"k": 1}, text="t").serialize() + b"\xf8\x01\x01")
    m.clear("choice")
    assert m.which("choice") is None and m.get_counts() == {"k": 1}
    s = Scalars(opt_int32=0, f_int32=3)
    s.clear("opt_int32")
    assert not s.has("opt_int32") and s.get_f_int32() == 3
    with pytest.raises(ValueError, match="no field or oneof 'nope'"):
        m.clear("nope")


def test_has_and_which_by_name(mods: Modules) -> None:
    Collections, Item = _collections(mods)
    Scalars = mods.load("scalars").Scalars
    m = Collections(item=Item(key="k"))
    assert m.has("item") and m.has("choice") and not m.has("text")
    assert m.which("choice") == "item"
    assert Scalars(opt_string="").has("opt_string") and not Scalars().has("opt_string")
    with pytest.raises(ValueError, match="does not have presence"):
        Scalars().has("f_int32")
    with pytest.raises(ValueError, match="does not have presence"):
        m.has("names")
    with pytest.raises(ValueError, match="no oneof 'names'"):
        m.which("names")


def test_get_by_name_reads_as_the_official_runtime(mods: Modules) -> None:
    Collections, Item = _collections(mods)
    Scalars = mods.load("scalars").Scalars
    m = Collections(names=["a"])
    assert m.get("names") == ["a"] and m.get("counts") == {} and m.get("text") == ""
    unset = m.get("item")
    assert unset == Item() and not m.has("item")  # a default instance, not attached
    assert Scalars().get("opt_string") == "" and Scalars(f_int32=4).get("f_int32") == 4
    with pytest.raises(ValueError, match="no field 'choice'"):
        m.get("choice")


def test_mutable_creates_and_sets_an_absent_sub_message(mods: Modules) -> None:
    Collections, Item = _collections(mods)
    m = Collections(text="t")
    child = m.mutable("item")
    assert isinstance(child, Item) and m.which("choice") == "item"  # selects the oneof member
    child.set_key("k") if mods.accessors else setattr(child, "key", "k")
    assert m.mutable("item") is child and m == Collections(item=Item(key="k"))
    with pytest.raises(ValueError, match="no singular message field 'items'"):
        m.mutable("items")


def test_copy_from_and_merge_from(mods: Modules) -> None:
    Collections, Item = _collections(mods)
    a = Collections(names=["a"], counts={"x": 1}, items_by_id={1: Item(key="one")}, text="t")
    b = Collections(names=["b"], counts={"y": 2}, items_by_id={1: Item(color=Collections.Color.RED)})
    b.merge_from(a)
    assert b.get_names() == ["b", "a"] and b.get_counts() == {"y": 2, "x": 1}
    assert b.get_items_by_id()[1] == Item(key="one")  # a map entry replaces, as on the wire
    assert b.which("choice") == "text"
    c = Collections(names=["old"])
    c.copy_from(a)
    assert c == a and c is not a and c.get_items_by_id()[1] is not a.get_items_by_id()[1]
    c.copy_from(c)
    assert c == a
    with pytest.raises(TypeError, match="golden.Collections cannot merge or copy from golden.Collections.Item"):
        c.merge_from(Item())
    with pytest.raises(TypeError, match=None if mods.compiled else "cannot merge or copy from str"):  # compiled: mypyc's words
        c.copy_from("not a message")  # type: ignore[arg-type]


def test_parse_from_bytes_replaces_in_place_and_byte_size(mods: Modules) -> None:
    Collections, Item = _collections(mods)
    m = Collections(names=["gone"])
    data = Collections(counts={"k": 7}).serialize()
    m.parse_from_bytes(data)
    assert m == Collections(counts={"k": 7})
    assert m.byte_size() == len(data) == len(m.serialize())


def test_find_initialization_errors_names_field_paths(mods: Modules) -> None:
    Legacy = mods.load("legacy").Legacy
    assert Legacy().find_initialization_errors() == ["id"]
    assert not Legacy().is_initialized() and Legacy(id=1).find_initialization_errors() == []


def test_discard_unknown_fields_is_recursive(mods: Modules) -> None:
    Collections, Item = _collections(mods)
    unknown = b"\xf8\x01\x01"  # field 31, varint 1
    item = Item.parse(Item(key="k").serialize() + unknown)
    m = Collections.parse(Collections(items=[item], items_by_id={2: item}, item=item).serialize() + unknown)
    assert m.get_items()[0].unknown_fields() == unknown
    m.discard_unknown_fields()
    assert m.unknown_fields() == b""
    assert m.get_items()[0].unknown_fields() == b"" and m.get_items_by_id()[2].unknown_fields() == b""
    assert m == Collections(items=[Item(key="k")], items_by_id={2: Item(key="k")}, item=Item(key="k"))


def test_json_accepts_the_official_option_spelling(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    m = Scalars(f_int32=1)
    assert m.to_json(preserving_proto_field_name=True) == m.to_json(preserving_proto_field_names=True)
    assert '"f_int32"' in m.to_json(preserving_proto_field_name=True)
    assert m.to_dict(preserving_proto_field_name=True) == {"f_int32": 1}


def test_set_fields_read_and_written_through_the_layout(mods: Modules) -> None:
    """iter_set_fields and _pb_set (runtime/_layout.py) for each way a field records that it is set:
    implicit presence (-0.0 counts), a presence bit or None, a oneof case, repeated and map fields,
    lazy bytes (decoded first), and the shipped well-known types' generated reflection alike."""
    Collections, Item = _collections(mods)
    Scalars = mods.load("scalars").Scalars
    s = Scalars(f_double=-0.0, f_float=0.0, opt_int32=0, f_int32=3)
    assert [(f.name, v) for f, v in s.iter_set_fields()] == [("f_double", -0.0), ("f_int32", 3), ("opt_int32", 0)]
    m = Collections(names=["a"], counts={}, item=Item(key="k"))
    assert [f.name for f, _ in m.iter_set_fields()] == ["names", "item"]
    info = info_of(m)
    m._pb_set(info.by_name["text"], "t")  # another member of the oneof
    m._pb_set(info.by_name["counts"], {"x": 2})
    assert m.which("choice") == "text" and dict(m.iter_set_fields())[info.by_name["counts"]] == {"x": 2}
    with pytest.raises(KeyError):
        m._pb_set(FieldInfo(999, "nope", "nope", "nope", 9), "x")
    edition = mods.load("edition2024")
    entry = edition.LogEntry(detail=edition.LogEntry.Detail(level=2), timestamp=5)
    lazy = edition.LogEntry.parse(entry.serialize())  # detail keeps its bytes until read (the
    # default, where the style is opaque); then iter_set_fields decodes them
    detail = entry.detail if mods.attributes else entry.get_detail()
    assert [(f.name, v) for f, v in lazy.iter_set_fields()] == [("timestamp", 5), ("detail", detail)]
    lazy = edition.LogEntry.parse(entry.serialize())
    lazy._pb_set(info_of(lazy).by_name["detail"], edition.LogEntry.Detail(level=7))  # the kept bytes dropped
    assert (lazy.detail if mods.attributes else lazy.get_detail()) == edition.LogEntry.Detail(level=7)
    for wkt in (struct_pb.Value.from_json('[1, "x", {"a": null}]'), struct_pb.Struct.from_json('{"a": 1}'),
                timestamp_pb.Timestamp.from_json('"2025-01-02T03:04:05.5Z"')):
        assert _layout.items(wkt) == wkt._pb_items()
