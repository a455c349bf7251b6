"""Golden outputs: the generated code for tests/golden/protos in each style."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.support.generate import generate

HERE = Path(__file__).resolve().parent
PROTOS = HERE / "protos"
EXPECTED = HERE / "expected"
# Style folders and the plugin options that make them ("default": edition defaults).
VARIANTS = {
    "default": "",
    "open": "default_api_level=API_OPEN",
    "hybrid": "default_api_level=API_HYBRID",
    "opaque": "default_api_level=API_OPAQUE",
}
# Variants that also get the gRPC plugin's modules, and its options (they do not depend on
# the message style).
GRPC_VARIANTS = {"default": ""}


def proto_files() -> list[str]:
    """The golden .proto files, relative to PROTOS."""
    return sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))


def render(variant: str) -> dict[str, str]:
    """Generate every golden proto for ``variant``; return {relative path: source}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = generate(proto_files(), [PROTOS], Path(tmp), options=VARIANTS[variant],
                       grpc_options=GRPC_VARIANTS.get(variant))
        return {str(p.relative_to(out)): p.read_text() for p in sorted(out.rglob("*.py"))}
