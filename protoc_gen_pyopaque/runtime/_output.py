"""Serialize output: length prefixes filled in or spliced, large pieces spliced in."""

from __future__ import annotations

from typing import Final

from . import _wire as wire
from ._wire import BytesWriter

__all__ = [
    "SPLICE_THRESHOLD", "splices", "finish_len", "write_raw", "write_span", "take_output",
    "discard_output",
]

# A BytesWriter only appends, so bytes that belong before the end of the output are kept
# aside and spliced in when serialize() takes the output (take_output):
# * the varint length of a sub-message of 128 bytes or more, over its one-byte placeholder;
# * large bytes written back verbatim (lazy fields, parse(lazy=True) messages), so that the
#   payload is copied once and peak memory stays near input + output.
SPLICE_THRESHOLD: Final = 1 << 16
# output id -> [(position, piece, bytes it replaces, bytes added by it and the pieces before)];
# empty unless an output being written has pieces
splices: Final[dict[int, list[tuple[int, bytes | memoryview, int, int]]]] = {}


def _splice(out: BytesWriter, at: int, piece: bytes | memoryview, replaced: int) -> None:
    pieces = splices.setdefault(id(out), [])
    added = pieces[-1][3] if pieces else 0
    pieces.append((at, piece, replaced, added + len(piece) - replaced))


def _added_inside(pieces: list[tuple[int, bytes | memoryview, int, int]], start: int) -> int:
    """Bytes the pieces after position ``start`` add: those recorded since a placeholder
    was written there, which are the list's tail (everything recorded before lies before it)."""
    lo = 0
    hi = len(pieces)
    while lo < hi:
        mid = (lo + hi) // 2
        if pieces[mid][0] > start:
            hi = mid
        else:
            lo = mid + 1
    if lo == len(pieces):
        return 0
    return pieces[-1][3] - (pieces[lo - 1][3] if lo else 0)


def finish_len(out: BytesWriter, start: int) -> None:
    """Fill in the one-byte length placeholder at ``start``, or splice a longer one over it."""
    n = len(out) - start - 1
    pieces = splices.get(id(out)) if splices else None
    if pieces:
        n += _added_inside(pieces, start)
    if n < 0x80:
        out[start] = n
    else:
        _splice(out, start, wire.varint_bytes(n), 1)


def write_raw(out: BytesWriter, raw: bytes, with_length: bool = True) -> None:
    """Append ``raw`` verbatim (after its length, for a field); splice in large pieces."""
    if with_length:
        wire.write_varint(out, len(raw))
    if len(raw) < SPLICE_THRESHOLD:
        out.write(raw)
    else:
        _splice(out, len(out), raw, 0)


def write_span(out: BytesWriter, span: tuple[bytes, int, int, int]) -> None:
    """Append length and bytes of a lazy field kept as (input, start, end, depth)."""
    buf, start, end, _ = span
    n = end - start
    wire.write_varint(out, n)
    if n < SPLICE_THRESHOLD:
        out.write(buf[start:end])
    else:
        _splice(out, len(out), memoryview(buf)[start:end], 0)


def _position(piece: tuple[int, bytes | memoryview, int, int]) -> int:
    return piece[0]


def take_output(out: BytesWriter) -> bytes:
    """Return the serialized bytes of ``out``, with its pieces spliced in."""
    pieces = splices.pop(id(out), None) if splices else None
    if not pieces:
        return out.getvalue()
    view = memoryview(out.getvalue())
    parts: list[bytes | memoryview] = []
    prev = 0
    for at, piece, replaced, _ in sorted(pieces, key=_position):  # stable: equal positions keep their order
        parts.append(view[prev:at])
        parts.append(piece)
        prev = at + replaced
    parts.append(view[prev:])
    return b"".join(parts)


def discard_output(out: BytesWriter) -> None:
    """Forget the pieces of an output that failed."""
    splices.pop(id(out), None)
