"""Every adversarial input shape (tools/adversarial.py) parses in time linear in its size,
in every interpreted style: binary (eager, and parse(lazy=True) with a first access), text
format and ProtoJSON.

A growth ratio within one run, not a timing: the input grows 16 times, so linear work takes
about 16 times as long and an O(n²) accumulation (appending to bytes, copying a list per
element) about 256 times; the bound, 48, leaves room for a busy machine. Times are the
thread's CPU time, the best of a few runs, with the garbage collector off (as in the
benchmarks): its passes over a parse's many objects (90-deep chains) made the deep shape
grow about 40 times, where it grows 18 times without them.
"""

from __future__ import annotations

import gc
import importlib.util
import sys
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from protoc_gen_pyopaque.runtime import DecodeError
from tools import adversarial
from tools.generate import REPO, generate

SMALL = 32 << 10
LARGE = SMALL * 16
BOUND = 48
STYLES = {"open": "API_OPEN", "hybrid": "API_HYBRID", "opaque": "API_OPAQUE"}


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ModuleType]]:
    out = tmp_path_factory.mktemp("hostile")
    loaded = {}
    for style, level in STYLES.items():
        generate([adversarial.PROTO], [REPO / "bench" / "protos"], out / style, options=f"default_api_level={level}")
        name = f"_pyopaque_linear_{style}"
        spec = importlib.util.spec_from_file_location(name, out / style / "benchpb" / "hostile_pb.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        loaded[style] = mod
    yield loaded
    for style in STYLES:
        del sys.modules[f"_pyopaque_linear_{style}"]


def cpu_time(fn: Callable[[], Any], runs: int) -> float:
    best = float("inf")
    gc.collect()
    gc.disable()  # the collector's passes over many live objects grow faster than the parse itself
    try:
        for _ in range(runs):
            start = time.thread_time()
            fn()
            best = min(best, time.thread_time() - start)
    finally:
        gc.enable()
    return max(best, 1e-4)  # below the clock's useful resolution


def assert_linear(parse: Callable[[Any], Any], small: Any, large: Any) -> None:
    parse(small)  # warm up
    ratio = cpu_time(lambda: parse(large), 2) / cpu_time(lambda: parse(small), 5)
    assert ratio < BOUND, f"16 times the input took {ratio:.0f} times as long: not linear"


@pytest.mark.parametrize("style", ["open", "hybrid", "opaque", "lazy"])
@pytest.mark.parametrize("shape", list(adversarial.BINARY))
def test_binary_shape_parses_in_linear_time(modules: dict[str, ModuleType], style: str, shape: str) -> None:
    message, build = adversarial.BINARY[shape]
    cls = getattr(modules["opaque" if style == "lazy" else style], message)
    if style == "lazy":
        def parse(data: bytes) -> Any:
            m = cls.parse(data, lazy=True)
            m.unknown_fields()  # the first access decodes the message
            return m
    else:
        parse = cls.parse
    small, large = build(SMALL), build(LARGE)
    assert parse(small).serialize() == small or shape in ("map entries", "lazy field given n times")
    assert_linear(parse, small, large)


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("shape", list(adversarial.TEXT) + list(adversarial.JSON))
def test_text_and_json_shape_parses_in_linear_time(modules: dict[str, ModuleType], style: str, shape: str) -> None:
    cls = modules[style].Hostile
    build = adversarial.TEXT.get(shape) or adversarial.JSON[shape]
    parse = cls.from_text if shape in adversarial.TEXT else cls.from_json
    assert_linear(parse, build(SMALL), build(LARGE))


def test_lazy_chain_is_checked_once(modules: dict[str, ModuleType]) -> None:
    """A [lazy] field checks at parse that the messages inside it nest within the limit; the
    decode of those bytes does not check that again at each [lazy] level below (one chain 480
    deep took 16 times as long as 16 chains 30 deep when it did: quadratic in the depth)."""
    Hostile = modules["opaque"].Hostile
    level = adversarial._field(2, bytes(range(1, 11)))  # packed values: enough bytes per level to
    # reach the limit, so that a check cannot skip a level by its length alone

    def chain(depth: int) -> bytes:
        data = b""
        for _ in range(depth):
            data = level + adversarial._field(6, data)
        return data

    def parse_to_the_end(data: bytes) -> int:
        msg, depth = Hostile.parse(data, max_depth=500), 0
        while msg.has_lazy_child():
            msg, depth = msg.get_lazy_child(), depth + 1
        return depth

    shallow, deep = chain(30), chain(480)
    assert parse_to_the_end(deep) == 480 and len(deep) > 16 * len(shallow)
    with pytest.raises(DecodeError, match="nested deeper than the limit"):  # checked at parse
        Hostile.parse(deep, max_depth=479)
    ratio = cpu_time(lambda: parse_to_the_end(deep), 3) / cpu_time(lambda: [parse_to_the_end(shallow) for _ in range(16)], 3)
    assert ratio < 5, f"one chain 16 times as deep took {ratio:.1f} times as long as 16 chains"
