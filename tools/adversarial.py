"""Adversarial inputs: shapes a hostile sender repeats to fill any size, each of which must parse
in time and memory linear in its size (an accumulation that copies what it has so far per
element makes one of them quadratic).

The schema is bench/protos/benchpb/hostile.proto (``Hostile``, ``HostileSet``). The benchmark
(bench/adversarial.py) times the binary shapes per MB against upb; the growth test
(tests/integration/test_linear_time.py) checks every shape, text and JSON ones included.
"""

from __future__ import annotations

from collections.abc import Callable

PROTO = "benchpb/hostile.proto"
CHAIN_DEPTH = 90  # nesting of each chain of the deep shape: legal under the default limit of 100


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def _field(number: int, payload: bytes) -> bytes:
    return tag(number, 2) + varint(len(payload)) + payload


def _repeat(unit: Callable[[int], bytes], size: int) -> bytes:
    parts = []
    total = i = 0
    while total < size:
        part = unit(i)
        parts.append(part)
        total += len(part)
        i += 1
    return b"".join(parts)


def _chain(depth: int) -> bytes:
    data = b""
    for _ in range(depth):
        data = _field(1, data)
    return data


_CHAIN = _field(4, _chain(CHAIN_DEPTH))
_MSET_ITEM = tag(1, 3) + tag(2, 0) + varint(999) + _field(3, b"\x08\x01") + tag(1, 4)  # an unknown type_id

# shape -> (message, builder of about ``size`` bytes); the binary shapes first, in the benchmark's order
BINARY: dict[str, tuple[str, Callable[[int], bytes]]] = {
    "unknown varints": ("Hostile", lambda size: b"\xf8\x07\x01" * (size // 3)),  # field 127 = 1
    "unknown length-delimited": ("Hostile", lambda size: (tag(126, 2) + b"\x08" + bytes(8)) * (size // 11)),
    "packed one-byte values": ("Hostile", lambda size: _field(2, b"\x01" * size)),
    "deep nesting": ("Hostile", lambda size: _CHAIN * (size // len(_CHAIN))),
    "map entries": ("Hostile", lambda size: _repeat(lambda i: _field(3, b"\x08" + varint(i) + b"\x10\x01"), size)),
    "extensions": ("Hostile", lambda size: (tag(100, 0) + b"\x01") * (size // 3)),
    "closed enum unknown values": ("Hostile", lambda size: (tag(5, 0) + b"\x07") * (size // 2)),
    "lazy field given n times": ("Hostile", lambda size: _field(6, _field(2, b"\x01")) * (size // 5)),
    "MessageSet items, unknown": ("HostileSet", lambda size: _MSET_ITEM * (size // len(_MSET_ITEM))),
}

# text format and ProtoJSON shapes (``Hostile``): builders of about ``size`` characters
TEXT: dict[str, Callable[[int], str]] = {
    # a sub-message given n times merges into one: its repeated field grows
    "text: sub-message given n times": lambda size: "child { values: 1 } " * (size // 20),
    "text: repeated extension given n times": lambda size: "[benchpb.ext_values]: 1 " * (size // 24),
    "text: map entries": lambda size: "".join(f"entries {{ key: {i} value: 1 }} " for i in range(size // 32)),
}
JSON: dict[str, Callable[[int], str]] = {
    "JSON: repeated values": lambda size: '{"values": [' + ", ".join(["1"] * (size // 3)) + "]}",
    "JSON: map entries": lambda size: '{"entries": {' + ", ".join(f'"{i}": 1' for i in range(size // 12)) + "}}",
}
