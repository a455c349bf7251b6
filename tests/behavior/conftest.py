"""Generated golden modules, importable per style (open, hybrid, hybrid-opaque, opaque).

In a compiled run (see tests/behavior/compiled.py), the golden modules of the style
it names compiled with mypyc, and only those.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from protoc_gen_pyopaque.runtime import message as runtime_message
from tests.behavior.compiled import selected_build
from tests.golden.golden import importable

COMPILED_STYLE, COMPILED_ROOT = selected_build() or (None, None)
STYLES = [COMPILED_STYLE] if COMPILED_STYLE else ["open", "hybrid", "hybrid-opaque", "opaque", "deferred-classes"]


class Modules:
    """The golden modules of one style."""

    def __init__(self, style: str, compiled_root: Path | None = None) -> None:
        self.style = style
        self.compiled = compiled_root is not None  # by mypyc, together with the runtime
        self.root = compiled_root or importable("hybrid" if style.startswith("hybrid") else style)

    def load(self, name: str) -> ModuleType:
        return importlib.import_module(f"golden.{name}_pb")

    @property
    def accessors(self) -> bool:
        return self.style != "open"

    @property
    def attributes(self) -> bool:
        return self.style in ("open", "hybrid")


@pytest.fixture(params=STYLES, ids=[f"{style}-compiled" if COMPILED_STYLE else style for style in STYLES])
def mods(request: pytest.FixtureRequest) -> Iterator[Modules]:
    modules = Modules(request.param, COMPILED_ROOT)
    if modules.compiled:  # the one style of its process: its root stays on sys.path, and native modules cannot be reloaded
        yield modules
        return
    saved = runtime_message.protoopaque_selected()
    runtime_message.select_protoopaque(request.param == "hybrid-opaque")
    sys.path.insert(0, str(modules.root))
    try:
        yield modules
    finally:
        sys.path.remove(str(modules.root))
        for name in [m for m in sys.modules if m == "golden" or m.startswith("golden.")]:
            del sys.modules[name]
        runtime_message.select_protoopaque(saved)


def path_exists(p: Path) -> bool:
    return p.exists()
