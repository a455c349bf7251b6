"""Differential tests of canonical ProtoJSON against ``google.protobuf.json_format`` on
upb, for every API style (see harness.py), on random messages:

1. upb message -> ``MessageToJson`` (camelCase or proto names) -> ours ``from_json`` ->
   ours ``serialize`` -> upb parse: the same message;
2. upb message -> bytes -> ours ``parse`` -> ours ``to_json`` -> upb ``Parse``: the same
   message; and our text, loaded, equals upb's text, loaded (numbers compared
   numerically, key order ignored), up to the differences in ``json_diff``;
   ours ``to_dict`` equals its ``to_json`` and ``from_json(to_json(m)) == m``;
3. mutated JSON documents: ours accepts or raises JsonError (nothing else), exactly
   when upb's ``Parse`` accepts, with the same message.

JSON cannot carry unknown fields (dropped) and Any needs a resolvable type: inputs
have their unknown fields discarded and every Any packs a message of a type
reachable from the root (or stays empty). Extensions are kept (``[full.name]``).
When upb refuses to print a message (e.g. a Timestamp out of range), ours must
raise JsonError too.

Counts: PYOPAQUE_DIFF_EXAMPLES=<n> (per test) or HYPOTHESIS_PROFILE=long (x20).
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
from decimal import Decimal
from collections.abc import Iterator
from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor as FD
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.differential.harness import Backend, Root, World
from tests.differential.strategies import build, is_map, map_values, message_specs


def _examples(default: int) -> int:
    if "PYOPAQUE_DIFF_EXAMPLES" in os.environ:
        return int(os.environ["PYOPAQUE_DIFF_EXAMPLES"])
    return default * (20 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 1)


def _settings(default: int) -> settings:
    return settings(
        max_examples=_examples(default), deadline=None, derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])


ANY = "google.protobuf.Any"
VALUE = "google.protobuf.Value"
FIELD_MASK = "google.protobuf.FieldMask"
FLT_MAX_SHORT = "3.4028235e+38"


# ----------------------------------------------------------------------------- inputs

def _reachable(desc: Any, extensions: dict[str, list[Any]]) -> list[Any]:
    """Message descriptors reachable from ``desc`` (fields, map values, extensions)."""
    seen: dict[str, Any] = {}
    todo = [desc]
    while todo:
        d = todo.pop()
        if d.full_name in seen:
            continue
        seen[d.full_name] = d
        for f in list(d.fields) + extensions.get(d.full_name, []):
            if f.message_type is not None:
                todo.append(f.message_type)
    return [d for name, d in sorted(seen.items()) if not d.GetOptions().map_entry]


def _submessages(msg: Any) -> list[Any]:
    out = []
    for f, v in msg.ListFields():
        if is_map(f):
            if f.message_type.fields_by_name["value"].type == FD.TYPE_MESSAGE:
                out += map_values(v)
        elif f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
            out += list(v) if f.is_repeated else [v]
    return out


def make_json_safe(world: World, root: Root, msg: Any, data: st.DataObject, depth: int = 0) -> None:
    """Make ``msg`` representable in JSON, in place: drop unknown fields, and give every
    Any a payload of a resolvable type (drawn), or leave it empty."""
    msg.DiscardUnknownFields()
    if msg.DESCRIPTOR.full_name == ANY:
        msg.Clear()
        if depth < 4 and data.draw(st.integers(0, 3), label="pack Any") > 0:
            types = _reachable(world.upb.descriptor(root.full_name), world.upb.extensions)
            desc = data.draw(st.sampled_from(types), label="Any type")
            spec = data.draw(message_specs(desc, world.upb.extensions, depth=1), label="Any payload")
            inner = build(message_factory.GetMessageClass(desc), spec)
            make_json_safe(world, root, inner, data, depth + 1)
            msg.Pack(inner)
        return
    for f, v in msg.ListFields():
        if _is_null_value(f) and not is_map(f):
            # a NullValue field prints as null whatever its number (upb and ours alike, see
            # test_json_regressions.py): numbers other than 0 cannot survive JSON
            if f.is_repeated:
                if any(v):
                    v[:] = [0] * len(v)
            elif v:
                msg.ClearExtension(f) if f.is_extension else msg.ClearField(f.name)
        elif is_map(f) and _is_null_value(f.message_type.fields_by_name["value"]):
            for k in list(v):
                v[k] = 0
    for sub in _submessages(msg):
        make_json_safe(world, root, sub, data, depth)


def _is_null_value(f: Any) -> bool:
    return bool(f.type == FD.TYPE_ENUM and f.enum_type.full_name == "google.protobuf.NullValue")


def draw_message(world: World, data: st.DataObject, depth: int = 3) -> tuple[Root, Any]:
    root = data.draw(st.sampled_from(world.roots), label="root")
    spec = data.draw(message_specs(world.upb.descriptor(root.full_name), world.upb.extensions, depth=depth),
                     label="spec")
    msg = build(world.upb.cls(root.full_name), spec)
    make_json_safe(world, root, msg, data)
    return root, msg


# ----------------------------------------------------------------------------- comparison

def jcanon(world: World, msg: Any) -> Any:
    """A comparable form of a upb message for JSON round trips: fields by number, maps as
    sorted entries, NaN == NaN, -0.0 != 0.0, Any by its unpacked payload (whose bytes
    either side may order differently); unknown fields ignored."""
    if msg.DESCRIPTOR.full_name == ANY and msg.type_url:
        desc = world.upb.pool.FindMessageTypeByName(msg.type_url.rpartition("/")[2])
        inner = message_factory.GetMessageClass(desc)()
        inner.ParseFromString(msg.value)
        return ("Any", msg.type_url, jcanon(world, inner))
    if msg.DESCRIPTOR.full_name == VALUE and msg.WhichOneof("kind") is None:
        # a Value with no kind has no JSON form: upb prints it as null, which reads back
        # as null_value; ours does the same
        event("Value with no kind set: prints as null, reads back as null_value")
        return ((1, 0),)
    if msg.DESCRIPTOR.full_name == FIELD_MASK:
        paths = tuple(p for p in ",".join(msg.paths).split(",") if p)
        if paths != tuple(msg.paths):
            # JSON joins paths with ",": empty paths and paths holding "," do not survive
            event("FieldMask paths empty or holding ',': no JSON form")
        return (FIELD_MASK, paths)
    items = []
    for f, v in msg.ListFields():
        if f.is_repeated and len(v) == 0:
            continue
        if is_map(f):
            val_f = f.message_type.fields_by_name["value"]
            value: Any = tuple(sorted(((k, _one(world, val_f, x)) for k, x in v.items()), key=repr))
        elif f.is_repeated:
            value = tuple(_one(world, f, x) for x in v)
        else:
            value = _one(world, f, v)
        items.append((f.number, value))
    return tuple(sorted(items, key=lambda kv: kv[0]))


def _one(world: World, f: Any, x: Any) -> Any:
    if f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
        return jcanon(world, x)
    if f.type in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE):
        return "NaN" if math.isnan(x) else (x, math.copysign(1.0, x))
    return x


def upb_to_json(world: World, msg: Any, opts: dict[str, Any]) -> str | Exception:
    try:
        text: str = json_format.MessageToJson(
            msg, preserving_proto_field_name=opts.get("preserving_proto_field_names", False),
            always_print_fields_with_no_presence=opts.get("always_print_fields_with_no_presence", False),
            descriptor_pool=world.upb.pool, indent=None)
    except Exception as exc:  # noqa: BLE001 - json_format raises assorted types
        return exc
    return text


def upb_from_json(world: World, root: Root, text: str, ignore_unknown: bool = False) -> Any | Exception:
    msg = world.upb.cls(root.full_name)()
    try:
        json_format.Parse(text, msg, ignore_unknown_fields=ignore_unknown, descriptor_pool=world.upb.pool)
    except Exception as exc:  # noqa: BLE001
        return exc
    return msg


def _num(x: Any) -> Any:
    """A JSON number or numeric string as a comparable exact value."""
    if isinstance(x, bool):
        return x
    if isinstance(x, (int, float)):
        return Decimal(repr(x)) if isinstance(x, float) and math.isfinite(x) else x
    return x


def json_diff(a: Any, b: Any, path: str = "$") -> str | None:
    """The first difference between two loaded JSON values (``a`` ours, ``b`` upb's):
    key order ignored, numbers compared by value (1.0 == 1, 1e+20 == 100000000000000000000)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(a.keys() ^ b.keys())} on one side only"
        for k in a:
            d = json_diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = json_diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                       and not isinstance(a, bool) and not isinstance(b, bool)):
        return f"{path}: {a!r} != {b!r} (types)"
    if _num(a) != _num(b):
        return f"{path}: {a!r} != {b!r}"
    return None


def _all_messages(world: World, msg: Any) -> Iterator[Any]:
    """``msg`` and every message inside it, Any payloads included."""
    yield msg
    if msg.DESCRIPTOR.full_name == ANY and msg.type_url:
        desc = world.upb.pool.FindMessageTypeByName(msg.type_url.rpartition("/")[2])
        yield from _all_messages(world, message_factory.GetMessageClass(desc).FromString(msg.value))
    for sub in _submessages(msg):
        yield from _all_messages(world, sub)


def _has_empty_value(world: World, msg: Any) -> bool:
    return any(m.DESCRIPTOR.full_name == VALUE and m.WhichOneof("kind") is None for m in _all_messages(world, msg))


def _check_notes(notes: list[str], msg: Any, where: str, world: World) -> None:
    """Our internal consistency notes (json_oracle): none, but an empty Value (no kind)
    legitimately comes back from JSON as null_value."""
    if notes == ["from_json(to_json(m)) != m (deterministic bytes)"]:
        if _has_empty_value(world, msg):
            event("ours: empty Value -> null -> null_value")
            return
    assert not notes, f"{notes}; {where}"


def _opts(data: st.DataObject) -> dict[str, Any]:
    return {
        "preserving_proto_field_names": data.draw(st.booleans(), label="proto names"),
        "always_print_fields_with_no_presence": data.draw(st.integers(0, 3), label="always print") == 0,
    }


def _upb_bytes_parse(world: World, root: Root, wire: bytes) -> Any:
    msg = world.upb.cls(root.full_name)()
    msg.ParseFromString(wire)
    return msg


# ----------------------------------------------------------------------------- 1. upb JSON -> ours

@_settings(60)
@given(data=st.data())
def test_upb_json_parses_to_the_same_message(world: World, backend: Backend, data: st.DataObject) -> None:
    root, msg = draw_message(world, data)
    opts = _opts(data)
    text = upb_to_json(world, msg, opts)
    wire = msg.SerializePartialToString()
    where = f"{backend.name} {root} bytes {wire.hex()}"
    if isinstance(text, Exception):
        event(f"upb cannot print: {type(text).__name__}")
        ours = backend.json(root, "to_json", wire, **opts)
        assert not ours.crash, f"ours crashed: {ours.crash}\n{where}"
        if _upb_print_tolerated(world, text, msg):
            return
        assert not ours.ok, f"upb refuses to print ({text}), ours prints {ours.value}; {where}"
        return
    res = backend.json(root, "from_json", text)
    where += f" json {text}"
    assert not res.crash, f"ours crashed: {res.crash}\n{where}"
    if not res.ok and "FieldMask path '' " in res.error and "" in _field_mask_paths(world, msg):
        # FieldMask paths ["", ""] print as ","; ours rejects empty paths when parsing
        event("FieldMask with an empty path: upb prints it, ours rejects it when parsing")
        return
    assert res.ok, f"ours rejects upb's JSON: {res.error}; {where}"
    _check_notes(res.notes, msg, where, world)
    again = _upb_bytes_parse(world, root, res.value)
    assert jcanon(world, again) == jcanon(world, msg), f"ours read a different message (wrote {res.value.hex()}); {where}"


# ----------------------------------------------------------------------------- 2. ours JSON -> upb

@_settings(60)
@given(data=st.data())
def test_our_json_parses_in_upb_and_matches_its_text(world: World, backend: Backend, data: st.DataObject) -> None:
    root, msg = draw_message(world, data)
    opts = _opts(data)
    wire = msg.SerializePartialToString()
    where = f"{backend.name} {root} opts {opts} bytes {wire.hex()}"
    res = backend.json(root, "to_json", wire, **opts)
    assert not res.crash, f"ours crashed: {res.crash}\n{where}"
    expected = upb_to_json(world, msg, opts)
    if isinstance(expected, Exception):
        event(f"upb cannot print: {type(expected).__name__}")
        if _upb_print_tolerated(world, expected, msg):
            return
        assert not res.ok, f"upb refuses to print ({expected}), ours prints {res.value}; {where}"
        return
    if not res.ok and "FieldMask path" in res.error and any(
            not p or "," in p for p in _field_mask_paths(world, msg)):
        # FieldMask paths "" or "a,b" have no JSON form: ours refuses them (since 1214a5d),
        # upb prints "," or "a,b", which read back as other paths
        event("FieldMask path empty or with ',': ours refuses to print, upb prints lossy JSON")
        return
    assert res.ok, f"ours refuses to print ({res.error}), upb prints {expected}; {where}"
    _check_notes(res.notes, msg, where, world)
    where += f" ours {res.value} upb {expected}"
    upb_text = res.value
    if FLT_MAX_SHORT in upb_text:
        # upb's Parse rejects its own (and our) shortest form of FLT_MAX, 3.4028235e+38, as
        # "Float value too large"; it is the float32 FLT_MAX (ProtoJSON: shortest round trip)
        event("upb cannot parse 3.4028235e+38 (float32 max): given as the exact double")
        upb_text = upb_text.replace(FLT_MAX_SHORT, "3.4028234663852886e+38")
    parsed = upb_from_json(world, root, upb_text)
    assert not isinstance(parsed, Exception), f"upb cannot parse our JSON: {parsed!r}; {where}"
    assert jcanon(world, parsed) == jcanon(world, msg), f"upb reads our JSON as a different message; {where}"
    diff = json_diff(json.loads(res.value), json.loads(expected))
    assert diff is None, f"our JSON differs from upb's: {diff}; {where}"


# ----------------------------------------------------------------------------- 3. mutated JSON

_BAD_SCALARS = [
    None, True, False, 0, -1, 1.5, -0.0, 1e39, -1e39, 1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 53 + 1,
    2 ** 63, -(2 ** 63) - 1, 2 ** 64, 1.0, 1e2, "", "1", "-1", "1.0", "1e2", "1.5", "0x10", " 1", "01", "-0",
    "18446744073709551616", "9223372036854775808", "NaN", "Infinity", "-Infinity", "nan", "inf", "true",
    "null", "FOO", "BAR", "ZERO", "NOT_A_VALUE", "AAA=", "AA==", "A", "A===", "!!!!", "_-_-", "YQ", "YWI",
    "a b", "\u00e9", "1970-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "0000-12-31T23:59:59Z",
    "9999-12-31T23:59:59.999999999Z", "10000-01-01T00:00:00Z", "1970-01-01T00:00:00.1234567891Z",
    "1970-01-01 00:00:00Z", "1970-01-01T00:00:00+08:00", "1970-01-01T00:00:00-24:00", "1970-01-01T00:00:00z",
    "1970-02-30T00:00:00Z", "1970-01-01T00:00:60Z", "1970-01-01T00:00:00.Z", "1s", "-1.5s", "0.000000001s",
    "315576000000s", "315576000001s", "-315576000001s", "1.0000000001s", "s", "1", "1.s", ".5s", "-0.5s",
    "fooBar,baz", "foo_bar", "foo.barBaz", "a,,b", "FooBar", "type.googleapis.com/google.protobuf.Empty",
    3.4028235e38, 3.4028236e38, -3.5e38, 1e-46, 5e-324, 2.5, 1e20, 1e-7,
]
_BAD_VALUES: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(_BAD_SCALARS), st.integers(-(2 ** 70), 2 ** 70), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
    st.sampled_from([[], {}, [None], [1], ["a"], [[]], {"a": 1}, {"@type": "x"}, {"value": 1}, {"": None}]),
)
_BAD_VALUES = _BAD_VALUES.map(copy.deepcopy)  # mutations must not alter the shared samples
_BAD_KEYS = st.one_of(st.sampled_from(["unknownField", "[unknown.ext]", "@type", "", "value", "FOO"]),
                      st.text(max_size=6))


def _slots(obj: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append((obj, k))
            _slots(v, out)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.append((obj, i))
            _slots(v, out)
    return out


def _other_name(key: str) -> str:
    """The other spelling of a field name (camelCase <-> snake_case)."""
    if "_" in key:
        head, *rest = key.split("_")
        return head + "".join(p[:1].upper() + p[1:] for p in rest)
    return "".join("_" + c.lower() if c.isupper() else c for c in key)


@st.composite
def mutated_json(draw: Any, obj: Any) -> str:
    """``obj`` (a loaded JSON document) with a few mutations, as text."""
    for _ in range(draw(st.integers(1, 3), label="mutations")):
        slots = _slots(obj, [])
        how = draw(st.sampled_from(["replace", "replace", "replace", "add key", "drop", "rename", "wrap"]),
                   label="how")
        if not slots or how == "add key":
            dicts = [obj] + [c[k] for c, k in slots if isinstance(c[k], dict)] if isinstance(obj, dict) else []
            if dicts:
                target = draw(st.sampled_from(dicts), label="dict")
                target[draw(_BAD_KEYS, label="key")] = draw(_BAD_VALUES, label="value")
            continue
        container, key = draw(st.sampled_from(slots), label="slot")
        if how == "replace":
            container[key] = draw(_BAD_VALUES, label="value")
        elif how == "wrap":
            container[key] = draw(st.sampled_from(["list", "str", "obj"]), label="wrap") and [container[key]]
        elif how == "drop":
            del container[key]
        elif how == "rename" and isinstance(container, dict):
            # a field given twice (both spellings), or under its other spelling only
            other = _other_name(key)
            if other not in container:
                container[other] = container[key] if draw(st.booleans(), label="twice") else container.pop(key)
    text = json.dumps(obj)
    if draw(st.integers(0, 9), label="text mutation") == 0:
        i = draw(st.integers(0, len(text)), label="at")
        text = text[:i] + draw(st.sampled_from(["", ",", "}", "]", '"', "\\u", "1", " ", "\\ud800", "NaN"]),
                               label="insert") + text[i + draw(st.integers(0, 2), label="cut"):]
    return text


@_settings(100)
@given(data=st.data())
def test_mutated_json_accepted_exactly_when_upb_accepts(world: World, backend: Backend, data: st.DataObject) -> None:
    root, msg = draw_message(world, data, depth=2)
    text = upb_to_json(world, msg, _opts(data))
    if isinstance(text, Exception):
        event("upb cannot print the source message")
        return
    doc = data.draw(mutated_json(json.loads(text)), label="json")
    ignore_unknown = data.draw(st.integers(0, 3), label="ignore unknown") == 0
    opts = {"ignore_unknown_fields": True} if ignore_unknown else {}
    res = backend.json(root, "from_json", doc, **opts)
    where = f"{backend.name} {root} ignore_unknown={ignore_unknown} json {doc}"
    assert not res.crash, f"ours raised something other than JsonError: {res.crash}\n{where}"
    fast_notes = [n for n in res.notes if "generated" in n or "reflective" in n]
    assert not fast_notes, f"{fast_notes}; {where}"
    upb_msg = upb_from_json(world, root, doc, ignore_unknown)
    if isinstance(upb_msg, Exception) and not isinstance(upb_msg, json_format.ParseError):
        event(f"upb raised {type(upb_msg).__name__}")
    upb_ok = not isinstance(upb_msg, Exception)
    event(f"upb {'accepts' if upb_ok else 'rejects'}, ours {'accepts' if res.ok else 'rejects'}")
    if upb_ok and res.ok:
        assert not isinstance(upb_msg, Exception)
        again = _upb_bytes_parse(world, root, res.value)
        if jcanon(world, again) != jcanon(world, upb_msg) and (
                _loose_int_string(doc) or (ignore_unknown and _quoted_int(doc))):
            # an enum given as "1", "01" or " 1": ours looks for a value of that name (none:
            # skipped with ignore_unknown_fields); upb's Python json_format takes int("01") == 1
            event("upb reads an enum string with int() (zeros, spaces, +, _ allowed)")
            return
        if jcanon(world, again) != jcanon(world, upb_msg) and _non_ascii_upper_in_field_mask(world, upb_msg):
            # FieldMask "À": ours maps only ASCII capitals to "_x" (as C++ does); upb's Python
            # json_format uses str.isupper()/lower() and reads "_à"
            event("upb converts non-ASCII capitals in FieldMask paths")
            return
        if jcanon(world, again) != jcanon(world, upb_msg) and _big_inexact_number(doc):
            # an integer field given as 3.602879701896397e+16: ours takes the decimal's exact
            # value (36028797018963970), upb (and C++) round it through a double first
            event("integer written with exponent/fraction beyond 2**53: ours exact, upb via double")
            return
        assert jcanon(world, again) == jcanon(world, upb_msg), (
            f"both accept, different messages: ours wrote {res.value.hex()}, "
            f"upb {upb_msg.SerializePartialToString().hex()}; {where}")
        return
    tolerated = tolerated_disagreement(doc, upb_msg, res.error, ignore_unknown)
    if tolerated:
        event(tolerated)
        return
    assert upb_ok == res.ok, (
        f"upb {'accepts' if upb_ok else 'rejects (' + repr(upb_msg) + ')'}, "
        f"ours {'accepts' if res.ok else 'rejects (' + res.error + ')'}; {where}")


_NUMBER = re.compile(r'(?<![\w."])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


def _big_inexact_number(doc: str) -> bool:
    return any(re.search(r"[.eE]", tok) and abs(float(tok)) >= 2 ** 53 for tok in _NUMBER.findall(doc))


def _field_mask_paths(world: World, msg: Any) -> list[str]:
    """Every FieldMask path in ``msg``, Any payloads included."""
    return [p for m in _all_messages(world, msg) if m.DESCRIPTOR.full_name == FIELD_MASK for p in m.paths]


def _upb_print_tolerated(world: World, exc: Exception, msg: Any) -> bool:
    """Say whether upb's refusal to print ``msg`` is its own (ours may print)."""
    if "must not contain uppercase letters" in str(exc) and any(
            not c.isascii() for p in _field_mask_paths(world, msg) for c in p):
        # FieldMask path "À": upb's check uses str.isupper(); ours, like C++, only
        # refuses ASCII capitals (which cannot come back from lowerCamelCase)
        event("upb refuses non-ASCII capitals in FieldMask paths")
        return True
    return False


def _non_ascii_upper_in_field_mask(world: World, msg: Any) -> bool:
    return any(not c.isascii() for p in _field_mask_paths(world, msg) for c in p)


def _python_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _python_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# a JSON string token, escapes included (so that the tokens after "\u001f" pair up right)
_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _quoted_int(doc: str) -> bool:
    return any(_python_int(x) for x in _JSON_STRING.findall(doc))


def _loose_int_string(doc: str) -> bool:
    return any(_python_int(x) and x != str(int(x)) for x in _JSON_STRING.findall(doc))


def tolerated_disagreement(doc: str, upb_result: Any, our_error: str, ignore_unknown: bool) -> str:
    """A reason when upb and ours legitimately disagree on accepting ``doc``, else ""."""
    upb_ok = not isinstance(upb_result, Exception)
    if upb_ok and "invalid base64" in our_error:
        # ProtoJSON bytes are base64 (standard or URL-safe alphabet); upb's Python
        # json_format decodes with base64's non-validating decoder, which skips other chars
        return "upb accepts base64 with characters outside the alphabet"
    if upb_ok and "expected an object" in our_error:
        # upb's Python json_format iterates any iterable as a message's members: "" and []
        # read as an empty message (and "ab" as keys "a", "b" when ignoring unknown fields)
        return "upb accepts a string or array for a message field"
    if not upb_ok and "does not have extensions" in str(upb_result):
        # with ignore_unknown_fields an unknown "[ext.name]" is skipped (as C++ does);
        # upb's Python json_format rejects any "[...]" key on a message without extensions
        return "upb rejects [ext] keys on messages without extensions, even when ignoring unknown fields"
    if upb_ok and re.search(r"expected an? [\w ]+, got (true|false)$", our_error):
        # upb's Python json_format reads numbers and enums through int()/float(): true is 1
        return "upb accepts true/false for a number or enum"
    number = re.search(r"expected an integer, got (-?[\d.]+(?:E[-+]?\d+)?)$", our_error, re.I)
    if upb_ok and number and Decimal(number.group(1)) != Decimal(number.group(1)).to_integral_value():
        # upb's Python json_format reads closed enums with int(): 1.5 becomes 1
        return "upb truncates a non-integral number for an enum"
    if not upb_ok and re.search("Float value too (large|small)", str(upb_result)) and FLT_MAX_SHORT in doc:
        # see test 2: upb rejects 3.4028235e+38, the shortest form of float32's FLT_MAX
        return "upb rejects ±3.4028235e+38 (float32 max)"
    if not upb_ok and "SystemError" in str(upb_result) and re.search(r"\\ud[89a-f]", doc, re.I):
        # a key holding a lone surrogate: upb's name lookup fails internally (SystemError
        # wrapped in ParseError); ours finds no such field (skipped with ignore_unknown_fields)
        return "upb fails internally on a key with a lone surrogate"
    if upb_ok and "out of range for int32" in our_error:
        # an enum given a number beyond int32: ours rejects it (as C++ does); upb takes its
        # low 32 bits (4294967296 -> 0) or, ignoring unknown fields, skips it as unknown
        return "upb accepts an enum number beyond int32"
    if upb_ok and re.search(r"FieldMask path '' ", our_error):
        # "a,,b" or ",": ours rejects the empty path (not a lowerCamelCase name);
        # upb keeps the empty paths
        return "upb accepts empty FieldMask paths"
    quoted = re.search(r'expected (?:an integer|a number), got "([^"]*)"$', our_error)
    if upb_ok and quoted and _python_float(quoted.group(1)):
        # "01", " 1", "+1", "1_0", "inf": not ProtoJSON numbers; upb's Python json_format
        # uses int()/float() (C++ SimpleAtoi takes some of them too: ours is the strict one)
        return "upb accepts a quoted number Python's int()/float() takes"
    if upb_ok and 'takes only "@type" and "value"' in our_error:
        # an Any holding a well-known type with other keys: ours rejects them (even when
        # ignoring unknown fields); upb's Python json_format reads "value" and skips the rest
        return "upb ignores extra keys in an Any of a well-known type"
    name = re.search(r': "([^"]*)" is not a value of ', our_error)
    if upb_ok and name and _python_int(name.group(1)):
        # an enum given as " 1" or "01": not a value name; upb's Python json_format takes int()
        return "upb reads an enum string with int()"
    if not upb_ok and "RepeatedCompositeContainer' object has no attribute 'null_value'" in str(upb_result):
        # null for a repeated Value field (the field's default, as for any field): upb's
        # Python json_format treats the list as one Value and fails internally
        return "upb fails internally on null for a repeated Value field"
    if upb_ok and re.search(r'number "[^"]*" out of range for (float|double)$', our_error):
        # a float given as the string "1E100": upb's Python json_format range-checks only
        # JSON numbers, not quoted ones, and stores inf
        return "upb accepts a quoted float beyond its range (as inf)"
    if not upb_ok and "KeyError: 'value'" in str(upb_result) and '"@type"' in doc:
        # an Any holding a well-known type with no "value" (an empty wrapper, Struct...): ours
        # reads the type's default, as for any absent member; upb's Python json_format fails
        # internally (KeyError wrapped in ParseError)
        return "upb fails internally on an Any of a well-known type without \"value\""
    if upb_ok and "given twice" in our_error:
        # a field under both its JSON and proto names: the conformance suite's
        # Recommended FieldNameDuplicate* tests want a rejection (as C++); upb keeps the last
        return "upb accepts a field given twice (JSON and proto name)"
    if not upb_ok and ignore_unknown and _quoted_int(doc) and re.search(
            r"Value out of range|Invalid enum value", str(upb_result)):
        # an enum given as a quoted number ("18446744073709551616", or "-1" for a closed
        # enum): ignoring unknown fields, ours skips it as an unknown value name; upb's
        # Python json_format takes int() and rejects the number
        return "upb reads an enum string with int() and checks the number, even when ignoring unknown fields"
    if upb_ok and "is not valid JSON" in our_error and re.search(r"\b(NaN|Infinity)\b", doc):
        # NaN, Infinity and -Infinity are no JSON literals (ProtoJSON writes them as strings):
        # ours refuses them; upb's Python json_format reads them with json.loads, which takes them
        return "upb accepts the literals NaN and Infinity"
    return ""
