"""Files generated in separate runs, with different styles, still work together."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tools.generate import generate


def test_opaque_module_over_a_dependency_generated_open_earlier(tmp_path: Path) -> None:
    protos = tmp_path / "protos"
    (protos / "sep").mkdir(parents=True)
    (protos / "sep" / "dep.proto").write_text(
        'syntax = "proto3";\npackage sep;\nmessage Dep { string x = 1; }\n')
    (protos / "sep" / "main.proto").write_text(
        'syntax = "proto3";\npackage sep;\nimport "sep/dep.proto";\n'
        "message Main { Dep dep = 1; repeated Dep deps = 2; map<string, Dep> by_name = 3; }\n")
    out = tmp_path / "out"
    generate(["sep/dep.proto"], [protos], out, options="default_api_level=API_OPEN")
    generate(["sep/main.proto"], [protos], out, options="default_api_level=API_OPAQUE")
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "from sep.dep_pb import Dep\n"
        "from sep.main_pb import Main\n"
        "assert Dep.__pyopaque_api__ == 'open.v1' and Main.__pyopaque_api__ == 'opaque.v1'\n"
        "m = Main(dep=Dep(x='a'), deps=[Dep(x='b')], by_name={'c': Dep(x='c')})\n"
        "assert Main.parse(m.serialize()) == m\n"
    ) % str(out)
    subprocess.run([sys.executable, "-c", code], check=True)
