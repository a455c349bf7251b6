"""Hostile .proto names, comments, defaults and JSON names, in all three styles.

The rules observed (and pinned down here):

* Names (plugin/names.py, whose docstring states the rules): names starting with
  ``_`` and a letter are the generator's, so a .proto name's leading underscores
  move to its end (``__field`` -> ``field__``, ``_pb_x`` -> ``pb_x_``); a keyword,
  a reserved name of its scope (builtins generated code names, the Message API,
  at module level its public parameters) or a name already taken gets ``_``
  appended until it is free. Class scopes also reserve the module's top-level
  names (a field ``def`` becomes ``def__`` when the message ``def`` is ``def_``).
  Accessors are allocated in declaration order, so field ``foo`` owns
  ``get_foo``/``set_foo``... and a later field named ``get_foo`` becomes
  ``get_foo_``. Enum members also avoid Enum's ``name``/``value``/``mro``.
* Comments become docstrings: plain text inside triple quotes; text with a
  backslash, a triple quote, a trailing quote or a non-printable character is
  written with ``repr()`` (a single-quoted literal). Either way the docstring
  equals the comment exactly, and no comment can end the literal early.
* Defaults and JSON names are written with ``repr()``.

The generated modules must import, round-trip, agree with upb on the wire, and
carry hostile text only inside string literals (checked with ``tokenize``/``ast``).
"""

from __future__ import annotations

import ast
import json
import keyword
import io
import math
import re
import tokenize
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.compiler import plugin_pb2

from protoc_gen_pyopaque.plugin.names import Scope, class_scope, enum_scope
from protoc_gen_pyopaque.runtime.message import Message

from ._support import STYLES, generate_files, imported, make_request, populate, upb_pool

PROTOS = ["hostile/names2.proto", "hostile/names3.proto"]
MODULES = ["hostile.names2_pb", "hostile.names3_pb"]
HOSTILE = '"""; import os; os.system("x") #'
ALLOWED_IMPORTS = {"__future__", "enum", "typing", "sys", "protoc_gen_pyopaque.runtime"}


@pytest.fixture(scope="module")
def requests_by_style() -> dict[str, plugin_pb2.CodeGeneratorRequest]:
    return {style: make_request(PROTOS, f"default_api_level={style}") for style in STYLES}


@pytest.fixture(scope="module")
def pool(requests_by_style: dict[str, plugin_pb2.CodeGeneratorRequest]) -> descriptor_pool.DescriptorPool:
    return upb_pool(requests_by_style["API_OPEN"])


@pytest.fixture(params=STYLES)
def generated(request: pytest.FixtureRequest, tmp_path: Path,
              requests_by_style: dict[str, plugin_pb2.CodeGeneratorRequest]) -> Any:
    files = generate_files(requests_by_style[request.param], tmp_path)
    with imported(tmp_path, *MODULES) as modules:
        yield request.param, files, modules


# -- the source: hostile text only inside string literals -----------------------------


# the comment after each FieldInfo: a field's declaration, made of identifiers (which a field may
# name "import") and numbers only
FIELD_DECLARATION = re.compile(r"# (?:(?:optional|required|repeated) )?(?:map<[\w.]+, [\w.]+>|[\w.]+) \w+ = \d+;")


def test_hostile_text_stays_inside_string_literals(generated: Any) -> None:
    _, files, _ = generated
    assert len(files) >= 2
    for name, source in files.items():
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        for tok in tokens:
            if tok.type == tokenize.NAME:
                assert tok.string not in ("os", "system"), (name, tok)
            if tok.type == tokenize.COMMENT and not FIELD_DECLARATION.fullmatch(tok.string):
                assert "os" not in tok.string.split() and "import" not in tok.string, (name, tok)
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name in ALLOWED_IMPORTS or alias.name.startswith("hostile."), (name, alias.name)
            elif isinstance(node, ast.ImportFrom):
                assert node.module in ALLOWED_IMPORTS, (name, node.module)
            elif isinstance(node, ast.Call):
                assert not (isinstance(node.func, ast.Attribute) and node.func.attr == "system")
        # statements at module level: imports, class definitions, calls into the runtime
        # (version check, registrations), the protoopaque switch and info assignments
        for stmt in tree.body:
            assert isinstance(stmt, (ast.Expr, ast.ImportFrom, ast.Import, ast.ClassDef, ast.Assign,
                                     ast.AnnAssign, ast.If)), (name, ast.dump(stmt)[:200])
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                func = ast.unparse(stmt.value.func)
                assert func.startswith("_rt."), (name, func)  # only the runtime is called
        hostile_strings = [node for node in ast.walk(tree)
                           if isinstance(node, ast.Constant) and isinstance(node.value, str)
                           and "os.system" in node.value]
        assert hostile_strings, name  # the comments did make it, as strings


def test_comments_are_docstrings_verbatim(generated: Any) -> None:
    _, _, (m2, m3) = generated
    assert m2.__doc__ == ('Module comment: """; import os; os.system("x") # with a backslash \\ '
                          "and \\x00 and \\n and ''' too")
    assert m2.class_.__doc__ == HOSTILE
    # the getter of field `def` is plain get_def; its docstring adds the declaration
    assert m2.class_.get_def.__doc__ == HOSTILE + "\n\nField: optional int32 def = 1;"
    assert m2.Holder.Keywords.__doc__ == 'The enum\'s comment """ \\'
    assert m3.__doc__ == ('proto3 names: a block comment with """ and a backslash \\ and code '
                          '"""; import os; os.system("x") #')
    assert m3.Msg.__doc__ == 'Doc ending in a quote: "'
    assert m3.Msg.get_class.__doc__.split("\n\nField: ")[0] == "\\N{BULLET} \\u2028 \\x00 \\\\ ''' \"\"\""


# -- names -----------------------------------------------------------------------------


ATTRS_NAMES2 = {
    # keywords and module-level names: the message `def` is `def_`, so the field is `def__`
    "def": "def__", "None": "None__", "True": "True__", "import": "import__", "lambda": "lambda__",
    # builtins used in annotations
    "int": "int__", "str": "str__", "bytes": "bytes_", "list": "list_", "dict": "dict_",
    "object": "object_", "float": "float_", "bool": "bool_", "tuple": "tuple_",
    # the Message API
    "parse": "parse_", "serialize": "serialize_", "to_json": "to_json_", "from_json": "from_json_",
    "to_dict": "to_dict_", "merge_from_bytes": "merge_from_bytes_", "self": "self_", "cls": "cls_",
    # leading underscores move to the end (the message __init__ took init____, _t took t_)
    "__init__": "init_____", "__field": "field__", "_field": "field_", "_pb_x": "pb_x_",
    "_f_x": "f_x_", "_oc_x": "oc_x_", "_pb_info": "pb_info_", "_pb_unknown": "pb_unknown_",
    "__slots__": "slots____", "__pyopaque_api__": "pyopaque_api____",
    "_t": "t__", "_rt": "rt__", "_sys": "sys_",
    # reserved at module level only
    "annotations": "annotations",
    # plain names, including the locals of generated methods
    "foo": "foo", "value": "value", "buf": "buf", "pos": "pos", "tag": "tag", "out": "out",
    "iv": "iv", "x48": "x48", "m49": "m49", "yield": "yield_", "await": "await_",
}


def test_field_attributes_names2(generated: Any) -> None:
    style, _, (m2, _) = generated
    attrs = {f.name: f.attr for f in m2.class_._pb_info.fields}
    for name, attr in ATTRS_NAMES2.items():
        assert attrs[name] == attr, name
    # accessors are allocated in declaration order: `foo` owns get_/set_/has_/clear_foo
    if style == "API_OPEN":
        assert attrs["get_foo"] == "get_foo_"
        assert (attrs["set_foo"], attrs["has_foo"], attrs["clear_foo"]) == ("set_foo", "has_foo", "clear_foo")
    else:
        assert [attrs[n] for n in ("get_foo", "set_foo", "has_foo", "clear_foo")] == [
            "get_foo_", "set_foo_", "has_foo_", "clear_foo_"]
    assert len(set(attrs.values())) == len(attrs)
    # the nested type `get_bar` keeps its name; field bar's getter moves aside
    assert m2.class_.get_bar.__pyopaque_api__.endswith(".v1")
    assert callable(getattr(m2.class_, "get_bar_"))


def test_message_and_enum_names(generated: Any) -> None:
    _, _, (m2, m3) = generated
    for proto_name, py_name in [("def", "def_"), ("None", "None_"), ("True", "True_"), ("import", "import_"),
                                ("lambda", "lambda_"), ("int", "int_"), ("str", "str_"), ("_t", "t_"),
                                ("_rt", "rt_"), ("annotations", "annotations_"), ("_m_x", "m_x_"),
                                ("_e_Holder_Keywords", "e_Holder_Keywords_"), ("__init__", "init____"),
                                ("_enum", "enum_"), ("class", "class_")]:
        cls = getattr(m2, py_name)
        assert cls._pb_info.full_name == f"hostile.{proto_name}", proto_name
    keywords = m2.Holder.Keywords
    assert {name: member.value for name, member in keywords.__members__.items()} == {
        "None_": 0, "True_": 1, "class_": 2, "name_": 3, "value_": 4, "x__": 5, "mro_": 6,
        "init____": 7, "_": 8, "int": 9, "real": 10, "missing__": 11, "order__": 13, "lambda_": 16,
    }
    assert {n: v.value for n, v in m2.Holder.Dunder.__members__.items()} == {
        "x__": 0, "y____": 1, "describe__": 2}
    assert {n: v.value for n, v in m3.Msg.Enum.__members__.items()} == {
        "ZERO": 0, "name_": 1, "value_": 2, "x__": 3}
    # the enum tables keep the .proto names
    info = next(f for f in m2.Holder._pb_info.fields if f.name == "k").enum
    assert info.names["None"] == 0 and info.names["_x_"] == 5


def test_names3_attributes(generated: Any) -> None:
    style, _, (_, m3) = generated
    attrs = {f.name: f.attr for f in m3.Msg._pb_info.fields}
    assert attrs["class"] == "class_" and attrs["def"] == "def_" and attrs["return"] == "return_"
    assert attrs["Msg"] == "Msg_"  # the module's class Msg is reserved in class scope
    assert attrs["self"] == "self_" and attrs["None"] == "None_"
    assert attrs["has_x"] == ("has_x_" if style != "API_OPEN" else "has_x")
    # oneof `which` owns which_which, has_which and clear_which in every style
    assert attrs["clear_which"] == "clear_which_"


# -- behaviour: construct, round-trip, agree with upb ---------------------------------


def _upb_class(pool: descriptor_pool.DescriptorPool, full_name: str) -> Any:
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(full_name))


@pytest.mark.parametrize(("module_index", "path"), [
    (0, "class_"), (0, "def_"), (0, "str_"), (0, "Holder"), (1, "Msg"),
])
def test_round_trip_and_upb_agreement(generated: Any, pool: descriptor_pool.DescriptorPool,
                                      module_index: int, path: str) -> None:
    _, _, modules = generated
    cls: Any = modules[module_index]
    for part in path.split("."):
        cls = getattr(cls, part)
    msg, values = populate(cls)
    data = msg.serialize()
    again = cls.parse(data)
    assert again == msg
    assert again.serialize() == data
    theirs = _upb_class(pool, cls._pb_info.full_name).FromString(data)
    assert theirs.SerializeToString(deterministic=True) == msg.serialize(deterministic=True)
    for name, value in values.items():
        got = getattr(theirs, name)
        if isinstance(value, Message):
            assert theirs.HasField(name), name
        elif isinstance(value, dict):
            assert {key: (val if not isinstance(val, Message) else None) for key, val in value.items()} == {
                key: (val if not hasattr(val, "ListFields") else None) for key, val in got.items()}, name
        elif isinstance(value, list):
            if value and isinstance(value[0], Message):
                assert len(got) == len(value), name
            else:
                assert list(got) == value, name
        else:
            assert got == value, name
    # and upb's bytes parse back into the same message
    assert cls.parse(theirs.SerializeToString()).serialize() == data


def test_nan_defaults_compare_equal(generated: Any) -> None:
    _, _, (m2, m3) = generated
    nan = m3.Msg(float_=math.nan)
    assert nan.serialize() == m3.Msg.parse(nan.serialize()).serialize()
    assert m3.Msg.parse(nan.serialize()) == nan
    assert m2.class_() == m2.class_()


def test_accessor_collisions_keep_values_apart(generated: Any) -> None:
    style, _, (m2, _) = generated
    attrs = {f.name: f.attr for f in m2.class_._pb_info.fields}
    names = ["foo", "get_foo", "set_foo", "has_foo", "clear_foo"]
    msg = m2.class_(**{attrs[n]: i + 1 for i, n in enumerate(names)})
    again = m2.class_.parse(msg.serialize())
    assert again.get_foo() == 1
    assert again.get_get_foo() == 2 and again.get_set_foo() == 3
    assert again.get_has_foo() == 4 and again.get_clear_foo() == 5
    if style != "API_OPEN":
        assert again.has_foo() is True
        again.clear_foo()
        assert again.get_foo() == 0 and again.has_foo() is False
        assert again.get_clear_foo() == 5
        again.set_foo(9)
        again.set_set_foo(10)  # the setter of the field named set_foo
        assert (again.get_foo(), again.get_set_foo()) == (9, 10)


def test_defaults_and_json_names(generated: Any, pool: descriptor_pool.DescriptorPool) -> None:
    _, _, (m2, m3) = generated
    for cls in (m2.class_, m2.str_, m2.Holder, m3.Msg):
        md = pool.FindMessageTypeByName(cls._pb_info.full_name)
        for info in cls._pb_info.fields:
            fd = md.fields_by_name[info.name]
            assert info.json_name == fd.json_name, info.name
            if not fd.is_repeated and fd.message_type is None:
                if isinstance(fd.default_value, float) and math.isnan(fd.default_value):
                    assert math.isnan(info.default), info.name
                else:
                    assert info.default == fd.default_value, info.name
    msg = m2.class_()
    assert msg.get_quoted() == "a\"b'c\\d\ne\"\"\"f\\"
    assert msg.get_raw() == b"\x00\xff\"\\'''"
    assert math.isnan(msg.get_fnan()) and msg.get_finf() == -math.inf
    json_q = next(f for f in m2.class_._pb_info.fields if f.name == "json_q")
    assert json_q.json_name == "j\"s'o\\n"
    ext = m2.return_
    assert msg.get_extension(ext) == '"""; import os #'
    msg.set_extension(ext, HOSTILE)
    assert m2.class_.parse(msg.serialize()).get_extension(ext) == HOSTILE


# -- the naming functions directly ----------------------------------------------------


@pytest.mark.parametrize(("wanted", "got"), [
    ("class", "class_"), ("None", "None_"), ("int", "int_"), ("parse", "parse_"), ("self", "self_"),
    ("property", "property_"), ("__init__", "init____"), ("__x", "x__"), ("_pb_x", "pb_x_"),
    ("_f_", "f__"), ("_e_E", "e_E_"), ("_m_", "m__"), ("__pb_x", "pb_x__"), ("_t", "t_"),
    ("annotations", "annotations"), ("plain", "plain"), ("len", "len"), ("_", "_"), ("__", "__"),
    ("_5", "_5"), ("__5", "_5"),
])
def test_class_scope_claim(wanted: str, got: str) -> None:
    assert class_scope().claim(wanted) == got


def test_claims_are_unique_and_terminate() -> None:
    scope = Scope()
    names = ["_pb_x", "pb_x_", "pb_x_", "_pb_x", "__pb_x", "_f_x", "f_x_", "_5", "__5"]
    claimed = [scope.claim(n) for n in names]
    assert len(set(claimed)) == len(claimed)
    assert not any(n[0] == "_" and n.lstrip("_")[:1].isalpha() for n in claimed)


@pytest.mark.parametrize(("wanted", "got"), [
    ("name", "name_"), ("value", "value_"), ("mro", "mro_"), ("_x_", "x__"), ("_missing_", "missing__"),
    ("__x__", "x____"), ("X", "X"), ("_", "_"), ("None", "None_"), ("int", "int"),
])
def test_enum_member(wanted: str, got: str) -> None:
    assert enum_scope().claim(wanted) == got


def test_generated_modules_are_ordinary_modules(generated: Any) -> None:
    _, _, modules = generated
    for module in modules:
        assert isinstance(module, ModuleType)
        assert module.__name__.startswith("hostile.")


# -- JSON names that protoc accepts and upb's pool would reject ------------------------


@pytest.mark.parametrize("style", STYLES)
def test_clashing_json_names_of_proto2(tmp_path: Path, style: str) -> None:
    """protoc only warns when proto2 fields share a JSON name (``foo_bar``/``fooBar``);
    the plugin must not fail there (upb's pool alone would reject the file)."""
    request = make_request(["hostile/json_conflict.proto"], f"default_api_level={style}")
    protoc_json = {f"{m.name}.{f.name}": f.json_name
                   for m in request.proto_file[-1].message_type for f in m.field}
    protoc_json.update({f"Inner.{f.name}": f.json_name
                        for f in request.proto_file[-1].message_type[0].nested_type[0].field})
    generate_files(request, tmp_path)
    with imported(tmp_path, "hostile.json_conflict_pb") as (mod,):
        legacy = {f"Legacy.{f.name}": f.json_name for f in mod.Legacy._pb_info.fields}
        inner = {f"Inner.{f.name}": f.json_name for f in mod.Legacy.Inner._pb_info.fields}
        assert {**legacy, **inner} == protoc_json
        assert legacy == {"Legacy.foo_bar": "fooBar", "Legacy.fooBar": "fooBar",
                          "Legacy.__field": "Field", "Legacy._field": "Field"}
        assert inner == {"Inner.a_b": "aB", "Inner.aB": "custom", "Inner.a__b": "aB"}
        attrs = [f.attr for f in mod.Legacy._pb_info.fields]
        assert attrs == ["foo_bar", "fooBar", "field__", "field_"]
        msg = mod.Legacy(**{a: i for i, a in enumerate(attrs, 1)})
        assert mod.Legacy.parse(msg.serialize()) == msg
        # ProtoJSON keeps both: a JSON name two fields share names neither, their proto names do
        assert json.loads(msg.to_json()) == {"foo_bar": 1, "fooBar": 2, "__field": 3, "_field": 4}
        assert mod.Legacy.from_json(msg.to_json()) == msg
        inner_msg = mod.Legacy.Inner(a_b="x", aB="y", a__b="z")
        assert json.loads(inner_msg.to_json()) == {"a_b": "x", "custom": "y", "a__b": "z"}
        assert mod.Legacy.Inner.from_json(inner_msg.to_json()) == inner_msg
        assert mod.Legacy.Inner.from_json('{"aB": "y"}') == mod.Legacy.Inner(aB="y")  # a proto name


@pytest.mark.parametrize("style", STYLES)
def test_hostile_modules_pass_mypy_strict(tmp_path: Path, style: str,
                                          requests_by_style: dict[str, plugin_pb2.CodeGeneratorRequest]) -> None:
    """Annotations naming builtins (int, str, bytes...) still mean the builtins inside
    classes whose fields, nested types and accessors use those very names."""
    import os
    import subprocess
    import sys

    from tools.generate import REPO

    generate_files(requests_by_style[style], tmp_path)
    env = {**os.environ, "MYPYPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--explicit-package-bases",
         "--cache-dir=/dev/null", "hostile"],
        cwd=tmp_path, capture_output=True, text=True, check=False, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


# -- file paths that are not Python module paths ---------------------------------------


@pytest.mark.parametrize(("proto", "module", "path"), [
    ("foo/bar.proto", "foo.bar_pb", "foo/bar_pb.py"),
    ("a-b/c-d.proto", "a_b.c_d_pb", "a_b/c_d_pb.py"),
    ("import/2nd-file.proto", "import_._2nd_file_pb", "import_/_2nd_file_pb.py"),
    ("x/class.proto", "x.class_pb", "x/class_pb.py"),
    ("foo.bar.proto", "foo.bar_pb", "foo/bar_pb.py"),  # dots separate packages, as in protobuf
    ("v1/my+file.proto", "v1.my_file_pb", "v1/my_file_pb.py"),
])
def test_module_paths(proto: str, module: str, path: str) -> None:
    from protoc_gen_pyopaque.plugin.names import module_for, output_path

    assert module_for(proto) == module
    assert output_path(proto) == path
    assert all(part.isidentifier() and not keyword.iskeyword(part) for part in module.split("."))


@pytest.mark.parametrize("style", STYLES)
def test_keyword_and_digit_paths_import(tmp_path: Path, style: str) -> None:
    """``hostile/import/2nd-file.proto`` is imported by ``hostile/def/user.proto``."""
    protos = ["hostile/import/2nd-file.proto", "hostile/def/user.proto"]
    files = generate_files(make_request(protos, f"default_api_level={style}"), tmp_path)
    assert "hostile/import_/_2nd_file_pb.py" in files and "hostile/def_/user_pb.py" in files
    with imported(tmp_path, "hostile.def_.user_pb", "hostile.import_._2nd_file_pb") as (user, dep):
        msg = user.User(dep=dep.Dep(x=5))
        again = user.User.parse(msg.serialize())
        assert again == msg and again.get_dep().get_x() == 5


# -- top-level names like the locals of generated methods ------------------------------

SHADOW = "hostile/shadow.proto"


@pytest.mark.parametrize("style", STYLES)
def test_top_level_names_like_generated_locals(style: str, tmp_path: Path) -> None:
    generate_files(make_request([SHADOW], f"default_api_level={style}"), tmp_path)
    with imported(tmp_path, "hostile.shadow_pb") as (mod,):
        # the generator's locals are _buf, _pos...: only the Message API's parameters are escaped
        names = {"buf", "pos", "tag", "out", "key", "value_", "m4", "raw5", "self_", "e"}
        assert names <= set(vars(mod)), sorted(set(vars(mod)))
        holder: Any = mod.Holder
        msg, _ = populate(holder)
        msg.set_extension(mod.x_value, mod.value_(a=3))
        data = msg.serialize()
        again = holder.parse(data)
        assert again == msg and again.serialize() == data
        assert holder.from_json(msg.to_json()) == msg
        assert holder.from_text(msg.to_text()) == msg
