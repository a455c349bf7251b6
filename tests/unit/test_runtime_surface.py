"""Generated code imports one runtime surface, named after its version: re-exports of what
generated code uses, and nothing else of the runtime."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from protoc_gen_pyopaque.gen.views import RUNTIME_PACKAGE, RUNTIME_SURFACE

REPO = Path(__file__).resolve().parents[2]
SURFACE = importlib.import_module(f"{RUNTIME_PACKAGE}.{RUNTIME_SURFACE}")
# the message modules (gRPC modules import a surface of their own, _grpc_v<N>)
GENERATED = [*(REPO / "tests" / "golden" / "expected").rglob("*_pb.py"),
             *(REPO / "protoc_gen_pyopaque" / "runtime" / "google").rglob("*_pb.py")]


def test_generated_code_imports_the_surface_and_no_other_runtime_module() -> None:
    other_than_wkts = re.compile(r"^(?:from|import) protoc_gen_pyopaque\.runtime\b(?!\.google\.).*", re.M)
    for path in GENERATED:
        runtime_imports = other_than_wkts.findall(path.read_text())
        assert runtime_imports == [f"from {RUNTIME_PACKAGE} import {RUNTIME_SURFACE} as _rt"], path


# names generated code uses in annotations only, which never run: the surface imports them
# when type checking
TYPING_ONLY = {"Names"}


def test_the_surface_exports_every_name_generated_code_uses() -> None:
    used = {name for path in GENERATED for name in re.findall(r"\b_rt\.(\w+)", path.read_text())}
    assert used, "no generated code found"
    assert sorted(used - set(SURFACE.__all__) - TYPING_ONLY) == []
    typing_only = re.compile(r"\b_rt\.(?:" + "|".join(TYPING_ONLY) + r")\b")
    for path in GENERATED:  # in the annotation of _pb_names only
        lines = [line for line in path.read_text().splitlines() if typing_only.search(line)]
        assert all(line.startswith("    _pb_names: _t.ClassVar[_rt.Names[") for line in lines), path


def test_the_surface_only_re_exports() -> None:
    assert SURFACE.__all__ == sorted(SURFACE.__all__)
    for name in SURFACE.__all__:
        value = getattr(SURFACE, name)
        assert getattr(value, "__module__", None) != SURFACE.__name__, name


def test_views_name_the_one_surface_of_the_runtime() -> None:
    surfaces = sorted(p.stem for p in (REPO / "protoc_gen_pyopaque" / "runtime").glob("_gen_v*.py"))
    assert surfaces == [RUNTIME_SURFACE]
