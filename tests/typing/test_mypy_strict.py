"""Generated modules, and user code written against them, pass `mypy --strict`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.golden.golden import EXPECTED, VARIANTS

REPO = Path(__file__).resolve().parents[2]

USER_CODE = {
    "open": '''
from golden.scalars_pb import Scalars
from golden.collections_pb import Collections
m = Scalars(f_int32=3, opt_string="x")
n: int = m.f_int32
o: str | None = m.opt_string
p: str = m.get_opt_string()
c = Collections(items=[Collections.Item(key="k", color=Collections.Color.RED)])
c.counts["a"] = 1
c.text = "t"
w: str | None = c.which_choice()
data: bytes = c.serialize()
back: Collections = Collections.parse(data)
''',
    "hybrid": '''
from golden.scalars_pb import Scalars
from golden.collections_pb import Collections
m = Scalars(f_int32=3)
m.f_int32 = 4
m.set_opt_string("y")
h: bool = m.has_opt_string()
c = Collections()
c.set_item(Collections.Item(key="k"))
w: str | None = c.which_choice()
back: Collections = Collections.parse(c.serialize())
''',
    "opaque": '''
from golden.scalars_pb import Scalars
from golden.collections_pb import Collections
m = Scalars(f_int32=3)
m.set_f_int32(4)
n: int = m.get_f_int32()
m.set_opt_string("y")
h: bool = m.has_opt_string()
m.clear_opt_string()
c = Collections()
c.set_item(Collections.Item(key="k"))
c.get_counts()["a"] = 1
w: str | None = c.which_choice()
back: Collections = Collections.parse(c.serialize())
''',
}


def _mypy(cwd: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--explicit-package-bases",
         "--cache-dir=/dev/null", *files],
        cwd=cwd, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_generated_and_user_code_pass_mypy_strict(variant: str, tmp_path: Path) -> None:
    root = EXPECTED / variant
    (tmp_path / "user_code.py").write_text(USER_CODE[variant])
    files = [str(p.relative_to(root)) for p in sorted(root.rglob("*.py"))]
    result = _mypy(root, *files, str(tmp_path / "user_code.py"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_opaque_hides_fields_from_the_type_checker(tmp_path: Path) -> None:
    root = EXPECTED / "opaque"
    script = tmp_path / "misuse.py"
    script.write_text("from golden.scalars_pb import Scalars\nScalars().f_int32 = 3\n")
    result = _mypy(root, str(script))
    assert result.returncode == 1
    assert '"Scalars" has no attribute "f_int32"' in result.stdout


def test_project_passes_mypy_strict() -> None:
    result = _mypy(REPO, "protoc_gen_pyopaque")
    assert result.returncode == 0, result.stdout + result.stderr
