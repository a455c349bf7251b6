"""Our side of a differential check: parse, serialize, re-parse and compare one input.

Standard library and our runtime only, so the hybrid-opaque worker subprocess
(``_worker.py``) runs exactly the same code as the in-process styles.
"""

from __future__ import annotations

import signal
import traceback
from dataclasses import dataclass
from types import FrameType
from typing import Any

from protoc_gen_pyopaque.runtime import DecodeError


@dataclass
class OursResult:
    """What our generated class did with one input."""

    accepted: bool = False
    error: str = ""  # the DecodeError text when rejected
    crash: str = ""  # any other exception (or a hang), with traceback: always a bug
    wire: bytes = b""  # serialize(partial=True)
    det: bytes = b""  # serialize(deterministic=True, partial=True)
    reparse_det: bytes = b""  # parse(wire).serialize(deterministic=True)
    reparse_equal: bool = True  # parse(wire) == parse(data)
    strict_accepted: bool | None = None  # parse(data) without partial=True (roots with required fields)
    api: str = ""  # the class's __pyopaque_api__, e.g. "opaque.v1"
    lazy_wire: bytes | None = None  # lazy: serialize() before any access
    lazy_equal_eager: bool = True  # lazy: parse(lazy=True) == parse(lazy=False)
    lazy_eager_error: str = ""  # lazy: the eager parse rejected what the lazy one accepted


class Hang(Exception):
    """Raised by the alarm when one parse or serialize takes far too long."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang("timed out (hang?)")


def check_ours(cls: Any, data: bytes, *, required: bool = False, timeout: float = 5.0,
               lazy: bool = False) -> OursResult:
    """Run our class over ``data``; never raises (crashes are reported in ``crash``).

    ``lazy``: parse with ``lazy=True``, which checks everything a decode would (the
    lazy style's fields are all verified ``[lazy]``) and decodes on first access: a
    DecodeError after the parse accepted (serialize before any access, the first full
    access) is a bug, reported as a crash, not a rejection; the lazy message must equal
    the eager one.
    """
    res = OursResult(api=getattr(cls, "__pyopaque_api__", ""))
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    stage = "parse"
    try:
        try:
            a = cls.parse(data, partial=True, lazy=True) if lazy else cls.parse(data, partial=True)
            if lazy:
                stage = "lazy: serialize before first access"
                res.lazy_wire = a.serialize(partial=True)
                stage = "lazy: first access (repr)"
                repr(a)
        except DecodeError as exc:
            if stage != "parse":
                res.crash = f"{stage}: DecodeError after parse(lazy=True) accepted: {exc}"
                return res
            res.error = str(exc) or "DecodeError"
            return res
        res.accepted = True
        if lazy:
            stage = "lazy: compare with an eager parse"
            try:
                eager = cls.parse(data, partial=True, lazy=False)
            except DecodeError as exc:
                res.lazy_eager_error = str(exc) or "DecodeError"
                res.lazy_equal_eager = False
            else:
                res.lazy_equal_eager = bool(a == eager)
        stage = "serialize"
        res.wire = a.serialize(partial=True)
        res.det = a.serialize(deterministic=True, partial=True)
        stage = "re-parse of serialize()"
        b = cls.parse(res.wire, partial=True)
        res.reparse_det = b.serialize(deterministic=True, partial=True)
        stage = "=="
        res.reparse_equal = bool(a == b)
        stage = "repr"
        repr(a)
        if required:
            stage = "parse without partial=True"
            try:
                cls.parse(data)
                res.strict_accepted = True
            except DecodeError:
                res.strict_accepted = False
    except BaseException as exc:  # noqa: BLE001 - everything else is a bug to report
        if isinstance(exc, KeyboardInterrupt):
            raise
        res.crash = f"{stage}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-6)}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return res
