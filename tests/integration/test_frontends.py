"""The plugin driven the ways users drive it: protoc, grpc_tools.protoc and buf generate."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.generate import REPO, grpc_include, plugin_command, protoc

PROTO = """\
syntax = "proto3";
package demo;
message Ping { string text = 1; repeated int32 ids = 2; }
"""


def _write_proto(root: Path) -> Path:
    src = root / "proto" / "demo"
    src.mkdir(parents=True)
    (src / "ping.proto").write_text(PROTO)
    return root / "proto"


def _import_and_round_trip(out: Path, expected_style: str) -> None:
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "from demo.ping_pb import Ping\n"
        "p = Ping.parse(b'\\x0a\\x02hi\\x12\\x02\\x01\\x02')\n"
        "assert Ping.__pyopaque_api__ == %r, Ping.__pyopaque_api__\n"
        "assert p.get_text() == 'hi' and p.get_ids() == [1, 2]\n"
        "assert p.serialize() == b'\\x0a\\x02hi\\x12\\x02\\x01\\x02'\n"
    ) % (str(out), expected_style)
    subprocess.run([sys.executable, "-c", code], check=True)


def test_grpc_tools_protoc(tmp_path: Path) -> None:
    include = _write_proto(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    result = protoc([f"-I{include}", f"--plugin=protoc-gen-pyopaque={plugin_command()}",
                     f"--pyopaque_out={out}", "--pyopaque_opt=default_api_level=API_HYBRID", "demo/ping.proto"])
    assert result.returncode == 0, result.stderr
    assert (out / "demo" / "ping_protoopaque_pb.py").is_file()
    _import_and_round_trip(out, "hybrid.v1")


def _runner_protoc() -> str | None:
    runner = os.environ.get("CONFORMANCE_RUNNER") or str(REPO.parent / "shared" / "conformance" / "runner")
    if not Path(runner).is_file():
        return None
    found = subprocess.run([runner, "--protoc"], capture_output=True, text=True, check=False)
    path = found.stdout.strip()
    return path if found.returncode == 0 and Path(path).is_file() else None


def test_protoc_36_binary(tmp_path: Path) -> None:
    binary = _runner_protoc()
    if binary is None:
        pytest.skip("no protoc 36 binary (the conformance runner carries one)")
    include = _write_proto(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    result = protoc([f"-I{include}", f"-I{grpc_include()}", f"--plugin=protoc-gen-pyopaque={plugin_command()}",
                     f"--pyopaque_out={out}", "demo/ping.proto"], protoc_path=binary)
    assert result.returncode == 0, result.stderr
    _import_and_round_trip(out, "open.v1")


def test_buf_generate_with_local_plugin(tmp_path: Path) -> None:
    buf = shutil.which("buf", path=str(Path(sys.executable).parent))
    assert buf is not None, "buf-bin is a dev dependency"
    _write_proto(tmp_path)
    (tmp_path / "buf.yaml").write_text("version: v2\nmodules:\n  - path: proto\n")
    (tmp_path / "buf.gen.yaml").write_text(
        "version: v2\nplugins:\n  - local: protoc-gen-pyopaque\n    out: gen\n"
        "    opt:\n      - default_api_level=API_OPAQUE\n")
    env = dict(os.environ, PATH=f"{plugin_command().parent}{os.pathsep}{os.environ['PATH']}",
               BUF_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([buf, "generate"], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    _import_and_round_trip(tmp_path / "gen", "opaque.v1")


SERVICE = """
syntax = "proto3";
package demo;
message Ping { string text = 1; }
service Pinger { rpc Send(Ping) returns (Ping); }
"""


def test_buf_generate_with_the_grpc_plugin(tmp_path: Path) -> None:
    """buf runs both local plugins: the messages and, next to them, the gRPC module."""
    buf = shutil.which("buf", path=str(Path(sys.executable).parent))
    assert buf is not None, "buf-bin is a dev dependency"
    (tmp_path / "proto" / "demo").mkdir(parents=True)
    (tmp_path / "proto" / "demo" / "pinger.proto").write_text(SERVICE)
    (tmp_path / "buf.yaml").write_text("version: v2\nmodules:\n  - path: proto\n")
    (tmp_path / "buf.gen.yaml").write_text(
        "version: v2\nplugins:\n  - local: protoc-gen-pyopaque\n    out: gen\n"
        "  - local: protoc-gen-pyopaque-grpc\n    out: gen\n    opt:\n      - io=async\n")
    plugin_command("main_grpc")
    env = dict(os.environ, PATH=f"{plugin_command().parent}{os.pathsep}{os.environ['PATH']}",
               BUF_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([buf, "generate"], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    source = (tmp_path / "gen" / "demo" / "pinger_grpc.py").read_text()
    assert "class PingerAsyncStub:" in source and "class PingerStub:" not in source
    check = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tmp_path / 'gen')!r}); "
         "import demo.pinger_grpc as g; assert g.METHOD_Pinger_Send == '/demo.Pinger/Send'"],
        capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr


def test_bad_option_is_reported_through_protoc(tmp_path: Path) -> None:
    include = _write_proto(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    result = protoc([f"-I{include}", f"--plugin=protoc-gen-pyopaque={plugin_command()}",
                     f"--pyopaque_out={out}", "--pyopaque_opt=default_api_level=API_SHINY", "demo/ping.proto"])
    assert result.returncode != 0
    assert "default_api_level" in result.stderr and "API_SHINY" in result.stderr
    assert "Traceback" not in result.stderr


def test_buf_generate_the_examples_with_imports_and_wkts(tmp_path: Path) -> None:
    """examples/buf.gen.yaml (include_imports, include_wkt; proto3 and edition 2024 files): the
    well-known types are skipped, their modules ship in the runtime; the rest imports and works."""
    buf = shutil.which("buf", path=str(Path(sys.executable).parent))
    assert buf is not None, "buf-bin is a dev dependency"
    env = dict(os.environ, PATH=f"{plugin_command().parent}{os.pathsep}{os.environ['PATH']}",
               BUF_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([buf, "generate", "-o", str(tmp_path)], cwd=REPO / "examples", env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    gen = tmp_path / "gen"
    written = {p.relative_to(gen).as_posix() for p in gen.rglob("*.py")}
    protos = [p.relative_to(REPO / "examples" / "protos") for p in (REPO / "examples" / "protos").rglob("*.proto")]
    assert protos and {f"{p.with_suffix('').as_posix()}_pb.py" for p in protos} <= written
    assert not any(name.startswith("google/") for name in written), sorted(written)
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "from example.addressbook_pb import Person\n"
            "from protoc_gen_pyopaque.runtime.google.protobuf.timestamp_pb import Timestamp\n"
            "p = Person(name='Ada', last_updated=Timestamp(seconds=5))\n"
            "assert Person.parse(p.serialize()).last_updated.seconds == 5\n")
    check = subprocess.run([sys.executable, "-c", code, str(gen)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr


def test_listed_wkts_are_skipped_unless_bootstrapping(tmp_path: Path) -> None:
    include = _write_proto(tmp_path)
    for options, expected in (("", []), ("bootstrap_wkt=true", ["google/protobuf/duration_pb.py"])):
        out = tmp_path / f"out{len(options)}"
        out.mkdir()
        result = protoc([f"-I{include}", f"-I{grpc_include()}", f"--plugin=protoc-gen-pyopaque={plugin_command()}",
                         f"--pyopaque_out={out}", f"--pyopaque_opt={options}", "demo/ping.proto",
                         "google/protobuf/duration.proto"])
        assert result.returncode == 0, result.stderr
        written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.py"))
        assert written == sorted(["demo/ping_pb.py", *expected])
