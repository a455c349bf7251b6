"""Servicers of greet.v1.Greeter for the tests, written against any variant's modules.

The request's name steers the unary method: ``abort:<CODE>`` aborts with that status,
``sleep`` waits (for deadlines), ``wait-cancel`` waits until the client cancels, and any other
name is greeted back with the invocation metadata's ``x-greeting`` as prefix and a trailing
``x-served-by`` entry.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

import grpc

SLEEP_SECONDS = 5.0


def get(msg: Any, field: str) -> Any:
    """A field of one of our messages (any style: get_x) or of an official one (an attribute)."""
    getter = getattr(msg, f"get_{field}", None)
    return getter() if getter is not None else getattr(msg, field)


def metadata_value(context: Any, key: str) -> str:
    return str(dict(context.invocation_metadata()).get(key, ""))


def make_servicers(pb: ModuleType, base: type, async_base: type) -> tuple[Any, Any]:
    """A sync and an async servicer deriving from ``base`` and ``async_base`` (for the official
    modules, grpcio-tools' servicer class is both: grpcio serves async methods on grpc.aio)."""
    Reply = pb.HelloReply

    def greeting(request: Any, context: Any) -> Any:
        return Reply(message=metadata_value(context, "x-greeting") + get(request, "name"))

    class Sync(base):  # type: ignore[misc, valid-type]
        cancelled = threading.Event()

        def SayHello(self, request: Any, context: grpc.ServicerContext) -> Any:
            name = get(request, "name")
            if name.startswith("abort:"):
                context.abort(grpc.StatusCode[name[len("abort:"):]], "aborted on request")
            if name == "sleep":
                time.sleep(SLEEP_SECONDS)
            if name == "wait-cancel":
                context.add_callback(self.cancelled.set)
                deadline = time.monotonic() + SLEEP_SECONDS
                while context.is_active() and time.monotonic() < deadline:
                    time.sleep(0.01)
            context.set_trailing_metadata((("x-served-by", "sync"),))
            return greeting(request, context)

        def SayHelloStream(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            for i in range(get(request, "count")):
                yield Reply(message=f"{get(request, 'name')} {i}")

        def CollectNames(self, request_iterator: Iterator[Any], context: grpc.ServicerContext) -> Any:
            return Reply(names=[get(r, "name") for r in request_iterator])

        def Chat(self, request_iterator: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
            for r in request_iterator:
                yield greeting(r, context)

    class Async(async_base):  # type: ignore[misc, valid-type]
        async def SayHello(self, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            name = get(request, "name")
            if name.startswith("abort:"):
                await context.abort(grpc.StatusCode[name[len("abort:"):]], "aborted on request")
            if name == "sleep":
                await asyncio.sleep(SLEEP_SECONDS)
            context.set_trailing_metadata((("x-served-by", "async"),))
            return greeting(request, context)

        async def SayHelloStream(self, request: Any, context: Any) -> AsyncIterator[Any]:
            for i in range(get(request, "count")):
                yield Reply(message=f"{get(request, 'name')} {i}")

        async def CollectNames(self, request_iterator: AsyncIterator[Any], context: Any) -> Any:
            return Reply(names=[get(r, "name") async for r in request_iterator])

        async def Chat(self, request_iterator: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
            async for r in request_iterator:
                yield greeting(r, context)

    return Sync(), Async()
