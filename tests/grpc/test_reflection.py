"""Server reflection from the embedded descriptors, read back with grpcio-reflection's client."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import grpc.aio
from google.protobuf import descriptor_pool
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from protoc_gen_pyopaque.runtime import grpc_reflection
from tests.grpc.conftest import Greet
from tests.grpc.servicers import make_servicers
from tests.grpc.test_servers import sync_server

SERVICES = ["greet.v1.Greeter", grpc_reflection.V1, grpc_reflection.V1ALPHA]


def serve(greet: Greet) -> Any:
    servicer, _ = make_servicers(greet.pb, greet.grpc.GreeterServicer, greet.grpc.GreeterAsyncServicer)

    def add(server: grpc.Server) -> None:
        greet.grpc.add_GreeterServicer_to_server(servicer, server)
        grpc_reflection.enable_server_reflection(server, greet.pb)

    return sync_server(add)


def test_reflection_lists_services_and_resolves_types(opaque: Greet) -> None:
    with serve(opaque) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        assert sorted(database.get_services()) == sorted(SERVICES)
        pool = descriptor_pool.DescriptorPool(database)
        greeter = pool.FindServiceByName("greet.v1.Greeter")
        assert [m.name for m in greeter.methods] == ["SayHello", "SayHelloStream", "CollectNames", "Chat"]
        assert greeter.methods_by_name["Chat"].input_type.full_name == "greet.v1.HelloRequest"
        nested = pool.FindMessageTypeByName("greet.v1.HelloRequest.Nested")
        assert nested.fields_by_name["payload"].number == 1
        assert pool.FindFileContainingSymbol("greet.v1.HelloReply").name == "greet/v1/greet.proto"
        # the reflection services describe themselves too
        assert pool.FindServiceByName(grpc_reflection.V1).methods[0].name == "ServerReflectionInfo"
        assert pool.FindServiceByName(grpc_reflection.V1ALPHA).methods[0].name == "ServerReflectionInfo"


def test_reflection_v1_answers(opaque: Greet) -> None:
    """v1 (what grpcurl asks first): the same messages as v1alpha, under another package."""
    with serve(opaque) as channel:
        call = channel.stream_stream(
            f"/{grpc_reflection.V1}/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
        requests = [reflection_pb2.ServerReflectionRequest(list_services=""),
                    reflection_pb2.ServerReflectionRequest(file_containing_symbol="greet.v1.Greeter")]
        listed, files = list(call(iter(requests)))
    assert sorted(s.name for s in listed.list_services_response.service) == sorted(SERVICES)
    assert len(files.file_descriptor_response.file_descriptor_proto) == 1  # greet.proto imports nothing


def test_async_server_reflection(opaque: Greet) -> None:
    async def main() -> None:
        server = grpc.aio.server()
        grpc_reflection.enable_server_reflection(server, opaque.pb)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = channel.stream_stream(
                    f"/{grpc_reflection.V1ALPHA}/ServerReflectionInfo",
                    request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                    response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
                replies = [r async for r in call(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))]
        finally:
            await server.stop(None)
        assert sorted(s.name for s in replies[0].list_services_response.service) == sorted(SERVICES)

    asyncio.run(main())


def test_imports_come_with_the_file(opaque: Greet) -> None:
    """A file's reply holds its imports too (awkward.proto: greet.proto and empty.proto)."""
    awkward_pb = __import__("greet.v1.awkward_pb", fromlist=["_"])

    def add(server: grpc.Server) -> None:
        grpc_reflection.enable_server_reflection(server, awkward_pb)

    with sync_server(add) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        assert sorted(database.get_services()) == sorted(
            ["greet.v1.Awkward", "greet.v1.AwkwardAsync", grpc_reflection.V1, grpc_reflection.V1ALPHA])
        pool = descriptor_pool.DescriptorPool(database)
        method = pool.FindServiceByName("greet.v1.Awkward").methods_by_name["import"]
        assert method.input_type.full_name == "google.protobuf.Empty"
