"""Generated code must match the committed golden files (`make golden` updates them), and the
shipped well-known types what the plugin generates now (`make wkt` updates them)."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from tests.golden.golden import (
    DEFAULT_OPTIONS, EXPECTED, GRPC_VARIANTS, SOURCES, VARIANTS, default_style, is_twin, render, twins,
)
from protoc_gen_pyopaque.compile import is_generated
from tools.bootstrap_wkt import TARGET, render_wkts


def _check(actual: dict[str, str], expected: dict[str, str], label: str, fix: str) -> None:
    assert sorted(actual) == sorted(expected), f"{label}: set of generated files changed: run `{fix}`"
    for rel, source in actual.items():
        if source != expected[rel]:
            diff = "".join(difflib.unified_diff(
                expected[rel].splitlines(True), source.splitlines(True), f"expected/{rel}", f"actual/{rel}", n=2))
            pytest.fail(f"{label}/{rel} drifted from its committed file (run `{fix}` if intended):\n{diff[:4000]}")


def _committed(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.py*")) if p.suffix in SOURCES}


def test_message_modules_are_recognised_as_generated() -> None:
    # pyopaque-compile compiles, and pyopaque migrate skips, the files whose first line marks them
    modules = list(EXPECTED.rglob("*_pb.py"))
    assert modules
    for path in modules:
        assert is_generated(path.read_text()), path


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_generated_code_matches_golden(variant: str) -> None:
    actual = render(VARIANTS[variant], GRPC_VARIANTS.get(variant))
    made = {rel: actual.pop(rel) for rel in list(actual) if is_twin(rel)}
    _check(actual, _committed(EXPECTED / variant), variant, "make golden")
    if variant == "hybrid":
        # the opaque twins are not committed: each is its file's opaque module, but for the
        # differences twin_source makes
        _check(made, twins(), "hybrid twins (expected: the opaque modules, as golden.twin_source changes them)",
               "make golden, or change golden.twin_source if the twins differ on purpose")
    else:
        assert not made


_PARAMETER_LINE = re.compile(r"^# parameter: .*\n", re.M)


def test_default_style_is_the_edition_default() -> None:
    actual = render(DEFAULT_OPTIONS)
    styles = set()
    for rel, source in actual.items():
        proto = re.search(r'^# source: "(.+?)"', source, re.M)
        assert proto is not None, rel
        style = default_style(proto.group(1))
        styles.add(style)
        # the header names the parameter, the one line that differs from the style's folder
        expected = _PARAMETER_LINE.sub("", (EXPECTED / style / rel).read_text(), count=1)
        _check({rel: _PARAMETER_LINE.sub("", source, count=1)}, {rel: expected}, f"default ({style})", "make golden")
    assert styles == {"open", "opaque"}, "the golden protos should cover both edition defaults"


def test_shipped_well_known_types_are_what_the_plugin_generates() -> None:
    _check(render_wkts(), _committed(TARGET / "google"), "runtime/google", "make wkt")
