"""Before/after fixtures of every rewrite rule and every refusal, on real generated modules.

``fixtures/<dialect>/NAME.py`` is the code as written; ``NAME.out.py`` what the migration
makes of it (with ``--todo``; a first line ``# level: red`` chooses the level). Each fixture
defines ``run()``: where all was rewritten at green, the rewritten code must return what the
original did, with the hybrid modules and with the opaque ones (unless a line ``# not run: why`` says
that the original does not work). Every ``.out.py`` passes
``mypy --strict`` against the hybrid modules, and, where nothing is left, the opaque ones.
Set ``MIGRATE_FIXTURES_WRITE=1`` to rewrite the ``.out.py`` files after an intended change.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from protoc_gen_pyopaque.migrate import Level, Options, Schema, Site, migrate_source
from tools.generate import env_with_path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
DIALECTS = {"open": "open", "pb2": "pb2"}
# the official runtime has no stubs of its own, and protoc's *_pb2.pyi are not --strict clean
MYPY_CONFIG = ("[mypy]\n[mypy-google.protobuf.*]\nignore_missing_imports = True\n"
               "[mypy-shop.order_pb2,shop.legacy_pb2]\nignore_errors = True\n")


def _cases() -> list[tuple[str, Path]]:
    return [(dialect, path) for dialect in DIALECTS for path in sorted((FIXTURES / dialect).glob("*.py"))
            if not path.name.endswith(".out.py")]


def _options(source: str, text: str) -> Options:
    match = re.search(r"^# level: (\w+)", text, re.MULTILINE)
    return Options(source=DIALECTS[source], level=Level[match.group(1).upper()] if match else Level.GREEN,
                   todo=True)


def _migrate(dialect: str, path: Path) -> tuple[str, list[Site]]:
    """The migrated text and the sites found."""
    text = path.read_text()
    result = migrate_source(text, path.name, _options(dialect, text), Schema(pb2=dialect == "pb2"))
    assert not result.error
    return result.migrated, result.sites


@pytest.mark.parametrize(("dialect", "path"), _cases(), ids=lambda x: getattr(x, "stem", x))
def test_fixture_rewrites_as_expected(dialect: str, path: Path, hybrid_path: Path) -> None:
    migrated, _ = _migrate(dialect, path)
    expected = path.with_suffix(".out.py")
    if os.environ.get("MIGRATE_FIXTURES_WRITE"):
        expected.write_text(migrated)
    assert migrated == expected.read_text()
    again, _ = _migrate(dialect, expected)  # a second run finds nothing more to do
    assert again == migrated


def _complete(hybrid_path: Path, green: bool = False) -> list[tuple[str, Path]]:
    """Fixtures with nothing left (``green``: all rewritten at green, and runnable)."""
    found = []
    for dialect, path in _cases():
        sites = _migrate(dialect, path)[1]
        if all(s.applied for s in sites) and not (green and (
                "\n# not run: " in path.read_text() or any(s.level is not Level.GREEN for s in sites))):
            found.append((dialect, path))
    return found


def _run_all(folder: Path, modules: dict[str, Path], env_extra: Path) -> dict[str, str]:
    """``repr(run())`` of each fixture module, in a fresh interpreter with ``env_extra`` first."""
    for name, source in modules.items():
        shutil.copy(source, folder / f"{name}.py")
    script = ("import importlib, json, sys\n"
              "print(json.dumps({n: repr(importlib.import_module(n).run()) for n in sys.argv[1:]}))\n")
    result = subprocess.run([sys.executable, "-c", script, *modules], cwd=folder, capture_output=True,
                            text=True, env=env_with_path(env_extra, folder), check=False)
    assert result.returncode == 0, result.stderr
    outcome: dict[str, str] = json.loads(result.stdout)
    return outcome


def test_complete_rewrites_preserve_behaviour(generated: dict[str, Path], hybrid_path: Path,
                                              tmp_path: Path) -> None:
    complete = _complete(hybrid_path, green=True)
    assert len(complete) >= 6
    before = {f"{d}_{p.stem}": p for d, p in complete}
    after = {f"{d}_{p.stem}": p.with_suffix(".out.py") for d, p in complete}
    (tmp_path / "b").mkdir()
    (tmp_path / "h").mkdir()
    (tmp_path / "o").mkdir()
    original = _run_all(tmp_path / "b", before, generated["hybrid"])
    assert _run_all(tmp_path / "h", after, generated["hybrid"]) == original
    assert _run_all(tmp_path / "o", after, generated["opaque"]) == original


def _mypy(root: Path, files: list[Path], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    for f in files:
        shutil.copy(f, tmp_path / f"{f.parent.name}_{f.name.replace('.out.py', '')}.py")
    names = [f"{f.parent.name}_{f.name.replace('.out.py', '')}.py" for f in files]
    env = dict(os.environ, MYPYPATH=str(root))
    (tmp_path / "mypy.ini").write_text(MYPY_CONFIG)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir=/dev/null",
         "--config-file=mypy.ini", "--explicit-package-bases", *names], cwd=tmp_path,
        capture_output=True, text=True, env=env, check=False)


def test_rewritten_fixtures_pass_mypy_strict(generated: dict[str, Path], hybrid_path: Path,
                                             tmp_path: Path) -> None:
    outs = [p.with_suffix(".out.py") for _, p in _cases()]
    (tmp_path / "h").mkdir()
    result = _mypy(generated["hybrid"], outs, tmp_path / "h")
    assert result.returncode == 0, result.stdout + result.stderr
    complete = [p.with_suffix(".out.py") for _, p in _complete(hybrid_path)]
    (tmp_path / "o").mkdir()
    result = _mypy(generated["opaque"], complete, tmp_path / "o")
    assert result.returncode == 0, result.stdout + result.stderr
