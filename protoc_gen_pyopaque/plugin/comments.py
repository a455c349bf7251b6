"""Leading/trailing comments of .proto elements, from SourceCodeInfo, keyed by path."""

from __future__ import annotations

from typing import Final

from google.protobuf import descriptor_pb2

# Field numbers that make up SourceCodeInfo paths (descriptor.proto).
FILE_MESSAGE: Final = 4
FILE_ENUM: Final = 5
FILE_EXTENSION: Final = 7
MESSAGE_FIELD: Final = 2
MESSAGE_NESTED: Final = 3
MESSAGE_ENUM: Final = 4
MESSAGE_EXTENSION: Final = 6
MESSAGE_ONEOF: Final = 8
ENUM_VALUE: Final = 2

Path = tuple[int, ...]


def comment_index(fdp: descriptor_pb2.FileDescriptorProto) -> dict[Path, str]:
    """Map each element path to its leading (else trailing) comment, whitespace-trimmed."""
    out: dict[Path, str] = {}
    for loc in fdp.source_code_info.location:
        text = loc.leading_comments or loc.trailing_comments
        if text.strip():
            lines = [line.rstrip() for line in text.strip("\n").split("\n")]
            # drop the one space protoc leaves after "//"
            lines = [line[1:] if line.startswith(" ") else line for line in lines]
            out[tuple(loc.path)] = "\n".join(lines).strip()
    return out
