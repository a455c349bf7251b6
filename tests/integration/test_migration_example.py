"""The migration path of docs/migration.md, end to end, on a copy of examples/migration.

A program written against the official runtime, with its tests, moves to our hybrid
modules (``pyopaque migrate --from pb2``), passes its tests there, again with
PYOPAQUE_PROTOOPAQUE=1 (no leftovers that need the attributes), has nothing left for
``--from open``, and passes its tests once its modules are generated opaque.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tools.generate import REPO, env_with_path, generate, grpc_include, protoc

EXAMPLE = REPO / "examples" / "migration"
PROTOS = REPO / "examples" / "protos"
PROTO = "example/addressbook.proto"


def _run(app: Path, *args: str, protoopaque: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=app, capture_output=True, text=True,
                          env=env_with_path(app, protoopaque=protoopaque), check=False)


def _tests_pass(app: Path, protoopaque: bool = False) -> None:
    result = _run(app, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_addressbook_app.py",
                  protoopaque=protoopaque)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout


def _generate(app: Path, level: str) -> None:
    for old in (app / "example").glob("*_pb.py"):
        old.unlink()
    generate([PROTO], [PROTOS], app, options=f"default_api_level={level}")


def test_official_program_moves_to_opaque_with_its_tests_passing(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(EXAMPLE, app, ignore=shutil.ignore_patterns("__pycache__"))
    official = protoc([f"-I{PROTOS}", f"-I{grpc_include()}", f"--python_out={app}", PROTO])
    assert official.returncode == 0, official.stderr
    _tests_pass(app)  # 0. with the official runtime

    _generate(app, "API_HYBRID")  # 1. our hybrid modules next to the *_pb2 ones
    migrate = _run(app, "-m", "protoc_gen_pyopaque.command", "migrate", "--from", "pb2", "--level", "yellow",
                   "--write", ".")
    assert migrate.returncode == 0, migrate.stdout + migrate.stderr
    assert " left" in migrate.stdout and "0 left" in migrate.stdout, migrate.stdout
    assert "pb2" not in (app / "addressbook_app.py").read_text()
    (app / "example" / "addressbook_pb2.py").unlink()  # nothing needs the official modules now
    _tests_pass(app)

    _tests_pass(app, protoopaque=True)  # 2. hybrid modules serving their opaque twins
    leftovers = _run(app, "-m", "protoc_gen_pyopaque.command", "migrate", "--check", ".")
    assert leftovers.returncode == 0, leftovers.stdout + leftovers.stderr

    _generate(app, "API_OPAQUE")  # 3. the switch to opaque
    _tests_pass(app)
    typed = _run(app, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null",
                 "--explicit-package-bases", "addressbook_app.py")
    assert typed.returncode == 0, typed.stdout + typed.stderr
