"""Protobuf text format (runtime.text_format) on the golden modules of every style and the WKTs."""

from __future__ import annotations

import math
from typing import Any

import pytest

from protoc_gen_pyopaque.runtime import DecodeError
from protoc_gen_pyopaque.runtime import text_format as tf
from protoc_gen_pyopaque.runtime.google.protobuf import any_pb, duration_pb, struct_pb
from protoc_gen_pyopaque.runtime.reflect import MessageInfo
from tests.behavior.conftest import Modules, mods  # noqa: F401  (the per-style fixture)

# ----------------------------------------------------------------------------- helpers


def _scalars(mods: Modules) -> Any:
    return mods.load("scalars").Scalars(
        f_double=1.5, f_float=0.1, f_int64=-(2**63), f_uint64=2**64 - 1, f_int32=-7,
        f_fixed64=5, f_fixed32=6, f_bool=True, f_string="héllo\n\"'\\\x01", f_bytes=b"\x00\xff\xfe'",
        f_uint32=4294967295, f_sfixed32=-3, f_sfixed64=-4, f_sint32=-5, f_sint64=-6,
        opt_int32=0, opt_string="")


SCALARS_TEXT = """\
f_double: 1.5
f_float: 0.1
f_int64: -9223372036854775808
f_uint64: 18446744073709551615
f_int32: -7
f_fixed64: 5
f_fixed32: 6
f_bool: true
f_string: "héllo\\n\\"\\'\\\\\\001"
f_bytes: "\\000\\377\\376\\'"
f_uint32: 4294967295
f_sfixed32: -3
f_sfixed64: -4
f_sint32: -5
f_sint64: -6
opt_int32: 0
opt_string: ""
"""


def _collections(mods: Modules) -> Any:
    c = mods.load("collections").Collections
    return c(packed_ints=[1, -2], names=["a", "b"], items=[c.Item(key="k", color=2)], colors=[1, 7],
             counts={"z": 1, "a": -2}, items_by_id={5: c.Item(key="x"), -1: c.Item()}, text="t")


def _same(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    assert a.serialize(deterministic=True, partial=True) == b.serialize(deterministic=True, partial=True)
    assert a == type(b).parse(b.serialize(partial=True), partial=True)  # float32 values rounded


def _err(cls: type, text: str, where: str, fragment: str = "") -> TextFormatErrorInfo:
    with pytest.raises(tf.TextFormatError) as info:
        tf.from_text(cls, text)
    message = str(info.value)
    assert message.startswith(where + ":"), message
    assert fragment in message, message
    return info


TextFormatErrorInfo = Any

# ----------------------------------------------------------------------------- printing and round trips


def test_scalars_print_exactly_and_round_trip(mods: Modules) -> None:
    m = _scalars(mods)
    assert tf.to_text(m) == SCALARS_TEXT
    _same(tf.from_text(type(m), SCALARS_TEXT), m)


def test_empty_message_prints_nothing(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    assert tf.to_text(cls()) == ""
    assert tf.to_text(cls(), as_one_line=True) == ""
    _same(tf.from_text(cls, ""), cls())
    _same(tf.from_text(cls, "  # only a comment\n\n"), cls())


def test_collections_print_maps_sorted_enums_by_name(mods: Modules) -> None:
    m = _collections(mods)
    text = tf.to_text(m)
    assert text == (
        'packed_ints: 1\npacked_ints: -2\nnames: "a"\nnames: "b"\n'
        'items {\n  key: "k"\n  color: GREEN\n}\n'
        "colors: RED\ncolors: 7\n"
        'counts {\n  key: "a"\n  value: -2\n}\ncounts {\n  key: "z"\n  value: 1\n}\n'
        "items_by_id {\n  key: -1\n  value {\n  }\n}\n"
        'items_by_id {\n  key: 5\n  value {\n    key: "x"\n  }\n}\n'
        'text: "t"\n')
    _same(tf.from_text(type(m), text), m)
    one = tf.to_text(m, as_one_line=True)
    assert "\n" not in one
    assert one.startswith('packed_ints: 1 packed_ints: -2 names: "a"')
    assert 'items { key: "k" color: GREEN }' in one
    _same(tf.from_text(type(m), one), m)


def test_oneof_message_member_round_trips(mods: Modules) -> None:
    c = mods.load("collections").Collections
    m = c(item=c.Item(key="z", color=1))
    assert tf.to_text(m) == 'item {\n  key: "z"\n  color: RED\n}\n'
    _same(tf.from_text(c, tf.to_text(m)), m)
    s = c(scalars=mods.load("scalars").Scalars(f_int32=3))
    _same(tf.from_text(c, "scalars < f_int32: 3 >"), s)


def test_floats_shortest_and_special(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    for value, text in [(0.1, "0.1"), (1e300, "1e+300"), (math.inf, "inf"), (-math.inf, "-inf"),
                        (-0.0, "-0.0"), (2.5e-310, "2.5e-310")]:
        assert tf.to_text(cls(f_double=value)) == f"f_double: {text}\n"
        assert tf.from_text(cls, f"f_double: {text}").serialize() == cls(f_double=value).serialize()
    assert tf.to_text(cls(f_double=math.nan)) == "f_double: nan\n"
    # float32: the shortest decimal that reads back as the same float32
    m = cls.parse(cls(f_float=0.1).serialize())
    assert tf.to_text(m) == "f_float: 0.1\n"
    m = tf.from_text(cls, "f_float: 3.4028235e38")
    assert tf.to_text(m) == "f_float: 3.40282e+38\n" or tf.to_text(m) == "f_float: 3.4028235e+38\n"
    assert tf.to_text(tf.from_text(cls, "f_float: 1e39")) == "f_float: inf\n"
    assert tf.to_text(tf.from_text(cls, "f_float: 3")) == "f_float: 3.0\n"
    assert tf.to_text(tf.from_text(cls, "f_float: -2.5e-3")) == "f_float: -0.0025\n"


def test_legacy_group_extensions_and_closed_enum(mods: Modules) -> None:
    legacy = mods.load("legacy")
    text = ('id: 3 level: LOW Point { x: 1 y: -2 } [golden.note]: "n"\n'
            "[golden.tags]: [1, 2] [golden.tags]: 3")
    m = tf.from_text(legacy.Legacy, text)
    printed = tf.to_text(m)
    assert printed == ('id: 3\nlevel: LOW\nPoint {\n  x: 1\n  y: -2\n}\n'
                       '[golden.note]: "n"\n[golden.tags]: 1\n[golden.tags]: 2\n[golden.tags]: 3\n')
    assert m.get_extension(legacy.note) == "n"
    assert m.get_extension(legacy.tags) == [1, 2, 3]
    _same(tf.from_text(legacy.Legacy, printed), m)
    _same(legacy.Legacy.parse(m.serialize()), m)
    # the group may also be named by its field name, with or without a colon
    _same(tf.from_text(legacy.Legacy, "id: 3 level: 1 point: { x: 1 y: -2 } "
                       '[golden.note]: "n" [golden.tags]: [1, 2, 3]'), m)
    _err(legacy.Legacy, "level: 3", "1:8", "closed enum golden.Level")
    _err(legacy.Legacy, "level: MEDIUM", "1:8", "'MEDIUM' is not a value of golden.Level")
    _err(legacy.Legacy, "[golden.nothing]: 1", "1:1", "no extension named [golden.nothing]")


def test_editions_delimited_field_and_unvalidated_string(mods: Modules) -> None:
    ed = mods.load("editions").Edition2023
    m = tf.from_text(ed, "required_legacy: 1 delimited_child { value: 2 } state: STATE_ON")
    assert tf.to_text(m) == "required_legacy: 1\ndelimited_child {\n  value: 2\n}\nstate: STATE_ON\n"
    _err(ed, "state: 5", "1:8", "closed enum")
    # utf8_validation = NONE: invalid bytes survive text, printed as octal escapes
    raw = ed.parse(b"\x18\x01\x2a\x02\xff\xfe")
    text = tf.to_text(raw)
    assert text == 'required_legacy: 1\nunchecked: "\\377\\376"\n'
    _same(tf.from_text(ed, text), raw)
    assert tf.from_text(ed, text).serialize() == raw.serialize()


def test_string_utf8_kept_and_validated(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    m = tf.from_text(cls, r'f_string: "\xe1\x88\xb4" f_bytes: "\xe1\x88\xb4"')
    assert tf.to_text(m) == 'f_string: "ሴ"\nf_bytes: "\\341\\210\\264"\n'
    _err(cls, r'f_string: "\xc0"', "1:11", "invalid UTF-8")
    _err(cls, r"f_string: '\300'", "1:11", "invalid UTF-8")
    _same(tf.from_text(cls, r"f_bytes: '\300'"), cls(f_bytes=b"\xc0"))


def test_unknown_fields_printed_on_request(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    unknown = (
        b"\xa0\x06\x7b"                # 100: 123
        b"\xaa\x06\x05hello"           # 101: "hello" (not a message)
        b"\xb2\x06\x02\x08\x01"        # 102 { 1: 1 }
        b"\xbd\x06\x01\x00\x00\x00"    # 103: fixed32
        b"\xc1\x06" + b"\x02" + b"\x00" * 7 +  # 104: fixed64
        b"\xcb\x06\x08\x02\xcc\x06"    # 105 { 1: 2 } (group)
        b"\xd2\x06\x00"                # 106: "" (empty: a string)
    )
    m = cls.parse(b"\x28\x01" + unknown)  # f_int32: 1
    assert tf.to_text(m) == "f_int32: 1\n"
    assert tf.to_text(m, print_unknown_fields=True) == (
        'f_int32: 1\n100: 123\n101: "hello"\n102 {\n  1: 1\n}\n103: 0x00000001\n'
        '104: 0x0000000000000002\n105 {\n  1: 2\n}\n106: ""\n')
    one = tf.to_text(m, print_unknown_fields=True, as_one_line=True)
    assert one.startswith('f_int32: 1 100: 123 101: "hello" 102 { 1: 1 }')


def test_unknown_fields_of_nested_messages(mods: Modules) -> None:
    c = mods.load("collections").Collections
    m = c.parse(b"\x42\x03\xa0\x06\x07")  # item { 100: 7 }
    assert tf.to_text(m, print_unknown_fields=True) == "item {\n  100: 7\n}\n"
    assert tf.to_text(m) == "item {\n}\n"


# ----------------------------------------------------------------------------- the grammar


def test_separators_delimiters_and_comments(mods: Modules) -> None:
    c = mods.load("collections").Collections
    want = c(names=["a", "b", "c"], items=[c.Item(key="x"), c.Item(key="y")], counts={"k": 2})
    text = """
        # leading comment
        names: "a", names: ['b', "c"];  # trailing
        items <key: 'x'> items: { key: "y"; }
        counts [{key: "k" value: 1}, <value: 2, key: "k">]
    """
    _same(tf.from_text(c, text), want)
    _err(c, 'names: "a",,', "1:12", "expected a field name")
    _err(c, 'names: "a";;', "1:12", "expected a field name")
    _err(c, 'names: ["a";"b"]', "1:12", "expected ',' or ']'")
    _err(c, 'names: ["a",]', "1:13", "expected a string")
    _err(c, "items { key: 'x' ", "1:18", "expected '}'")
    _err(c, "items { key: 'x' >", "1:18", "expected a field name")
    _same(tf.from_text(c, "names: []"), c())


def test_integers_forms_and_ranges(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    cases = [("f_int32", "0x7FFFFFFF", 2**31 - 1), ("f_int32", "-0x80000000", -(2**31)),
             ("f_int32", "017777777777", 2**31 - 1), ("f_int32", "-020000000000", -(2**31)),
             ("f_uint32", "0xFFFFFFFF", 2**32 - 1), ("f_int64", "-9223372036854775808", -(2**63)),
             ("f_uint64", "01777777777777777777777", 2**64 - 1), ("f_sint64", "- 5", -5),
             ("f_fixed64", "0", 0), ("f_sfixed32", "-0", 0)]
    for name, text, value in cases:
        _same(tf.from_text(cls, f"{name}: {text}"), cls(**{name: value}))
    for name, text in [("f_int32", "2147483648"), ("f_int32", "-0x80000001"), ("f_uint32", "-1"),
                       ("f_uint32", "040000000000"), ("f_int64", "9223372036854775808"),
                       ("f_uint64", "0x10000000000000000"), ("f_fixed32", "4294967296")]:
        _err(cls, f"{name}: {text}", f"1:{len(name) + 3}", "out of range")
    _err(cls, "f_int32: 1.5", "1:10", "expected an integer")
    _err(cls, "f_int32: 1e3", "1:10", "expected an integer")
    _err(cls, "f_int32: 09", "1:10", "expected an integer")
    _err(cls, "f_int32: abc", "1:10", "expected an integer")
    _err(cls, "f_int32: 12abc", "1:10", "invalid number")


def test_huge_numbers_are_errors_not_crashes(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    digits = "9" * 100000
    _err(cls, f"f_int64: {digits}", "1:10", "out of range")
    _err(cls, f"f_uint64: 0x{'f' * 50000}", "1:11", "out of range")
    _err(cls, f"f_bool: {digits}", "1:9", "expected true or false")
    assert tf.to_text(tf.from_text(cls, f"f_double: {digits}")) == "f_double: inf\n"
    assert tf.to_text(tf.from_text(cls, f"f_double: -{digits}")) == "f_double: -inf\n"
    assert tf.to_text(tf.from_text(cls, f"f_double: 1e{digits}")) == "f_double: inf\n"
    assert tf.to_text(tf.from_text(cls, f"f_double: 1e-{digits}")) == ""  # 0.0 is the default
    assert tf.to_text(tf.from_text(cls, f"f_double: -1e-{digits}")) == "f_double: -0.0\n"


def test_float_forms(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    for text, value in [("1.5", 1.5), ("1.5f", 1.5), ("1.5F", 1.5), (".5", 0.5), ("-.5", -0.5),
                        ("5.", 5.0), ("1e2", 100.0), ("1E-2", 0.01), ("10", 10.0), ("0", 0.0),
                        ("inf", math.inf), ("-Infinity", -math.inf), ("INF", math.inf),
                        ("-inFINITY", -math.inf), ("18446744073709551616", 2.0**64)]:
        got = tf.from_text(cls, f"f_double: {text}")
        assert got.serialize() == cls(f_double=value).serialize(), text
    nan = tf.from_text(cls, "f_double: nAn f_float: -NaN")
    assert [t for t in tf.to_text(nan).split()] == ["f_double:", "nan", "f_float:", "nan"]
    _err(cls, "f_double: 0x1", "1:11", "hexadecimal")
    _err(cls, "f_double: -0x1", "1:11", "hexadecimal")
    _err(cls, "f_double: 012", "1:11", "octal")
    _err(cls, "f_double: infinite", "1:11", "expected a number")
    _err(cls, "f_double: 1e", "1:11", "invalid number")
    # float32 values are rounded to float32 (overflowing to infinity)
    assert tf.to_text(tf.from_text(cls, "f_float: 3.4028235e+39f")) == "f_float: inf\n"
    assert tf.to_text(tf.from_text(cls, "f_float: 1.17549e-39")) == "f_float: 1.17549e-39\n"


def test_bool_forms(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    for text, value in [("true", True), ("True", True), ("t", True), ("1", True), ("false", False),
                        ("False", False), ("f", False), ("0", False), ("0x1", True)]:
        assert tf.from_text(cls, f"f_bool: {text}").serialize() == cls(f_bool=value).serialize(), text
    for text in ["TRUE", "2", "yes", "-1", "1.0", '"true"']:
        _err(cls, f"f_bool: {text}", "1:9", "")


def test_enums_by_name_and_number(mods: Modules) -> None:
    c = mods.load("collections").Collections
    _same(tf.from_text(c, "colors: [RED, 2, -5, 0x7]"), c(colors=[1, 2, -5, 7]))
    _err(c, "colors: PURPLE", "1:9", "not a value of golden.Collections.Color")
    _err(c, "colors: 2147483648", "1:9", "out of range")
    _err(c, 'colors: "RED"', "1:9", "expected an integer")


def test_string_escapes_and_concatenation(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    m = tf.from_text(cls, r"""f_bytes: '\a\b\f\n\r\t\v\?\\\'\"' "\0\01\101\x41\x9" 'z'""")
    assert m.serialize() == cls(f_bytes=b"\a\b\f\n\r\t\v?\\'\"\x00\x01AA\x09z").serialize()
    m = tf.from_text(cls, r"f_string: '\u1234\U0001F600' " + '"é"')
    assert m.serialize() == cls(f_string="\u1234\U0001F600é").serialize()
    for bad, fragment in [(r"'\ud800'", "surrogate"), (r"'\udc00'", "surrogate"),
                          (r"'\ud83d\ude00'", "surrogate"), (r"'\U0000d800'", "surrogate"),
                          (r"'\U00110000'", "beyond U+10FFFF"), (r"'\q'", "invalid escape"),
                          (r"'\x'", "invalid escape"), (r"'\u12'", "invalid escape"),
                          (r"'\400'", "out of range")]:
        _err(cls, f"f_string: {bad}", "1:11", fragment)
        _err(cls, f"f_bytes: {bad}", "1:10", fragment)
    _err(cls, "f_string: 'first line\nsecond line'", "1:11", "closing quote")
    _err(cls, "f_string: 'unterminated", "1:11", "closing quote")
    _err(cls, "f_string: 12", "1:11", "expected a string")


def test_duplicates_and_oneofs(mods: Modules) -> None:
    c = mods.load("collections").Collections
    scalars = mods.load("scalars").Scalars
    _err(scalars, "f_int32: 1\nf_int32: 2", "2:1", "given twice")
    _err(c, 'text: "a" item { }', "1:11", "oneof 'choice' already set by 'text'")
    _err(c, 'item { key: "a" } text: "b"', "1:19", "oneof 'choice' already set by 'item'")
    # a singular message given twice is merged, as protobuf does
    _same(tf.from_text(c, 'item { key: "a" } item { color: RED }'), c(item=c.Item(key="a", color=1)))
    _err(c, 'item { key: "a" key: "b" }', "1:17", "given twice")
    # map keys: the last entry wins
    _same(tf.from_text(c, 'counts { key: "k" value: 1 } counts { key: "k" value: 2 } counts {}'),
          c(counts={"k": 2, "": 0}))


def test_unknown_names_and_field_numbers_are_errors(mods: Modules) -> None:
    c = mods.load("collections").Collections
    _err(c, "nope: 1", "1:1", "golden.Collections has no field named 'nope'")
    _err(c, "items { nope: 1 }", "1:9", "golden.Collections.Item has no field named 'nope'")
    _err(c, "1: 5", "1:1", "expected a field name")
    _err(c, "names 'a'", "1:7", "expected ':'")
    _err(c, "item: 5", "1:7", "expected '{' or '<'")
    _err(c, "[type.googleapis.com/golden.Collections] {}", "1:1", "not google.protobuf.Any")
    _err(c, "names: 'a' }", "1:12", "expected a field name")


def test_merge_from_text_appends_and_overwrites(mods: Modules) -> None:
    c = mods.load("collections").Collections
    m = c(names=["a"], counts={"x": 1}, item=c.Item(key="k"))
    tf.merge_from_text(m, 'names: "b" counts { key: "y" value: 2 } item { color: GREEN }')
    _same(m, c(names=["a", "b"], counts={"x": 1, "y": 2}, item=c.Item(key="k", color=2)))
    tf.merge_from_text(m, 'text: "now"')
    _same(m, c(names=["a", "b"], counts={"x": 1, "y": 2}, text="now"))


def test_bytes_input_and_errors_are_decode_errors(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    _same(tf.from_text(cls, b"f_int32: 5"), cls(f_int32=5))
    with pytest.raises(tf.TextFormatError):
        tf.from_text(cls, b"f_string: '\xff'")
    assert issubclass(tf.TextFormatError, DecodeError)
    with pytest.raises(DecodeError):
        tf.from_text(cls, "f_int32: x")


# ----------------------------------------------------------------------------- reserved names


def test_reserved_names_are_skipped_when_the_table_lists_them(mods: Modules) -> None:
    cls = mods.load("collections").Collections.Item
    old = cls._pb_info
    info = MessageInfo(old.full_name, old.fields, old.oneofs, extension_ranges=old.extension_ranges,
                       message_set=old.message_set, legacy_json=old.legacy_json, reserved_names=("gone",))
    info.extensions = old.extensions
    info.layout_by_order, info.layout_by_number = old.layout_by_order, old.layout_by_number
    info.lazy_layout = old.lazy_layout
    cls._pb_info = info
    try:
        text = ('gone: 1 gone: -2.5 gone: "s" \'t\' gone: ENUM gone { a: [1, 2] b < c: x > [x.y]: 1 } '
                'gone: [1, "a", {}] gone: [] gone: < > key: "k"')
        _same(tf.from_text(cls, text), cls(key="k"))
        _err(cls, "gone: ", "1:7", "expected a value")
        _err(cls, "gone 1", "1:6", "expected ':' or a message")
        _err(cls, "other: 1", "1:1", "no field named 'other'")
    finally:
        cls._pb_info = old


# ----------------------------------------------------------------------------- Any and WKTs


def test_any_expanded_and_raw(mods: Modules) -> None:
    scalars = mods.load("scalars").Scalars
    payload = scalars(f_int32=5, f_string="x")
    url = "type.googleapis.com/golden.Scalars"
    want = any_pb.Any(type_url=url, value=payload.serialize(deterministic=True))
    from protoc_gen_pyopaque.runtime import json_format
    json_format.register_message_class(scalars)
    text = f'[{url}] {{ f_int32: 5 f_string: "x" }}'
    got = tf.from_text(any_pb.Any, text)
    _same(got, want)
    assert tf.to_text(got) == f'[{url}] {{\n  f_int32: 5\n  f_string: "x"\n}}\n'
    # whitespace and comments inside the brackets, another prefix, ':' before the block
    spaced = tf.from_text(any_pb.Any, "[ type.googleapis.com / # c\n golden.Scal ars ] : < f_int32: 5 f_string: 'x' >")
    _same(spaced, want)
    other = tf.from_text(any_pb.Any, "[x.org/a%2Fb/golden.Scalars] {}")
    assert tf.to_text(other) == "[x.org/a%2Fb/golden.Scalars] {\n}\n"
    _err(any_pb.Any, "[x.org/%ZZ/golden.Scalars] {}", "1:1", "invalid Any type URL")
    _err(any_pb.Any, "[type.googleapis.com/no.Such] {}", "1:1", "cannot resolve Any type")
    _err(any_pb.Any, f"[{url}] {{}} [{url}] {{}}", f"1:{len(url) + 7}", "Any given twice")
    _err(any_pb.Any, f'[{url}] {{}} type_url: "x"', f"1:{len(url) + 7}", "given twice")
    _err(any_pb.Any, f'value: "" [{url}] {{}}', "1:11", "Any given twice")
    # raw fields, and unresolvable types or ill-formed URLs print raw
    raw = tf.from_text(any_pb.Any, 'type_url: "type.googleapis.com/no.Such" value: "\\001"')
    assert tf.to_text(raw) == 'type_url: "type.googleapis.com/no.Such"\nvalue: "\\001"\n'
    odd = any_pb.Any(type_url="a b/golden.Scalars", value=b"")
    assert tf.to_text(odd) == 'type_url: "a b/golden.Scalars"\n'


def test_wkt_inside_any_and_duration() -> None:
    d = tf.from_text(any_pb.Any, "[type.googleapis.com/google.protobuf.Duration] { seconds: 3 nanos: 5 }")
    assert d.serialize() == any_pb.Any(type_url="type.googleapis.com/google.protobuf.Duration",
                                       value=duration_pb.Duration(seconds=3, nanos=5).serialize()).serialize()
    assert tf.to_text(d) == "[type.googleapis.com/google.protobuf.Duration] {\n  seconds: 3\n  nanos: 5\n}\n"


# ----------------------------------------------------------------------------- hostile input


def test_deep_nesting_is_bounded_without_recursion_error() -> None:
    def nested(n: int) -> str:
        return "list_value { values { " * n + "null_value: NULL_VALUE" + " } }" * n

    ok = tf.from_text(struct_pb.Value, nested(49))  # 98 levels
    assert tf.to_text(ok).count("list_value") == 49
    for n in (51, 1000, 100000):
        with pytest.raises(tf.TextFormatError, match="nested deeper than 100"):
            tf.from_text(struct_pb.Value, nested(n))
    with pytest.raises(tf.TextFormatError):
        tf.from_text(struct_pb.Value, "list_value {" * 100000)


def test_deep_unknown_groups_print_without_recursion_error(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    depth = 90
    data = b"\xcb\x06" * depth + b"\xcc\x06" * depth  # nested unknown groups (field 105)
    m = cls.parse(data)
    text = tf.to_text(m, print_unknown_fields=True)
    assert text.count("105 {") == depth


def test_garbage_input_raises_text_format_errors_only(mods: Modules) -> None:
    cls = mods.load("collections").Collections
    samples = ["{", "}", "<", "[", "]", ":", "items {", "items: [", "items: [{", "names: [", "names: ['a'",
               "counts { key: 1 }", "counts { value: 'x' }", "[", "[a.b", "text: 'a' text: 'b'",
               "\x00", "names: '\\", "names: \"\\u", "-", "names: -", "item { item { } }", "🙂: 1",
               "names: 'a' # comment without newline", "names: 'a'\r\n names: 'b'\f"]
    for text in samples:
        try:
            tf.from_text(cls, text)
        except tf.TextFormatError:
            pass


def test_error_positions_count_lines_and_columns(mods: Modules) -> None:
    cls = mods.load("scalars").Scalars
    _err(cls, "f_int32: 1\n  f_int64: 2\n\n    f_bool: maybe", "4:13", "expected true or false")
