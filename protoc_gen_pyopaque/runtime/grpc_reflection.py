"""gRPC server reflection, ``grpc.reflection.v1`` and ``v1alpha``, from the descriptors that
generated modules embed (runtime/descriptors.py).

Needs grpcio-reflection (and so protobuf), whose servicer answers from a DescriptorPool:
``enable_server_reflection`` gives it this runtime's pool. grpcio-reflection serves only
v1alpha; v1 has the same messages under another package name, so the same servicer serves both
(clients such as grpcurl ask v1 first).
"""

from __future__ import annotations

from typing import Any, Final

import grpc
import grpc.aio

from . import descriptors
from ._grpc_v1 import add_handlers

__all__ = ["V1", "V1ALPHA", "enable_server_reflection", "reflection_pool"]

V1: Final = "grpc.reflection.v1.ServerReflection"
V1ALPHA: Final = "grpc.reflection.v1alpha.ServerReflection"
_V1_FILE: Final = "grpc/reflection/v1/reflection.proto"


def reflection_pool(*targets: object) -> Any:
    """descriptors.descriptor_pool(*targets), also holding the reflection service's own files
    (v1alpha and v1): what grpcio-reflection's ``enable_server_reflection(pool=)`` needs for
    our modules. ``targets``: generated modules, message classes or messages."""
    pool = descriptors.descriptor_pool(*targets)
    try:
        pool.FindFileByName(_V1_FILE)
    except KeyError:
        from google.protobuf import descriptor_pb2
        from grpc_reflection.v1alpha import reflection_pb2

        v1alpha = descriptor_pb2.FileDescriptorProto.FromString(reflection_pb2.DESCRIPTOR.serialized_pb)
        pool.AddSerializedFile(v1alpha.SerializeToString())
        pool.AddSerializedFile(_renamed(v1alpha).SerializeToString())
    return pool


def _renamed(v1alpha: Any) -> Any:
    """grpc/reflection/v1/reflection.proto: v1alpha's file with the package renamed (the two
    protos differ in nothing else that reflection clients read)."""
    old, new = "grpc.reflection.v1alpha", "grpc.reflection.v1"
    v1 = type(v1alpha)()
    v1.CopyFrom(v1alpha)
    v1.name, v1.package = _V1_FILE, new
    for message in v1.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = field.type_name.replace(f".{old}.", f".{new}.")
    for service in v1.service:
        for method in service.method:
            method.input_type = method.input_type.replace(f".{old}.", f".{new}.")
            method.output_type = method.output_type.replace(f".{old}.", f".{new}.")
    return v1


def enable_server_reflection(server: grpc.Server | grpc.aio.Server, *targets: object) -> None:
    """Serve grpc.reflection.v1 and v1alpha on ``server`` (sync or grpc.aio) for the services
    declared in the files of ``targets`` (generated ``_pb`` modules, their message classes or
    messages), which it lists, and every type they and their imports declare."""
    from grpc_reflection.v1alpha import reflection, reflection_pb2

    pool = reflection_pool(*targets)
    files = [descriptors.file_name(t) for t in targets]
    names = [s.full_name for f in files for s in pool.FindFileByName(f).services_by_name.values()]
    names += [V1, V1ALPHA]
    servicer: Any
    if isinstance(server, grpc.aio.Server):
        servicer = reflection.aio.ReflectionServicer(names, pool=pool)
    else:
        servicer = reflection.ReflectionServicer(names, pool=pool)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)
    for service in (V1, V1ALPHA):
        add_handlers(server, service, {"ServerReflectionInfo": handler})
