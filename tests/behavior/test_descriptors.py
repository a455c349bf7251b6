"""Descriptors built on demand from what generated modules embed (runtime/descriptors.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from protoc_gen_pyopaque.runtime import descriptors
from tests.behavior.conftest import COMPILED_STYLE, Modules
from tests.golden.golden import PROTOS
from tools.generate import generate
from tests.unit._support import descriptor_set


def test_descriptor_of_classes_and_messages(mods: Modules) -> None:
    collections = mods.load("collections")
    Collections = collections.Collections
    d = Collections.DESCRIPTOR
    assert d.full_name == "golden.Collections"
    assert d.file.name == "golden/collections.proto"
    assert {f.number: f.name for f in d.fields} == {f.number: f.name for f in Collections._pb_info.fields}
    assert Collections().DESCRIPTOR is d
    assert Collections.Item.DESCRIPTOR.full_name == "golden.Collections.Item"
    assert Collections.Item.DESCRIPTOR.containing_type is d


def test_descriptors_live_in_a_private_pool(mods: Modules) -> None:
    Scalars = mods.load("scalars").Scalars
    pool = descriptors.descriptor_pool()
    assert Scalars.DESCRIPTOR.file.pool is pool
    assert pool is not descriptor_pool.Default()
    try:
        descriptor_pool.Default().FindMessageTypeByName("golden.Scalars")
    except KeyError:
        pass
    else:
        raise AssertionError("golden.Scalars reached the default pool")


def test_file_descriptor_set_is_protocs(mods: Modules) -> None:
    """The transitive set, dependencies first, as protoc writes it (less source info)."""
    collections = mods.load("collections")
    ours = descriptor_pb2.FileDescriptorSet.FromString(descriptors.file_descriptor_set(collections))
    expected = descriptor_set(["golden/collections.proto"], [PROTOS])
    for f in expected.file:
        f.ClearField("source_code_info")
    assert [f.name for f in ours.file] == ["golden/scalars.proto", "golden/collections.proto"]
    assert list(ours.file) == list(expected.file)
    # from a class or a message, the same
    assert descriptors.file_descriptor_set(collections.Collections()) == descriptors.file_descriptor_set(collections)


def test_message_factory_bridge(mods: Modules) -> None:
    """Tools that work on google.protobuf messages get a twin class from our descriptor."""
    Collections = mods.load("collections").Collections
    m = Collections(items=[Collections.Item(key="k")], text="t")
    official = message_factory.GetMessageClass(Collections.DESCRIPTOR).FromString(m.serialize())
    assert official.text == "t" and official.items[0].key == "k"
    assert Collections.parse(official.SerializeToString()) == m


def test_file_descriptor_set_needs_no_protobuf(mods: Modules, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "sys.modules['google.protobuf'] = None  # any import of protobuf fails\n"
        "from protoc_gen_pyopaque.runtime import descriptors\n"
        "import golden.services_pb as m\n"
        "data = descriptors.file_descriptor_set(m.Query)\n"
        "assert data.startswith(b'\\x0a') and b'golden/scalars.proto' in data, data[:40]\n"
        "try:\n"
        "    m.Query.DESCRIPTOR\n"
        "except ImportError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('a pool without protobuf')\n"
    )
    env = {"PYTHONPATH": str(mods.root)}  # the package itself: installed
    # run in an empty folder: `-c` puts the working folder first on sys.path, and the
    # repository's would put the pure runtime ahead of a compiled build's overlay
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr


UNUSED_IMPORT = """
syntax = "proto3";
package custom;
import "google/protobuf/descriptor.proto";  // (a custom option's file would import it)
import "custom/other.proto";
message Labelled { string name = 1; custom.Other other = 2; }
"""


def test_imported_files_without_a_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """descriptor.proto has no module of ours: protobuf's own pool has it. Another missing module
    is an ImportError naming it."""
    (tmp_path / "protos" / "custom").mkdir(parents=True)
    (tmp_path / "protos" / "custom" / "labelled.proto").write_text(UNUSED_IMPORT)
    (tmp_path / "protos" / "custom" / "other.proto").write_text(
        'syntax = "proto3";\npackage custom;\nmessage Other {}\n')
    out = generate(["custom/labelled.proto", "custom/other.proto"], [tmp_path / "protos"], tmp_path / "out")
    monkeypatch.syspath_prepend(str(out))
    try:
        module = importlib.import_module("custom.labelled_pb")
        fds = descriptor_pb2.FileDescriptorSet.FromString(descriptors.file_descriptor_set(module))
        assert [f.name for f in fds.file] == [
            "google/protobuf/descriptor.proto", "custom/other.proto", "custom/labelled.proto"]
        assert module.Labelled.DESCRIPTOR.fields_by_name["other"].message_type.full_name == "custom.Other"
        del sys.modules["custom.other_pb"]
        (out / "custom" / "other_pb.py").unlink()
        with pytest.raises(ImportError, match="needs the module custom.other_pb .of custom/other.proto."):
            descriptors.file_descriptor_set(module.Labelled)
    finally:
        for name in [m for m in sys.modules if m == "custom" or m.startswith("custom.")]:
            del sys.modules[name]


VALIDATED = """
syntax = "proto3";
package pv;
import "buf/validate/validate.proto";
message User { string name = 1 [(buf.validate.field).string.min_len = 3]; }
"""


def test_protovalidate_through_the_descriptor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """protovalidate checks our messages as a google.protobuf twin made from Cls.DESCRIPTOR.

    validate.proto has no module of ours (it extends descriptor.proto's options): its
    descriptor, taken from protovalidate's own copy, goes to protobuf's default pool, where
    runtime.descriptors finds it, and protoc reads it from a descriptor set.
    """
    if COMPILED_STYLE:
        pytest.skip("the module generated here is interpreted: it cannot use this process's compiled runtime")
    protovalidate = pytest.importorskip("protovalidate")
    from google.protobuf import duration_pb2, field_mask_pb2, message_factory, timestamp_pb2
    from protovalidate._gen.buf.validate import validate_pb

    validate_proto = validate_pb.desc().proto.to_binary()
    imports = descriptor_pb2.FileDescriptorSet()
    for module in (descriptor_pb2, duration_pb2, field_mask_pb2, timestamp_pb2):
        imports.file.add().MergeFromString(module.DESCRIPTOR.serialized_pb)
    imports.file.add().MergeFromString(validate_proto)
    (tmp_path / "imports.pb").write_bytes(imports.SerializeToString())
    (tmp_path / "protos" / "pv").mkdir(parents=True)
    (tmp_path / "protos" / "pv" / "user.proto").write_text(VALIDATED)
    out = generate(["pv/user.proto"], [tmp_path / "protos"], tmp_path / "out",
                   options="default_api_level=API_OPAQUE", extra_args=(f"--descriptor_set_in={tmp_path / 'imports.pb'}",))
    try:
        descriptor_pool.Default().FindFileByName("buf/validate/validate.proto")
    except KeyError:
        descriptor_pool.Default().AddSerializedFile(validate_proto)
    monkeypatch.syspath_prepend(str(out))
    try:
        User = importlib.import_module("pv.user_pb").User
        twin = message_factory.GetMessageClass(User.DESCRIPTOR)
        short = protovalidate.collect_violations(twin.FromString(User(name="ab").serialize()))
        assert [v.proto.rule_id for v in short] == ["string.min_len"]
        assert protovalidate.collect_violations(twin.FromString(User(name="abcd").serialize())) == []
    finally:
        for name in [m for m in sys.modules if m == "pv" or m.startswith("pv.")]:
            del sys.modules[name]
