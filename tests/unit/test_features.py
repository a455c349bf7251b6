"""Feature resolution, cross-checked against the official protobuf package (upb backend).

For every field of the test protos (proto2, proto3, edition 2023 and 2024, with
file- and field-level feature overrides) the model that ``build_schema`` makes must
agree with google.protobuf's descriptor pool: ``has_presence``, ``is_required``,
``is_packed``, ``type`` (GROUP for delimited messages), the enum's ``is_closed``,
and the resolved ``_GetFeatures()`` (UTF-8 validation, JSON format). A second,
hand-written table states what the protobuf spec says for each field, so that a
change of both the pool and our model would still be caught. The conformance
protos get the pool cross-check too, when the conformance runner is available.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.compiler import plugin_pb2

from protoc_gen_pyopaque.plugin.options import Options
from protoc_gen_pyopaque.plugin.request import build_schema
from protoc_gen_pyopaque.plugin.schema import ApiLevel, Field, Message, Schema, walk_messages

from ._support import ProtocError, make_request, upb_pool

FD = descriptor_pb2.FieldDescriptorProto
FS = descriptor_pb2.FeatureSet

FEATURE_PROTOS = [
    "features/proto2.proto",
    "features/proto3.proto",
    "features/edition2023_defaults.proto",
    "features/edition2023.proto",
    "features/edition2024.proto",
    "features/edition2024_file.proto",
]
CONFORMANCE_PROTOS = [
    "conformance/messages/test_messages_proto2.proto",
    "conformance/messages/test_messages_proto3.proto",
    "conformance/messages/test_messages_edition2023.proto",
    "conformance/messages/test_messages_proto2_editions.proto",
    "conformance/messages/test_messages_proto3_editions.proto",
    "conformance/messages/test_messages_edition_unstable.proto",
]
_PACKABLE_NOT = (FD.TYPE_STRING, FD.TYPE_BYTES, FD.TYPE_MESSAGE, FD.TYPE_GROUP)


# -- walking the model next to the pool ----------------------------------------------


def _fields(schema: Schema, pool: descriptor_pool.DescriptorPool,
            files: list[str]) -> Iterator[tuple[str, Field, Any, bool]]:
    """Yield ``(name, field, upb descriptor, is_map_entry_part)`` for every field and extension.

    Map fields also yield their key and value as ``name[key]`` / ``name[value]``.
    """
    for proto in files:
        file = schema.files[proto]
        messages = walk_messages(file.messages)
        extensions = list(file.extensions) + [x for m in messages for x in m.extensions]
        for msg in messages:
            md = pool.FindMessageTypeByName(msg.full_name)
            for f in msg.fields:
                fd = md.fields_by_number[f.number]
                yield f"{msg.full_name}.{f.name}", f, fd, False
                if f.map is not None:
                    entry = fd.message_type
                    yield f"{msg.full_name}.{f.name}[key]", f.map.key, entry.fields_by_number[1], True
                    yield f"{msg.full_name}.{f.name}[value]", f.map.value, entry.fields_by_number[2], True
        for x in extensions:
            yield x.full_name, x.field, pool.FindExtensionByName(x.full_name), False


def _spec_type(fd: Any) -> int:
    """The wire type the spec gives a field: messages with DELIMITED encoding are groups,
    except inside map entries (a map entry is never delimited)."""
    message = fd.message_type
    if message is None:
        return int(fd.type)
    in_map = message.GetOptions().map_entry or (
        fd.containing_type is not None and fd.containing_type.GetOptions().map_entry)
    if fd._GetFeatures().message_encoding == FS.DELIMITED and not in_map:
        return FD.TYPE_GROUP
    return FD.TYPE_MESSAGE


def _spec_presence(fd: Any) -> bool:
    if fd.is_repeated:
        return False
    return (fd.message_type is not None or fd.containing_oneof is not None or fd.is_extension
            or fd._GetFeatures().field_presence != FS.IMPLICIT)


_OPTIONALS: dict[str, frozenset[str]] = {}


def _proto3_optionals(file: Any) -> frozenset[str]:
    """Full names of the proto3 ``optional`` fields of a file (their oneofs are synthetic)."""
    if file.name not in _OPTIONALS:
        fdp = descriptor_pb2.FileDescriptorProto.FromString(file.serialized_pb)
        found: set[str] = set()

        def visit(prefix: str, mp: descriptor_pb2.DescriptorProto) -> None:
            name = f"{prefix}.{mp.name}" if prefix else mp.name
            found.update(f"{name}.{f.name}" for f in mp.field if f.proto3_optional)
            for nested in mp.nested_type:
                visit(name, nested)

        for mp in fdp.message_type:
            visit(fdp.package, mp)
        _OPTIONALS[file.name] = frozenset(found)
    return _OPTIONALS[file.name]


def _check_field(name: str, f: Field, fd: Any, entry_part: bool) -> None:
    feats = fd._GetFeatures()
    # the pool agrees with the features it resolved
    assert fd.type == _spec_type(fd), name
    assert fd.has_presence == _spec_presence(fd), name
    assert fd.is_required == (feats.field_presence == FS.LEGACY_REQUIRED), name
    assert fd.is_packed == (fd.is_repeated and fd.type not in _PACKABLE_NOT
                            and feats.repeated_field_encoding == FS.PACKED), name
    # our model agrees with the pool
    assert f.kind == fd.type, name
    assert f.number == fd.number, name
    assert f.json_name == fd.json_name, name
    if fd.type == FD.TYPE_STRING:
        assert f.utf8 == (feats.utf8_validation == FS.VERIFY), name
    else:
        assert f.utf8, name  # nothing to validate
    closed = fd.enum_type is not None and fd.enum_type.is_closed
    assert f.closed_enum == closed, name
    if fd.enum_type is not None:
        assert f.enum == fd.enum_type.full_name, name
        assert closed == (fd.enum_type._GetFeatures().enum_type == FS.CLOSED), name
    if fd.message_type is not None:
        assert f.message == fd.message_type.full_name, name
    if entry_part:
        # key/value of a map entry: never tracked, never packed, never required
        assert (f.presence, f.required, f.packed) == (False, False, False), name
        return
    assert f.repeated == fd.is_repeated, name
    assert f.presence == fd.has_presence, name
    assert f.required == fd.is_required, name
    assert f.packed == fd.is_packed, name
    real_oneof = fd.containing_oneof is not None and fd.full_name not in _proto3_optionals(fd.file)
    assert (f.oneof is not None) == real_oneof, name
    is_map = fd.message_type is not None and fd.message_type.GetOptions().map_entry and fd.is_repeated
    assert (f.map is not None) == bool(is_map), name


def _check_types(schema: Schema, pool: descriptor_pool.DescriptorPool, files: list[str]) -> None:
    for proto in files:
        file = schema.files[proto]
        for msg in walk_messages(file.messages):
            md = pool.FindMessageTypeByName(msg.full_name)
            assert msg.legacy_json == (md._GetFeatures().json_format == FS.LEGACY_BEST_EFFORT), msg.full_name
            assert msg.map_entry == md.GetOptions().map_entry
            for e in msg.enums:
                _check_enum(schema, pool, e.full_name)
        for e in file.enums:
            _check_enum(schema, pool, e.full_name)


def _check_enum(schema: Schema, pool: descriptor_pool.DescriptorPool, full_name: str) -> None:
    enum = schema.enums[full_name]
    ed = pool.FindEnumTypeByName(full_name)
    assert enum.closed == ed.is_closed == (ed._GetFeatures().enum_type == FS.CLOSED), full_name
    assert enum.legacy_json == (ed._GetFeatures().json_format == FS.LEGACY_BEST_EFFORT), full_name
    assert [(v.name, v.number) for v in enum.values] == [(v.name, v.number) for v in ed.values]


# -- the feature protos ---------------------------------------------------------------


@pytest.fixture(scope="module")
def features_request() -> plugin_pb2.CodeGeneratorRequest:
    return make_request(FEATURE_PROTOS)


@pytest.fixture(scope="module")
def schema(features_request: plugin_pb2.CodeGeneratorRequest) -> Schema:
    return build_schema(features_request.file_to_generate, features_request.proto_file, Options())


@pytest.fixture(scope="module")
def pool(features_request: plugin_pb2.CodeGeneratorRequest) -> descriptor_pool.DescriptorPool:
    return upb_pool(features_request)


def test_every_field_agrees_with_upb(schema: Schema, pool: descriptor_pool.DescriptorPool) -> None:
    seen = 0
    for name, f, fd, entry_part in _fields(schema, pool, FEATURE_PROTOS):
        _check_field(name, f, fd, entry_part)
        seen += 1
    assert seen > 150


def test_every_message_and_enum_agrees_with_upb(schema: Schema, pool: descriptor_pool.DescriptorPool) -> None:
    _check_types(schema, pool, FEATURE_PROTOS)


def _flags(f: Field) -> str:
    """P presence, R required, K packed, U validated UTF-8 (strings), G group/delimited, C closed enum."""
    return "".join(flag for flag, on in (
        ("P", f.presence), ("R", f.required), ("K", f.packed),
        ("U", f.kind == FD.TYPE_STRING and f.utf8), ("G", f.kind == FD.TYPE_GROUP),
        ("C", f.closed_enum),
    ) if on)


# What the spec says, field by field (see _flags for the letters).
SPEC: dict[str, str] = {
    # proto2: explicit presence, expanded unless [packed = true], closed enums, no UTF-8 check
    "features.p2.P2.opt_int": "P",
    "features.p2.P2.req_int": "PR",
    "features.p2.P2.rep_int": "",
    "features.p2.P2.packed_int": "K",
    "features.p2.P2.unpacked_explicit": "",
    "features.p2.P2.str": "P",
    "features.p2.P2.rep_str": "",
    "features.p2.P2.b": "P",
    "features.p2.P2.closed": "PC",
    "features.p2.P2.closed_packed": "KC",
    "features.p2.P2.open_from_p3": "P",  # an open enum stays open in proto2 (upb semantics)
    "features.p2.P2.g": "PG",
    "features.p2.P2.rg": "G",
    "features.p2.P2.G.a": "P",
    "features.p2.P2.RG.s": "P",
    "features.p2.P2.child": "P",
    "features.p2.P2.map_closed": "",
    "features.p2.P2.map_closed[key]": "",
    "features.p2.P2.map_closed[value]": "C",
    "features.p2.P2.map_msg[value]": "",
    "features.p2.P2.o_int": "P",
    "features.p2.P2.o_str": "P",
    "features.p2.P2.og": "PG",
    "features.p2.P2.d": "P",
    "features.p2.P2.req_msg": "PR",
    "features.p2.P2.packed_double": "K",
    "features.p2.P2.rep_bool": "",
    "features.p2.ext_int": "P",
    "features.p2.ext_packed": "K",
    "features.p2.extgroup": "PG",
    "features.p2.ext_str": "",
    "features.p2.ext_closed": "PC",
    # proto3: implicit presence unless optional/message/oneof, packed, open enums, UTF-8
    "features.p3.P3.implicit_int": "",
    "features.p3.P3.explicit_int": "P",
    "features.p3.P3.rep_int": "K",
    "features.p3.P3.unpacked": "",
    "features.p3.P3.packed_explicit": "K",
    "features.p3.P3.str": "U",
    "features.p3.P3.opt_str": "PU",
    "features.p3.P3.rep_str": "U",
    "features.p3.P3.b": "",
    "features.p3.P3.open": "",
    "features.p3.P3.rep_open": "K",
    "features.p3.P3.child": "P",
    "features.p3.P3.children": "",
    "features.p3.P3.m[key]": "U",
    "features.p3.P3.m[value]": "U",
    "features.p3.P3.m_enum[value]": "",
    "features.p3.P3.o_int": "P",
    "features.p3.P3.o_msg": "P",
    "features.p3.P3.o_str": "PU",
    "features.p3.P3.opt_open": "P",
    "features.p3.P3.f": "",
    "features.p3.P3.flag": "",
    "features.p3.P3.opt_child": "P",
    "features.p3.P3.rep_bytes": "",
    # edition 2023 defaults, with field-level overrides
    "features.e23d.D.explicit_default": "P",
    "features.e23d.D.implicit_field": "",
    "features.e23d.D.required_field": "PR",
    "features.e23d.D.packed_default": "K",
    "features.e23d.D.expanded_field": "",
    "features.e23d.D.verified_default": "PU",
    "features.e23d.D.unverified_field": "P",
    "features.e23d.D.open": "P",
    "features.e23d.D.closed": "PC",
    "features.e23d.D.rep_closed": "KC",
    "features.e23d.D.child": "P",
    "features.e23d.D.delimited_child": "PG",
    "features.e23d.D.delimited_children": "G",
    "features.e23d.D.map_msg": "",
    "features.e23d.D.map_msg[value]": "",
    "features.e23d.D.map_str[key]": "U",
    "features.e23d.D.map_str[value]": "U",
    "features.e23d.D.o_int": "P",
    "features.e23d.D.o_delimited": "PG",
    "features.e23d.D.rep_str_unverified": "",
    "features.e23d.D.b": "",
    "features.e23d.D.required_child": "PR",
    "features.e23d.D.Nested.x": "P",
    "features.e23d.ext_int": "P",
    "features.e23d.ext_packed": "K",
    "features.e23d.ext_delimited": "PG",
    "features.e23d.ext_expanded": "",
    "features.e23d.ext_str": "PU",
    # edition 2023, file-level IMPLICIT / EXPANDED / NONE / CLOSED / DELIMITED
    "features.e23.Fields.implicit_by_file": "",
    "features.e23.Fields.explicit_field": "P",
    "features.e23.Fields.required_field": "PR",
    "features.e23.Fields.expanded_by_file": "",
    "features.e23.Fields.packed_field": "K",
    "features.e23.Fields.unverified_by_file": "",
    "features.e23.Fields.verified_field": "U",
    "features.e23.Fields.closed": "PC",
    "features.e23.Fields.open": "",
    "features.e23.Fields.delimited_by_file": "PG",
    "features.e23.Fields.length_prefixed": "P",
    "features.e23.Fields.rep_delimited": "G",
    "features.e23.Fields.map_msg": "",
    "features.e23.Fields.map_msg[value]": "",  # never delimited, whatever the file says
    "features.e23.Fields.map_str[key]": "",
    "features.e23.Fields.map_str[value]": "",
    "features.e23.Fields.o_int": "P",
    "features.e23.Fields.o_msg": "PG",
    "features.e23.Fields.rep_closed": "C",
    "features.e23.Fields.rep_closed_packed": "KC",
    "features.e23.Fields.rep_str_verified": "U",
    "features.e23.Fields.Nested.inherited_implicit": "",
    "features.e23.Fields.Nested.inherited_expanded": "",
    "features.e23.ext_int": "P",  # extensions always track presence
    "features.e23.ext_msg": "PG",
    "features.e23.ext_rep": "",
    "features.e23.ext_rep_packed": "K",
    # edition 2024: the 2023 defaults
    "features.e24.E.explicit_default": "P",
    "features.e24.E.implicit_field": "",
    "features.e24.E.required_field": "PR",
    "features.e24.E.packed_default": "K",
    "features.e24.E.expanded": "",
    "features.e24.E.verified": "PU",
    "features.e24.E.unverified": "P",
    "features.e24.E.open": "P",
    "features.e24.E.closed": "PC",
    "features.e24.E.child": "P",
    "features.e24.E.delimited": "PG",
    "features.e24.E.map_msg[value]": "",
    "features.e24.E.rep_delimited": "G",
    "features.e24f.F.implicit_by_file": "",
    "features.e24f.F.explicit_field": "P",
    "features.e24f.F.expanded_by_file": "",
    "features.e24f.F.packed_field": "K",
    "features.e24f.F.unverified_by_file": "",
    "features.e24f.F.verified": "U",
    "features.e24f.F.closed": "PC",
    "features.e24f.F.delimited_by_file": "PG",
    "features.e24f.F.length_prefixed": "P",
    "features.e24f.F.map_msg[value]": "",
}


def test_fields_follow_the_spec(schema: Schema, pool: descriptor_pool.DescriptorPool) -> None:
    found = {name: _flags(f) for name, f, _, _ in _fields(schema, pool, FEATURE_PROTOS)}
    missing = sorted(set(SPEC) - set(found))
    assert not missing, f"the test protos lack {missing}"
    wrong = {name: (found[name], want) for name, want in SPEC.items() if found[name] != want}
    assert not wrong, f"(got, want): {wrong}"


JSON_LEGACY = {
    "features.p2.P2": True,  # proto2 and proto3 files: LEGACY_BEST_EFFORT / ALLOW
    "features.p3.P3": False,
    "features.e23d.D": False,
    "features.e23d.LegacyJson": True,
    "features.e23d.LegacyJson.Inner": True,  # inherited from the enclosing message
    "features.e23d.LegacyJson.InnerEnum": True,
    "features.e23d.LegacyJsonEnum": True,
    "features.e23d.Open": False,
    "features.e23.Fields": True,  # file-level LEGACY_BEST_EFFORT
    "features.e23.Fields.AllowJson": False,
    "features.e23.OpenEnum": False,
    "features.e23.ClosedByFile": True,
    "features.e24.E": False,
    "features.e24f.F": True,
}


@pytest.mark.parametrize("full_name", sorted(JSON_LEGACY))
def test_json_format(schema: Schema, full_name: str) -> None:
    item = schema.messages.get(full_name) or schema.enums[full_name]
    assert item.legacy_json is JSON_LEGACY[full_name]


CLOSED = {
    "features.p2.Closed2": True, "features.p2.ClosedZero": True, "features.p3.Open3": False,
    "features.e23d.Open": False, "features.e23d.Closed": True, "features.e23.ClosedByFile": True,
    "features.e23.OpenEnum": False, "features.e24.Open": False, "features.e24.Closed": True,
    "features.e24f.ClosedByFile": True,
}


@pytest.mark.parametrize("full_name", sorted(CLOSED))
def test_enum_closedness(schema: Schema, full_name: str) -> None:
    assert schema.enums[full_name].closed is CLOSED[full_name]


@pytest.mark.parametrize(("proto", "edition", "level"), [
    ("features/proto2.proto", "proto2", ApiLevel.OPEN),
    ("features/proto3.proto", "proto3", ApiLevel.OPEN),
    ("features/edition2023.proto", "2023", ApiLevel.OPEN),
    ("features/edition2024.proto", "2024", ApiLevel.OPAQUE),
])
def test_edition_label_and_default_style(schema: Schema, proto: str, edition: str,
                                         level: ApiLevel) -> None:
    file = schema.files[proto]
    assert file.edition == edition
    assert file.api_level is level
    assert all(m.api_level is level for m in walk_messages(file.messages))


def test_groups_keep_their_message_and_defaults(schema: Schema) -> None:
    p2 = schema.messages["features.p2.P2"]
    by_name = {f.name: f for f in p2.fields}
    assert by_name["g"].message == "features.p2.P2.G"
    assert by_name["og"].oneof is not None
    assert by_name["d"].default == 1.5
    assert by_name["def_str"].default == "x"
    assert by_name["closed"].default == 1  # the first value of a closed enum without zero


def test_proto3_optional_is_not_a_oneof(schema: Schema) -> None:
    p3: Message = schema.messages["features.p3.P3"]
    assert [o.name for o in p3.oneofs] == ["choice"]
    by_name = {f.name: f for f in p3.fields}
    assert by_name["explicit_int"].oneof is None and by_name["explicit_int"].presence
    assert by_name["o_int"].oneof == 0


# -- the conformance protos -----------------------------------------------------------


def _conformance_include() -> Path | None:
    """The conformance protos' include folder, from the runner the conformance suite uses."""
    from tests.conformance.harness import SetupError, find_runner

    try:
        return find_runner().protos
    except (SetupError, OSError, subprocess.SubprocessError):
        return None


@pytest.fixture(scope="module")
def conformance_include() -> Path:
    path = _conformance_include()
    if path is None:
        pytest.skip("conformance protos unavailable (no conformance runner: see tests/conformance)")
    return path


@pytest.mark.parametrize("proto", CONFORMANCE_PROTOS)
def test_conformance_protos_agree_with_upb(conformance_include: Path, proto: str) -> None:
    if not (conformance_include / proto).is_file():
        pytest.skip(f"{proto} not shipped by this runner")
    try:
        # edition_unstable needs --experimental_editions
        request = make_request([proto], include=[conformance_include],
                               extra_args=("--experimental_editions",))
    except ProtocError as exc:  # e.g. an edition newer than grpc_tools' protoc knows
        pytest.skip(f"grpc_tools' protoc cannot compile {proto}: {str(exc).strip()[:200]}")
    schema = build_schema(request.file_to_generate, request.proto_file, Options())
    pool = upb_pool(request)
    count = 0
    for name, f, fd, entry_part in _fields(schema, pool, [proto]):
        _check_field(name, f, fd, entry_part)
        count += 1
    _check_types(schema, pool, [proto])
    assert count > 0


# -- the generated codec follows the resolved features ----------------------------------


@pytest.mark.parametrize("style", ["API_OPEN", "API_HYBRID", "API_OPAQUE"])
def test_generated_wire_format_matches_upb(tmp_path: Path, style: str,
                                           pool: descriptor_pool.DescriptorPool) -> None:
    """Every message of the feature protos, fully set, encodes byte for byte as upb
    re-encodes it: packed vs expanded, delimited (groups) vs length-prefixed, closed enums."""
    from google.protobuf import message_factory
    from google.protobuf.unknown_fields import UnknownFieldSet

    from protoc_gen_pyopaque.plugin.names import module_for

    from ._support import generate_files, imported, populate

    generate_files(make_request(FEATURE_PROTOS, f"default_api_level={style}"), tmp_path)
    with imported(tmp_path, *(module_for(p) for p in FEATURE_PROTOS)) as modules:
        checked = 0
        for module in modules:
            for cls in _classes(module):
                msg, _ = populate(cls)
                data = msg.serialize(partial=True)  # nested required fields stay unset
                upb_cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(cls._pb_info.full_name))
                theirs = upb_cls()
                theirs.MergeFromString(data)
                assert theirs.SerializePartialToString() == data, cls._pb_info.full_name
                # upb understood every field (a wrong wire type would land in unknown fields)
                assert len(UnknownFieldSet(theirs)) == 0, cls._pb_info.full_name
                assert cls.parse(data, partial=True).serialize(partial=True) == data
                checked += 1
        assert checked >= 15


def _classes(namespace: Any) -> Iterator[Any]:
    for value in vars(namespace).values():
        if isinstance(value, type) and hasattr(value, "_pb_info") and "__pyopaque_api__" in vars(value):
            yield value
            yield from _classes(value)
