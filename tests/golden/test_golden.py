"""Generated code must match the committed golden files (`make golden` updates them)."""

from __future__ import annotations

import difflib

import pytest

from tests.golden.golden import EXPECTED, VARIANTS, render


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_generated_code_matches_golden(variant: str) -> None:
    actual = render(variant)
    expected = {
        str(p.relative_to(EXPECTED / variant)): p.read_text()
        for p in sorted((EXPECTED / variant).rglob("*.py"))
    }
    assert sorted(actual) == sorted(expected), "set of generated files changed: run `make golden`"
    for rel, source in actual.items():
        if source != expected[rel]:
            diff = "".join(difflib.unified_diff(
                expected[rel].splitlines(True), source.splitlines(True), f"expected/{rel}", f"actual/{rel}", n=2))
            pytest.fail(f"{variant}/{rel} drifted from its golden file (run `make golden` if intended):\n{diff[:4000]}")
