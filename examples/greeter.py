"""A small gRPC service: the Greeter of examples/protos/example/greeter.proto, served by grpcio
on 127.0.0.1 (a free port) in this process, and called through the generated stub."""

from __future__ import annotations

import sys
from concurrent import futures

import grpc
from common import build, load

FILES = ["example/greeter.proto"]


def main() -> None:
    print("== A small gRPC service ==")
    out = build("opaque", FILES, name="greeter-opaque", grpc=True)
    services = load(out, "example.greeter_grpc")
    pb = sys.modules["example.greeter_pb"]  # imported by greeter_grpc

    class Greeter(services.GreeterServicer):  # type: ignore[misc, name-defined]
        def SayHello(self, request: pb.HelloRequest, context: grpc.ServicerContext) -> pb.HelloReply:  # type: ignore[name-defined]
            return pb.HelloReply(message=f"Hello, {request.get_name()}!")

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    services.add_GreeterServicer_to_server(Greeter(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            reply = services.GreeterStub(channel).SayHello(pb.HelloRequest(name="Ada"), timeout=10)
            print(f"   server on 127.0.0.1:{port}; SayHello(name='Ada') -> {reply.get_message()!r}")
    finally:
        server.stop(None)


if __name__ == "__main__":
    main()
