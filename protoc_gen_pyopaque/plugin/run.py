"""The pure core of the plugin: ``run(request bytes) -> response bytes``, in pieces.

The response is serialized one generated module at a time: a serialized message is the
concatenation of its fields, and a response holding one file serializes as exactly that file's
``file`` field, so the pieces concatenated are the whole CodeGeneratorResponse. The entry point
writes each piece as it comes; no more than one rendered module is held at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from google.protobuf.compiler import plugin_pb2

from ..gen.build import build_file_view
from ..gen.grpc_views import build_grpc_view
from ..gen.render import render_grpc_module, render_module
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


def _header() -> bytes:
    """What the plugin supports: the first piece of every response."""
    return _piece(supported_features=SUPPORTED_FEATURES, minimum_edition=features.MINIMUM_EDITION,
                  maximum_edition=features.MAXIMUM_EDITION)


def generate(request: Request, *, grpc: bool = False) -> Iterator[bytes]:
    """The serialized response for ``request``: the header, then each module of every file to
    generate. Input problems end it with ``response.error`` (protoc then writes no file).

    ``grpc``: the gRPC modules (``foo/bar_grpc.py``, for files with services) instead of the
    message modules.
    """
    yield _header()
    try:
        options = parse_options(request.parameter, grpc=grpc)
        schema = build_schema(request.file_to_generate, request.files(), options)
    except (OptionError, InputError) as exc:
        yield _piece(error=str(exc))
        return
    missing = [proto for proto in request.file_to_generate if proto not in schema.files]
    if missing:
        yield _piece(error=f"{missing[0]}: to be generated but not among the request's files")
        return
    for proto in request.file_to_generate:
        if proto in names.SHIPPED_PROTOS and not options.bootstrap_wkt:
            continue  # the runtime ships its module; importers use that one
        file = schema.files[proto]
        if grpc:
            if file.services:
                content = render_grpc_module(build_grpc_view(file, schema, options))
                yield _piece(file=[plugin_pb2.CodeGeneratorResponse.File(
                    name=names.grpc_output_path(proto), content=content)])
            continue
        try:
            outputs = [(names.output_path(proto), build_file_view(file, schema, parameter=request.parameter))]
            if file.is_hybrid:
                twin = build_file_view(file.as_opaque(), schema, is_twin=True, parameter=request.parameter)
                outputs.append((names.output_path(proto, twin=True), twin))
        except InputError as exc:
            yield _piece(error=str(exc))
            return
        for path, view in outputs:
            yield _piece(file=[plugin_pb2.CodeGeneratorResponse.File(name=path, content=render_module(view))])


def run(data: bytes, *, grpc: bool = False) -> Iterator[bytes]:
    """Decode a CodeGeneratorRequest and generate: the serialized CodeGeneratorResponse, in pieces."""
    return generate(decode_request(data), grpc=grpc)
