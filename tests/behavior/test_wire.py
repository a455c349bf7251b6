"""The runtime's varint writers at the boundaries of their paths (compiled, ints outside
-2**62..2**62-1 are heap objects and take paths of their own), against protobuf's own encoder."""

from __future__ import annotations

from google.protobuf.internal import encoder
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protoc_gen_pyopaque.runtime import codec, wire

EDGES = [0, 1, 0x7F, 0x80, 2**56 - 1, 2**56, 2**62 - 1, 2**62, 2**63 - 1, 2**63, 2**64 - 1,
         -1, -0x80, -2**56, -2**56 - 1, -2**62, -2**62 - 1, -2**63]


def written(v: int) -> bytes:
    out = wire.BytesWriter()
    wire.write_varint(out, v)
    return out.getvalue()


def expected(v: int) -> bytes:
    return encoder._VarintBytes(v + (1 << 64) if v < 0 else v)


def test_varint_edges() -> None:
    for v in EDGES:
        assert written(v) == expected(v), v


@given(st.integers(min_value=-2**63, max_value=2**64 - 1))
def test_varint_any_value_of_the_wire_range(v: int) -> None:
    assert written(v) == expected(v)


def written64(kind: int, v: int) -> bytes:
    out = wire.BytesWriter()
    codec.write_varint64(out, kind, v)
    return out.getvalue()


def test_varint64_edges_and_range() -> None:
    for v in EDGES:
        if v >= 0:
            assert written64(codec.TYPE_UINT64, v) == expected(v), v
        if v < 2**63:
            assert written64(codec.TYPE_INT64, v) == expected(v), v
    for kind, bad in ((codec.TYPE_UINT64, -1), (codec.TYPE_UINT64, 2**64), (codec.TYPE_INT64, 2**63),
                      (codec.TYPE_INT64, -2**63 - 1)):
        with pytest.raises(ValueError, match="out of range"):
            written64(kind, bad)


@given(st.integers(min_value=-2**63, max_value=2**64 - 1))
def test_varint64_any_value_of_its_kind(v: int) -> None:
    assert written64(codec.TYPE_INT64 if v < 2**63 else codec.TYPE_UINT64, v) == expected(v)
    if v >= 0:
        assert written64(codec.TYPE_UINT64, v) == expected(v)
