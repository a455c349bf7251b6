"""gRPC round trips over grpcio on 127.0.0.1: our messages against the official runtime's.

    python bench/grpc_roundtrip.py            # full run; the "gRPC round trips" section of bench/RESULTS.md
    python bench/grpc_roundtrip.py --quick    # under a minute; build/bench/RESULTS-quick.md
    python bench/grpc_roundtrip.py --tiny     # a few calls: the smoke test

The same service (tests/grpc/protos/greet/v1/greet.proto) served and called in one process by
a synchronous grpcio server (4 threads) and stub: with the modules of protoc-gen-pyopaque
(opaque style) and protoc-gen-pyopaque-grpc, and with grpcio-tools' _pb2 / _pb2_grpc on the
official runtime (upb). The server answers with a prebuilt reply, so that the messages'
share of the cost is their encoding and decoding: a request of a name and a 256-byte payload,
a reply of a message and 20 names. Unary: sequential calls. Server streaming: one call of many
replies. "(de)serialization" is what serializing and parsing the call's messages costs alone
(request and reply, once each per message), measured in a loop, as a share of the round trip.
Each figure is the best of the rounds; contenders alternate within a round.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import sys
import time
from concurrent import futures
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import grpc  # noqa: E402

from tests.grpc.conftest import GREET, PROTOS  # noqa: E402
from tools.generate import BUILD, generate, grpc_include, protoc  # noqa: E402

BENCH = REPO / "bench"
SECTION = "## gRPC round trips"
MODES = {  # unary calls, replies of the streaming call, rounds
    "full": (3000, 20000, 5),
    "quick": (500, 4000, 2),
    "tiny": (20, 50, 1),
}
NAMES = [f"name-{i:02d}" for i in range(20)]


def generated() -> Path:
    out = BUILD / "bench" / "grpc"
    generate([GREET], [PROTOS], out, options="default_api_level=API_OPAQUE", grpc_options="")
    result = protoc([f"-I{PROTOS}", f"-I{grpc_include()}", f"--python_out={out}", f"--grpc_python_out={out}", GREET])
    if result.returncode != 0:
        raise RuntimeError(result.stderr)
    return out


class Contender:
    """One implementation: its stub, servicer base, registration and message classes."""

    def __init__(self, name: str, pb: ModuleType, rpc: ModuleType, serialize: str, parse: str) -> None:
        self.name, self.pb, self.rpc = name, pb, rpc
        self.serialize, self.parse = serialize, parse
        self.request = pb.HelloRequest(name="bench", count=0, nested=pb.HelloRequest.Nested(payload=bytes(256)))
        self.reply = pb.HelloReply(message="hello", names=NAMES)

    def serve(self) -> tuple[grpc.Server, Any]:
        reply = self.reply

        class Servicer(self.rpc.GreeterServicer):  # type: ignore[misc, name-defined]
            def SayHello(self, request: Any, context: Any) -> Any:
                return reply

            def SayHelloStream(self, request: Any, context: Any) -> Any:
                for _ in range(request.count if hasattr(request, "count") else request.get_count()):
                    yield reply

        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self.rpc.add_GreeterServicer_to_server(Servicer(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        return server, channel

    def codec_seconds(self, n: int) -> float:
        """What serializing and parsing a request and a reply costs, per call."""
        req, rep = self.request, self.reply
        ser_req, ser_rep = getattr(req, self.serialize), getattr(rep, self.serialize)
        parse_req = getattr(type(req), self.parse)
        parse_rep = getattr(type(rep), self.parse)
        t = time.perf_counter()
        for _ in range(n):
            parse_req(ser_req())
            parse_rep(ser_rep())
        return (time.perf_counter() - t) / n

    def codec_reply_seconds(self, n: int) -> float:
        rep = self.reply
        ser, parse = getattr(rep, self.serialize), getattr(type(rep), self.parse)
        t = time.perf_counter()
        for _ in range(n):
            parse(ser())
        return (time.perf_counter() - t) / n


def measure(c: Contender, unary: int, replies: int) -> dict[str, float]:
    server, channel = c.serve()
    try:
        stub = c.rpc.GreeterStub(channel)
        stub.SayHello(c.request)  # connect
        t = time.perf_counter()
        for _ in range(unary):
            stub.SayHello(c.request)
        unary_s = (time.perf_counter() - t) / unary
        streaming_request = type(c.request)(name="bench", count=replies)
        t = time.perf_counter()
        received = sum(1 for _ in stub.SayHelloStream(streaming_request))
        stream_s = (time.perf_counter() - t) / received
        assert received == replies
    finally:
        channel.close()
        server.stop(None)
    return {"unary": unary_s, "stream": stream_s, "codec_unary": c.codec_seconds(unary),
            "codec_stream": c.codec_reply_seconds(replies)}


def report(mode: str, results: dict[str, dict[str, float]], wall: float) -> str:
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    unary, replies, rounds = MODES[mode]
    lines = [
        SECTION, "",
        f"`make bench` ({mode} mode: {unary} unary calls, a stream of {replies} replies, best of {rounds} "
        f"rounds). Run {date}; wall time {wall:.0f} s. One process serves (grpcio, 4 threads) and calls, "
        "on 127.0.0.1; the reply is prebuilt (see bench/grpc_roundtrip.py).", "",
        "| messages | unary calls/s | (de)serialization share | streamed replies/s | (de)serialization share |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        lines.append(f"| {name} | {1 / r['unary']:,.0f} | {r['codec_unary'] / r['unary']:.1%} | "
                     f"{1 / r['stream']:,.0f} | {r['codec_stream'] / r['stream']:.1%} |")
    lines += ["", f"Python {sys.version.split()[0]}, grpcio {grpc.__version__}.", ""]
    return "\n".join(lines)


def write_section(path: Path, section: str) -> None:
    """Replace the gRPC section of ``path`` (or append it), keeping the rest."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    start = text.find("\n" + SECTION + "\n")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start + 1] + (text[end + 1:] if end >= 0 else "")
    path.write_text(text.rstrip("\n") + "\n\n" + section)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--output", type=Path, default=None)
    args = ap.parse_args()
    mode = "tiny" if args.tiny else "quick" if args.quick else "full"
    output = args.output or (BENCH / "RESULTS.md" if mode == "full" else BUILD / "bench" / f"RESULTS-{mode}.md")
    began = time.monotonic()
    sys.path.insert(0, str(generated()))
    contenders = [
        Contender("pyopaque (opaque)", importlib.import_module("greet.v1.greet_pb"),
                  importlib.import_module("greet.v1.greet_grpc"), "serialize", "parse"),
        Contender("protobuf (upb)", importlib.import_module("greet.v1.greet_pb2"),
                  importlib.import_module("greet.v1.greet_pb2_grpc"), "SerializeToString", "FromString"),
    ]
    unary, replies, rounds = MODES[mode]
    best: dict[str, dict[str, float]] = {}
    for _ in range(rounds):
        for c in contenders:
            r = measure(c, unary, replies)
            old = best.setdefault(c.name, r)
            for key, value in r.items():
                old[key] = min(old[key], value)
    section = report(mode, best, time.monotonic() - began)
    print(section)
    output.parent.mkdir(parents=True, exist_ok=True)
    write_section(output, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
