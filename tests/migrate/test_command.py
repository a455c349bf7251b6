"""The ``pyopaque`` command: subcommands, and ``migrate``'s modes, exit codes and reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protoc_gen_pyopaque.cli import include_dir
from protoc_gen_pyopaque.command import SUBCOMMANDS, main
from tools.generate import env_with_path

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "open"


@pytest.mark.parametrize("args", [["--help"], *([name, "--help"] for name in SUBCOMMANDS)],
                         ids=lambda a: " ".join(a))
def test_help_exits_zero(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_include_prints_the_options_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["include"]) == 0
    assert capsys.readouterr().out.strip() == str(include_dir())


def test_unknown_arguments_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["include", "extra"])
    assert exit_.value.code == 2


def _pyopaque(*args: str, modules: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.command", *args, "--path", str(modules)],
                          cwd=cwd, capture_output=True, text=True, env=env_with_path(), check=False)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("set.py", "levels.py"):
        (tmp_path / name).write_text((FIXTURES / name).read_text())
    return tmp_path


def test_check_diff_write_and_stats(work: Path, generated: dict[str, Path]) -> None:
    before = (work / "set.py").read_text()
    check = _pyopaque("migrate", "--check", "set.py", modules=generated["hybrid"], cwd=work)
    assert check.returncode == 1, check.stderr
    diff = _pyopaque("migrate", "--diff", "set.py", modules=generated["hybrid"], cwd=work)
    assert diff.returncode == 0, diff.stderr
    assert "-    o.id = \"o2\"  # a comment stays where it was" in diff.stdout
    assert "+    o.set_id(\"o2\")  # a comment stays where it was" in diff.stdout
    assert (work / "set.py").read_text() == before
    write = _pyopaque("migrate", "--write", "--stats", "stats.jsonl", ".", modules=generated["hybrid"], cwd=work)
    assert write.returncode == 0, write.stderr
    assert (work / "set.py").read_text() == (FIXTURES / "set.out.py").read_text()
    assert "rewritten green  set                          8" in write.stdout
    assert "levels.py:10: container-copy: set_items() copies the value" in write.stdout
    stats = [json.loads(line) for line in (work / "stats.jsonl").read_text().splitlines()]
    assert {(s["file"], s["line"], s["reason"], s["level"], s["status"]) for s in stats} >= {
        ("set.py", 7, "set", "green", "rewritten"), ("levels.py", 10, "container-copy", "red", "left"),
        ("levels.py", 12, "eval-order", "yellow", "left")}
    # set.py is done; levels.py keeps rewrites above green only: nothing left at green
    assert _pyopaque("migrate", "--check", ".", modules=generated["hybrid"], cwd=work).returncode == 0
    red = _pyopaque("migrate", "--check", "--level", "red", ".", modules=generated["hybrid"], cwd=work)
    assert red.returncode == 1


def test_open_style_classes_need_hybrid_first(work: Path, generated: dict[str, Path]) -> None:
    result = _pyopaque("migrate", "set.py", modules=generated["open"], cwd=work)
    assert result.returncode == 0
    assert ("set.py:7: no-accessor: shop.Order is generated in the open style: generate it as hybrid "
            "(API_HYBRID) first") in result.stdout


def test_unimportable_modules_are_named(work: Path) -> None:
    result = _pyopaque("migrate", "--check", "set.py", modules=work, cwd=work)
    assert "cannot import shop.order_pb" in result.stderr
    assert result.returncode == 2


def test_unparsable_files_fail(work: Path, generated: dict[str, Path]) -> None:
    (work / "bad.py").write_text("def (:\n")
    result = _pyopaque("migrate", "bad.py", modules=generated["hybrid"], cwd=work)
    assert result.returncode == 2
    assert "bad.py:" in result.stderr


def test_pb2_files_move_as_a_whole(tmp_path: Path, generated: dict[str, Path]) -> None:
    pb2 = FIXTURES.parent / "pb2"
    for name in ("levels.py", "methods.py"):
        (tmp_path / name).write_text((pb2 / name).read_text())
    result = _pyopaque("migrate", "--from", "pb2", "--write", ".", modules=generated["hybrid"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "levels.py: not rewritten: 4 uses are left at level green" in result.stdout
    assert (tmp_path / "levels.py").read_text() == (pb2 / "levels.py").read_text()
    assert (tmp_path / "methods.py").read_text() == (pb2 / "methods.out.py").read_text()
    check = _pyopaque("migrate", "--from", "pb2", "--check", "--level", "red", ".", modules=generated["hybrid"],
                      cwd=tmp_path)
    assert check.returncode == 1  # levels.py would move at red
