"""The pure core of the plugin: ``run(request bytes) -> response bytes``, in pieces.

The response is serialized one generated module at a time: a serialized message is the
concatenation of its fields, and a response holding one file serializes as exactly that file's
``file`` field, so the pieces concatenated are the whole CodeGeneratorResponse. The entry point
writes each piece as it comes: no more than one file's modules are held at once (with worker
processes: those of the files they are working on, and of those finished ahead of their turn).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

from google.protobuf.compiler import plugin_pb2

from ..gen.build import build_file_view
from ..gen.grpc_views import build_grpc_view
from ..gen.render import forget_request, render_grpc_module, render_module, render_stub
from ..runtime._wire import varint_bytes
from . import features, names
from .options import OptionError, parse_options
from .request import InputError, Request, build_schema, decode_request

SUPPORTED_FEATURES = (
    plugin_pb2.CodeGeneratorResponse.FEATURE_PROTO3_OPTIONAL
    | plugin_pb2.CodeGeneratorResponse.FEATURE_SUPPORTS_EDITIONS
)


def _piece(**fields: Any) -> bytes:
    """A CodeGeneratorResponse holding ``fields`` only, serialized: a piece of the whole."""
    data: bytes = plugin_pb2.CodeGeneratorResponse(**fields).SerializeToString()
    return data


def _file(name: str, content: str) -> list[bytes]:
    """A CodeGeneratorResponse holding one generated file, serialized in two pieces (the last:
    the content's bytes, not copied again), as protobuf writes it: the field ``file`` (15), a
    File of ``name`` (1) and ``content`` (15)."""
    name_bytes, data = name.encode(), content.encode()
    head = b"\x0a" + varint_bytes(len(name_bytes)) + name_bytes + b"\x7a" + varint_bytes(len(data))
    return [b"\x7a" + varint_bytes(len(head) + len(data)) + head, data]


def _header() -> bytes:
    """What the plugin supports: the first piece of every response."""
    return _piece(supported_features=SUPPORTED_FEATURES, minimum_edition=features.MINIMUM_EDITION,
                  maximum_edition=features.MAXIMUM_EDITION)


def generate(request: Request, *, grpc: bool = False, workers: int = 1) -> Iterator[bytes]:
    """The serialized response for ``request``: the header, then each module of every file to
    generate. Input problems end it with ``response.error`` (protoc then writes no file).

    ``grpc``: the gRPC modules (``foo/bar_grpc.py``, for files with services) instead of the
    message modules. ``workers``: processes that build and render the modules of large
    requests (PARALLEL_MIN_FILES files or more), in the order of the request all the same.
    """
    yield _header()
    try:
        options = parse_options(request.parameter, grpc=grpc)
        # The resolved schema lives for the whole run: the cyclic collector's passes over its
        # objects (about half a million for 5,000 files) would find nothing to free. None run while it is
        # built, and it is kept out of later ones (frozen) until the run ends.
        collecting = gc.isenabled()
        gc.disable()
        try:
            schema = build_schema(request.file_to_generate, request.files(), options)
        finally:
            if collecting:
                gc.enable()
    except (OptionError, InputError) as exc:
        yield _piece(error=str(exc))
        return
    missing = [proto for proto in request.file_to_generate if proto not in schema.files]
    if missing:
        yield _piece(error=f"{missing[0]}: to be generated but not among the request's files")
        return
    # the runtime ships the well-known types' modules; importers use those
    protos = [proto for proto in request.file_to_generate
              if proto not in names.SHIPPED_PROTOS or options.bootstrap_wkt]

    def modules(proto: str) -> list[bytes] | str:
        """The pieces of ``proto``'s modules, or the input error that ends the response."""
        file = schema.files[proto]
        if grpc:
            if not file.services:
                return []
            content = render_grpc_module(build_grpc_view(file, schema, options))
            return _file(names.grpc_output_path(proto), content)
        try:
            outputs = [(False, build_file_view(file, schema, parameter=request.parameter))]
            if file.is_hybrid:
                outputs.append((True, build_file_view(file.as_opaque(), schema, is_twin=True,
                                                      parameter=request.parameter)))
        except InputError as exc:
            return str(exc)
        pieces = []
        for twin, view in outputs:
            pieces += _file(names.output_path(proto, twin=twin), render_module(view))
            if view.deferred_classes:  # the classes' API for type checkers: the module packs it
                pieces += _file(names.stub_output_path(proto, twin=twin), render_stub(view))
        return pieces

    # gc.unfreeze() thaws every frozen object: where the host froze some of its own, they stay so
    # and the schema is left to the collector
    freezing = gc.get_freeze_count() == 0
    if freezing:
        gc.freeze()
    try:
        for result in _mapped(modules, protos, workers if len(protos) >= PARALLEL_MIN_FILES else 1):
            if isinstance(result, str):
                yield _piece(error=result)
                return
            yield from result
    finally:
        if freezing:
            gc.unfreeze()
        forget_request()


# Requests this large are built and rendered by worker processes, when the entry point asks
# for them: forking and passing the modules back costs less than a few files' rendering.
PARALLEL_MIN_FILES = 64
PARALLEL_CHUNK = 8  # files a worker takes at a time
_task: Callable[[str], list[bytes] | str] | None = None  # the workers' job, inherited at fork


def _call_task(proto: str) -> list[bytes] | str:
    assert _task is not None
    return _task(proto)


def _mapped(task: Callable[[str], list[bytes] | str], protos: list[str],
            workers: int) -> Iterator[list[bytes] | str]:
    """``task`` of each of ``protos``, in their order: in this process, or in ``workers`` forked
    processes (which inherit the resolved schema instead of receiving it)."""
    global _task
    if workers <= 1:
        yield from map(task, protos)
        return
    # imported here: they cost every run about 10 ms (see cli.workers)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _task = task
    # an executor, not a multiprocessing Pool: a worker that dies (killed, out of memory) breaks
    # it (BrokenProcessPool) where a Pool waits for the lost task for ever
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        yield from pool.map(_call_task, protos, chunksize=PARALLEL_CHUNK)
    finally:
        pool.shutdown(cancel_futures=True)  # after an input error: the files not started are dropped
        _task = None


def run(data: bytes, *, grpc: bool = False, workers: int = 1) -> Iterator[bytes]:
    """Decode a CodeGeneratorRequest and generate: the serialized CodeGeneratorResponse, in pieces
    (``workers``: see generate)."""
    return generate(decode_request(data), grpc=grpc, workers=workers)
