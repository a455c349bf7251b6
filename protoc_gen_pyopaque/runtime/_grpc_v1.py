"""Surface 1 of generated gRPC modules (``foo/bar_grpc.py``): the one runtime module they import.

A gRPC module imports the surface it was generated for, ``_grpc_v<N>``: a runtime without it fails
that import, naming the surface, as ``_gen_v<N>`` does for message modules (so no version check).
Only those modules import it, and they import grpcio themselves; the message runtime
never imports grpcio.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Final, TypeVar

import grpc
import grpc.aio

from .errors import DecodeError
from .message import Message

__all__ = [
    "REGISTERED", "add_aio_handlers", "add_handlers", "lazy_parser", "unimplemented",
]

M = TypeVar("M", bound=Message)

# Passed to a channel's multi-callable factories, as grpcio's own generated code does: the
# call then takes grpcio's registered-method path. A dict, because types-grpcio does not
# declare the private keyword and a literal one fails type checking.
REGISTERED: Final[dict[str, Any]] = {"_registered_method": True}


def lazy_parser(cls: type[M]) -> Callable[[bytes], M]:
    """The deserializer of ``lazy_parse=true``: ``cls.parse(data, lazy=True)``, so that an
    opaque message nobody reads is forwarded (serialized) as the bytes it came in."""

    def parse(data: bytes) -> M:
        return cls.parse(data, lazy=True)

    return parse


def unimplemented(method: str) -> str:
    """The status details of a servicer method that was not overridden."""
    return f"Method {method} is not implemented"


def add_handlers(server: grpc.Server | grpc.aio.Server, service: str,
                 handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]]) -> None:
    """Register a service's method handlers on a server as grpcio's generated code does: by
    method name (grpcio's fast path) and as a generic handler (servers without that path)."""
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, dict(handlers)),))
    server.add_registered_method_handlers(service, handlers)


# What grpcio's synchronous server answers to a request its deserializer cannot decode.
UNDECODABLE: Final = "Exception deserializing request!"


def add_aio_handlers(server: grpc.aio.Server, service: str,
                     handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]]) -> None:
    """add_handlers for grpc.aio servers, which answer a deserializer's exception with UNKNOWN
    and its message as details: the handlers decode requests themselves and abort with
    INTERNAL, as grpcio's synchronous server does."""
    add_handlers(server, service, {name: _decoding(h) for name, h in handlers.items()})


def _decoding(handler: grpc.RpcMethodHandler[Any, Any]) -> grpc.RpcMethodHandler[Any, Any]:
    parse: Callable[[bytes], Any] = handler.request_deserializer  # type: ignore[assignment]
    kind = (handler.request_streaming, handler.response_streaming)
    behavior: Callable[..., Any] | None = {
        (False, False): handler.unary_unary, (False, True): handler.unary_stream,
        (True, False): handler.stream_unary, (True, True): handler.stream_stream,
    }[kind]
    assert behavior is not None  # the one of the handler's kind

    async def invoke(raw: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        if handler.request_streaming:
            return behavior(_parsed_stream(parse, raw, context), context)
        return behavior(await _parse_or_abort(parse, raw, context), context)

    async def unary(raw: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        result = await invoke(raw, context)
        return await result if inspect.isawaitable(result) else result

    async def streaming(raw: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
        async for response in _responses(await invoke(raw, context)):
            yield response

    return _HANDLERS[kind](streaming if handler.response_streaming else unary,
                           response_serializer=handler.response_serializer)


_HANDLERS: Final = {
    (False, False): grpc.unary_unary_rpc_method_handler, (False, True): grpc.unary_stream_rpc_method_handler,
    (True, False): grpc.stream_unary_rpc_method_handler, (True, True): grpc.stream_stream_rpc_method_handler,
}


async def _parse_or_abort(parse: Callable[[bytes], Any], raw: bytes,
                          context: grpc.aio.ServicerContext[Any, Any]) -> Any:
    try:
        return parse(raw)
    except DecodeError:
        await context.abort(grpc.StatusCode.INTERNAL, UNDECODABLE)


async def _parsed_stream(parse: Callable[[bytes], Any], raw: AsyncIterator[bytes],
                         context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
    async for data in raw:
        yield await _parse_or_abort(parse, data, context)


async def _responses(result: Any) -> AsyncIterator[Any]:
    """The responses of a server-streaming servicer method, whatever it returned: an async
    iterator (an ``async def`` that yields), an iterator, or a coroutine (one that writes its
    responses with ``context.write``)."""
    if inspect.isawaitable(result):
        result = await result
    if result is None:
        return
    if hasattr(result, "__aiter__"):
        async for response in result:
            yield response
    else:
        for response in result:
            yield response
