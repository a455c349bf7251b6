"""Generated modules, and user code written against them, pass `mypy --strict` and pyright's
strict mode, in every style; user code gets precise types, and mistakes fail both checkers.

One checker run per style and checker covers the golden protos (the hostile names of
nameclash.proto and the gRPC modules of services.proto among them), the examples, Google's
conformance protos (messages of over a hundred fields: their parse methods are split for
pyright's complexity limit, gen/build.py PARSE_COMPLEXITY_BUDGET) and user code; the shipped
well-known types join the open run (pyright: mypy checks them with the package,
test_project_passes_mypy_strict).

pyright analyses a style's conformance modules for minutes (their split parse methods sit near its
complexity limit), so the conformance protos join the opaque style's run only, unless
PYOPAQUE_TYPING_ALL_STYLES=1 (`make typing-full`) asks for every style.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance import harness
from tests.golden.golden import PROTOS, importable, proto_files
from tools.generate import REPO, generate

EXAMPLES = REPO / "examples" / "protos"
WKT = REPO / "protoc_gen_pyopaque" / "runtime" / "google" / "protobuf"
PYRIGHT = Path(sys.executable).parent / "pyright"
# the styles whose run includes the conformance protos
CONFORMANCE_STYLES = {"opaque"} if os.environ.get("PYOPAQUE_TYPING_ALL_STYLES") != "1" else None

# style: (plugin options, the golden folder that holds its output, or None: generated here)
STYLES = {
    "open": ("default_api_level=API_OPEN", "open"),
    "hybrid": ("default_api_level=API_HYBRID", "hybrid"),  # with the opaque twins
    "opaque": ("default_api_level=API_OPAQUE", "opaque"),
    "lazy": ("default_api_level=API_OPAQUE,lazy_all=true", None),
    # the codec methods packed (the form of large files): the classes' API as type checkers see it
    "deferred-classes": ("default_api_level=API_OPAQUE,classes=deferred", None),
}

# What every style's user code asserts: the precise types of whole-message operations, oneof
# names as Literal, names passed as strings taken from the class's own, and enum values
# accepted where fields and map values hold enums.
COMMON = '''
from typing import Any, Literal, assert_type

from example.addressbook_pb import AddressBook, Person
from golden.collections_pb import Collections
from golden.editions_pb import Edition2023, State
from golden.legacy_pb import Legacy, Level
from golden.scalars_pb import Scalars

c = Collections(items=[Collections.Item(key="k", color=Collections.Color.RED)],
                colors=[Collections.Color.GREEN, 7], color_by_flag={True: Collections.Color.RED, False: 9})
assert_type(c.which_choice(), Literal["text", "item", "scalars", "number"] | None)
assert_type(Collections.parse(c.serialize()), Collections)
assert_type(Collections.from_json(c.to_json()), Collections)
assert_type(Scalars.from_dict({}), Scalars)
assert_type(AddressBook.parse(b"").get_people(), list[Person])
assert_type(c.which("choice"), Literal["text", "item", "scalars", "number"] | None)
assert_type(Scalars().has("opt_string"), bool)
assert_type(c.has("item") or c.has("choice"), bool)
c.clear("colors")
c.clear("choice")
c.clear()
assert_type(c.get("names"), Any)
assert_type(c.mutable("scalars"), Any)
# enums: a closed enum's field holds its members (parameters take members or the ints they
# name); an open enum's field plain ints, which may be numbers it does not name: its singular
# getter says so, its containers and attributes say int
e = Edition2023(state=State.STATE_ON, states=[State.STATE_ON, 0], state_by_name={"a": 1})
assert_type(Legacy(id=1, level=2).get_level(), Level)
level_name: str = Legacy(id=1, level=Level.LOW).get_level().name  # a member's attributes
assert_type(e.get_state(), State)
assert_type(e.get_states(), list[State])
assert_type(e.get_states()[0], State)
assert_type(e.get_state_by_name(), dict[str, State])
assert_type(e.get("state"), Any)
assert_type(Collections.Item(color=7).get_color(), Collections.Color | int)
assert_type(c.get_colors(), list[int])
'''

USER_CODE = {
    "open": COMMON + '''
m = Scalars(f_int32=3, opt_string="x")
assert_type(m.f_int32, int)
assert_type(m.opt_string, str | None)
assert_type(m.get_opt_string(), str)
c.counts["a"] = 1
c.text = "t"
assert_type(c.item, Collections.Item | None)
assert_type(c.color_by_flag, dict[bool, int])
assert_type(Legacy(id=1).level, Level | None)
assert_type(e.state, State | None)
assert_type(e.states, list[State])
assert_type(e.state_by_name, dict[str, State])
e.state = State.STATE_UNKNOWN
e.states.append(State.STATE_ON)
''',
    "hybrid": COMMON + '''
m = Scalars(f_int32=3)
m.f_int32 = 4
m.set_opt_string("y")
assert_type(m.has_opt_string(), bool)
c.set_item(Collections.Item(key="k"))
c.set_color_by_flag({True: Collections.Color.GREEN})
e.set_state(State.STATE_ON)
e.set_state(1)
e.set_states([State.STATE_ON, 0])
e.set_state_by_name({"b": State.STATE_ON})
''',
    "opaque": COMMON + '''
m = Scalars(f_int32=3)
m.set_f_int32(4)
assert_type(m.get_f_int32(), int)
m.set_opt_string("y")
assert_type(m.has_opt_string(), bool)
m.clear_opt_string()
c.set_item(Collections.Item(key="k"))
c.get_counts()["a"] = 1
assert_type(c.get_item(), Collections.Item | None)
c.set_color_by_flag({True: Collections.Color.GREEN})
e.set_state(State.STATE_ON)
e.set_state(1)
e.set_states([State.STATE_ON, 0])
e.set_state_by_name({"b": State.STATE_ON})
''',
}
USER_CODE["lazy"] = USER_CODE["deferred-classes"] = USER_CODE["opaque"]

# Mistakes each checker must report (one file each): a misspelt oneof member compared with
# which_<oneof>()'s Literal, a value of the wrong type, names passed as strings that the class
# does not have (misspelt, a field for a oneof, a field without presence to has(), a scalar to
# mutable()), a closed enum's member taken for another enum's, an open enum's value taken for
# a member (it may be a number the enum does not name), and, opaque, a hidden field written.
COLLECTIONS = "from golden.collections_pb import Collections\n"
SCALARS = "from golden.scalars_pb import Scalars\n"
WRONG = {
    "which_name": COLLECTIONS + 'def f(c: Collections) -> bool:\n    return c.which_choice() == "txt"\n',
    "value_type": COLLECTIONS + 'Collections(color_by_flag={True: "RED"})\n',
    "has_misspelt": SCALARS + 'Scalars().has("opt_strin")\n',
    "has_no_presence": SCALARS + 'Scalars().has("f_int32")\n',
    "clear_misspelt": COLLECTIONS + 'Collections().clear("choise")\n',
    "which_field": COLLECTIONS + 'Collections().which("text")\n',
    "get_misspelt": COLLECTIONS + 'Collections().get("name")\n',
    "mutable_scalar": COLLECTIONS + 'Collections().mutable("text")\n',
    "closed_enum": "from golden.editions_pb import State\nfrom golden.legacy_pb import Legacy\n"
                   "s: State = Legacy().get_level()\n",
    "closed_enum_value": "from golden.editions_pb import Edition2023\nEdition2023(state=\"STATE_ON\")\n",
    "open_enum": COLLECTIONS + "color: Collections.Color = Collections.Item().get_color()\n",
    "opaque_field": SCALARS + "Scalars().f_int32 = 3\n",
}
WRONG_IN = {name: STYLES for name in WRONG} | {"opaque_field": ("opaque", "lazy", "deferred-classes")}


def mypy(root: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--explicit-package-bases",
         "--cache-dir=/dev/null", *files],
        cwd=root, capture_output=True, text=True, check=False)


def pyright(root: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    (root / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.11"}))
    return subprocess.run([str(PYRIGHT), "--pythonpath", sys.executable, *files],
                          cwd=root, capture_output=True, text=True, check=False)


CHECKERS = {"mypy": mypy, "pyright": pyright}


@pytest.fixture(scope="module", params=sorted(STYLES))
def style_root(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The golden protos, the examples (the gRPC modules with the open and opaque ones) and the
    conformance protos generated in one style, under one folder."""
    style: str = request.param
    options, golden = STYLES[style]
    root = tmp_path_factory.mktemp(f"strict-{style}")
    grpc = "" if style in ("open", "opaque") else None
    if golden is not None:
        shutil.copytree(importable(golden), root, dirs_exist_ok=True)
    else:
        generate(proto_files(), [PROTOS], root, options=options)
    examples = [str(p.relative_to(EXAMPLES)) for p in sorted(EXAMPLES.rglob("*.proto"))]
    generate(examples, [EXAMPLES], root, options=options, grpc_options=grpc)
    if CONFORMANCE_STYLES is not None and style not in CONFORMANCE_STYLES:
        return style, root  # see the module's docstring: `make typing-full` includes them
    try:
        runner = harness.find_runner()
    except harness.SetupError:
        return style, root  # without the conformance protos: tests/conformance skip, saying why
    shutil.copytree(harness.ensure_generated(harness.STYLES[style], runner) / "conformance", root / "conformance")
    return style, root


@pytest.mark.parametrize("checker", sorted(CHECKERS))
def test_generated_and_user_code_pass_strict(style_root: tuple[str, Path], checker: str) -> None:
    style, root = style_root
    (root / "user_code.py").write_text(USER_CODE[style])
    # a module with deferred classes is read through its .pyi, as a user's type checker does
    files = [str((p.with_suffix(".pyi") if p.with_suffix(".pyi").exists() else p).relative_to(root))
             for p in sorted(root.rglob("*.py")) if not p.name.startswith("wrong_")]
    if checker == "pyright" and style == "open":
        files += [str(p) for p in sorted(WKT.glob("*_pb.py"))]
    result = CHECKERS[checker](root, files)
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr


@pytest.mark.parametrize("checker", sorted(CHECKERS))
def test_mistakes_fail_strict(style_root: tuple[str, Path], checker: str) -> None:
    style, root = style_root
    files = []
    for name, source in WRONG.items():
        if style in WRONG_IN[name]:
            (root / f"wrong_{name}.py").write_text(source)
            files.append(f"wrong_{name}.py")
    result = CHECKERS[checker](root, files)
    assert result.returncode == 1, result.stdout + result.stderr
    for f in files:  # every mistake reported, and nothing else
        assert result.stdout.count(f"{f}:") == 1, result.stdout


def test_project_passes_mypy_strict() -> None:
    result = mypy(REPO, ["protoc_gen_pyopaque"])
    assert result.returncode == 0, result.stdout + result.stderr
