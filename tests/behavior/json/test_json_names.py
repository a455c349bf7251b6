"""JSON names that meet other names: a field's json_name equal to another field's proto name
(the json_name wins on input, as in upb and json_format)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from protoc_gen_pyopaque.runtime import JsonError
from tests.behavior.conftest import Modules, mods  # noqa: F401  (the per-style fixture)
from tests.behavior.json.test_json_format import _official

# key -> (value, new_value) read from it: "value" is new_value's json_name and value's proto name
INPUTS = {
    '{"value": 2}': (0, 2), '{"old_value": 2}': (2, 0), '{"new_value": 2}': (0, 2),
    '{"value": 2, "old_value": 3}': (3, 2), '{"old_value": 2, "value": 3}': (2, 3),
}


def test_a_json_name_wins_over_another_fields_proto_name(mods: Modules) -> None:
    Conflict = mods.load("legacy").ConflictJsonName
    for text, (value, new_value) in INPUTS.items():
        for msg in (Conflict.from_json(text), Conflict.from_dict(json.loads(text))):
            got = (msg.get_value(), msg.get_new_value())
            assert got == (value, new_value), text
    both = Conflict(value=1, new_value=2)
    assert json.loads(both.to_json()) == {"old_value": 1, "value": 2}
    assert json.loads(both.to_json(preserving_proto_field_names=True)) == {"value": 1, "new_value": 2}
    assert Conflict.from_json(both.to_json()) == both
    with pytest.raises(JsonError, match="given twice"):  # one field under both its names
        Conflict.from_json('{"value": 2, "new_value": 3}')


def test_json_names_as_upb_reads_them(mods: Modules, tmp_path: Path) -> None:
    from google.protobuf import json_format as official

    pool, _ = _official(tmp_path)
    from google.protobuf import message_factory  # type: ignore[import-untyped]

    theirs_cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("golden.ConflictJsonName"))
    Conflict = mods.load("legacy").ConflictJsonName
    for text in INPUTS:
        theirs = official.Parse(text, theirs_cls(), descriptor_pool=pool)
        assert Conflict.from_json(text).serialize() == theirs.SerializeToString(), text
    both = Conflict(value=1, new_value=2)
    assert json.loads(both.to_json()) == official.MessageToDict(theirs_cls.FromString(both.serialize()))
