"""The wheel carries the templates and options.proto; the runtime needs neither jinja2 nor protobuf."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.golden.golden import EXPECTED, PROTOS, proto_files
from tools.generate import REPO, grpc_include, protoc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO)],
                   check=True, capture_output=True)
    return next(out.glob("protoc_gen_pyopaque-*.whl"))


def test_wheel_contains_templates_and_options_proto(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "protoc_gen_pyopaque/templates/module.py.j2" in names
    assert "protoc_gen_pyopaque/proto/pyopaque/options.proto" in names
    assert "protoc_gen_pyopaque/runtime/google/protobuf/timestamp_pb.py" in names
    assert "protoc_gen_pyopaque/py.typed" in names
    assert "protoc_gen_pyopaque/templates/grpc.py.j2" in names
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "protoc-gen-pyopaque-grpc = protoc_gen_pyopaque.cli:main_grpc" in scripts
    assert "pyopaque = protoc_gen_pyopaque.command:main" in scripts


def test_wheel_metadata_names_the_supported_pythons(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert "Requires-Python: >=3.11" in metadata
    for version in ("3.11", "3.12", "3.13"):
        assert f"Classifier: Programming Language :: Python :: {version}" in metadata
    assert "Provides-Extra: generate" in metadata and "extra == 'generate'" in metadata


def test_installed_wheel_generates_code(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    plugin = tmp_path / "protoc-gen-pyopaque"
    plugin.write_text(f"#!/bin/sh\nPYTHONPATH={site} exec {sys.executable} -m protoc_gen_pyopaque.cli \"$@\"\n")
    plugin.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    result = protoc([f"-I{PROTOS}", f"-I{grpc_include()}", f"--plugin=protoc-gen-pyopaque={plugin}",
                     "--pyopaque_opt=default_api_level=API_OPEN",  # the parameter the golden's header records
                     f"--pyopaque_out={out}", *proto_files()])
    assert result.returncode == 0, result.stderr
    generated = out / "golden" / "scalars_pb.py"
    assert generated.read_text() == (EXPECTED / "open" / "golden" / "scalars_pb.py").read_text()
    include = subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.cli", "--include"],
                             env={"PYTHONPATH": str(site)}, capture_output=True, text=True, check=True)
    assert Path(include.stdout.strip(), "pyopaque", "options.proto").is_file()


def test_runtime_imports_neither_jinja2_nor_protobuf() -> None:
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "import golden.collections_pb as m\n"
        "m.Collections.parse(m.Collections(text='x').serialize())\n"
        "bad = [n for n in sys.modules if n.startswith(('jinja2', 'google.protobuf', 'protoc_gen_pyopaque.plugin',"
        " 'protoc_gen_pyopaque.gen'))]\n"
        "assert not bad, bad\n"
    ) % str(EXPECTED / "opaque")
    subprocess.run([sys.executable, "-c", code], check=True)
