"""Error builders of the binary codec: a DecodeError names message, field and byte offset."""

from __future__ import annotations

import struct

from .errors import DecodeError

__all__ = ["field_label", "decode_failure", "overrun", "bad_end", "bad_utf8", "too_deep"]


def field_label(msg: object, tag: int) -> str:
    """Name the field of ``tag`` in ``msg``'s class (or in ``msg``, a class) for an error message."""
    info = getattr(msg if isinstance(msg, type) else type(msg), "_pb_info", None)
    number = tag >> 3
    field = info.by_number.get(number) if info is not None else None
    cls_name = info.full_name if info is not None else type(msg).__name__
    if field is not None:
        return f"{cls_name}.{field.name} (field {number})"
    return f"{cls_name} field {number}"


def decode_failure(msg: object, tag: int, pos: int, exc: BaseException) -> DecodeError:
    """Turn a low-level failure inside a parse loop into a DecodeError naming field and offset."""
    where = field_label(msg, tag)
    if isinstance(exc, UnicodeDecodeError):
        return DecodeError(f"{where}: invalid UTF-8 in string at offset {pos + exc.start}")
    if isinstance(exc, (IndexError, struct.error)):
        return DecodeError(f"{where}: input truncated at offset {pos}")
    return DecodeError(f"{where}: {exc} at offset {pos}")


def overrun(msg: object, tag: int, pos: int, n: int) -> DecodeError:
    """Report a length prefix that points past the end of the enclosing message."""
    return DecodeError(f"{field_label(msg, tag)}: length {n} at offset {pos} runs past the end of the message")


def bad_end(msg: object, pos: int, end: int, end_tag: int) -> DecodeError:
    """Report a message that ended at the wrong place (or a group without its end)."""
    name = (msg if isinstance(msg, type) else type(msg)).__name__
    if end_tag >= 0 and pos >= end:
        return DecodeError(f"{name}: group of field {end_tag >> 3} is not terminated (offset {pos})")
    return DecodeError(f"{name}: field runs past the end of the message (offset {pos}, end {end})")


def bad_utf8(msg: object, tag: int, pos: int) -> DecodeError:
    """Report a string field whose bytes are not valid UTF-8 (found by a scan: no offset within)."""
    return DecodeError(f"{field_label(msg, tag)}: invalid UTF-8 in string at offset {pos}")


def too_deep(msg: object, tag: int, pos: int) -> DecodeError:
    """Report nesting beyond the depth limit."""
    return DecodeError(f"{field_label(msg, tag)}: messages nested deeper than the limit at offset {pos}")
