"""Differential tests against the official upb runtime, for every API style.

Schemas: tests/differential/protos (always) and the conformance suite's test
messages when ``runner --protos`` is available (see harness.py).
Styles: open, hybrid, hybrid-opaque (a subprocess with PYOPAQUE_PROTOOPAQUE=1),
opaque, and lazy (opaque with lazy_all=true, parsed with parse(lazy=True); its
first full access must reject what the eager parse rejects).

Properties, for random inputs:

* upb message -> upb bytes -> ours parse -> ours serialize -> upb parse: the
  same message (compared field by field with NaN == NaN and -0.0 != 0.0);
* ours parse -> serialize -> parse is stable (==, and deterministic bytes), and
  ours' deterministic bytes equal upb's deterministic bytes;
* arbitrary and mutated bytes: ours either parses or raises DecodeError (no
  other exception, no hang), and accepts exactly what upb accepts; what it
  accepts re-serializes to what upb parsed.

Inputs include unknown fields everywhere and map entries holding what a map cannot
(unknown fields, a key or value of another wire type, duplicates). Where the spec leaves
a choice, ours makes upb's: an entry with unknown fields or a key or value of another
wire type is kept whole among its message's unknown fields (C++ drops the extra, so a
proxy would lose it); a duplicate key or value inside an entry: the last one wins, a
message value merges, as the spec says for any field. Where upb departs from the spec,
ours follows the spec and the test names the place: field number 0
(``upb_field_zero_quirk``).

Counts: PYOPAQUE_DIFF_EXAMPLES=<n> (per test) or HYPOTHESIS_PROFILE=long (x20);
the defaults keep the file well under a minute.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from google.protobuf.message import DecodeError as UpbDecodeError
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.differential.harness import Backend, Root, World
from tests.differential.oracle import OursResult
from tests.differential.strategies import (
    build, canon, message_specs, upb_field_zero_quirk, mutate, order_free, wire_bytes,
)


def _examples(default: int) -> int:
    if "PYOPAQUE_DIFF_EXAMPLES" in os.environ:
        return int(os.environ["PYOPAQUE_DIFF_EXAMPLES"])
    return default * (20 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 1)


def _settings(default: int) -> settings:
    return settings(
        max_examples=_examples(default), deadline=None, derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])


# ----------------------------------------------------------------------------- checks

def upb_parse(world: World, root: Root, data: bytes) -> Any | None:
    """upb's message for ``data``, or None when upb rejects it."""
    msg = world.upb.cls(root.full_name)()
    try:
        msg.ParseFromString(data)
    except UpbDecodeError:
        return None
    return msg


def check_accepted(world: World, root: Root, data: bytes, upb_msg: Any, res: OursResult) -> None:
    """Checks for input both sides parsed: ours re-serializes to what upb parsed."""
    where = f"{root} input {data.hex()}"
    try:
        again = world.upb.cls(root.full_name).FromString(res.wire)
    except UpbDecodeError as exc:
        pytest.fail(f"upb cannot parse our serialize() {res.wire.hex()} ({exc}); {where}")
    expected = canon(upb_msg)
    assert canon(again) == expected, (
        f"our round trip changed the message: ours wrote {res.wire.hex()}, "
        f"upb re-serializes the original as {upb_msg.SerializePartialToString(deterministic=True).hex()}; {where}")
    assert res.reparse_det == res.det, f"ours parse(serialize(m)) != m in deterministic bytes; {where}"
    assert res.reparse_equal, f"ours parse(serialize(m)) != m (==); {where}"
    if res.lazy_wire is not None:
        assert not res.lazy_eager_error, f"lazy: accepted, the eager parse rejects ({res.lazy_eager_error}); {where}"
        assert res.lazy_equal_eager, f"lazy: parse(lazy=True) != parse(lazy=False); {where}"
        lazy_again = upb_parse(world, root, res.lazy_wire)
        assert lazy_again is not None and canon(lazy_again) == canon(upb_msg), (
            f"lazy: serialize() before first access wrote {res.lazy_wire.hex()}; {where}")
    if root.required:
        assert res.strict_accepted == upb_msg.IsInitialized(), (
            f"required-field check: ours strict parse accepted={res.strict_accepted}, "
            f"upb IsInitialized()={upb_msg.IsInitialized()}; {where}")


def differential(world: World, backend: Backend, root: Root, data: bytes) -> tuple[Any, OursResult]:
    """Feed ``data`` to both sides and check they agree."""
    upb_msg = upb_parse(world, root, data)
    res = backend.check(root, data)
    where = f"{backend.name} {root} input {data.hex()}"
    assert not res.crash, f"ours raised something other than DecodeError: {res.crash}\n{where}"
    if upb_msg is not None and not res.accepted:
        if upb_field_zero_quirk(upb_msg):
            event("upb accepts field number 0 in unknown groups and fieldless messages")
            return upb_msg, res
        pytest.fail(f"upb accepts, ours rejects ({res.error}); {where}")
    if upb_msg is None and res.accepted:
        pytest.fail(f"upb rejects, ours accepts (ours wrote {res.wire.hex()}); {where}")
    if upb_msg is not None:
        check_accepted(world, root, data, upb_msg, res)
    return upb_msg, res


# ----------------------------------------------------------------------------- properties

@_settings(150)
@given(data=st.data())
def test_random_messages_round_trip(world: World, backend: Backend, data: st.DataObject) -> None:
    root = data.draw(st.sampled_from(world.roots), label="root")
    spec = data.draw(message_specs(world.upb.descriptor(root.full_name), world.upb.extensions), label="spec")
    upb_msg = build(world.upb.cls(root.full_name), spec)
    wire = upb_msg.SerializePartialToString()
    parsed, res = differential(world, backend, root, wire)
    assert parsed is not None
    expected = upb_msg.SerializePartialToString(deterministic=True)
    if order_free(upb_msg):
        assert res.det == expected, (
            f"deterministic bytes differ: ours {res.det.hex()}, upb {expected.hex()}; {root} input {wire.hex()}")
    else:
        # upb's deterministic order differs from its serialize() order here: ours must
        # still write the same deterministic bytes whatever order it read the entries in
        other = backend.check(root, expected)
        assert other.det == res.det, (
            f"ours' deterministic bytes depend on input order: {res.det.hex()} from {wire.hex()}, "
            f"{other.det.hex()} from {expected.hex()}; {root}")


@_settings(300)
@given(data=st.data())
def test_fuzzed_bytes(world: World, backend: Backend, data: st.DataObject) -> None:
    root = data.draw(st.sampled_from(world.roots), label="root")
    desc = world.upb.descriptor(root.full_name)
    source = data.draw(st.sampled_from(["wire", "wire", "mutated", "raw"]), label="source")
    if source == "wire":
        blob = data.draw(wire_bytes(desc, world.upb.extensions), label="bytes")
    elif source == "mutated":
        spec = data.draw(message_specs(desc, world.upb.extensions, depth=2), label="spec")
        valid = build(world.upb.cls(root.full_name), spec).SerializePartialToString()
        blob = data.draw(mutate(valid), label="bytes")
    else:
        blob = data.draw(st.binary(max_size=48), label="bytes")
    differential(world, backend, root, blob)
