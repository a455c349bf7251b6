"""Leading/trailing comments of .proto elements, from SourceCodeInfo, keyed by path."""

from __future__ import annotations

from typing import Final

from google.protobuf import descriptor_pb2

# Field numbers that make up SourceCodeInfo paths (descriptor.proto).
FILE_MESSAGE: Final = 4
FILE_ENUM: Final = 5
FILE_SERVICE: Final = 6
FILE_EXTENSION: Final = 7
MESSAGE_FIELD: Final = 2
MESSAGE_NESTED: Final = 3
MESSAGE_ENUM: Final = 4
MESSAGE_EXTENSION: Final = 6
MESSAGE_ONEOF: Final = 8
ENUM_VALUE: Final = 2
SERVICE_METHOD: Final = 2

Path = tuple[int, ...]


def comment_index(fdp: descriptor_pb2.FileDescriptorProto) -> dict[Path, str]:
    """Map each element path to its leading (else trailing) comment, whitespace-trimmed.

    A blank leading comment (a bare ``//``) does not hide the trailing one; detached
    comments belong to nothing. Lines lose the one space protoc leaves after ``//``
    (deeper indentation is kept), line ends lose ``\r``, and the lone ``*`` that a
    ``/** ... */`` comment leaves as its first line is dropped.
    """
    out: dict[Path, str] = {}
    for loc in fdp.source_code_info.location:
        leading, trailing = loc.leading_comments, loc.trailing_comments
        if not (leading or trailing):  # most locations: spans of names, types, numbers
            continue
        text = clean_comment(leading) or clean_comment(trailing)
        if text:
            out[tuple(loc.path)] = text
    return out


def clean_comment(text: str) -> str:
    """Tidy one comment as protoc reports it (see comment_index); "" when blank."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    # drop the one space protoc leaves after "//"
    lines = [line[1:] if line.startswith(" ") else line for line in lines]
    if lines and lines[0].strip() == "*":  # the opener of a /** ... */ comment
        lines = lines[1:]
    return "\n".join(lines).strip()
