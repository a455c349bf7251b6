"""Hypothesis inputs for the fuzz target: random bytes, and seeds mutated as a fuzzer would."""

from __future__ import annotations

from hypothesis import strategies as st

# bytes that matter to the wire format: varint continuation, wire types, lengths
_SPECIAL = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x08, 0x0A, 0x0B, 0x0C, 0x7F, 0x80, 0xFF]


@st.composite
def _mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.integers(0, 5))
        at = draw(st.integers(0, len(data)))
        if op == 0 and at < len(data):  # replace a byte
            data[at] = draw(st.sampled_from(_SPECIAL) | st.integers(0, 255))
        elif op == 1:  # insert bytes
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif op == 2:  # delete a range
            del data[at:at + draw(st.integers(1, 16))]
        elif op == 3:  # repeat a range
            piece = data[at:at + draw(st.integers(1, 32))]
            data[at:at] = piece * draw(st.integers(1, 20))
        elif op == 4:  # splice in a piece of another seed
            other = draw(st.sampled_from(seeds))
            start = draw(st.integers(0, len(other)))
            data[at:at] = other[start:start + draw(st.integers(1, 64))]
        else:  # truncate
            del data[at:]
    return bytes(data)


def fuzz_inputs(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    """Inputs for Target.run: mostly mutated seeds, some random bytes."""
    return st.one_of(_mutated(seeds), _mutated(seeds), _mutated(seeds), st.binary(max_size=256))
