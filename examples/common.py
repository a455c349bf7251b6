"""What the examples share: generating examples/protos in a style and importing the result."""

from __future__ import annotations

import importlib
import shlex
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tools.generate import BUILD, generate, grpc_include, plugin_command  # noqa: E402

PROTOS = REPO / "examples" / "protos"


def build(style: str, files: list[str], *, name: str = "", grpc: bool = False) -> Path:
    """Generate ``files`` in ``style`` (open, hybrid, opaque; "edition-default" passes no option)
    into build/examples/NAME (NAME defaults to the style), showing the protoc command line."""
    out = BUILD / "examples" / (name or style)
    options = "" if style == "edition-default" else f"default_api_level=API_{style.upper()}"
    cmd = ["protoc", f"-I{PROTOS}", f"--plugin=protoc-gen-pyopaque={plugin_command()}",
           f"--pyopaque_out={out}"] + ([f"--pyopaque_opt={options}"] if options else [])
    if grpc:
        cmd += [f"--plugin=protoc-gen-pyopaque-grpc={plugin_command('main_grpc')}", f"--pyopaque-grpc_out={out}"]
    print("$", shlex.join(cmd + files).replace(str(REPO) + "/", ""))
    generate(files, [PROTOS, grpc_include()], out, options=options, grpc_options="" if grpc else None)
    return out


def load(out: Path, module: str) -> ModuleType:
    """Import ``module`` from ``out``, forgetting the example modules imported from elsewhere."""
    sys.path.insert(0, str(out))
    try:
        for name in [m for m in sys.modules if m == "example" or m.startswith("example.")]:
            del sys.modules[name]
        return importlib.import_module(module)
    finally:
        sys.path.remove(str(out))
