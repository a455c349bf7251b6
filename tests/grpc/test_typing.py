"""User code against the generated gRPC modules passes mypy --strict and pyright's strict mode,
with assert_type on what the stubs return; a wrong override fails both."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.grpc.conftest import AWKWARD, GREET, PROTOS
from tools.generate import generate

USER_CODE = '''
from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import assert_type

import grpc
import grpc.aio

from greet.v1 import greet_grpc
from greet.v1.greet_pb import HelloReply, HelloRequest

Ctx = grpc.aio.ServicerContext[HelloRequest, HelloReply]


class Sync(greet_grpc.GreeterServicer):
    def SayHello(self, request: HelloRequest, context: grpc.ServicerContext) -> HelloReply:
        return HelloReply(message=request.get_name())

    def SayHelloStream(self, request: HelloRequest, context: grpc.ServicerContext) -> Iterator[HelloReply]:
        yield HelloReply()

    def CollectNames(self, request_iterator: Iterator[HelloRequest], context: grpc.ServicerContext) -> HelloReply:
        return HelloReply(names=[r.get_name() for r in request_iterator])

    def Chat(self, request_iterator: Iterator[HelloRequest], context: grpc.ServicerContext) -> Iterator[HelloReply]:
        for r in request_iterator:
            yield HelloReply(message=r.get_name())


class Async(greet_grpc.GreeterAsyncServicer):
    async def SayHello(self, request: HelloRequest, context: Ctx) -> HelloReply:
        return HelloReply(message=request.get_name())

    async def SayHelloStream(self, request: HelloRequest, context: Ctx) -> AsyncIterator[HelloReply]:
        yield HelloReply()

    async def CollectNames(self, request_iterator: AsyncIterator[HelloRequest], context: Ctx) -> HelloReply:
        return HelloReply(names=[r.get_name() async for r in request_iterator])

    async def Chat(self, request_iterator: AsyncIterator[HelloRequest], context: Ctx) -> AsyncIterator[HelloReply]:
        async for r in request_iterator:
            yield HelloReply(message=r.get_name())


def client(channel: grpc.Channel) -> None:
    stub = greet_grpc.GreeterStub(channel)
    assert_type(stub.SayHello(HelloRequest(name="x"), timeout=1.0, metadata=(("k", "v"),)), HelloReply)
    reply, _call = stub.SayHello.with_call(HelloRequest())
    assert_type(reply, HelloReply)
    assert_type(stub.SayHello.future(HelloRequest()).result(), HelloReply)
    for r in stub.SayHelloStream(HelloRequest()):
        assert_type(r, HelloReply)
    assert_type(stub.CollectNames(iter([HelloRequest()])), HelloReply)
    for r in stub.Chat(iter([HelloRequest()])):
        assert_type(r, HelloReply)


async def async_client(channel: grpc.aio.Channel) -> None:
    stub = greet_grpc.GreeterAsyncStub(channel)
    assert_type(await stub.SayHello(HelloRequest(name="x"), timeout=1.0), HelloReply)
    async for r in stub.SayHelloStream(HelloRequest()):
        assert_type(r, HelloReply)
    assert_type(await stub.CollectNames(iter([HelloRequest()])), HelloReply)
    async for r in stub.Chat(iter([HelloRequest()])):
        assert_type(r, HelloReply)


def serve(server: grpc.Server, async_server: grpc.aio.Server) -> None:
    greet_grpc.add_GreeterServicer_to_server(Sync(), server)
    greet_grpc.add_GreeterAsyncServicer_to_server(Async(), async_server)
    path: str = greet_grpc.METHOD_Greeter_SayHello
    assert path == "/greet.v1.Greeter/SayHello"
'''

WRONG = {
    # a reply of the wrong class; a sync override where the async servicer wants async
    "reply": (
        "class Bad(greet_grpc.GreeterServicer):\n"
        "    def SayHello(self, request: HelloRequest, context: grpc.ServicerContext) -> HelloRequest:\n"
        "        return request\n"),
    "stub": "def f(channel: grpc.Channel) -> None:\n    greet_grpc.GreeterStub(channel).SayHello(HelloReply())\n",
}
HEADER = "import grpc\nfrom greet.v1 import greet_grpc\nfrom greet.v1.greet_pb import HelloReply, HelloRequest\n"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = generate([GREET, AWKWARD], [PROTOS], tmp_path_factory.mktemp("typing"),
                   options="default_api_level=API_OPAQUE", grpc_options="")
    (out / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.11"}))
    return out


def mypy(root: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--explicit-package-bases",
         "--cache-dir=/dev/null", *files], cwd=root, capture_output=True, text=True, check=False)


def pyright(root: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "pyright"), "--pythonpath", sys.executable, *files],
        cwd=root, capture_output=True, text=True, check=False)


MODULES = ["greet/v1/greet_grpc.py", "greet/v1/awkward_grpc.py", "user_code.py"]


@pytest.mark.parametrize("checker", [mypy, pyright], ids=["mypy", "pyright"])
def test_user_code_and_generated_modules_pass_strict(root: Path, checker: object) -> None:
    (root / "user_code.py").write_text(USER_CODE)
    result = checker(root, *MODULES)  # type: ignore[operator]
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("checker", [mypy, pyright], ids=["mypy", "pyright"])
@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_wrong_user_code_fails(root: Path, checker: object, mistake: str) -> None:
    (root / f"wrong_{mistake}.py").write_text(HEADER + WRONG[mistake])
    result = checker(root, f"wrong_{mistake}.py")  # type: ignore[operator]
    assert result.returncode == 1, result.stdout + result.stderr
    assert "HelloRe" in result.stdout


@pytest.mark.parametrize("io", ["sync", "async"])
def test_io_option_generates_one_api(tmp_path: Path, io: str) -> None:
    out = generate([GREET], [PROTOS], tmp_path, grpc_options=f"io={io}")
    source = (out / "greet/v1/greet_grpc.py").read_text()
    assert ("class GreeterStub:" in source) == (io == "sync")
    assert ("class GreeterAsyncStub:" in source) == (io == "async")
    assert ("def add_GreeterServicer_to_server" in source) == (io == "sync")
    result = mypy(out, "greet/v1/greet_grpc.py")
    assert result.returncode == 0, result.stdout
