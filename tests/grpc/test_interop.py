"""Interop with grpcio-tools' code and the official runtime, both ways, on the same .proto."""

from __future__ import annotations

from typing import Any

import grpc

from tests.grpc.conftest import Greet
from tests.grpc.servicers import get, make_servicers
from tests.grpc.test_servers import names, sync_server


def exercise(stub: Any, Req: Any) -> None:  # noqa: N803
    """Every kind of RPC through ``stub`` with requests of class ``Req``."""
    reply, call = stub.SayHello.with_call(Req(name="Ada"), metadata=(("x-greeting", "hi "),))
    assert get(reply, "message") == "hi Ada"
    assert ("x-served-by", "sync") in call.trailing_metadata()
    assert names(stub.SayHelloStream(Req(name="Bo", count=2))) == ["Bo 0", "Bo 1"]
    assert list(get(stub.CollectNames(iter([Req(name="a"), Req(name="b")])), "names")) == ["a", "b"]
    assert names(stub.Chat(iter([Req(name="x"), Req(name="y")]))) == ["x", "y"]


def test_our_client_against_the_official_server(greet: Greet) -> None:
    servicer, _ = make_servicers(greet.pb2, greet.pb2_grpc.GreeterServicer, greet.pb2_grpc.GreeterServicer)
    with sync_server(lambda s: greet.pb2_grpc.add_GreeterServicer_to_server(servicer, s)) as channel:
        stub = greet.grpc.GreeterStub(channel)
        exercise(stub, greet.pb.HelloRequest)
        reply = stub.SayHello(greet.pb.HelloRequest(name="Ada"))
        assert type(reply) is greet.pb.HelloReply


def test_the_official_client_against_our_server(greet: Greet) -> None:
    servicer, _ = make_servicers(greet.pb, greet.grpc.GreeterServicer, greet.grpc.GreeterAsyncServicer)
    with sync_server(lambda s: greet.grpc.add_GreeterServicer_to_server(servicer, s)) as channel:
        stub = greet.pb2_grpc.GreeterStub(channel)
        exercise(stub, greet.pb2.HelloRequest)
        assert type(stub.SayHello(greet.pb2.HelloRequest(name="Ada"))) is greet.pb2.HelloReply


def test_the_same_bytes_both_ways(greet: Greet) -> None:
    """A request with every field set reaches each side as the other side sent it."""
    seen: list[bytes] = []

    def add(server: grpc.Server) -> None:
        def echo(request: bytes, context: Any) -> bytes:
            seen.append(request)
            return request

        handler = grpc.unary_unary_rpc_method_handler(echo)
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(greet.grpc.SERVICE_Greeter, {"SayHello": handler}),))

    ours = greet.pb.HelloRequest(name="Ada", count=3, nested=greet.pb.HelloRequest.Nested(payload=b"\x00\xff"))
    official = greet.pb2.HelloRequest(name="Ada", count=3, nested=greet.pb2.HelloRequest.Nested(payload=b"\x00\xff"))
    with sync_server(add) as channel:
        greet.grpc.GreeterStub(channel).SayHello.with_call(ours)
        greet.pb2_grpc.GreeterStub(channel).SayHello.with_call(official)
    assert seen[0] == seen[1] == official.SerializeToString()


def test_descriptors_coexist_with_the_official_modules(greet: Greet) -> None:
    """Our descriptors live in a pool of their own: the official _pb2 of the same file, in
    protobuf's default pool, does not clash with them."""
    ours, official = greet.pb.HelloRequest.DESCRIPTOR, greet.pb2.HelloRequest.DESCRIPTOR
    assert ours is not official and ours.file.pool is not official.file.pool
    assert ours.full_name == official.full_name
    assert [(f.name, f.number, f.type) for f in ours.fields] == [(f.name, f.number, f.type) for f in official.fields]
