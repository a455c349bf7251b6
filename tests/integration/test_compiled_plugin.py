"""The generator compiled by ``pyopaque compile-plugin`` (mypyc) writes the same bytes as the
interpreted one, in every golden variant and for the gRPC plugin, and the plugin's entry point
runs it. The build is kept under build/ until the sources change (a minute or two to make)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from google.protobuf.compiler import plugin_pb2

from protoc_gen_pyopaque import compiled_plugin
from protoc_gen_pyopaque.compile import CompileError, check_toolchain
from tests.golden.golden import DEFAULT_OPTIONS, GRPC_VARIANTS, PROTOS, VARIANTS, proto_files, render
from tools.generate import BUILD, grpc_include, protoc

CACHE_HOME = BUILD / "plugin-cache"  # XDG_CACHE_HOME of the plugin processes here

pytest.importorskip("grpc_tools")

ENTRY = """
import sys
from protoc_gen_pyopaque.cli import main
code = main()
import protoc_gen_pyopaque.gen.build as build
sys.stderr.write(build.__file__)
sys.exit(code)
"""


def _request(work: Path) -> bytes:
    """The request protoc hands the plugin for the golden protos."""
    out = work / "set.pb"
    result = protoc([f"-I{PROTOS}", f"-I{grpc_include()}", f"--descriptor_set_out={out}", "--include_imports",
                     "--include_source_info", *proto_files()])
    assert result.returncode == 0, result.stderr
    files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    data: bytes = plugin_pb2.CodeGeneratorRequest(file_to_generate=proto_files(), proto_file=files,
                                                  parameter="default_api_level=API_HYBRID").SerializeToString()
    return data


def _entry_point(data: bytes, switch: str) -> tuple[bytes, str]:
    """The response of the plugin's entry point, and where its gen.build module came from."""
    result = subprocess.run([sys.executable, "-c", ENTRY], input=data, capture_output=True, check=True,
                            env={**os.environ, "XDG_CACHE_HOME": str(CACHE_HOME), compiled_plugin.SWITCH: switch})
    return result.stdout, result.stderr.decode()


def test_compiled_generator_writes_the_same_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        check_toolchain()
    except CompileError as exc:
        pytest.skip(str(exc))
    folder = compiled_plugin.build(CACHE_HOME / "protoc-gen-pyopaque")
    compiled_plugin.remove_builds(CACHE_HOME / "protoc-gen-pyopaque", keep=folder)  # of earlier sources

    response, origin = _entry_point(_request(tmp_path), "")
    assert Path(origin).is_relative_to(folder) and origin.endswith(compiled_plugin.EXT_SUFFIX)
    interpreted_response, origin = _entry_point(_request(tmp_path), "0")
    assert origin == str(compiled_plugin.PACKAGE_ROOT / "gen" / "build.py")
    assert response == interpreted_response

    monkeypatch.setenv("XDG_CACHE_HOME", str(CACHE_HOME))  # the protoc runs' plugin processes
    for options in sorted({*VARIANTS.values(), DEFAULT_OPTIONS}):
        grpc_options = GRPC_VARIANTS.get(next((k for k, v in VARIANTS.items() if v == options), ""))
        monkeypatch.setenv(compiled_plugin.SWITCH, "1")
        compiled = render(options, grpc_options)
        monkeypatch.setenv(compiled_plugin.SWITCH, "0")
        assert compiled == render(options, grpc_options), options
