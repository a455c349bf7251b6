"""Generated golden modules, importable per style (open, hybrid, hybrid-opaque, opaque)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from protoc_gen_pyopaque.runtime import message as runtime_message
from tests.golden.golden import EXPECTED

STYLES = ["open", "hybrid", "hybrid-opaque", "opaque"]


class Modules:
    """The golden modules of one style."""

    def __init__(self, style: str) -> None:
        self.style = style
        self.root = EXPECTED / ("hybrid" if style.startswith("hybrid") else style)

    def load(self, name: str) -> ModuleType:
        return importlib.import_module(f"golden.{name}_pb")

    @property
    def accessors(self) -> bool:
        return self.style != "open"

    @property
    def attributes(self) -> bool:
        return self.style in ("open", "hybrid")


@pytest.fixture(params=STYLES)
def mods(request: pytest.FixtureRequest) -> Iterator[Modules]:
    modules = Modules(request.param)
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
