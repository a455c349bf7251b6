"""The names a message class's by-name methods take, for type checkers only (nothing imports
this module at run time: it costs no import).

Each generated class declares its names as Literal types in the annotation of its
``_pb_names``, which never runs; ``Message.has``, ``clear``, ``which``, ``get`` and ``mutable``
read them from the type of ``self`` (the protocol ``Named``), so that a misspelt name, a field
for a oneof, or a field without presence given to ``has`` fails ``mypy --strict`` and
pyright's strict mode. A reference typed as ``Message`` takes any ``str``.
"""

from __future__ import annotations

from typing import ClassVar, Generic, Protocol, TypeVar

_F = TypeVar("_F", bound=str)  # field names
_P = TypeVar("_P", bound=str)  # names of singular fields with presence
_O = TypeVar("_O", bound=str)  # oneof names
_W = TypeVar("_W", bound=str)  # names of oneof members
_S = TypeVar("_S", bound=str)  # names of singular message fields
_F_in = TypeVar("_F_in", bound=str, contravariant=True)
_P_in = TypeVar("_P_in", bound=str, contravariant=True)
_O_in = TypeVar("_O_in", bound=str, contravariant=True)
_W_out = TypeVar("_W_out", bound=str, covariant=True)
_S_in = TypeVar("_S_in", bound=str, contravariant=True)


class Names(Generic[_F_in, _P_in, _O_in, _W_out, _S_in]):
    """A message class's field names, presence field names, oneof names, oneof member names
    and singular message field names: the type of its ``_pb_names`` (a marker, never made).
    Names taken are contravariant, so that a checker solves them from ``self`` exactly."""


# pyright would have the parameters' variance; a class variable makes them invariant for mypy
class Named(Protocol[_F, _P, _O, _W, _S]):  # pyright: ignore[reportInvalidTypeVarUse]
    """A message class's ``_pb_names``, seen from the by-name methods' ``self``."""

    _pb_names: ClassVar[Names[_F, _P, _O, _W, _S]]  # pyright: ignore[reportGeneralTypeIssues]
