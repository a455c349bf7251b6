"""``import public``: the importing module re-exports the public import's names, as the official
runtime does (transitively; the module's own names win), in every style."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tools.generate import REPO, STYLES, generate

PROTOS = REPO / "tests" / "protos"
FILES = ["public/base.proto", "public/mid.proto", "public/top.proto", "public/user.proto"]

CHECK = """
import sys
sys.path.insert(0, sys.argv[1])
from public import base_pb, mid_pb, top_pb, user_pb
assert mid_pb.Base is base_pb.Base and mid_pb.Color is base_pb.Color
assert top_pb.Base is base_pb.Base and top_pb.Mid is mid_pb.Mid  # through mid's public import too
assert mid_pb.Clash is not base_pb.Clash and top_pb.Clash is mid_pb.Clash  # the module's own name wins
assert not hasattr(user_pb, "Base")  # a plain import re-exports nothing
user = user_pb.User.parse(bytes.fromhex("0a030a0178"))
assert user.serialize() == bytes.fromhex("0a030a0178")
"""


@pytest.mark.parametrize("style", STYLES)
def test_public_imports_are_reexported(style: str, tmp_path: Path) -> None:
    out = generate(FILES, [PROTOS], tmp_path, options=f"default_api_level={STYLES[style]}")
    result = subprocess.run([sys.executable, "-c", CHECK, str(out)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    if style == "hybrid":  # the opaque twin re-exports the twins' classes
        twin = subprocess.run(
            [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
             "from public import base_protoopaque_pb as b, mid_protoopaque_pb as m; assert m.Base is b.Base",
             str(out)], capture_output=True, text=True, check=False)
        assert twin.returncode == 0, twin.stderr
