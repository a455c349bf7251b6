"""Our messages over Connect for Python (connectrpc) with runtime.connect's codecs: a Connect
WSGI server on 127.0.0.1 and connectrpc's sync client, binary and JSON."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest

from protoc_gen_pyopaque.runtime import connect
from tests.grpc.conftest import Greet

connectrpc = pytest.importorskip("connectrpc")
from connectrpc.client import ConnectClientSync  # noqa: E402
from connectrpc.errors import ConnectError  # noqa: E402
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType  # noqa: E402
from connectrpc.server import ConnectWSGIApplication, EndpointSync  # noqa: E402


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (the base's name)
        pass


def methods(greet: Greet) -> tuple[MethodInfo[Any, Any], MethodInfo[Any, Any]]:
    Req, Reply = greet.pb.HelloRequest, greet.pb.HelloReply
    return (
        MethodInfo(name="SayHello", service_name="greet.v1.Greeter", input=Req, output=Reply,
                   idempotency_level=IdempotencyLevel.UNKNOWN, stream_type=StreamType.UNARY),
        MethodInfo(name="SayHelloStream", service_name="greet.v1.Greeter", input=Req, output=Reply,
                   idempotency_level=IdempotencyLevel.UNKNOWN, stream_type=StreamType.SERVER_STREAM),
    )


@contextmanager
def connect_server(greet: Greet) -> Iterator[str]:
    unary, streaming = methods(greet)
    Reply = greet.pb.HelloReply

    def say_hello(request: Any, ctx: Any) -> Any:
        if request.get_name() == "nobody":
            raise ConnectError(connectrpc.code.Code.NOT_FOUND, "no such person")
        return Reply(message="hi " + request.get_name())

    def say_hello_stream(request: Any, ctx: Any) -> Iterator[Any]:
        for i in range(request.get_count()):
            yield Reply(message=f"{request.get_name()} {i}")

    class Greeter(ConnectWSGIApplication):
        @property
        def path(self) -> str:
            return "/greet.v1.Greeter"

    app = Greeter(endpoints={
        "/greet.v1.Greeter/SayHello": EndpointSync.unary(method=unary, function=say_hello),
        "/greet.v1.Greeter/SayHelloStream": EndpointSync.server_stream(method=streaming, function=say_hello_stream),
    }, codecs=connect.codecs())
    server = make_server("127.0.0.1", 0, app, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("codec", [connect.BinaryCodec(), connect.JsonCodec()], ids=["binary", "json"])
def test_connect_round_trips(opaque: Greet, codec: Any) -> None:
    unary, streaming = methods(opaque)
    Req = opaque.pb.HelloRequest
    with connect_server(opaque) as address, ConnectClientSync(address, codec=codec) as client:
        reply = client.execute_unary(request=Req(name="Ada"), method=unary)
        assert type(reply) is opaque.pb.HelloReply and reply.get_message() == "hi Ada"
        replies = client.execute_server_stream(request=Req(name="Bo", count=2), method=streaming)
        assert [r.get_message() for r in replies] == ["Bo 0", "Bo 1"]
        with pytest.raises(ConnectError) as caught:
            client.execute_unary(request=Req(name="nobody"), method=unary)
        assert caught.value.code is connectrpc.code.Code.NOT_FOUND


def test_codecs_encode_as_the_messages_do(opaque: Greet) -> None:
    m = opaque.pb.HelloRequest(name="Ada", count=2)
    binary, json = connect.codecs()
    assert (binary.name(), json.name()) == ("proto", "json")
    assert binary.encode(m) == m.serialize() and binary.decode(m.serialize(), type(m)) == m
    assert json.decode(json.encode(m), type(m)) == m
