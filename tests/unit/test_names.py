"""The name table (plugin/names.py) and the rules of tests/golden/protos/golden/nameclash.proto."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protoc_gen_pyopaque.gen import build
from protoc_gen_pyopaque.plugin import names
from protoc_gen_pyopaque.plugin.options import parse_options
from protoc_gen_pyopaque.plugin.request import build_schema
from protoc_gen_pyopaque.runtime.errors import EncodeError
from tests.golden.golden import EXPECTED, PROTOS as GOLDEN_PROTOS

from ._support import STYLES, generate_files, imported, make_request

WKT = Path(names.__file__).resolve().parents[1] / "runtime" / "google"
NAMECLASH = "golden/nameclash.proto"


def _generated_sources() -> list[Path]:
    sources = sorted(EXPECTED.rglob("*_pb.py")) + sorted(WKT.rglob("*_pb.py"))
    assert len(sources) > 20
    return sources


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef]:
    yield from (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef))


def _generators_name(name: str) -> bool:
    return name[0] == "_" and name[1:2].isalpha()


@pytest.mark.parametrize("path", _generated_sources(), ids=lambda p: str(p.relative_to(p.parents[2])))
def test_generated_locals_are_in_the_generators_namespace(path: Path) -> None:
    """Every local and parameter of a generated method starts with ``_`` and a letter (no .proto
    name can), or is a parameter of the public API; __init__'s keywords are the fields' attributes."""
    stray: set[str] = set()
    for fn in _functions(ast.parse(path.read_text())):
        if fn.name != "__init__":
            stray |= {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                stray.add(node.id)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                stray.add(node.name)
    stray = {n for n in stray if not _generators_name(n)} - names.API_PARAMETERS
    assert not stray


@pytest.mark.parametrize("path", _generated_sources(), ids=lambda p: str(p.relative_to(p.parents[2])))
def test_generated_code_names_only_reserved_builtins(path: Path) -> None:
    """A builtin that generated code names is reserved where a .proto name could shadow it: in
    class bodies (annotations, decorators) and at module level (method bodies too)."""
    tree = ast.parse(path.read_text())
    loaded = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    loaded -= {a.arg for fn in _functions(tree) for a in fn.args.kwonlyargs}  # __init__'s: the fields
    in_class_bodies: set[str] = set()
    for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef):
                in_class_bodies |= {d.id for d in stmt.decorator_list if isinstance(d, ast.Name)}
                annotations = [a.annotation for a in stmt.args.args + stmt.args.kwonlyargs] + [stmt.returns]
            elif isinstance(stmt, ast.AnnAssign):
                annotations = [stmt.annotation]
            else:
                continue
            in_class_bodies |= {n.id for a in annotations if a is not None for n in ast.walk(a)
                                if isinstance(n, ast.Name)}
    builtin_names = {name for name in dir(builtins) if not name.startswith("__")}
    assert loaded & builtin_names <= names.CLASS_BUILTINS | names.BODY_BUILTINS
    for fn in _functions(tree):  # keyword parameters (__init__'s: the fields) may shadow builtins: none is called
        params = {a.arg for a in fn.args.kwonlyargs}
        called = {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not called & params, (fn.name, called & params)
    assert in_class_bodies & builtin_names <= names.CLASS_BUILTINS


def _schema(protos: list[str], include: list[Path] | None = None) -> Any:
    request = make_request(protos, "", include)
    return build_schema(request.file_to_generate, request.proto_file, parse_options(request.parameter))


def test_name_table_is_allocated_once_per_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The builder and other files' references read one memoised table per file."""
    schema = _schema(["golden/collections.proto"], [GOLDEN_PROTOS])
    runs: list[str] = []
    run = names._Allocator.run

    def counting(self: Any) -> names.NameTable:
        runs.append(self.file.name)
        return run(self)

    monkeypatch.setattr(names._Allocator, "run", counting)
    collections, scalars = schema.files["golden/collections.proto"], schema.files["golden/scalars.proto"]
    build.build_file_view(collections, schema)
    build.build_file_view(collections, schema)
    build.build_file_view(scalars, schema)
    assert sorted(runs) == ["golden/collections.proto", "golden/scalars.proto"]  # scalars: read once
    table = names.allocate(collections, schema)
    assert table is names.allocate(collections, schema)
    assert table.imports == {"golden.scalars_pb": "_m_golden__scalars_pb"}
    with pytest.raises(AttributeError):
        table.classes = {}  # type: ignore[misc]


def test_twin_suffix_is_decided_once() -> None:
    assert names.output_path("a/b.proto") == "a/b_pb.py"
    assert names.output_path("a/b.proto", twin=True) == "a/b_protoopaque_pb.py"
    assert names.import_path("a/b.proto", twin=True) == "a.b_protoopaque_pb"
    assert names.import_path("google/protobuf/any.proto") == "protoc_gen_pyopaque.runtime.google.protobuf.any_pb"


# -- the clashing names of nameclash.proto, in every style ----------------------------------


@pytest.fixture(params=STYLES)
def nameclash(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Any]]:
    generate_files(make_request([NAMECLASH], f"default_api_level={request.param}", [GOLDEN_PROTOS]), tmp_path)
    with imported(tmp_path, "golden.nameclash_pb") as (mod,):
        yield request.param, mod


def test_nameclash_rules(nameclash: tuple[str, Any]) -> None:
    style, mod = nameclash
    top = {"buf", "m4", "i5", "key6", "class_", "len_", "property_", "value_", "annotations_", "Private_",
           "data_"}
    assert top <= set(vars(mod))
    attrs = {f.name: f.attr for f in mod.Holder._pb_info.fields}
    assert attrs == {
        "f_buf": "f_buf", "m4": "m4_", "items": "items", "by_id": "by_id", "one": "one", "other": "other",
        "four": "four", "has_pick": "has_pick_", "foo": "foo", "get_foo": "get_foo_", "int": "int_",
        "classmethod": "classmethod_", "parse": "parse_", "self": "self_", "_x": "x_", "__y": "y__",
        "_pb_info": "pb_info_", "x_": "x__", "raw": "raw", "buf": "buf_", "type": "type",
        "FIELD_NAME": "FIELD_NAME",
    }
    assert mod.Holder.len.full_name == "golden.nameclash.Holder.len"
    assert list(mod.Enums.E.__members__) == ["ZERO", "name_", "value_", "mro_", "None_", "x__"]
    assert mod.Outer.Inner_X.__name__ == "Inner_X" and mod.Outer_Inner.X.__name__ == "X"
    assert mod.Outer.Inner_X is mod._c_Outer_Inner_X and mod.Outer_Inner.X is mod._c_Outer_Inner_X_
    msg = mod.Holder(foo=1, get_foo_=2, x_=3, y__=4, x__=5, self_=6, classmethod_=7, type=10)
    with pytest.raises(TypeError, match="type"):
        mod.Holder(type=1.5)
    msg.set_extension(mod.data_, 8)
    msg.set_extension(mod.Holder.len, 9)
    again = mod.Holder.parse(msg.serialize())
    assert again == msg and again.get_get_foo() == 2 and again.get_x_() == 5 and again.get__x() == 3
    assert mod.Holder.from_json(msg.to_json()) == msg and mod.Holder.from_text(msg.to_text()) == msg


def test_required_checks_through_repeated_map_and_oneof(nameclash: tuple[str, Any]) -> None:
    """Messages named i5 and key6, in repeated field 5, map field 6 and a oneof (review 2, §3.1:
    the locals i5/key6 of the required check shadowed them: UnboundLocalError)."""
    _, mod = nameclash
    for member in ({"one": mod.i5(a=1)}, {"other": mod.key6(a=1)}):
        msg = mod.Holder(items=[mod.i5(a=1)], by_id={2: mod.key6(a=2)}, **member)
        assert msg.is_initialized()
        assert mod.Holder.parse(msg.serialize()) == msg
    for member, missing in (({"one": mod.i5()}, "one.a"), ({"other": mod.key6()}, "other.a")):
        msg = mod.Holder(items=[mod.i5()], by_id={2: mod.key6()}, **member)
        assert not msg.is_initialized()
        with pytest.raises(EncodeError) as info:
            msg.serialize()
        for path in ("items[0].a", "by_id[2].a", missing):
            assert path in str(info.value)


def test_lazy_field_named_raw(nameclash: tuple[str, Any]) -> None:
    """Its loader is _load_raw: the runtime's _pb_load_raw (kept input) stays the runtime's."""
    style, mod = nameclash
    data = mod.Holder(raw=mod.buf(a=5), foo=1).serialize()
    msg = mod.Holder.parse(data, lazy=True)
    assert msg.get_raw() == mod.buf(a=5) and msg.get_foo() == 1
    assert msg.serialize() == data
    if style == "API_OPAQUE":
        assert "_pb_load_raw" not in vars(mod.Holder) and "_load_raw" in vars(mod.Holder)
