"""Golden outputs: the generated code for tests/golden/protos in each style."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from tools.generate import generate

HERE = Path(__file__).resolve().parent
PROTOS = HERE / "protos"
EXPECTED = HERE / "expected"
# Style folders and the plugin options that make them.
VARIANTS = {
    "open": "default_api_level=API_OPEN",
    "hybrid": "default_api_level=API_HYBRID",
    "opaque": "default_api_level=API_OPAQUE",
}
# Without an API level option, a file takes its edition's default style: opaque from edition
# 2024, open before. The test checks that output against those folders; it has none of its own.
DEFAULT_OPTIONS = ""
# Variants whose folders also hold the gRPC plugin's modules, and its options (they do not
# depend on the message style).
GRPC_VARIANTS = {"open": ""}


def proto_files() -> list[str]:
    """The golden .proto files, relative to PROTOS."""
    return sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))


def render(options: str, grpc_options: str | None = None) -> dict[str, str]:
    """Generate every golden proto with plugin ``options`` (and the gRPC plugin's
    ``grpc_options``, if given); return {relative path: source}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = generate(proto_files(), [PROTOS], Path(tmp), options=options, grpc_options=grpc_options)
        return {str(p.relative_to(out)): p.read_text() for p in sorted(out.rglob("*.py"))}


def default_style(proto: str) -> str:
    """The style a golden proto takes without an API level option (by its edition)."""
    found = re.search(r'^edition = "(\d+)";', (PROTOS / proto).read_text(), re.M)
    return "opaque" if found and int(found.group(1)) >= 2024 else "open"
