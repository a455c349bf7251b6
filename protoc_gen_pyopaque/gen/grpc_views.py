"""The view model of a gRPC module (``foo/bar_grpc.py``): every name and type it spells.

The module imports the message classes from their ``_pb`` modules and generates, per service,
grpcio stubs, servicer base classes and registration functions (templates/grpc.py.j2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ..plugin import names
from ..plugin.options import Options
from ..plugin.schema import File, Method, Schema, Service
from .pyexpr import docstring

GRPC_RUNTIME_MODULE: Final = "_grpc_v1"  # in protoc_gen_pyopaque.runtime
# grpcio's names for the four kinds of RPC: (client streaming, server streaming) -> kind
_KINDS: Final = {
    (False, False): "unary_unary", (False, True): "unary_stream",
    (True, False): "stream_unary", (True, True): "stream_stream",
}
# the multi-callable classes of grpcio's typed API, per kind
_CALLABLES: Final = {
    "unary_unary": "UnaryUnaryMultiCallable", "unary_stream": "UnaryStreamMultiCallable",
    "stream_unary": "StreamUnaryMultiCallable", "stream_stream": "StreamStreamMultiCallable",
}


@dataclass
class MethodView:
    name: str  # the proto method name (grpcio's handler key)
    attr: str  # the Python attribute: the proto name, escaped when it must be
    path: str  # "/pkg.Service/Method"
    path_const: str  # the module constant holding the path
    kind: str  # unary_unary, unary_stream, stream_unary, stream_stream
    multi_callable: str  # grpcio's class of the stub attribute
    request: str  # Python expression of the request class
    response: str
    request_param: str  # "request" or "request_iterator"
    request_parser: str  # the deserializer expression
    response_parser: str
    # servicer signatures: the request parameter's type, the context's, the return type
    sync_request: str
    sync_return: str
    async_request: str
    async_context: str
    async_return: str
    server_streaming: bool
    doc: str


@dataclass
class ServiceView:
    full_name: str
    name_const: str  # the module constant holding the full name
    stub: str
    async_stub: str
    servicer: str
    async_servicer: str
    add: str  # add_<S>Servicer_to_server
    async_add: str
    handlers: str  # the private function making grpcio's method handlers of a servicer
    servicer_types: str  # the servicer classes it takes
    methods: list[MethodView]
    stub_doc: str
    async_stub_doc: str
    servicer_doc: str
    async_servicer_doc: str


@dataclass
class GrpcFileView:
    proto: str
    imports: list[tuple[str, str]]
    services: list[ServiceView]
    sync_io: bool
    async_io: bool
    runtime_module: str


def build_grpc_view(file: File, schema: Schema, options: Options) -> GrpcFileView:
    """Decide every name and type of the gRPC module of ``file``."""
    table = names.allocate_grpc(file, schema)

    def message(full_name: str) -> str:
        proto = schema.messages[full_name].file
        cls = names.allocate(schema.files[proto], schema).classes[full_name]
        return f"{table.imports[names.import_path(proto)]}.{cls.qualname}"

    services = []
    for service in file.services:
        n = table.services[service.full_name]
        methods = [_method(service, m, attr, path, message, options)
                   for m, attr, path in zip(service.methods, n.methods, n.paths)]
        doc = docstring(service.comment)
        s = service.full_name
        services.append(ServiceView(
            full_name=s, name_const=n.name_const, stub=n.stub, async_stub=n.async_stub,
            servicer=n.servicer, async_servicer=n.async_servicer, add=n.add, async_add=n.async_add,
            handlers=n.handlers,
            servicer_types=" | ".join([n.servicer] * options.sync_io + [n.async_servicer] * options.async_io),
            methods=methods,
            stub_doc=doc or docstring(f"A client of {s} over grpcio's synchronous API."),
            async_stub_doc=doc or docstring(f"A client of {s} over grpc.aio."),
            servicer_doc=doc or docstring(f"{s} for grpcio's synchronous server: override its methods."),
            async_servicer_doc=doc or docstring(f"{s} for grpc.aio servers: override its methods."),
        ))
    return GrpcFileView(
        proto=file.name, imports=sorted(table.imports.items()), services=services,
        sync_io=options.sync_io, async_io=options.async_io, runtime_module=GRPC_RUNTIME_MODULE)


def _method(service: Service, method: Method, attr: str, path_const: str, message: Callable[[str], str],
            options: Options) -> MethodView:
    kind = _KINDS[method.client_streaming, method.server_streaming]
    request = message(method.input)
    response = message(method.output)
    return MethodView(
        name=method.name, attr=attr, path=f"/{service.full_name}/{method.name}", path_const=path_const,
        kind=kind, multi_callable=_CALLABLES[kind], request=request, response=response,
        request_param="request_iterator" if method.client_streaming else "request",
        request_parser=_parser(request, options), response_parser=_parser(response, options),
        sync_request=_stream("_t.Iterator", request, method.client_streaming),
        sync_return=_stream("_t.Iterator", response, method.server_streaming),
        async_request=_stream("_t.AsyncIterator", request, method.client_streaming),
        async_context=f"_grpc.aio.ServicerContext[{request}, {response}]",
        async_return=_stream("_t.AsyncIterator", response, method.server_streaming),
        server_streaming=method.server_streaming,
        doc=docstring(method.comment))


def _stream(iterator: str, cls: str, streaming: bool) -> str:
    return f"{iterator}[{cls}]" if streaming else cls


def _parser(cls: str, options: Options) -> str:
    return f"_rt.lazy_parser({cls})" if options.lazy_parse else f"{cls}.parse"
