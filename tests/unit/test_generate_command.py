"""``pyopaque generate``: real protoc runs on small trees, summaries and exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from protoc_gen_pyopaque import generate as generate_module
from protoc_gen_pyopaque.cli import main as plugin_main
from protoc_gen_pyopaque.command import main

PROTOS = {
    "shop/item.proto": """
        syntax = "proto3";
        package shop;
        import "google/protobuf/timestamp.proto";
        message Item { string name = 1; google.protobuf.Timestamp added = 2; message Tag { string v = 1; } }
    """,
    "shop/order.proto": """
        edition = "2023";
        package shop;
        import "shop/item.proto";
        import "pyopaque/options.proto";
        message Order { repeated Item items = 1; map<string, int32> counts = 2; }
        service Orders { rpc Place(Order) returns (Order); }
    """,
}


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_folder_is_walked_and_summarized(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    protos = _tree(tmp_path / "protos", PROTOS)
    out = tmp_path / "gen"
    assert main(["generate", "--out", str(out), "--api-level", "opaque", str(protos)]) == 0
    err = capsys.readouterr().err
    # Item, Item.Tag, Order (the map entry is not a message of its own)
    assert f"2 files, 3 messages, 2 modules written to {out}" in err
    assert (out / "shop" / "item_pb.py").is_file() and (out / "shop" / "order_pb.py").is_file()
    assert not (out / "google").exists()  # the well-known types come with the runtime
    order = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from shop import order_pb, item_pb; "
         "o = order_pb.Order(); o.get_items().append(item_pb.Item()); o.get_items()[0].set_name('x'); "
         "print(order_pb.Order.parse(o.serialize()).get_items()[0].get_name())", str(out)],
        capture_output=True, text=True, check=True)
    assert order.stdout.strip() == "x"


def test_files_with_include_and_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    protos = _tree(tmp_path / "protos", PROTOS)
    out = tmp_path / "gen"
    code = main(["generate", "-I", str(protos), "--out", str(out), "--opt", "default_api_level=API_OPEN",
                 "--grpc", str(protos / "shop" / "order.proto")])
    assert code == 0, capsys.readouterr().err
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.py"))
    assert "shop/order_pb.py" in written and "shop/item_pb.py" not in written
    assert any("grpc" in name for name in written), written
    assert "1 files, 1 messages" in capsys.readouterr().err


def test_progress_on_large_trees(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generate_module, "BATCH", 1)
    protos = _tree(tmp_path / "protos", PROTOS)
    assert main(["generate", "--out", str(tmp_path / "gen"), str(protos)]) == 0
    err = capsys.readouterr().err
    assert "1/2 files" in err and "2/2 files" in err and "2 files, 3 messages, 2 modules" in err


def test_a_schema_error_exits_1_with_protocs_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    protos = _tree(tmp_path / "protos", {"bad.proto": 'syntax = "proto3";\nmessage A { Nope b = 1; }\n'})
    assert main(["generate", "--out", str(tmp_path / "gen"), str(protos)]) == 1
    err = capsys.readouterr().err
    assert "bad.proto" in err and '"Nope" is not defined' in err


def test_a_plugin_error_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    protos = _tree(tmp_path / "protos", PROTOS)
    assert main(["generate", "--out", str(tmp_path / "gen"), "--opt", "no_such_option=1", str(protos)]) == 1
    assert "no_such_option" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["generate", "x.proto"], ["generate", "--out", "o"],
                                  ["generate", "--out", "o", "--api-level", "closed", "x.proto"]])
def test_bad_usage_exits_2(args: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2


def test_missing_paths_and_empty_folders_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--out", str(tmp_path / "gen"), str(tmp_path / "missing.proto")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["generate", "--out", str(tmp_path / "gen"), str(tmp_path / "empty")]) == 2
    assert "no .proto files" in capsys.readouterr().err


def test_exit_codes_of_the_installed_command(tmp_path: Path) -> None:
    protos = _tree(tmp_path / "protos", PROTOS)
    ok = subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.command", "generate", "--out",
                         str(tmp_path / "gen"), str(protos)], capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and "2 files" in ok.stderr
    usage = subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.command", "generate"],
                           capture_output=True, text=True, check=False)
    assert usage.returncode == 2


def test_plugin_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert plugin_main(["--help"]) == 0
    assert "usage:" in capsys.readouterr().out
    assert plugin_main(["--bogus"]) == 2
