"""Helpers of the unit tests: requests built by protoc, the plugin run in-process, imports."""

from __future__ import annotations

import contextlib
import importlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.compiler import plugin_pb2

from protoc_gen_pyopaque.cli import include_dir
from protoc_gen_pyopaque.plugin import run
from protoc_gen_pyopaque.runtime import reflect as k
from protoc_gen_pyopaque.runtime.message import Message
from tools.generate import REPO, grpc_include

PROTOS = REPO / "tests" / "protos"
OPTIONS_INCLUDE = include_dir()
STYLES = ("API_OPEN", "API_HYBRID", "API_OPAQUE")


class ProtocError(RuntimeError):
    """protoc rejected the input."""


def descriptor_set(protos: list[str], include: list[Path] | None = None,
                   extra_args: tuple[str, ...] = ()) -> descriptor_pb2.FileDescriptorSet:
    """Compile ``protos`` with grpc_tools' protoc into a FileDescriptorSet (imports and source info)."""
    dirs = [*(include or [PROTOS]), OPTIONS_INCLUDE, grpc_include()]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        cmd = [sys.executable, "-m", "grpc_tools.protoc", *(f"-I{d}" for d in dirs),
               f"--descriptor_set_out={out}", "--include_imports", "--include_source_info",
               *extra_args, *protos]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
        if result.returncode != 0:
            raise ProtocError(result.stderr)
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def make_request(protos: list[str], parameter: str = "", include: list[Path] | None = None,
                 extra_args: tuple[str, ...] = ()) -> plugin_pb2.CodeGeneratorRequest:
    """A CodeGeneratorRequest as protoc would send it for ``protos``."""
    fds = descriptor_set(protos, include, extra_args)
    request = plugin_pb2.CodeGeneratorRequest()
    request.file_to_generate.extend(protos)
    request.parameter = parameter
    request.proto_file.extend(fds.file)  # dependency order, as protoc sends them
    request.compiler_version.major = 35
    return request


def upb_pool(request: plugin_pb2.CodeGeneratorRequest) -> descriptor_pool.DescriptorPool:
    """The official protobuf package's pool (upb backend) over the request's files."""
    pool = descriptor_pool.DescriptorPool()
    for fdp in request.proto_file:
        pool.Add(fdp)
    return pool


def generate(request: plugin_pb2.CodeGeneratorRequest) -> plugin_pb2.CodeGeneratorResponse:
    """Run the plugin in-process, through its serialized interface as protoc does."""
    return plugin_pb2.CodeGeneratorResponse.FromString(b"".join(run.run(request.SerializeToString())))


def generate_files(request: plugin_pb2.CodeGeneratorRequest, out: Path) -> dict[str, str]:
    """Generate and write the output files under ``out``; fail on a plugin error or on output
    that does not compile (the plugin does not check: compiling is most of its time)."""
    response = generate(request)
    assert not response.error, response.error
    files: dict[str, str] = {}
    for f in response.file:
        compile(f.content, f.name, "exec")
        path = out / f.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f.content)
        files[f.name] = f.content
    return files


@contextlib.contextmanager
def imported(root: Path, *modules: str) -> Iterator[list[ModuleType]]:
    """Import generated ``modules`` from ``root``; forget them (and their siblings) afterwards."""
    before = set(sys.modules)
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        yield [importlib.import_module(m) for m in modules]
    finally:
        sys.path.remove(str(root))
        # decide first, then delete: a namespace package's __path__ looks its parent up
        doomed = [name for name in set(sys.modules) - before if _under(sys.modules[name], root)]
        for name in doomed:
            del sys.modules[name]


def _under(module: ModuleType, root: Path) -> bool:
    spec = getattr(module, "__spec__", None)
    paths = [getattr(module, "__file__", None) or ""]
    if spec is not None and spec.submodule_search_locations is not None:
        paths += list(spec.submodule_search_locations)
    return any(p and Path(p).is_relative_to(root) for p in paths)


def sample_value(info: k.FieldInfo, nested: bool) -> Any:
    """A valid value of one field (``nested``: a second, different one for lists and maps)."""
    kind = info.kind
    if kind in (k.TYPE_MESSAGE, k.TYPE_GROUP):
        assert info.message_type is not None
        return info.message_type()
    if kind == k.TYPE_ENUM:
        assert info.enum is not None
        return max(info.enum.numbers)
    if kind == k.TYPE_BOOL:
        return True
    if kind in (k.TYPE_FLOAT, k.TYPE_DOUBLE):
        return 1.5
    if kind == k.TYPE_STRING:
        return 'q"\'\\\n"""é'
    if kind == k.TYPE_BYTES:
        return b'\x00"\\\''
    if kind in (k.TYPE_SINT32, k.TYPE_SINT64, k.TYPE_INT32, k.TYPE_INT64, k.TYPE_SFIXED32, k.TYPE_SFIXED64):
        return -7 if nested else info.number
    return info.number


def populate(cls: type[Message]) -> tuple[Message, dict[str, Any]]:
    """An instance with every field set (the first member of each oneof), and the values by .proto name."""
    kwargs: dict[str, Any] = {}
    by_proto: dict[str, Any] = {}
    oneofs_done: set[str] = set()
    for info in cls._pb_info.fields:
        if info.oneof:
            if info.oneof in oneofs_done:
                continue
            oneofs_done.add(info.oneof)
        if info.is_map:
            assert info.map_key is not None and info.map_value is not None
            value: Any = {sample_value(info.map_key, True): sample_value(info.map_value, True)}
        elif info.repeated:
            value = [sample_value(info, False), sample_value(info, True)]
        else:
            value = sample_value(info, False)
        kwargs[info.attr] = value
        by_proto[info.name] = value
    return cls(**kwargs), by_proto
