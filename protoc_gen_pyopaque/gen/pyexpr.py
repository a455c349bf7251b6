"""Python source for the expressions and literals of generated code that are not template text:
literals, docstrings, tags, range tests, and the ``_rt.*Info(...)`` tables of every class.
"""

from __future__ import annotations

from functools import lru_cache
from json.encoder import encode_basestring_ascii
from typing import Final, Protocol

from ..plugin.schema import Enum, Field, Message
from ..runtime import reflect as k
from ..runtime._wire import varint_bytes


class TypeRefs(Protocol):
    """Python expressions for the classes and enum tables a module names."""

    def message(self, full_name: str) -> str: ...

    def enum_info(self, full_name: str) -> str: ...

    def enum_default(self, full_name: str, number: int) -> str: ...


# the range test of a varint integer field's value {x} (enums are int32): values outside it
# raise on serialize instead of being written as another number. For int64 and uint64 it is
# (nearly) the range of mypyc's unboxed ints (62 bits), by bit_length(): compiled, a comparison
# of a boxed int is a generic call (with a constant beyond the small ints, one that makes an int
# object), where bit_length() of one reads its size; the values past it go to the runtime's
# write_varint64, which checks the kind's whole range (``KindCodec.wide``).
_INT64_TEST: Final = "{x} <= 0x3FFFFFFFFFFFFFFF and {x} >= -0x4000000000000000"
_UINT64_TEST: Final = "{x} <= 0x3FFFFFFFFFFFFFFF and {x} >= 0"
_INT32_TEST: Final = "-0x80000000 <= {x} <= 0x7FFFFFFF"
_VARINT_RANGE_TESTS: Final = {
    k.TYPE_INT32: _INT32_TEST, k.TYPE_SINT32: _INT32_TEST, k.TYPE_ENUM: _INT32_TEST,
    k.TYPE_UINT32: "0 <= {x} <= 0xFFFFFFFF", k.TYPE_INT64: "{x}.bit_length() < 63",
    k.TYPE_SINT64: _INT64_TEST + " or -0x8000000000000000 <= {x} <= 0x7FFFFFFFFFFFFFFF",
    k.TYPE_UINT64: "{x}.bit_length() < 63 and {x} >= 0",
}
# How the generated JSON code converts one value of each kind (see templates/_json.py.j2).


def int_in_range(kind: int, x: str) -> str:
    """The test that the value in local ``x`` lies in the range of a varint integer field of
    ``kind`` (int64 and uint64: in the part of it that mypyc keeps unboxed)."""
    return _VARINT_RANGE_TESTS[kind].format(x=x)


# the test that a value {x} set on an integer field is in range (the 64-bit kinds: in mypyc's
# unboxed part, as above; the runtime's checked() takes the rest of the range)
_SET_RANGE_TESTS: Final = {
    **{kind: _INT32_TEST for kind in (k.TYPE_INT32, k.TYPE_SINT32, k.TYPE_SFIXED32, k.TYPE_ENUM)},
    **{kind: "0 <= {x} <= 0xFFFFFFFF" for kind in (k.TYPE_UINT32, k.TYPE_FIXED32)},
    **{kind: _INT64_TEST for kind in (k.TYPE_INT64, k.TYPE_SINT64, k.TYPE_SFIXED64)},
    **{kind: _UINT64_TEST for kind in (k.TYPE_UINT64, k.TYPE_FIXED64)},
}


def checked_value(kind: int, number: int, py_type: str, message_ref: str, closed_enum_ref: str, x: str,
                  nullable: bool = False, tested: bool = False, enum_info_ref: str = "") -> str:
    """The value in ``x`` as a singular field of ``kind`` holds it: ``x`` itself when of the exact
    type the field holds (an integer in range, a member of the closed enum ``closed_enum_ref``),
    a closed enum's member for a plain int it names (from ``enum_info_ref``), else what the
    runtime's ``checked`` makes of it or raises (a float32 is rounded: ``round_f32``).
    ``nullable``: ``x`` may be None (a message setter's), which passes (a test of None where the
    type says otherwise fails pyright). ``tested``: inside a test of None written by
    ``none_operand`` (a constructor's or a oneof attribute's), whose local the range test reads
    (see there). The class is read as ``x.__class__``: a constructor's parameters are named after
    the fields, and one named ``type`` would shadow the builtin."""
    slow = f"_rt.checked(self, {number}, {x})"
    if kind == k.TYPE_FLOAT:
        return f"_rt.round_f32({x}) if {x}.__class__ is float else {slow}"
    if closed_enum_ref:
        # the plain int first: its test narrows nothing else, where a test of the member's class
        # would leave ``int | bool`` (to mypy ``int``: compiled, a bool made a native int before
        # its test). The member's class by type(), by which pyright narrows too, read from the
        # runtime in a constructor, where a parameter named ``type`` may shadow the builtin.
        members = f"{enum_info_ref}.members"
        type_of = "_rt.type" if tested else "type"
        return (f"{members}[{x}] if {x}.__class__ is int and {x} in {members} "
                f"else {x} if {type_of}({x}) is {closed_enum_ref} else {slow}")
    if message_ref:
        test = f"{x}.__class__ is {message_ref}" + (f" or {x} is None" if nullable else "")
    elif kind in _SET_RANGE_TESTS:
        narrowed = _narrowed(number) if tested else x
        return f"{narrowed} if {x}.__class__ is int and {_SET_RANGE_TESTS[kind].format(x=narrowed)} else {slow}"
    else:
        test = f"{x}.__class__ is {py_type}"
    return f"{x} if {test} else {slow}"


def none_operand(kind: int, number: int, x: str) -> str:
    """``x`` as the operand of a constructor's (or oneof attribute's) test of None. An integer
    field's parameter is typed ``int | bool | None`` (a closed enum's ``Level | int | None``),
    and the test narrows it to ``int``, which compiled with mypyc is a native int: a ``bool``
    (or a member) would become a plain int before the class test could refuse it. So the test
    reads a copy, ``(_x<number> := x)``, and narrows that one; ``checked_value(...,
    tested=True)`` tests the class of ``x``, still the object given, and the range of the copy."""
    return f"({_narrowed(number)} := {x})" if kind in _SET_RANGE_TESTS else x


def _narrowed(number: int) -> str:
    return f"_x{number}"


def exact_type(kind: int, py_type: str, message_ref: str, closed_enum: bool = False) -> str:
    """The exact Python type of the values of a field of ``kind``, for the runtime's checks of
    lists and dicts (None: each value is converted and checked, as a float32 is rounded and a
    closed enum's number looked up)."""
    if message_ref:
        return message_ref
    return "None" if kind == k.TYPE_FLOAT or closed_enum else py_type


@lru_cache(maxsize=32)  # a few kinds, asked for by every list and map field
def range_args(kind: int) -> str:
    """``, low, high``: the range of an integer kind's values, for the same checks ("" for the
    other kinds)."""
    low_high = k.INT_RANGES.get(k.TYPE_INT32 if kind == k.TYPE_ENUM else kind)
    return "" if low_high is None else "".join(f", {'-' * (n < 0)}0x{abs(n):X}" for n in low_high)


def names_number(numbers: tuple[int, ...], info_ref: str, x: str) -> str:
    """The test that the int in local ``x`` is one of ``numbers`` (a closed enum's, sorted):
    two comparisons (compiled: native) when they run without a gap, else a lookup in the
    members of the enum's EnumInfo ``info_ref``."""
    if _without_gap(numbers):
        return f"{numbers[0]} <= {x} <= {numbers[-1]}"
    return f"{x} in {info_ref}.members"


def one_byte_run(numbers: tuple[int, ...]) -> bool:
    """Whether ``numbers`` (sorted) run without a gap, each one a varint of one byte."""
    return _without_gap(numbers) and numbers[0] >= 0 and numbers[-1] < 0x80


def _without_gap(numbers: tuple[int, ...]) -> bool:
    return bool(numbers) and numbers[-1] - numbers[0] + 1 == len(numbers)


def one_byte_test(wide: bool, x: str) -> str:
    """The test that the value in local ``x`` is written as one byte. int64 and uint64 (``wide``)
    test the upper bound first: their big values, mostly positive, are boxed compiled, and each
    comparison of a boxed int is a generic call."""
    return f"{x} < 0x80 and {x} >= 0" if wide else f"0 <= {x} < 0x80"


def tag_bytes(number: int, wire: int) -> bytes:
    """The encoded tag."""
    return varint_bytes((number << 3) | wire)


@lru_cache(maxsize=1024)  # every field asks for three; most numbers are small
def tag_write(number: int, wire: int) -> str:
    """The statement that appends the encoded tag to ``_out``: one byte, or a literal."""
    tag = tag_bytes(number, wire)
    return f"_out.append({tag[0]})" if len(tag) == 1 else f"_out.write({tag!r})"


def py_literal(value: object) -> str:
    """A Python literal for a default value (repr escapes everything, so nothing injects)."""
    if isinstance(value, float):
        if value != value:
            return 'float("nan")'
        if value in (float("inf"), float("-inf")):
            return 'float("inf")' if value > 0 else '-float("inf")'
    return repr(value)


def quoted(text: str) -> str:
    """``text`` as json.dumps writes it, in double quotes, escaped to ASCII (a Python string
    literal too), without json.dumps' call overhead: every field name is quoted several times."""
    return encode_basestring_ascii(text)


def docstring(text: str, indent: int = 0) -> str:
    """A docstring literal that no comment can end early or inject code through.

    Plain text becomes a triple-quoted string whose continuation lines are indented by
    ``indent`` spaces, as a docstring written by hand (inspect.cleandoc removes it); anything
    with backslashes, quotes that could close it, or non-printable characters is written
    with repr().
    """
    if not text:
        return ""
    if "\\" in text or '"""' in text or text.endswith('"') or not text.replace("\n", "").isprintable():
        return repr(text)
    if "\n" not in text:
        return '"""' + text + '"""'
    pad = "\n" + " " * indent
    first, *rest = (line.rstrip() for line in text.split("\n"))
    # blank lines stay empty: the output has no trailing spaces
    return '"""' + first + "".join(pad + line if line else "\n" for line in rest) + pad + '"""'


def declaration(f: Field, edition: str) -> str:
    """Field ``f`` as declared in its .proto file (labels as its syntax writes them; types by full
    name), e.g. ``optional string email = 3;``, for the accessors' docstrings."""
    def type_name(x: Field) -> str:
        return x.message or x.enum or k.KIND_NAMES[x.kind]
    if f.map is not None:
        return f"map<{type_name(f.map.key)}, {type_name(f.map.value)}> {f.name} = {f.number};"
    if f.repeated:
        label = "repeated "
    elif f.oneof is not None:
        label = ""
    elif edition == "proto2":
        label = "required " if f.required else "optional "
    elif edition == "proto3" and f.presence and f.message is None:
        label = "optional "
    else:
        label = ""
    return f"{label}{type_name(f)} {f.name} = {f.number};"


def field_info(f: Field, attr: str, oneof_name: str, refs: TypeRefs, unverified_lazy: bool = False) -> str:
    """The ``_rt.FieldInfo(...)`` of field ``f`` (``unverified_lazy``: the class decodes it on
    first access, unchecked at parse)."""
    # one string grown in place: every field has one, a map field three
    text = f"_rt.FieldInfo({f.number}, {f.name!r}, {f.json_name!r}, {attr!r}, {f.kind}"
    if f.repeated and f.map is None:
        text += ", repeated=True"
    if f.packed:
        text += ", packed=True"
    if f.presence:
        text += ", presence=True"
    if oneof_name:
        text += f", oneof={oneof_name!r}"
    if f.message is not None and f.map is None:
        text += f", message_type={refs.message(f.message)}"
    if f.enum is not None:
        text += f", enum={refs.enum_info(f.enum)}"
    if f.map is not None:
        text += (f", map_key={field_info(f.map.key, 'key', '', refs)}"
                 f", map_value={field_info(f.map.value, 'value', '', refs)}")
    if not f.utf8:
        text += ", utf8=False"
    if f.required:
        text += ", required=True"
    if f.message is None and not f.repeated and f.map is None:
        text += f", default={default_expr(f, refs)}"
    if unverified_lazy:
        text += ", unverified_lazy=True"
    return text + ")"


def default_expr(f: Field, refs: TypeRefs) -> str:
    """The default of scalar field ``f``: a literal, or the constant holding a closed enum's member."""
    if f.closed_enum and f.enum is not None and isinstance(f.default, int):
        return refs.enum_default(f.enum, f.default)
    return py_literal(f.default)


def tuple_expr(items: list[str]) -> str:
    """A tuple display of the expressions ``items``: ``()``, ``(a,)``, ``(a, b)``."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def message_info(msg: Message, field_infos: list[tuple[str, str]], oneofs: list[tuple[str, list[int]]],
                 layout: list[str | tuple[str, str] | tuple[str, str, int | str]]) -> str:
    """The ``_rt.MessageInfo(...)`` of ``msg``: its fields' infos, each followed by the field's
    declaration, which spells out the info's kind number (``field_infos``: (info, declaration)
    pairs), its oneofs' names and members, and where each field lives (``layout``, in field
    order: runtime/_layout.py reads it)."""
    fields = "".join(f"\n        {info},  # {decl}" for info, decl in field_infos)
    oneof_infos = tuple_expr([f"_rt.OneofInfo({name!r}, {tuple_expr([str(n) for n in numbers])})"
                              for name, numbers in oneofs])
    extra = ""
    if msg.extension_ranges:
        extra += f", extension_ranges={msg.extension_ranges!r}"
    if msg.message_set:
        extra += ", message_set=True"
    if msg.reserved_names:
        extra += f", reserved_names={msg.reserved_names!r}"
    if msg.legacy_json:
        extra += ", legacy_json=True"
    if layout:
        text = tuple_expr([repr(entry) for entry in layout])
        extra += ",\n" + filled(text.split(" "), 100, "    layout=", " " * 12)
    return (f"_rt.MessageInfo(\n    {msg.full_name!r},\n    ({fields}\n    ),\n"
            f"    {oneof_infos}{extra},\n)")


def enum_info(enum: Enum, cls: str) -> str:
    """The ``_rt.EnumInfo(...)`` of ``enum``, whose class is ``cls`` (a closed enum's fields hold
    its members)."""
    values = ", ".join(f"({v.name!r}, {v.number})" for v in enum.values)
    members = f", cls={cls}" if enum.closed else ""
    return (f"_rt.EnumInfo({enum.full_name!r}, {enum.closed!r}, ({values},), "
            f"legacy_json={enum.legacy_json!r}{members})")


def extension_info(full_name: str, field: str, extendee: str) -> str:
    """The ``_rt.ExtensionInfo(...)`` of an extension, from its field's info and extended class."""
    return f"_rt.ExtensionInfo({full_name!r}, {field}, {extendee})"


def wrapped_list(items: list[str], width: int) -> str:
    """``items`` (without spaces) joined by ", " and broken into lines of at most ``width``
    characters, as textwrap fills them; an item longer than a line stands alone on one."""
    joined = ", ".join(items)
    if len(joined) <= width:  # most: one line, as filled makes it without the words' list
        return joined
    return filled([item + "," for item in items[:-1]] + items[-1:], width)


def filled(words: list[str], width: int, first: str = "", rest: str = "") -> str:
    """``words`` (without spaces) joined by spaces and broken into lines of at most ``width``
    characters, the first starting with ``first``, the others with ``rest``, as textwrap.wrap
    fills them (without breaking words) at a fraction of its cost; a word longer than a line
    stands alone on one."""
    if not words:
        return ""
    joined = " ".join(words)
    if len(first) + len(joined) <= width:  # most: one line
        return first + joined
    lines: list[str] = []
    line = first + words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = rest + word
    lines.append(line)
    return "\n".join(lines)
