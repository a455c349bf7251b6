"""The per-kind and per-field decisions of gen/build.py and the expressions of gen/pyexpr.py."""

from __future__ import annotations

import math
import random
import textwrap
from dataclasses import astuple, replace

import pytest

from protoc_gen_pyopaque.gen import pyexpr
from protoc_gen_pyopaque.gen.build import CODECS, field_types, json_view
from protoc_gen_pyopaque.plugin.schema import Field, MapTypes
from protoc_gen_pyopaque.runtime import _gen_v15 as rt, reflect as k
from protoc_gen_pyopaque.runtime._codec import WIRE_OF_KIND
from protoc_gen_pyopaque.runtime._wire import WIRE_FIXED32, WIRE_FIXED64, dec_tag

SHAPES = {"varint", "zigzag", "bool", "fixed", "float", "string", "bytes", "message", "group"}
JSON_FORMS = {"int", "int64", "bool", "string", "bytes", "float", "double", "enum", "message"}


def test_every_kind_has_a_codec_of_a_known_shape() -> None:
    assert set(CODECS) == set(k.KIND_NAMES)
    assert {codec.shape for codec in CODECS.values()} == SHAPES
    assert {codec.json for codec in CODECS.values()} == JSON_FORMS


@pytest.mark.parametrize("kind", sorted(CODECS), ids=lambda kind: k.KIND_NAMES[kind])
def test_codec_types_and_json_forms(kind: int) -> None:
    """Python types name the values a field of the kind holds; 64-bit integers are JSON strings."""
    codec = CODECS[kind]
    integer = kind in k.INT_RANGES or kind == k.TYPE_ENUM
    expected = {k.TYPE_FLOAT: "float", k.TYPE_DOUBLE: "float", k.TYPE_BOOL: "bool", k.TYPE_STRING: "str",
                k.TYPE_BYTES: "bytes", k.TYPE_MESSAGE: "", k.TYPE_GROUP: ""}
    assert codec.py_type == ("int" if integer else expected[kind])
    if kind in k.INT_RANGES:
        assert codec.json == ("int64" if k.INT_RANGES[kind][1] >= 1 << 32 else "int")
    elif kind == k.TYPE_FLOAT or kind == k.TYPE_DOUBLE:
        assert codec.json == k.KIND_NAMES[kind]


@pytest.mark.parametrize("kind", sorted(CODECS), ids=lambda kind: k.KIND_NAMES[kind])
def test_codec_names_functions_of_the_generated_code_surface(kind: int) -> None:
    """Generated code calls these through ``_rt``: each must exist there."""
    codec = CODECS[kind]
    for function in (codec.decoder, codec.writer, codec.packed_decoder):
        assert not function or callable(getattr(rt, function)), function
    assert bool(codec.decoder) == (codec.shape in ("varint", "zigzag", "bool", "fixed", "float"))
    assert bool(codec.writer) == (codec.shape in ("fixed", "float"))
    assert bool(codec.packed_decoder) == (codec.shape not in ("string", "bytes", "message", "group"))


@pytest.mark.parametrize("kind", sorted(CODECS), ids=lambda kind: k.KIND_NAMES[kind])
def test_codec_widths_match_wire_types(kind: int) -> None:
    codec = CODECS[kind]
    width = {WIRE_FIXED32: 4, WIRE_FIXED64: 8}.get(WIRE_OF_KIND[kind], 0)
    assert codec.width == width
    low, high = k.INT_RANGES.get(kind, (0, 0))
    assert codec.unsigned_wrap == (hex(high + 1) if codec.shape == "fixed" and low == 0 else "")
    assert codec.zigzag_shift == ({k.TYPE_SINT32: 31, k.TYPE_SINT64: 63}.get(kind, 0))
    assert codec.wide == (kind in (k.TYPE_INT64, k.TYPE_UINT64))
    assert codec.varint == (codec.shape in ("varint", "zigzag", "bool"))


@pytest.mark.parametrize("kind", [k.TYPE_INT32, k.TYPE_SINT32, k.TYPE_ENUM, k.TYPE_UINT32, k.TYPE_INT64,
                                  k.TYPE_SINT64, k.TYPE_UINT64], ids=lambda kind: k.KIND_NAMES[kind])
def test_int_in_range(kind: int) -> None:
    low, high = k.INT_RANGES[k.TYPE_INT32 if kind == k.TYPE_ENUM else kind]
    inside = eval(f"lambda x: {pyexpr.int_in_range(kind, 'x')}")  # noqa: S307 (our own expression)
    # int64/uint64: the values of fewer than 63 bits, which mypyc keeps unboxed (all but -2**62);
    # the rest is write_varint64's to check
    if kind in (k.TYPE_INT64, k.TYPE_UINT64):
        low, high = max(low, -(1 << 62) + 1), (1 << 62) - 1
    assert inside(low) and inside(high) and inside(0)
    assert not inside(high + 1) and not inside(low - 1)


@pytest.mark.parametrize("wide", [False, True])
def test_one_byte_test(wide: bool) -> None:
    one_byte = eval(f"lambda x: {pyexpr.one_byte_test(wide, 'x')}")  # noqa: S307 (our own expression)
    assert [v for v in range(-300, 300) if one_byte(v)] == list(range(128))


@pytest.mark.parametrize(("number", "wire"), [(1, 0), (15, 2), (16, 2), (2047, 5), (2048, 1), (536870911, 2)])
def test_tags(number: int, wire: int) -> None:
    tag = pyexpr.tag_bytes(number, wire)
    assert dec_tag(tag, 0) == ((number << 3) | wire, len(tag))
    statement = pyexpr.tag_write(number, wire)
    assert statement == (f"_out.append({tag[0]})" if len(tag) == 1 else f"_out.write({tag!r})")


def test_py_literal() -> None:
    assert [pyexpr.py_literal(v) for v in (math.nan, math.inf, -math.inf, 1.5, "a\"'", b"\x00")] == [
        'float("nan")', 'float("inf")', '-float("inf")', "1.5", repr("a\"'"), "b'\\x00'"]


SCALAR = Field(name="x", number=1, json_name="x", kind=k.TYPE_INT32, repeated=False, presence=False,
               required=False, packed=False, utf8=True, message=None, enum=None, closed_enum=False,
               oneof=None, map=None, default=0, lazy=False, comment="")


@pytest.mark.parametrize(("field", "opaque", "types"), [
    # implicit presence: plain value; None in the constructor means "not set", as for every keyword
    (SCALAR, False, ("int", "int", "int | None", "None", "int")),
    (SCALAR, True, ("int", "int", "int | None", "None", "int")),
    # explicit presence: None while unset in the open/hybrid slot
    (replace(SCALAR, presence=True), False, ("int", "int | None", "int | None", "None", "int")),
    (replace(SCALAR, presence=True), True, ("int", "int", "int | None", "None", "int")),
    (replace(SCALAR, oneof=0, presence=True), False, ("int", "int | None", "int | None", "None", "int")),
    (replace(SCALAR, kind=k.TYPE_MESSAGE, message="p.M", default=None), True,
     ("M | None", "M | None", "M | None", "None", "M | None")),
    (replace(SCALAR, repeated=True), False,
     ("list[int]", "list[int]", "_t.Iterable[int]", "()", "_t.Iterable[int]")),
    (replace(SCALAR, repeated=True, map=MapTypes(SCALAR, SCALAR)), True,
     ("dict[str, M]", "dict[str, M]", "_t.Mapping[str, M] | None", "None", "_t.Mapping[str, M]")),
])
def test_field_types(field: Field, opaque: bool, types: tuple[str, ...]) -> None:
    value_type = "M" if field.message else "int"
    assert astuple(field_types(field, value_type, "str, M", opaque)) == types


OPEN_ENUM = replace(SCALAR, kind=k.TYPE_ENUM, enum="p.Color")


@pytest.mark.parametrize(("opaque", "presence", "slot"), [
    (True, False, "int"), (True, True, "int"), (False, False, "int"), (False, True, "int | None"),
])
def test_open_enum_field_types(opaque: bool, presence: bool, slot: str) -> None:
    """An open enum's getter says ``Color | int`` (its values keep numbers the enum does not
    name); its slot, ``int``, a native int compiled."""
    types = field_types(replace(OPEN_ENUM, presence=presence), "Color | int", "", opaque, "Color | int", "int")
    assert (types.getter, types.slot, types.setter) == ("Color | int", slot, "Color | int")


def test_wrapped_list_fills_lines_as_textwrap() -> None:
    """Generated lists (__slots__, register_messages) wrap as textwrap.fill wraps their text."""
    rng = random.Random(7)
    for _ in range(2000):
        items = ["x" * rng.randrange(1, 30) for _ in range(rng.randrange(0, 12))]
        width = rng.randrange(10, 60)
        expected = textwrap.fill(", ".join(items), width=width, break_long_words=False, break_on_hyphens=False)
        assert pyexpr.wrapped_list(items, width) == expected


def test_filled_wraps_as_textwrap_with_indents() -> None:
    """MessageInfo's layout wraps as textwrap.wrap wraps it, with its first and later indents."""
    rng = random.Random(11)
    for _ in range(2000):
        words = ["x" * rng.randrange(1, 30) for _ in range(rng.randrange(1, 12))]
        width = rng.randrange(10, 60)
        first, rest = " " * rng.randrange(0, 8) + "a=", " " * rng.randrange(0, 12)
        expected = "\n".join(textwrap.wrap(" ".join(words), width, initial_indent=first, subsequent_indent=rest,
                                           break_long_words=False, break_on_hyphens=False))
        assert pyexpr.filled(words, width, first, rest) == expected


def test_json_view_decides_each_fields_json_form() -> None:
    """The JSON facts of a field: its form, member key, and the checks its kind needs inline."""
    int32 = json_view(replace(SCALAR, name="my_x", json_name="myX"))
    assert (int32.form, int32.member, int32.name, int32.alias, int32.null) == ("int", '"myX":', "'myX'", True, False)
    assert (int32.int_low, int32.int_high, int32.int_digits) == (-2**31, 2**31 - 1, 0)
    uint64 = json_view(replace(SCALAR, kind=k.TYPE_UINT64))
    assert (uint64.form, uint64.int_digits, uint64.alias) == ("int64", len(str(2**64 - 1)), False)
    null = json_view(replace(SCALAR, kind=k.TYPE_ENUM, enum="google.protobuf.NullValue"))
    assert (null.form, null.null) == ("null", True)
    value = json_view(replace(SCALAR, kind=k.TYPE_MESSAGE, message="google.protobuf.Value", default=None))
    assert (value.form, value.null) == ("message", True)
    assert json_view(replace(SCALAR, json_name="é\"")).member == '"é\\"":'
