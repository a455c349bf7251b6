"""The bounded part of the fuzzing (``make fuzz`` runs the long one): the seed corpus and every
input that once failed, replayed in every style, then a short Hypothesis run of mutated seeds
per style. In a compiled run (tests/behavior/compiled.py), the compiled style only."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from tests.behavior.compiled import COMPILED_ENV
from tests.fuzz.strategies import fuzz_inputs
from tests.fuzz.targets import CLASSES, COMPILED_STYLE, CORPUS, INTERPRETED_STYLES, MODES, Target, corpus, loaded

STYLES = [COMPILED_STYLE] if os.environ.get(COMPILED_ENV) else list(INTERPRETED_STYLES)
EXAMPLES = int(os.environ.get("PYOPAQUE_FUZZ_EXAMPLES", "300"))  # per style: a few seconds each


@pytest.fixture(params=STYLES)
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    with loaded(request.param) as t:
        yield t


def test_the_seed_corpus_covers_every_class_and_entry_point() -> None:
    names = {p.name for p in CORPUS.iterdir()}
    assert {f"{name}-{mode}" for _, name in CLASSES for mode in MODES} <= names


def test_seeds_and_past_failures_replay(target: Target) -> None:
    inputs = corpus()
    assert len(inputs) >= len(CLASSES) * len(MODES)
    for data in inputs:
        target.run(data)


def test_mutated_seeds(target: Target) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(fuzz_inputs(corpus()))
    def fuzz(data: bytes) -> None:
        target.run(data)

    fuzz()
