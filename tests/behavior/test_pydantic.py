"""Messages as the types of pydantic (v2) model fields: Message.__get_pydantic_core_schema__
validates through from_dict/from_json and serializes through to_dict, in every style."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from protoc_gen_pyopaque.runtime.google.protobuf import timestamp_pb
from tests.behavior.conftest import Modules, mods  # noqa: F401  (the per-style fixture)

pydantic = pytest.importorskip("pydantic")


def model_of(scalars: type[Any]) -> type[Any]:
    class Record(pydantic.BaseModel):
        scalars: scalars
        at: timestamp_pb.Timestamp | None = None

    return Record


def test_a_field_validates_an_instance_or_its_protojson_value(mods: Modules) -> None:
    scalars = mods.load("scalars").Scalars
    record = model_of(scalars)
    given = scalars.from_dict({"fInt32": 5})
    assert record(scalars=given).scalars is given
    validated = record(scalars={"fInt64": 7, "fString": "x"}, at="2020-01-01T00:00:00Z")
    assert type(validated.scalars) is scalars
    assert validated.scalars.to_dict() == {"fInt64": "7", "fString": "x"}
    assert type(validated.at) is timestamp_pb.Timestamp


def test_a_model_reads_and_writes_protojson(mods: Modules) -> None:
    record = model_of(mods.load("scalars").Scalars)
    text = '{"scalars":{"fInt64":"-3","fBytes":"AAE="},"at":"2020-01-01T00:00:01.500Z"}'
    read = record.model_validate_json(text)
    assert read.scalars.to_dict() == {"fInt64": "-3", "fBytes": "AAE="}
    assert read.at.to_dict() == "2020-01-01T00:00:01.500Z"  # a well-known type's JSON value, a string
    assert read.model_dump_json() == text
    assert read.model_dump() == {"scalars": {"fInt64": "-3", "fBytes": "AAE="}, "at": "2020-01-01T00:00:01.500Z"}
    assert record.model_validate(read.model_dump()).model_dump() == read.model_dump()


@pytest.mark.parametrize("value, error", [
    ({"noSuchField": 1}, "golden.Scalars has no field named 'noSuchField'"),
    ([1], "expected an object for golden.Scalars"),
    ({"fInt32": "x"}, "fInt32"),
    ('{"fInt32": 1}', "expected an object for golden.Scalars"),  # JSON text: model_validate_json
])
def test_bad_input_is_a_validation_error_naming_the_field(mods: Modules, value: Any, error: str) -> None:
    record = model_of(mods.load("scalars").Scalars)
    with pytest.raises(pydantic.ValidationError) as caught:
        record(scalars=value)
    assert caught.value.errors()[0]["loc"] == ("scalars",)
    assert error in str(caught.value)


def test_json_schema_says_any_json_value(mods: Modules) -> None:
    record = model_of(mods.load("scalars").Scalars)
    for mode in ("validation", "serialization"):
        assert record.model_json_schema(mode=mode)["properties"]["scalars"] == {"title": "Scalars"}


def test_the_runtime_imports_pydantic_core_only_when_pydantic_asks() -> None:
    code = ("import sys\nfrom protoc_gen_pyopaque.runtime.google.protobuf import timestamp_pb\n"
            "timestamp_pb.Timestamp.from_dict('2020-01-01T00:00:00Z').to_json()\n"
            "assert 'pydantic_core' not in sys.modules, 'imported'\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
