"""Generated gRPC modules against real grpcio servers (sync and grpc.aio) on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from concurrent import futures
from contextlib import contextmanager
from typing import Any

import grpc
import grpc.aio
import pytest

from protoc_gen_pyopaque.runtime.google.protobuf.empty_pb import Empty
from tests.grpc.conftest import Greet
from tests.grpc.servicers import get, make_servicers

SIZE_LIMIT = 4096


@contextmanager
def sync_server(add: Callable[[grpc.Server], None], **options: int) -> Iterator[grpc.Channel]:
    """A grpcio server on 127.0.0.1:0 set up by ``add``, and a channel to it."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=list(options.items()))
    add(server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield channel
    finally:
        server.stop(None)


def serve_greeter(greet: Greet, **options: int) -> Any:
    servicer, _ = make_servicers(greet.pb, greet.grpc.GreeterServicer, greet.grpc.GreeterAsyncServicer)
    return sync_server(lambda server: greet.grpc.add_GreeterServicer_to_server(servicer, server), **options)


def run_async(body: Callable[[grpc.aio.Channel], Coroutine[Any, Any, None]],
              add: Callable[[grpc.aio.Server], None]) -> None:
    """Run ``body(channel)`` against a grpc.aio server on 127.0.0.1:0 set up by ``add``."""

    async def main() -> None:
        server = grpc.aio.server()
        add(server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                await body(channel)
        finally:
            await server.stop(None)

    asyncio.run(main())


def async_greeter(greet: Greet) -> Callable[[grpc.aio.Server], None]:
    _, servicer = make_servicers(greet.pb, greet.grpc.GreeterServicer, greet.grpc.GreeterAsyncServicer)
    return lambda server: greet.grpc.add_GreeterAsyncServicer_to_server(servicer, server)


def names(replies: Any) -> list[str]:
    return [get(r, "message") for r in replies]


# -- every kind of RPC, sync and async, in every variant ----------------------------------------

def test_sync_every_kind_of_rpc(greet: Greet) -> None:
    Req = greet.pb.HelloRequest
    with serve_greeter(greet) as channel:
        stub = greet.grpc.GreeterStub(channel)
        reply = stub.SayHello(Req(name="Ada"))
        assert type(reply) is greet.pb.HelloReply and reply.get_message() == "Ada"
        assert names(stub.SayHelloStream(Req(name="Bo", count=3))) == ["Bo 0", "Bo 1", "Bo 2"]
        assert stub.CollectNames(iter([Req(name="a"), Req(name="b")])).get_names() == ["a", "b"]
        assert names(stub.Chat(iter([Req(name="x"), Req(name="y")]))) == ["x", "y"]


def test_async_every_kind_of_rpc(greet: Greet) -> None:
    Req = greet.pb.HelloRequest

    async def body(channel: grpc.aio.Channel) -> None:
        stub = greet.grpc.GreeterAsyncStub(channel)
        reply = await stub.SayHello(Req(name="Ada"))
        assert type(reply) is greet.pb.HelloReply and reply.get_message() == "Ada"
        assert [get(r, "message") async for r in stub.SayHelloStream(Req(name="Bo", count=2))] == ["Bo 0", "Bo 1"]

        async def requests() -> Any:
            for n in "ab":
                yield Req(name=n)

        assert (await stub.CollectNames(requests())).get_names() == ["a", "b"]
        assert [get(r, "message") async for r in stub.Chat(requests())] == ["a", "b"]

    run_async(body, async_greeter(greet))


# -- grpcio's multi-callables as users know them ----------------------------------------------------

def test_metadata_in_and_trailing_metadata_out(opaque: Greet) -> None:
    Req = opaque.pb.HelloRequest
    with serve_greeter(opaque) as channel:
        stub = opaque.grpc.GreeterStub(channel)
        reply, call = stub.SayHello.with_call(Req(name="Ada"), metadata=(("x-greeting", "hi "),), timeout=5)
        assert reply.get_message() == "hi Ada"
        assert ("x-served-by", "sync") in call.trailing_metadata()
        assert call.code() is grpc.StatusCode.OK
        assert stub.SayHello.future(Req(name="Bo")).result(timeout=5).get_message() == "Bo"


def test_async_metadata_in_and_trailing_metadata_out(opaque: Greet) -> None:
    Req = opaque.pb.HelloRequest

    async def body(channel: grpc.aio.Channel) -> None:
        call = opaque.grpc.GreeterAsyncStub(channel).SayHello(Req(name="Ada"), metadata=(("x-greeting", "hi "),))
        assert (await call).get_message() == "hi Ada"
        assert ("x-served-by", "async") in tuple(await call.trailing_metadata())

    run_async(body, async_greeter(opaque))


@pytest.mark.parametrize("code", ["NOT_FOUND", "PERMISSION_DENIED", "FAILED_PRECONDITION"])
def test_abort_status_codes(opaque: Greet, code: str) -> None:
    with serve_greeter(opaque) as channel, pytest.raises(grpc.RpcError) as caught:
        opaque.grpc.GreeterStub(channel).SayHello(opaque.pb.HelloRequest(name=f"abort:{code}"))
    assert caught.value.code() is grpc.StatusCode[code]
    assert caught.value.details() == "aborted on request"


def test_async_abort_status_code(opaque: Greet) -> None:
    async def body(channel: grpc.aio.Channel) -> None:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await opaque.grpc.GreeterAsyncStub(channel).SayHello(opaque.pb.HelloRequest(name="abort:ALREADY_EXISTS"))
        assert caught.value.code() is grpc.StatusCode.ALREADY_EXISTS

    run_async(body, async_greeter(opaque))


def test_deadline_exceeded(opaque: Greet) -> None:
    with serve_greeter(opaque) as channel, pytest.raises(grpc.RpcError) as caught:
        opaque.grpc.GreeterStub(channel).SayHello(opaque.pb.HelloRequest(name="sleep"), timeout=0.2)
    assert caught.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED


def test_async_deadline_exceeded(opaque: Greet) -> None:
    async def body(channel: grpc.aio.Channel) -> None:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await opaque.grpc.GreeterAsyncStub(channel).SayHello(opaque.pb.HelloRequest(name="sleep"), timeout=0.2)
        assert caught.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED

    run_async(body, async_greeter(opaque))


def test_cancellation_reaches_the_server(opaque: Greet) -> None:
    servicer, _ = make_servicers(opaque.pb, opaque.grpc.GreeterServicer, opaque.grpc.GreeterAsyncServicer)
    with sync_server(lambda s: opaque.grpc.add_GreeterServicer_to_server(servicer, s)) as channel:
        future = opaque.grpc.GreeterStub(channel).SayHello.future(opaque.pb.HelloRequest(name="wait-cancel"))
        assert not servicer.cancelled.wait(0.2)  # the call is in progress
        assert future.cancel()
        assert servicer.cancelled.wait(5)  # the server's callback ran: the RPC ended
        with pytest.raises(grpc.FutureCancelledError):
            future.result()


def test_async_cancellation(opaque: Greet) -> None:
    async def body(channel: grpc.aio.Channel) -> None:
        call = opaque.grpc.GreeterAsyncStub(channel).SayHello(opaque.pb.HelloRequest(name="sleep"))
        await asyncio.sleep(0.1)
        assert call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await call.code() is grpc.StatusCode.CANCELLED

    run_async(body, async_greeter(opaque))


def test_message_size_limit(opaque: Greet) -> None:
    Req = opaque.pb.HelloRequest
    with serve_greeter(opaque, **{"grpc.max_receive_message_length": SIZE_LIMIT}) as channel:
        stub = opaque.grpc.GreeterStub(channel)
        assert stub.SayHello(Req(name="x" * (SIZE_LIMIT // 2))).get_message() == "x" * (SIZE_LIMIT // 2)
        with pytest.raises(grpc.RpcError) as caught:
            stub.SayHello(Req(name="x" * SIZE_LIMIT))
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED


def test_unimplemented_by_default(opaque: Greet) -> None:
    base = opaque.grpc.GreeterServicer()
    with sync_server(lambda s: opaque.grpc.add_GreeterServicer_to_server(base, s)) as channel:
        stub = opaque.grpc.GreeterStub(channel)
        for call in (lambda: stub.SayHello(opaque.pb.HelloRequest()),
                     lambda: list(stub.SayHelloStream(opaque.pb.HelloRequest())),
                     lambda: stub.CollectNames(iter([])),
                     lambda: list(stub.Chat(iter([])))):
            with pytest.raises(grpc.RpcError) as caught:
                call()
            assert caught.value.code() is grpc.StatusCode.UNIMPLEMENTED
            assert caught.value.details().startswith("Method /greet.v1.Greeter/")


def test_async_unimplemented_by_default(opaque: Greet) -> None:
    Req = opaque.pb.HelloRequest

    async def body(channel: grpc.aio.Channel) -> None:
        stub = opaque.grpc.GreeterAsyncStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.SayHello(Req())
        assert caught.value.code() is grpc.StatusCode.UNIMPLEMENTED
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            [r async for r in stub.SayHelloStream(Req())]
        assert caught.value.code() is grpc.StatusCode.UNIMPLEMENTED
        assert caught.value.details() == "Method /greet.v1.Greeter/SayHelloStream is not implemented"

    base = opaque.grpc.GreeterAsyncServicer()
    run_async(body, lambda s: opaque.grpc.add_GreeterAsyncServicer_to_server(base, s))


# -- undecodable bytes: an INTERNAL status, never a crash ------------------------------------------

MALFORMED = b"\x0a\x05ab"  # field 1 (name): 5 bytes announced, 2 present


def test_undecodable_request_is_internal(opaque: Greet) -> None:
    with serve_greeter(opaque) as channel:
        raw = channel.unary_unary(opaque.grpc.METHOD_Greeter_SayHello)  # no serializers: bytes
        with pytest.raises(grpc.RpcError) as caught:
            raw(MALFORMED)
        assert caught.value.code() is grpc.StatusCode.INTERNAL
        assert caught.value.details() == "Exception deserializing request!"
        # the server goes on serving
        assert opaque.grpc.GreeterStub(channel).SayHello(opaque.pb.HelloRequest(name="a")).get_message() == "a"


def test_async_undecodable_request_is_internal(opaque: Greet) -> None:
    async def body(channel: grpc.aio.Channel) -> None:
        # grpc.aio itself would answer UNKNOWN, with the DecodeError's text as details
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await channel.unary_unary(opaque.grpc.METHOD_Greeter_SayHello)(MALFORMED)
        assert caught.value.code() is grpc.StatusCode.INTERNAL
        assert caught.value.details() == "Exception deserializing request!"

        async def requests() -> Any:
            yield opaque.pb.HelloRequest(name="fine").serialize()
            yield MALFORMED

        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await channel.stream_unary(opaque.grpc.METHOD_Greeter_CollectNames)(requests())
        assert caught.value.code() is grpc.StatusCode.INTERNAL
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            [r async for r in channel.stream_stream(opaque.grpc.METHOD_Greeter_Chat)(requests())]
        assert caught.value.code() is grpc.StatusCode.INTERNAL
        # and goes on serving
        stub = opaque.grpc.GreeterAsyncStub(channel)
        assert (await stub.SayHello(opaque.pb.HelloRequest(name="a"))).get_message() == "a"

    run_async(body, async_greeter(opaque))


def test_undecodable_response_is_internal(opaque: Greet) -> None:
    def add(server: grpc.Server) -> None:
        handler = grpc.unary_unary_rpc_method_handler(lambda request, context: MALFORMED)
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(opaque.grpc.SERVICE_Greeter, {"SayHello": handler}),))

    with sync_server(add) as channel, pytest.raises(grpc.RpcError) as caught:
        opaque.grpc.GreeterStub(channel).SayHello(opaque.pb.HelloRequest(name="a"))
    assert caught.value.code() is grpc.StatusCode.INTERNAL


# -- lazy_parse: a request forwarded without being decoded -----------------------------------------

CANONICAL = b"\x0a\x03Ada\x10\x02\x1a\x00"  # as serialize writes it: name, count, an empty nested message
NON_CANONICAL = b"\x10\x02\x0a\x03Ada\x1a\x00"  # count before name


@pytest.mark.parametrize("request_bytes", [CANONICAL, NON_CANONICAL])
def test_lazy_request_is_forwarded_as_received(lazy: Greet, request_bytes: bytes) -> None:
    """Canonical input goes on as received; other input is encoded again (the same message)."""
    received: list[bytes] = []

    def add_backend(server: grpc.Server) -> None:
        def capture(request: bytes, context: Any) -> bytes:
            received.append(request)
            return b""

        handler = grpc.unary_unary_rpc_method_handler(capture)  # no deserializer: bytes
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(lazy.grpc.SERVICE_Greeter, {"SayHello": handler}),))

    with sync_server(add_backend) as backend:
        backend_stub = lazy.grpc.GreeterStub(backend)
        seen: list[bool] = []

        class Proxy(lazy.grpc.GreeterServicer):  # type: ignore[misc, name-defined]
            def SayHello(self, request: Any, context: Any) -> Any:
                seen.append(request._pb_kept_input() is not None)  # undecoded, written back as is
                return backend_stub.SayHello(request)

        with sync_server(lambda s: lazy.grpc.add_GreeterServicer_to_server(Proxy(), s)) as front:
            raw = front.unary_unary(lazy.grpc.METHOD_Greeter_SayHello)
            assert raw(request_bytes) == b""
    assert seen == [request_bytes is CANONICAL]
    assert received == [CANONICAL]  # canonical input byte for byte: not decoded and encoded again


def test_lazy_request_decodes_when_read(lazy: Greet) -> None:
    with serve_greeter(lazy) as channel:
        raw = channel.unary_unary(lazy.grpc.METHOD_Greeter_SayHello)
        reply = lazy.pb.HelloReply.parse(raw(NON_CANONICAL))
        assert reply.get_message() == "Ada"
        with pytest.raises(grpc.RpcError) as caught:  # the structure is still checked on arrival
            raw(MALFORMED)
        assert caught.value.code() is grpc.StatusCode.INTERNAL


# -- names that Python or the generated module would not take as they are ---------------------------

def test_escaped_method_names(opaque: Greet) -> None:
    g = opaque.awkward_grpc

    class Awkward(g.AwkwardServicer):  # type: ignore[misc, name-defined]
        def import_(self, request: Any, context: Any) -> Any:
            return request

        def pb_x_(self, request: Any, context: Any) -> Any:
            return type(request)(payload=request.get_payload() * 2)

    with sync_server(lambda s: g.add_AwkwardServicer_to_server(Awkward(), s)) as channel:
        stub = g.AwkwardStub(channel)
        nested = opaque.pb.HelloRequest.Nested(payload=b"ab")
        assert stub.pb_x_(nested).get_payload() == b"abab"
        assert type(stub.import_(Empty())) is Empty
        with pytest.raises(grpc.RpcError) as caught:
            stub.init____(Empty())
        assert caught.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert g.METHOD_Awkward_import == "/greet.v1.Awkward/import"
    assert g.METHOD_Awkward___init__ == "/greet.v1.Awkward/__init__"
    assert g.AwkwardAsyncStub_ is not g.AwkwardAsyncStub  # AwkwardAsync's stub, renamed
