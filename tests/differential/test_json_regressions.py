"""Deterministic JSON cases the JSON differential tests (test_json_differential.py) found
or rely on, for every style. Open bugs are ``xfail(strict=True)`` with their cause."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf import json_format

from tests.differential.harness import CONFORMANCE_ROOTS, OWN_ROOTS, Backend, World

PROTO3 = CONFORMANCE_ROOTS[0]  # protobuf_test_messages.proto3.TestAllTypesProto3


@pytest.fixture
def proto3(world: World) -> None:
    if PROTO3 not in world.roots:
        pytest.skip("conformance test messages not available (no runner --protos)")


def test_null_value_number_prints_null(world: World, backend: Backend, proto3: None) -> None:
    """optional_null_value (NullValue, field 307) = 1, a number NullValue does not define:
    upb and ours both print null (so the random tests keep NullValue fields at 0)."""
    data = bytes.fromhex("981301")
    upb_msg: Any = world.upb.cls(PROTO3.full_name)()
    upb_msg.ParseFromString(data)
    upb_text = json_format.MessageToJson(upb_msg, indent=None)
    assert upb_text == '{"optionalNullValue": null}'
    res = backend.json(PROTO3, "to_json", data)
    assert res.ok and res.value == '{"optionalNullValue":null}', res


@pytest.mark.parametrize("wire", ["fa12040a000a00", "fa12050a03612c62"], ids=["empty-paths", "comma-path"])
def test_field_mask_json_round_trips_or_is_refused(world: World, backend: Backend, proto3: None,
                                                   wire: str) -> None:
    """optional_field_mask (field 306): to_json either refuses the mask or prints JSON that
    from_json reads back as the same mask."""
    res = backend.json(PROTO3, "to_json", bytes.fromhex(wire))
    assert not res.crash, res.crash
    if res.ok:
        back = backend.json(PROTO3, "from_json", res.value)
        assert back.ok and back.value == bytes.fromhex(wire), (res.value, back)


SURROGATE_INPUTS = {
    "map-key": '{"mapStringString": {"\\ud800": "a"}}',
    "struct-key": '{"optionalStruct": {"\\ud800": 1}}',
    "field-mask": '{"optionalFieldMask": "a\\ud800"}',
}


@pytest.mark.parametrize("case", sorted(SURROGATE_INPUTS))
def test_unpaired_surrogate_outside_string_values_is_a_json_error(
        world: World, backend: Backend, proto3: None, case: str) -> None:
    """from_json either rejects the text with JsonError or returns a message that serializes."""
    res = backend.json(PROTO3, "from_json", SURROGATE_INPUTS[case])
    assert not res.crash, res.crash


def test_map_key_checked_when_an_unknown_enum_value_is_skipped(world: World, backend: Backend) -> None:
    """map<uint32, Mood> given {"x": "NOT_A_MOOD"} with ignore_unknown_fields: the value is
    skipped, but the key "x" is no uint32 (the generated parser checked the key only for
    values it kept, and accepted what the reflective parser and upb refuse)."""
    rich3 = next(r for r in OWN_ROOTS if r.full_name == "pyopaque_diff.p3.Rich3")
    doc = '{"mUint32Mood": {"x": "NOT_A_MOOD", "7": "NOT_A_MOOD"}}'
    res = backend.json(rich3, "from_json", doc, ignore_unknown_fields=True)
    assert not res.crash, res.crash
    assert not res.ok and res.error.startswith('$.mUint32Mood["x"]: expected an integer'), res
    res = backend.json(rich3, "from_json", '{"mUint32Mood": {"7": "NOT_A_MOOD"}}', ignore_unknown_fields=True)
    assert res.ok and res.value == b"" and not res.notes, res


@pytest.mark.parametrize("field, text, reason", [
    ("optionalTimestamp", "1970-02-30T00:00:00Z", "invalid date in timestamp"),
    ("repeatedTimestamp", ["1970-01-01T00:00:00Z", "1970-01-01T25:00:00Z"], "invalid time of day"),
    ("optionalDuration", "1.5", "expected a duration"),
])
def test_bad_timestamp_or_duration_names_its_path(world: World, backend: Backend, proto3: None,
                                                  field: str, text: Any, reason: str) -> None:
    """Timestamp and Duration parse their JSON strings in a fast path of their own (runtime/wkt.py);
    an error there hands over to the reflective parser, whose message names the field."""
    res = backend.json(PROTO3, "from_json", json.dumps({field: text}))
    assert not res.ok and not res.crash, res
    assert res.error is not None and f"$.{field}" in res.error and reason in res.error, res.error
