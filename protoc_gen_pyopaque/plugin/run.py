"""The pure core of the plugin: ``run(request bytes) -> response bytes``."""

from __future__ import annotations

from google.protobuf.compiler import plugin_pb2

from ..gen.render import render_module
from ..gen.views import build_file_view
from . import features, names
from .options import OptionError, parse_options
from .request import InputError, build_schema, decode_request

SUPPORTED_FEATURES = (
    plugin_pb2.CodeGeneratorResponse.FEATURE_PROTO3_OPTIONAL
    | plugin_pb2.CodeGeneratorResponse.FEATURE_SUPPORTS_EDITIONS
)


def _response() -> plugin_pb2.CodeGeneratorResponse:
    response = plugin_pb2.CodeGeneratorResponse()
    response.supported_features = SUPPORTED_FEATURES
    response.minimum_edition = features.MINIMUM_EDITION
    response.maximum_edition = features.MAXIMUM_EDITION
    return response


def generate(request: plugin_pb2.CodeGeneratorRequest) -> plugin_pb2.CodeGeneratorResponse:
    """Generate the modules of every file to generate; input problems go to ``response.error``."""
    response = _response()
    try:
        options = parse_options(request.parameter)
        schema = build_schema(request, options)
    except (OptionError, InputError) as exc:
        response.error = str(exc)
        return response
    missing = [proto for proto in request.file_to_generate if proto not in schema.files]
    if missing:
        response.error = f"{missing[0]}: to be generated but not among the request's files"
        return response
    for proto in request.file_to_generate:
        file = schema.files[proto]
        try:
            outputs = [(names.output_path(proto), build_file_view(file, schema))]
            if file.is_hybrid:
                twin = build_file_view(file.as_opaque(), schema, is_twin=True)
                outputs.append((names.output_path(proto, "_protoopaque_pb"), twin))
        except InputError as exc:
            response.error = str(exc)
            return response
        for path, view in outputs:
            out = response.file.add()
            out.name = path
            out.content = render_module(view)
    return response


def run(data: bytes) -> bytes:
    """Decode a CodeGeneratorRequest, generate, and encode the CodeGeneratorResponse."""
    response: bytes = generate(decode_request(data)).SerializeToString()
    return response
