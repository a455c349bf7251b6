"""Messages too large for one parse method hand runs of their dispatch cases to methods of their
own (gen/build.py, PARSE_COMPLEXITY_BUDGET). Here a small budget forces that split on messages of
every field shape, in every style, and the split code must do what the unsplit code does on
random input: the same decode (or the same error), the same validating scan and canonical
verdict, the same ProtoJSON parse."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from protoc_gen_pyopaque.gen import build
from protoc_gen_pyopaque.plugin import run

from ._support import generate_files, imported, make_request

BUDGET = 40  # a few cases a run: many runs, every kind of case at a run's edge
STYLES = ("default_api_level=API_OPEN", "default_api_level=API_HYBRID", "default_api_level=API_OPAQUE",
          "default_api_level=API_OPAQUE,lazy_all=true")

PROTO = """
syntax = "proto2";
package chunks;

enum Color { NONE = 0; RED = 1; GREEN = 2; }

message Leaf {
  optional int32 a = 1;
  optional string b = 2;
}

message Wide {
  optional int32 i32 = 1;
  optional sint64 s64 = 2;
  optional fixed32 f32 = 3;
  optional double dbl = 4;
  optional bool flag = 5;
  optional string str = 6;
  optional bytes raw = 7;
  optional Color color = 8;
  optional Leaf leaf = 9;
  repeated int32 ints = 10;
  repeated sfixed64 fixeds = 11 [packed = true];
  repeated string strs = 12;
  repeated Leaf leaves = 13;
  repeated Color colors = 14;
  map<string, int32> counts = 15;
  map<int32, Leaf> leaf_by_id = 16;
  map<string, Color> color_by_name = 17;
  oneof choice {
    int32 pick_int = 18;
    Leaf pick_leaf = 40;
    string pick_str = 300;
  }
  optional group Part = 19 {  // split too: its end tag falls in its last run's range
    optional int32 x = 1;
    optional Leaf y = 2;
    repeated string z = 3;
    map<string, int32> m = 4;
    optional bytes w = 5;
    optional Color c = 6;
  }
  optional uint64 u64 = 20;
  optional float flt = 21;
  map<int64, string> names = 22;
  optional Leaf late = 2000;
  extensions 100 to 199;
}

extend Wide { optional int32 ext = 100; }
"""

PROTO3 = """
syntax = "proto3";
package chunks3;

enum Mood { CALM = 0; GLAD = 1; }

message Flat {
  int32 i32 = 1;
  string str = 2;
  bytes raw = 3;
  Mood mood = 4;
  Flat child = 5;
  repeated int64 ints = 6;
  map<string, Flat> kids = 7;
  optional double dbl = 8;
  oneof choice { int32 pick_int = 9; Flat pick_flat = 10; }
  bool flag = 11;
  fixed64 f64 = 12;
  sint32 s32 = 13;
  repeated string strs = 14;
  float flt = 15;
  uint32 u32 = 16;
  Flat last = 17;
}
"""

# (field number, wire type) of the fields the random inputs draw from: declared ones, declared
# numbers of another wire type, undeclared and extension numbers
WIDE_FIELDS = [(n, 0) for n in (1, 2, 5, 8, 10, 14, 18, 20, 100, 7, 55)] + [(n, 1) for n in (4, 11, 2)] \
    + [(n, 5) for n in (3, 21, 1)] + [(n, 2) for n in (6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17, 22, 40, 300, 2000, 60)] \
    + [(19, 3)]
GROUP_FIELDS = [(1, 0), (2, 2), (3, 2), (4, 2), (5, 2), (6, 0), (7, 0)]
FLAT_FIELDS = [(n, 0) for n in (1, 4, 6, 9, 11, 13, 16, 30)] + [(n, 1) for n in (8, 12)] + [(15, 5)] \
    + [(n, 2) for n in (2, 3, 5, 6, 7, 10, 14, 17, 31)]


def varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def tag(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def random_value(rng: random.Random, number: int, wire: int, depth: int, fields: list[tuple[int, int]]) -> bytes:
    if wire == 0:
        return varint(rng.choice([0, 1, 2, 3, 127, 128, 300, -1, 1 << 40, rng.getrandbits(64)]))
    if wire == 1:
        return rng.randbytes(8)
    if wire == 5:
        return rng.randbytes(4)
    if wire == 3:  # a group: its fields, then its end
        return random_message(rng, GROUP_FIELDS, depth + 1) + tag(number, 4)
    if depth < 2 and rng.random() < 0.6:  # a message, or a map entry (key 1, value 2)
        return length_prefixed(random_message(rng, fields if rng.random() < 0.5 else [(1, 0), (2, 2), (1, 2), (2, 0)],
                                              depth + 1))
    return length_prefixed(rng.choice([b"", b"ok", "é".encode(), b"\xff\xfe", rng.randbytes(3)]))


def length_prefixed(data: bytes) -> bytes:
    return varint(len(data)) + data


def random_message(rng: random.Random, fields: list[tuple[int, int]], depth: int = 0) -> bytes:
    chosen = rng.choices(fields, k=rng.randint(0, 12))
    if rng.random() < 0.5:
        chosen.sort()
    return b"".join(tag(n, w) + random_value(rng, n, w, depth, fields) for n, w in chosen)


def mutated(rng: random.Random, data: bytes) -> bytes:
    if not data or rng.random() < 0.5:
        return data
    at = rng.randrange(len(data))
    if rng.random() < 0.5:
        return data[:at]
    return data[:at] + bytes([rng.choice([0x00, 0x80, 0xFF, 0x0A, 0x7F])]) + data[at + 1:]


def outcome(action: Callable[..., Any], *args: Any) -> Any:
    try:
        return ("ok", action(*args))
    except Exception as exc:  # the split code must raise what the unsplit code raises
        return ("error", type(exc).__name__, str(exc))


def observe(cls: Any, inputs: list[bytes], scans: bool) -> list[Any]:
    """What ``cls`` does with each input: the decode, the lazy decode, the scan and its canonical
    verdict, and the ProtoJSON round trip, forwards and with the members reversed."""
    seen = []
    for data in inputs:
        seen.append(outcome(lambda d: cls.parse(d).serialize(), data))
        seen.append(outcome(lambda d: cls.parse(d, lazy=True).serialize(), data))
        if scans:
            seen.append(outcome(cls._pb_scan, data, 0, len(data), 64))
        text = outcome(lambda d: cls.parse(d).to_json(), data)
        seen.append(text)
        if text[0] == "ok":
            backwards = json.dumps(dict(reversed(list(json.loads(text[1]).items()))))
            seen.append(outcome(lambda t: cls.from_json(t).serialize(), text[1]))
            seen.append(outcome(lambda t: cls.from_json(t).to_json(), backwards))
    return seen


def generated(root: Path, parameter: str, budget: int | None) -> Path:
    """The chunks protos generated with parse methods split past ``budget`` (None: the default)."""
    out = root / f"out-{budget}"
    req = make_request(["chunks/wide.proto", "chunks/flat.proto"], parameter, include=[root])
    with pytest.MonkeyPatch.context() as patch:
        if budget is not None:
            patch.setattr(run, "build_file_view", functools.partial(build.build_file_view, parse_budget=budget))
        sources = generate_files(req, out)
    split = "def _pb_merge_1(" in sources["chunks/wide_pb.py"]
    assert split == (budget is not None)  # the default budget leaves these messages whole
    return out


@pytest.mark.parametrize("parameter", STYLES)
def test_split_parsers_do_what_whole_ones_do(parameter: str, tmp_path: Path) -> None:
    (tmp_path / "chunks").mkdir()
    (tmp_path / "chunks" / "wide.proto").write_text(PROTO)
    (tmp_path / "chunks" / "flat.proto").write_text(PROTO3)
    rng = random.Random(19)
    cases = [("wide_pb", "Wide", WIDE_FIELDS), ("flat_pb", "Flat", FLAT_FIELDS)]
    inputs = {name: [mutated(rng, random_message(rng, fields)) for _ in range(300)] for _, name, fields in cases}
    results = []
    for budget in (None, BUDGET):
        out = generated(tmp_path, parameter, budget)
        with imported(out, *(f"chunks.{module}" for module, _, _ in cases)) as modules:
            observed = {}
            for mod, (_, name, _) in zip(modules, cases):
                cls = getattr(mod, name)
                scans = "_pb_scan" in vars(cls)
                if budget is not None:  # every parser of the class is split
                    assert "_pb_merge_2" in vars(cls) and "_pb_json_merge_2" in vars(cls)
                    assert scans == ("_pb_scan_2" in vars(cls))
                observed[name] = observe(cls, inputs[name], scans)
            results.append(observed)
    whole, split = results
    for name in whole:
        assert split[name] == whole[name]
        kinds = {r[0] for r in whole[name]}
        assert kinds == {"ok", "error"}  # the inputs reach both outcomes


def test_the_budget_bounds_every_method() -> None:
    """Each run's estimated weight stays within the budget (one case may pass its share)."""
    weights = [3.0, 9.0, 1.0, 30.0, 2.0, 2.0, 8.0, 40.0, 5.0, 5.0, 5.0, 1.0]
    cases: list[Any] = [(i, None, "one") for i in range(len(weights))]
    tree, chunks = build._chunked(cases, weights, 50, inline_first=True)
    runs = [[i for i, _, _ in _leaves(tree)]] + [[i for i, _, _ in _leaves(c.tree)] for c in chunks]
    assert sorted(i for run in runs for i in run) == list(range(len(weights)))
    assert all(sum(weights[i] for i in run) <= 50 for run in runs)
    assert [c.lower for c in chunks] == [run[0] for run in runs[1:]]
    whole, none = build._chunked(cases, weights, 1000, inline_first=True)
    assert none == [] and [i for i, _, _ in _leaves(whole)] == list(range(len(weights)))
    for first in (True, False):  # a single case heavier than the budget stays whole
        alone, no_chunks = build._chunked(cases[:1], [60.0], 50, inline_first=first)
        assert no_chunks == [] and [i for i, _, _ in _leaves(alone)] == [0]


def _leaves(node: Any) -> list[Any]:
    if node.chunk:
        return []
    if node.low is None:
        return list(node.cases)
    return _leaves(node.low) + _leaves(node.high)


def test_no_case_outweighs_the_heaviest(tmp_path: Path) -> None:
    """Messages of fewer cases than the budget over HEAVIEST_CASE_WEIGHT are left whole without
    estimating their cases: no estimate of any field shape, in any style, may pass it."""
    (tmp_path / "chunks").mkdir()
    (tmp_path / "chunks" / "wide.proto").write_text(PROTO)
    (tmp_path / "chunks" / "flat.proto").write_text(PROTO3)
    estimates: list[float] = []
    chunked = build._chunked

    def recorded(cases: Any, weights: list[float], budget: int, *, inline_first: bool) -> Any:
        estimates.extend(weights)
        return chunked(cases, weights, budget, inline_first=inline_first)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build, "_chunked", recorded)
        # a budget of 1: every dispatch is estimated
        patch.setattr(run, "build_file_view", functools.partial(build.build_file_view, parse_budget=1))
        for parameter in STYLES:
            req = make_request(["chunks/wide.proto", "chunks/flat.proto"], parameter, include=[tmp_path])
            generate_files(req, tmp_path / "out")
    assert build.HEAVIEST_CASE_WEIGHT in estimates  # the heaviest shape is among them
    assert max(estimates) <= build.HEAVIEST_CASE_WEIGHT


def test_each_case_gets_its_own_estimate(tmp_path: Path) -> None:
    """The weights handed to _chunked are those of its cases, in the cases' order (by number),
    also where fields are declared out of number order (Wide's oneof: 18, 40, 300, then 19)."""
    (tmp_path / "chunks").mkdir()
    (tmp_path / "chunks" / "wide.proto").write_text(PROTO)
    mismatched: list[tuple[int, str]] = []
    json_cases: list[int] = []
    chunked = build._chunked

    def recorded(cases: Any, weights: list[float], budget: int, *, inline_first: bool) -> Any:
        for (number, f, mode), weight in zip(cases, weights, strict=True):
            if mode == "json":
                json_cases.append(number)
                expected: tuple[float, ...] = (build._json_weight(f),)
            else:  # _pb_merge's or _pb_scan's dispatch: the cases do not say which
                expected = (build._merge_weight(f, mode), build._scan_weight(f, mode))
            if weight not in expected:
                mismatched.append((number, mode))
        return chunked(cases, weights, budget, inline_first=inline_first)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build, "_chunked", recorded)
        patch.setattr(run, "build_file_view", functools.partial(build.build_file_view, parse_budget=1))
        req = make_request(["chunks/wide.proto"], "default_api_level=API_OPAQUE", include=[tmp_path])
        generate_files(req, tmp_path / "out")
    assert 300 in json_cases and mismatched == []
