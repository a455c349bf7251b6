"""The API level of each generated class, from weakest to strongest choice:

edition default (proto2, proto3, 2023 -> open; 2024 -> opaque)
  < plugin option ``default_api_level``
  < plugin option ``apilevelM<file.proto>``
  < the file's ``option (pyopaque.file).api_level``
  < the message's ``option (pyopaque.message).api_level`` (nested messages inherit
    the closest enclosing choice; API_LEVEL_UNSPECIFIED chooses nothing).

Checked on generated modules, through each class's ``__pyopaque_api__`` marker.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from google.protobuf.compiler import plugin_pb2

from protoc_gen_pyopaque.cli import include_dir
from protoc_gen_pyopaque.plugin import features
from protoc_gen_pyopaque.plugin.names import module_for
from protoc_gen_pyopaque.runtime._wire import varint_bytes
from tools.generate import generate as protoc_generate

from ._support import PROTOS, descriptor_set, generate, generate_files, imported, make_request

PLAIN = {
    "apilevel/plain_proto2.proto": "open",
    "apilevel/plain_proto3.proto": "open",
    "apilevel/plain_2023.proto": "open",
    "apilevel/plain_2024.proto": "opaque",
}
LEVEL = {"API_OPEN": "open", "API_HYBRID": "hybrid", "API_OPAQUE": "opaque"}


def _markers(module: ModuleType, *paths: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in paths:
        obj: object = module
        for part in path.split("."):
            obj = getattr(obj, part)
        out[path] = getattr(obj, "__pyopaque_api__")
    return out


def _generate_and_load(tmp_path: Path, protos: list[str], parameter: str) -> list[ModuleType]:
    generate_files(make_request(protos, parameter), tmp_path)
    with imported(tmp_path, *(module_for(p) for p in protos)) as modules:
        return modules


@pytest.mark.parametrize("proto", sorted(PLAIN))
def test_edition_default(tmp_path: Path, proto: str) -> None:
    (module,) = _generate_and_load(tmp_path, [proto], "")
    want = f"{PLAIN[proto]}.v1"
    assert _markers(module, "Plain", "Plain.Inner") == {"Plain": want, "Plain.Inner": want}


@pytest.mark.parametrize("level", sorted(LEVEL))
@pytest.mark.parametrize("proto", sorted(PLAIN))
def test_default_api_level_beats_the_edition(tmp_path: Path, proto: str, level: str) -> None:
    (module,) = _generate_and_load(tmp_path, [proto], f"default_api_level={level}")
    want = f"{LEVEL[level]}.v1"
    assert _markers(module, "Plain", "Plain.Inner") == {"Plain": want, "Plain.Inner": want}


def test_apilevelM_beats_default_api_level_for_its_file_only(tmp_path: Path) -> None:
    protos = ["apilevel/plain_proto3.proto", "apilevel/plain_2024.proto", "apilevel/plain_2023.proto"]
    parameter = ("default_api_level=API_HYBRID,apilevelMapilevel/plain_proto3.proto=API_OPAQUE,"
                 "apilevelMapilevel/plain_2024.proto=API_OPEN")
    p3, e24, e23 = _generate_and_load(tmp_path, protos, parameter)
    assert _markers(p3, "Plain", "Plain.Inner") == {"Plain": "opaque.v1", "Plain.Inner": "opaque.v1"}
    assert _markers(e24, "Plain", "Plain.Inner") == {"Plain": "open.v1", "Plain.Inner": "open.v1"}
    assert _markers(e23, "Plain") == {"Plain": "hybrid.v1"}


def test_apilevelM_alone_beats_the_edition(tmp_path: Path) -> None:
    (module,) = _generate_and_load(tmp_path, ["apilevel/plain_2024.proto"],
                                   "apilevelMapilevel/plain_2024.proto=API_HYBRID")
    assert _markers(module, "Plain") == {"Plain": "hybrid.v1"}


FILE_OPTION = {
    "A": "hybrid", "A.N": "hybrid",  # the file's option
    "B": "open", "B.N": "open",  # B's option, inherited by B.N
    "B.O": "opaque", "B.O.Deep": "opaque",  # B.O's option, inherited by B.O.Deep
    "C": "hybrid",  # API_LEVEL_UNSPECIFIED: inherits the file's
}


@pytest.mark.parametrize("parameter", [
    "",
    "default_api_level=API_OPAQUE",
    "default_api_level=API_OPAQUE,apilevelMapilevel/file_option.proto=API_OPEN",
    "apilevelMapilevel/file_option.proto=API_OPAQUE",
])
def test_proto_options_beat_plugin_options(tmp_path: Path, parameter: str) -> None:
    (module,) = _generate_and_load(tmp_path, ["apilevel/file_option.proto"], parameter)
    assert _markers(module, *FILE_OPTION) == {k: f"{v}.v1" for k, v in FILE_OPTION.items()}


def test_hybrid_file_gets_an_opaque_twin(tmp_path: Path) -> None:
    files = generate_files(make_request(["apilevel/file_option.proto"]), tmp_path)
    assert sorted(files) == ["apilevel/file_option_pb.py", "apilevel/file_option_protoopaque_pb.py"]
    with imported(tmp_path, "apilevel.file_option_protoopaque_pb") as (twin,):
        assert set(_markers(twin, *FILE_OPTION).values()) == {"opaque.v1"}


def test_edition_2024_file_option_and_import_option(tmp_path: Path) -> None:
    (module,) = _generate_and_load(tmp_path, ["apilevel/file_option_2024.proto"],
                                   "default_api_level=API_HYBRID")
    assert _markers(module, "Open", "Opaque") == {"Open": "open.v1", "Opaque": "opaque.v1"}


@pytest.mark.parametrize(("parameter", "default"), [
    ("", "open"), ("default_api_level=API_OPAQUE", "opaque"),
    ("apilevelMapilevel/message_option.proto=API_OPAQUE", "opaque"),
])
def test_message_option_without_file_option(tmp_path: Path, parameter: str, default: str) -> None:
    (module,) = _generate_and_load(tmp_path, ["apilevel/message_option.proto"], parameter)
    assert _markers(module, "Default", "Hybrid") == {"Default": f"{default}.v1", "Hybrid": "hybrid.v1"}
    # a hybrid message referring to a message of another style still round-trips
    msg = module.Hybrid(x=3, d=module.Default(x=4))
    again = module.Hybrid.parse(msg.serialize())
    assert again.get_x() == 3 and again.get_d().get_x() == 4


def test_generated_through_protoc_with_the_include_folder(tmp_path: Path) -> None:
    """The end-to-end path: protoc runs the plugin; ``--include`` names the options' folder."""
    result = subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.cli", "--include"],
                            capture_output=True, text=True, check=True)
    folder = Path(result.stdout.strip())
    assert folder == include_dir()
    assert (folder / "pyopaque" / "options.proto").is_file()
    protoc_generate(["apilevel/file_option.proto", "apilevel/plain_2024.proto"], [PROTOS, folder],
                    tmp_path, options="default_api_level=API_OPEN")
    with imported(tmp_path, "apilevel.file_option_pb", "apilevel.plain_2024_pb") as (fo, e24):
        assert _markers(fo, *FILE_OPTION) == {k: f"{v}.v1" for k, v in FILE_OPTION.items()}
        assert _markers(e24, "Plain") == {"Plain": "open.v1"}


# -- options.proto itself -------------------------------------------------------------


def test_options_proto_matches_the_numbers_the_plugin_reads() -> None:
    fds = descriptor_set(["pyopaque/options.proto"], include=[include_dir()])
    (fdp,) = [f for f in fds.file if f.name == "pyopaque/options.proto"]
    assert fdp.syntax in ("", "proto2") and fdp.package == "pyopaque"
    extensions = {x.name: x for x in fdp.extension}
    assert extensions["file"].extendee == ".google.protobuf.FileOptions"
    assert extensions["file"].number == features.FILE_OPTIONS_EXTENSION
    assert extensions["file"].type_name == ".pyopaque.FileOptions"
    assert extensions["message"].extendee == ".google.protobuf.MessageOptions"
    assert extensions["message"].number == features.MESSAGE_OPTIONS_EXTENSION
    assert extensions["message"].type_name == ".pyopaque.MessageOptions"
    (enum,) = fdp.enum_type
    assert [(v.name, v.number) for v in enum.value] == [
        ("API_LEVEL_UNSPECIFIED", 0), ("API_OPEN", 1), ("API_HYBRID", 2), ("API_OPAQUE", 3)]
    for name in ("FileOptions", "MessageOptions"):
        (msg,) = [m for m in fdp.message_type if m.name == name]
        (field,) = msg.field
        assert (field.name, field.number, field.type_name) == ("api_level", 1, ".pyopaque.ApiLevel")


def test_extension_numbers_are_in_the_options_range_and_unregistered() -> None:
    """descriptor.proto leaves ``extensions 1000 to max`` on FileOptions/MessageOptions; the
    global registry (protobuf docs/options.md) has handed out numbers from 1000 to about 1200."""
    fds = descriptor_set(["google/protobuf/descriptor.proto"], include=[include_dir()])
    (fdp,) = fds.file
    for name, number in (("FileOptions", features.FILE_OPTIONS_EXTENSION),
                         ("MessageOptions", features.MESSAGE_OPTIONS_EXTENSION)):
        (msg,) = [m for m in fdp.message_type if m.name == name]
        assert any(r.start <= number < r.end for r in msg.extension_range), name
        assert not any(r.start <= number < r.end for r in msg.reserved_range), name
        assert number > 1300


# -- hand-made option payloads --------------------------------------------------------


def _with_raw_option(request: plugin_pb2.CodeGeneratorRequest, proto: str, payload: bytes,
                     message: str | None = None) -> plugin_pb2.CodeGeneratorRequest:
    """Append ``(pyopaque.file)`` (or ``(pyopaque.message)`` of ``message``) encoded as ``payload``."""
    number = features.MESSAGE_OPTIONS_EXTENSION if message else features.FILE_OPTIONS_EXTENSION
    tag = varint_bytes((number << 3) | 2)
    raw = tag + varint_bytes(len(payload)) + payload
    for fdp in request.proto_file:
        if fdp.name == proto:
            options = (next(m for m in fdp.message_type if m.name == message).options
                       if message else fdp.options)
            options.MergeFromString(raw)
    return request


def _levels(response: plugin_pb2.CodeGeneratorResponse) -> dict[str, list[str]]:
    import re

    return {f.name: re.findall(r'__pyopaque_api__: _t.ClassVar\[str\] = "(\w+)\.v1"', f.content)
            for f in response.file}


def test_unknown_api_level_value_is_an_error_naming_the_file() -> None:
    proto = "apilevel/plain_proto3.proto"
    request = _with_raw_option(make_request([proto]), proto, b"\x08\x07")
    response = generate(request)
    assert proto in response.error and "api_level" in response.error and "7" in response.error
    assert not response.file


def test_unknown_message_api_level_is_an_error_naming_the_message() -> None:
    proto = "apilevel/plain_proto3.proto"
    request = _with_raw_option(make_request([proto]), proto, b"\x08\x09", message="Plain")
    response = generate(request)
    assert "apilevel.p3.Plain" in response.error and "api_level" in response.error


@pytest.mark.parametrize("payload", [b"\x08", b"\x08\xff", b"\x0a\x05ab", b"\x0b\x08\x01"])
def test_malformed_option_payload_is_an_error_not_an_exception(payload: bytes) -> None:
    proto = "apilevel/plain_proto3.proto"
    request = _with_raw_option(make_request([proto]), proto, payload)
    response = generate(request)
    assert proto in response.error and "malformed" in response.error


def test_last_occurrence_wins_and_unspecified_inherits() -> None:
    proto = "apilevel/plain_proto3.proto"
    request = _with_raw_option(make_request([proto], "default_api_level=API_HYBRID"), proto,
                               b"\x08\x03\x08\x01")  # API_OPAQUE then API_OPEN
    assert _levels(generate(request))["apilevel/plain_proto3_pb.py"] == ["open", "open"]
    request = _with_raw_option(make_request([proto], "default_api_level=API_HYBRID"), proto,
                               b"\x08\x03\x08\x00")  # API_OPAQUE then API_LEVEL_UNSPECIFIED
    assert _levels(generate(request))["apilevel/plain_proto3_pb.py"] == ["hybrid", "hybrid"]
    request = _with_raw_option(make_request([proto]), proto, b"\x12\x01x\x08\x02")  # other field skipped
    assert _levels(generate(request))["apilevel/plain_proto3_pb.py"] == ["hybrid", "hybrid"]


def test_options_do_not_leak_between_files(tmp_path: Path) -> None:
    """A file's level comes from its own options, not from other files of the request."""
    protos = ["apilevel/file_option.proto", "apilevel/plain_proto3.proto"]
    fo, p3 = _generate_and_load(tmp_path, protos, "")
    assert _markers(fo, "A")["A"] == "hybrid.v1"
    assert _markers(p3, "Plain", "Plain.Inner") == {"Plain": "open.v1", "Plain.Inner": "open.v1"}
