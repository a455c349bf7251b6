"""Equality of generated messages' values as upb defines it: NaN equals NaN, -0.0 is not 0.0."""

from __future__ import annotations

from math import copysign
from typing import TypeVar

__all__ = ["float_eq", "floats_eq", "float_values_eq", "value_eq", "extensions_eq"]

_K = TypeVar("_K")


def float_eq(a: float | None, b: float | None) -> bool:
    """Compare float fields as upb does: NaN equals NaN, 0.0 and -0.0 differ (as on the wire)."""
    if a == b:
        return a != 0.0 or a is None or b is None or copysign(1.0, a) == copysign(1.0, b)
    return a != a and b != b


def floats_eq(a: list[float], b: list[float]) -> bool:
    """Compare repeated float fields element by element, as float_eq does."""
    return len(a) == len(b) and all(float_eq(x, y) for x, y in zip(a, b))


def float_values_eq(a: dict[_K, float], b: dict[_K, float]) -> bool:
    """Compare maps with float values, as float_eq does."""
    return a.keys() == b.keys() and all(float_eq(v, b[k]) for k, v in a.items())


def value_eq(a: object, b: object) -> bool:
    """Compare oneof and extension values (of any kind); floats as float_eq does."""
    if type(a) is float and type(b) is float:
        return float_eq(a, b)
    return a == b


def extensions_eq(a: dict[int, object], b: dict[int, object]) -> bool:
    """Compare extension values (singular or lists), NaN equal to NaN."""
    if a.keys() != b.keys():
        return False
    for number, x in a.items():
        y = b[number]
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y) or not all(value_eq(u, v) for u, v in zip(x, y)):
                return False
        elif not value_eq(x, y):
            return False
    return True
