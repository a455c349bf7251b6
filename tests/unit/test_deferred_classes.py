"""The deferred form of large files (the plugin's ``classes`` option, runtime/_deferred.py): each
class's methods packed at the module's end, compiled on the class's first use, its API in a .pyi.
Once compiled, a class must be the inline form's class, method for method, and behave alike on
random and corrupted input; the first use may come from any thread; the option's choices and the
automatic threshold; and a deferred module is refused by pyopaque-compile."""

from __future__ import annotations

import inspect
import pickle
import random
import re
import threading
import types
from pathlib import Path
from typing import Any

import pytest

from protoc_gen_pyopaque.compile import CompileError, compile_dir
from protoc_gen_pyopaque.plugin import request as plugin_request
from protoc_gen_pyopaque.plugin.options import OptionError, parse_options
from protoc_gen_pyopaque.runtime import _deferred

from ._support import generate_files, imported, make_request
from .test_parse_chunks import FLAT_FIELDS, PROTO, PROTO3, WIDE_FIELDS, mutated, observe, random_message

STYLES = ("default_api_level=API_OPEN", "default_api_level=API_HYBRID", "default_api_level=API_OPAQUE",
          "default_api_level=API_OPAQUE,lazy_all=true")
CASES = [("wide_pb", "Wide", WIDE_FIELDS), ("flat_pb", "Flat", FLAT_FIELDS)]


def write_protos(root: Path) -> None:
    (root / "chunks").mkdir(exist_ok=True)
    (root / "chunks" / "wide.proto").write_text(PROTO)
    (root / "chunks" / "flat.proto").write_text(PROTO3)


def generated(root: Path, parameter: str, classes: str) -> tuple[Path, dict[str, str]]:
    out = root / f"out-{classes}"
    req = make_request(["chunks/wide.proto", "chunks/flat.proto"], f"{parameter},classes={classes}", include=[root])
    return out, generate_files(req, out)


def fingerprint(value: Any) -> Any:
    """What a class attribute is, comparable across two compilations of the same source."""
    if isinstance(value, (classmethod, staticmethod)):
        return (type(value).__name__, fingerprint(value.__func__))
    if isinstance(value, types.FunctionType):
        return ("function", fingerprint(value.__code__), value.__defaults__, value.__kwdefaults__)
    if isinstance(value, types.CodeType):
        return (value.co_code, value.co_names, value.co_varnames, value.co_freevars,
                tuple(fingerprint(c) for c in value.co_consts))
    return repr(value) if type(value).__repr__ is not object.__repr__ else type(value).__name__


def class_members(module: types.ModuleType) -> dict[str, dict[str, Any]]:
    """Every message class of ``module`` by name: its own attributes (codec methods compiled)."""
    out = {}
    for name, cls in list(vars(module).items()):  # compiling adds the module's enums
        if isinstance(cls, type) and cls.__module__ == module.__name__ and hasattr(cls, "_pb_info"):
            _deferred.compile_class(cls)
            out[name] = {k: fingerprint(v) for k, v in vars(cls).items()
                         # annotations (the attributes') are for type checkers: in the .pyi
                         if k not in ("__module__", "__doc__", "__firstlineno__", "__static_attributes__",
                                      "__annotations__")
                         and not isinstance(v, types.MemberDescriptorType)}
    return out


@pytest.mark.parametrize("parameter", STYLES)
def test_deferred_classes_are_the_inline_classes(parameter: str, tmp_path: Path) -> None:
    write_protos(tmp_path)
    rng = random.Random(20)
    inputs = {name: [mutated(rng, random_message(rng, fields)) for _ in range(200)] for _, name, fields in CASES}
    members, behaviour = {}, {}
    for classes in ("inline", "deferred"):
        out, sources = generated(tmp_path, parameter, classes)
        deferred = classes == "deferred"
        assert ("_rt.defer_classes(" in sources["chunks/wide_pb.py"]) == deferred
        assert ("def _pb_merge(" in sources["chunks/wide_pb.py"]) == (not deferred)
        assert ("def get_i32(" in sources["chunks/wide_pb.py"]) == (not deferred)
        # the API for type checkers: in a .pyi beside each deferred module, bodies elided
        assert ("chunks/wide_pb.pyi" in sources) == deferred
        if deferred:
            assert re.search(r'\n    def get_i32\(self\) -> int:\n        """Field: optional int32 i32 = 1;"""\n        \.\.\.\n',
                             sources["chunks/wide_pb.pyi"])
        with imported(out, *(f"chunks.{module}" for module, _, _ in CASES)) as modules:
            seen = {}
            for mod, (_, name, _) in zip(modules, CASES):
                cls = getattr(mod, name)
                seen[name] = observe(cls, inputs[name], scans=hasattr(cls, "_pb_scan"))
            behaviour[classes] = seen
            members[classes] = [class_members(m) for m in modules]
            assert not any(c in _deferred._pending for m in modules for c in vars(m).values() if isinstance(c, type))
    assert members["deferred"] == members["inline"]
    assert behaviour["deferred"] == behaviour["inline"]


def test_first_use_from_many_threads(tmp_path: Path) -> None:
    write_protos(tmp_path)
    out, _ = generated(tmp_path, "default_api_level=API_OPAQUE", "deferred")
    data = bytes.fromhex("0805" "120568656c6c6f" "3a050a01611200")  # i32, str, kids["a"]
    with imported(out, "chunks.flat_pb") as (mod,):
        cls = mod.Flat
        assert isinstance(vars(cls)["_pb_merge"], _deferred._Pending)
        start = threading.Barrier(8)
        results: list[Any] = []

        def use() -> None:
            start.wait()
            m = cls.parse(data)
            results.append((m.serialize(), m.to_json(), m == cls.parse(data)))

        threads = [threading.Thread(target=use) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(results) == 8 and len(set(results)) == 1 and results[0][2]
        assert results[0][0] == data
        assert not any(isinstance(v, _deferred._Pending) for v in vars(cls).values())
        # a compiled method's traceback shows its source
        with pytest.raises(Exception) as info:
            cls.parse(b"\x0a\x05ab")
        assert any("deferred class chunks.flat_pb.Flat" in str(entry.path) for entry in info.traceback)


def test_the_option_and_the_automatic_threshold(tmp_path: Path) -> None:
    assert parse_options("").classes == "auto"
    assert parse_options("classes=inline").classes == "inline"
    with pytest.raises(OptionError, match="option classes: expected one of auto, inline, deferred"):
        parse_options("classes=lazy")
    with pytest.raises(OptionError, match="unknown option 'classes'"):
        parse_options("classes=inline", grpc=True)
    fields = plugin_request.DEFERRED_CLASSES_FIELDS
    (tmp_path / "big").mkdir()
    body = "\n".join(f"  optional int32 f{i} = {i + 1};" for i in range(fields // 2))
    (tmp_path / "big" / "big.proto").write_text(
        f'syntax = "proto2";\npackage big;\nmessage A {{\n{body}\n}}\nmessage B {{\n{body}\n}}\n')
    (tmp_path / "big" / "small.proto").write_text(
        f'syntax = "proto2";\npackage big;\nmessage C {{\n{body}\n}}\n')
    (tmp_path / "big" / "sized.proto").write_text(
        'syntax = "proto2";\npackage big;\noption optimize_for = CODE_SIZE;\nmessage D { optional int32 x = 1; }\n')
    for parameter, expected in (("", {"big": True, "small": False, "sized": True}),
                                ("classes=inline", {"big": False, "small": False, "sized": False}),
                                ("classes=deferred", {"big": True, "small": True, "sized": True})):
        req = make_request([f"big/{n}.proto" for n in expected], parameter, include=[tmp_path])
        sources = generate_files(req, tmp_path / f"out{parameter}")
        assert {n: "_rt.defer_classes(" in sources[f"big/{n}_pb.py"] for n in expected} == expected, parameter
        assert all(("\n# classes: deferred" in sources[f"big/{n}_pb.py"]) == d for n, d in expected.items())
        assert all((f"big/{n}_pb.pyi" in sources) == d for n, d in expected.items())


def test_compile_refuses_deferred_modules(tmp_path: Path) -> None:
    write_protos(tmp_path)
    out, _ = generated(tmp_path, "default_api_level=API_OPAQUE", "deferred")
    with pytest.raises(CompileError, match=r"chunks/flat_pb.py: generated with deferred classes .* classes=inline"):
        compile_dir(out)


ENUMS = """
syntax = "proto2";
package enums;

enum Color { NONE = 0; RED = 1; }

message Outer {
  enum Level { LOW = 1; HIGH = 2; }
  optional Level level = 1 [default = HIGH];
  optional Color color = 2;
  repeated Level levels = 3;
}
"""


def test_enums_are_made_on_first_use(tmp_path: Path) -> None:
    (tmp_path / "enums").mkdir()
    (tmp_path / "enums" / "e.proto").write_text(ENUMS)
    req = make_request(["enums/e.proto"], "default_api_level=API_OPAQUE,classes=deferred", include=[tmp_path])
    generate_files(req, tmp_path / "out")
    for first in ("nested", "module", "instance"):
        with imported(tmp_path / "out", "enums.e_pb") as (mod,):
            assert "Color" not in vars(mod)  # not made at import
            assert isinstance(vars(mod.Outer)["Level"], _deferred._Pending)
            if first == "nested":  # read on the class before any instance: the class compiles
                level = mod.Outer.Level
                assert level.HIGH == 2 and "_pb_merge" in vars(mod.Outer)
            elif first == "module":  # from the module, by name (PEP 562)
                assert mod.Color.RED == 1 and mod.Outer.Level.LOW == 1
            else:
                assert mod.Outer().get_level() is mod.Outer.Level.HIGH  # the default, a member
            msg = mod.Outer.parse(b"\x08\x01\x10\x01\x18\x02")
            assert msg.get_level() is mod.Outer.Level.LOW and msg.get_levels() == [mod.Outer.Level.HIGH]
            assert pickle.loads(pickle.dumps(mod.Color.RED)) is mod.Color.RED
            with pytest.raises(AttributeError, match="has no attribute 'Colour'"):
                mod.Colour  # noqa: B018


def test_a_damaged_module_fails_clearly_every_time(tmp_path: Path) -> None:
    write_protos(tmp_path)
    out, sources = generated(tmp_path, "default_api_level=API_OPAQUE", "deferred")
    path = out / "chunks" / "flat_pb.py"
    source = sources["chunks/flat_pb.py"]
    start = source.index('("Flat", ')
    packed = source.index("'", start)
    path.write_text(source[:packed + 1] + "!!" + source[packed + 3:])  # the packed class, damaged
    with imported(out, "chunks.flat_pb") as (mod,):
        for _ in range(2):  # not a RecursionError through the placeholders, and not once only
            with pytest.raises(ImportError, match="deferred class chunks.flat_pb.Flat: its packed source is damaged"):
                mod.Flat()
        with pytest.raises(ImportError, match="damaged"):
            mod.Flat.parse(b"")


DOCUMENTED = """
syntax = "proto3";
package doc;
import "google/protobuf/timestamp.proto";

// An outer message: its comment, of two lines,
// is its class's docstring ("quoted", with a backslash \\).
message Outer {
  // A nested message.
  message Inner { string key = 1; }
  Inner inner = 1;
  repeated Inner inners = 2;
  google.protobuf.Timestamp at = 3;
}
"""


def test_classes_made_from_the_table_are_the_inline_classes(tmp_path: Path) -> None:
    (tmp_path / "doc").mkdir()
    (tmp_path / "doc" / "d.proto").write_text(DOCUMENTED)
    identities = {}
    for classes in ("inline", "deferred"):
        out = tmp_path / classes
        req = make_request(["doc/d.proto"], f"default_api_level=API_OPAQUE,classes={classes}", include=[tmp_path])
        generate_files(req, out)
        with imported(out, "doc.d_pb") as (mod,):
            identities[classes] = {
                name: (cls.__module__, cls.__qualname__, cls.__name__, inspect.cleandoc(cls.__doc__ or ""),
                       cls.__bases__, cls.__slots__, cls.__pyopaque_api__, cls._pb_lazy_capable)
                for name, cls in vars(mod).items() if isinstance(cls, type) and issubclass(cls, mod._rt.Message)}
            inner = mod.Outer.Inner()
            inner.set_key("k")
            assert pickle.loads(pickle.dumps(inner)) == inner  # found again by module and qualname

            class Mine(mod.Outer):  # a subclass's first use compiles the class that holds the methods
                __slots__ = ()

            assert Mine.parse(b"\x0a\x03\x0a\x01k").get_inner().get_key() == "k"
            assert type(Mine()) is Mine and "_pb_merge" in vars(mod.Outer)
    assert identities["deferred"] == identities["inline"]
    assert identities["inline"]["Outer"][3].startswith("An outer message: its comment, of two lines,\nis its")
