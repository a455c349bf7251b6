"""Exceptions raised by the runtime; every failure of parse/serialize/JSON is one of these."""

from __future__ import annotations

__all__ = ["ProtobufError", "DecodeError", "EncodeError", "JsonError", "TextFormatError"]


class ProtobufError(Exception):
    """Base class of every error the runtime raises on purpose."""


class DecodeError(ProtobufError):
    """Malformed binary input: says which message, field and byte offset."""


class EncodeError(ProtobufError):
    """A message that cannot be serialized: says which message and field."""


class JsonError(ProtobufError):
    """Malformed or unacceptable JSON input or output: says where (a JSON path)."""


class TextFormatError(DecodeError):
    """Malformed or unacceptable text-format input: says where (``line:column``) and why."""
