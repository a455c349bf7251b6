"""tools.builds.build_cached: a folder is made once per digest, and a caller that may not build
(a serving conformance testee) is told instead of starting a build."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.builds import StaleBuild, build_cached


def test_builds_once_per_digest_and_refuses_when_it_may_not(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    built: list[Path] = []

    def build(folder: Path) -> None:
        built.append(folder)
        folder.mkdir()
        (folder / "module.py").write_text("x = 1\n")

    with pytest.raises(StaleBuild, match="missing"):
        build_cached(out, "a", build, may_build=False)
    assert built == [] and not out.exists()

    assert build_cached(out, "a", build) == out
    assert build_cached(out, "a", build, may_build=False) == out
    assert len(built) == 1

    with pytest.raises(StaleBuild, match="older than its inputs"):
        build_cached(out, "b", build, may_build=False)
    assert len(built) == 1 and (out / "module.py").is_file()

    build_cached(out, "b", build)
    assert len(built) == 2
