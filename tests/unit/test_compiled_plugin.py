"""protoc_gen_pyopaque.compiled_plugin: a compiled build of the generator is found by the digest of
the installed sources, and imported only while they are those it was built from (here with a
stand-in build of one module: tests/integration/test_compiled_plugin.py compiles the real one)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from protoc_gen_pyopaque import compiled_plugin
from protoc_gen_pyopaque.compiled_plugin import (
    MANIFEST, PACKAGE, PACKAGE_ROOT, PREFIX, compiled_folder, sources_digest,
)


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    """A copy of the installed package (its sources only), to edit."""
    root = tmp_path / "site" / PACKAGE
    shutil.copytree(PACKAGE_ROOT, root, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    return root


def _touch(path: Path) -> None:
    path.write_text(path.read_text() + "# edited\n")


def test_digest_changes_with_any_source_the_build_depends_on(sources: Path) -> None:
    digest = sources_digest(sources)
    assert digest == sources_digest(PACKAGE_ROOT)  # the same bytes
    for rel in ("plugin/names.py", "gen/views.py", "runtime/_wire.py", "cli.py"):
        saved = (sources / rel).read_text()
        _touch(sources / rel)
        assert sources_digest(sources) != digest, rel
        (sources / rel).write_text(saved)
    assert sources_digest(sources) == digest
    (sources / "gen" / "extra.py").write_text("")  # a module added
    assert sources_digest(sources) != digest


def test_digest_ignores_what_the_build_does_not_depend_on(sources: Path) -> None:
    digest = sources_digest(sources)
    (sources / "proto" / "pyopaque" / "extra.proto").write_text('syntax = "proto3";\n')
    (sources / "plugin" / "notes.txt").write_text("")
    assert sources_digest(sources) == digest


def test_a_build_is_found_only_for_the_sources_as_they_are(sources: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert compiled_folder(sources, cache) is None  # no cache folder
    (cache / f"{PREFIX}0123").mkdir(parents=True)  # a build of other sources
    assert compiled_folder(sources, cache) is None
    build = cache / f"{PREFIX}{sources_digest(sources)}"
    build.mkdir()
    assert compiled_folder(sources, cache) is None  # no list of its files: not (yet) whole
    (build / "a.so").write_bytes(b"")
    (build / "b.so").write_bytes(b"")
    (build / MANIFEST).write_text("a.so\nb.so\n")
    assert compiled_folder(sources, cache) == build
    (build / "b.so").unlink()  # a file removed (a cache cleaner): not whole
    assert compiled_folder(sources, cache) is None
    (build / "b.so").write_bytes(b"")
    _touch(sources / "plugin" / "schema.py")
    assert compiled_folder(sources, cache) is None


PROBE = """
import sys
from protoc_gen_pyopaque.compiled_plugin import activate
if sys.argv[1:] == ["imported-first"]:
    import protoc_gen_pyopaque.plugin.options
print(activate())
import protoc_gen_pyopaque.plugin.options as m
print(m.__file__)
"""


def _run_probe(sources: Path, cache_home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True, cwd=sources.parent,
        env={**os.environ, "PYTHONPATH": str(sources.parent), "XDG_CACHE_HOME": str(cache_home),
             compiled_plugin.SWITCH: "", **env})


def _probe(sources: Path, cache_home: Path, *args: str, **env: str) -> tuple[str, str]:
    """What activate() returned and where plugin.options came from, in a process importing ``sources``."""
    activated, module = _run_probe(sources, cache_home, *args, **env).stdout.split()
    return activated, module


def _stand_in_build(sources: Path, cache_home: Path) -> tuple[Path, Path]:
    """A build of ``sources`` whose one module (plugin/options) is a copy of the source: the build's
    folder and that module."""
    build = cache_home / "protoc-gen-pyopaque" / f"{PREFIX}{sources_digest(sources)}"
    stand_in = build / PACKAGE / "plugin" / "options.py"
    stand_in.parent.mkdir(parents=True)
    shutil.copy(sources / "plugin" / "options.py", stand_in)
    (build / MANIFEST).write_text(f"{stand_in.relative_to(build).as_posix()}\n")
    return build, stand_in


def test_the_entry_point_imports_the_build_of_these_sources_only(sources: Path, tmp_path: Path) -> None:
    cache_home = tmp_path / "cache-home"
    # a stand-in for the compiled module, imported instead of the source when the build is used
    build, stand_in = _stand_in_build(sources, cache_home)
    interpreted = str(sources / "plugin" / "options.py")

    assert _probe(sources, cache_home) == (str(build), str(stand_in))
    assert _probe(sources, cache_home, **{compiled_plugin.SWITCH: "0"}) == ("None", interpreted)
    # a module imported already: the process keeps the interpreted ones (never a mix)
    assert _probe(sources, cache_home, "imported-first") == ("None", interpreted)
    _touch(sources / "gen" / "build.py")  # an edited source: the build is stale, never run
    assert _probe(sources, cache_home) == ("None", interpreted)


def test_a_build_that_does_not_load_is_passed_over(sources: Path, tmp_path: Path) -> None:
    cache_home = tmp_path / "cache-home"
    build, stand_in = _stand_in_build(sources, cache_home)
    # as a shared library built for another libc fails to load
    stand_in.write_text(stand_in.read_text() + "\nraise ImportError('undefined symbol: __libc_stand_in')\n")
    result = _run_probe(sources, cache_home)
    assert result.stdout.split() == ["None", str(sources / "plugin" / "options.py")]
    assert f"the compiled generator in {build} does not load (undefined symbol: __libc_stand_in)" in result.stderr
