"""Codecs for Connect for Python (the ``connectrpc`` package): our messages over the Connect,
gRPC and gRPC-Web protocols it speaks.

connectrpc's codec is a protocol (``name()``, ``encode(message)``, ``decode(data, cls)``); its
defaults call protobuf-py's methods. Pass ours to its servers and clients::

    ConnectWSGIApplication(endpoints=..., codecs=connect.codecs())
    ConnectClientSync(address, codec=connect.BinaryCodec())

Nothing here imports connectrpc.
"""

from __future__ import annotations

from typing import TypeVar

from .message import Message

__all__ = ["BinaryCodec", "JsonCodec", "codecs"]

M = TypeVar("M", bound=Message)


class BinaryCodec:
    """The protobuf binary format: content type ``application/proto`` (gRPC: ``+proto``)."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Message) -> bytes:
        return message.serialize()

    def decode(self, data: bytes | bytearray, message_class: type[M]) -> M:
        return message_class.parse(data)


class JsonCodec:
    """ProtoJSON: content type ``application/json``."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return message.to_json().encode()

    def decode(self, data: bytes | bytearray, message_class: type[M]) -> M:
        return message_class.from_json(bytes(data))


def codecs() -> tuple[BinaryCodec, JsonCodec]:
    """Both codecs, as a Connect server takes them (``codecs=``)."""
    return BinaryCodec(), JsonCodec()
