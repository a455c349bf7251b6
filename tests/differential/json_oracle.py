"""Our side of the JSON differential checks (standard library and our runtime only, so
the hybrid-opaque worker subprocess runs exactly the same code as the in-process styles).

Ops:

* ``from_json``: ``cls.from_json(text)`` then ``serialize(partial=True)``; also
  ``from_dict(json.loads(text))`` must agree.
* ``to_json``: ``cls.parse(wire)`` (``lazy=True`` for the lazy style), then
  ``to_json(**opts)``; also ``to_dict(**opts)`` must equal the parsed text, and
  ``from_json(to_json(m))`` must equal ``m``.
"""

from __future__ import annotations

import json
import signal
import traceback
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from protoc_gen_pyopaque.runtime import JsonError


@dataclass
class JsonResult:
    ok: bool = False
    value: Any = None  # from_json: serialize(partial=True) bytes; to_json: the text
    error: str = ""  # the JsonError text
    crash: str = ""  # any other exception, with traceback: always a bug
    notes: list[str] = field(default_factory=list)  # internal inconsistencies (also bugs)


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Hang("timed out (hang?)")


def run_json(cls: Any, op: str, payload: Any, opts: dict[str, Any], *, lazy: bool = False,
             timeout: float = 5.0) -> JsonResult:
    res = JsonResult()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    stage = op
    try:
        try:
            if op == "from_json":
                msg = cls.from_json(payload, **opts)
            elif op == "to_json":
                stage = "parse"
                msg = cls.parse(payload, partial=True, lazy=True) if lazy else cls.parse(payload, partial=True)
                stage = "to_json"
                res.value = msg.to_json(**opts)
            else:
                raise ValueError(f"unknown op {op!r}")
        except JsonError as exc:
            res.error = str(exc) or "JsonError"
            return res
        res.ok = True
        if op == "from_json":
            stage = "serialize"
            res.value = msg.serialize(partial=True)
            stage = "from_dict"
            try:
                loaded = json.loads(payload)
            except ValueError:
                loaded = None
            if loaded is not None:
                try:
                    other = cls.from_dict(loaded, **opts)
                except JsonError as exc:
                    # json.loads reads numbers as float where from_json keeps them exact
                    res.notes.append(f"from_dict rejects what from_json accepts: {exc}")
                else:
                    if not (other == msg):
                        res.notes.append("from_dict(json.loads(t)) != from_json(t)")
        else:
            stage = "to_dict"
            as_dict = msg.to_dict(**{k: v for k, v in opts.items() if k != "indent"})
            if json.loads(json.dumps(as_dict)) != json.loads(res.value):
                res.notes.append(f"to_dict() != json.loads(to_json()): {as_dict!r}")
            stage = "from_json(to_json())"
            try:
                again = cls.from_json(res.value)
            except JsonError as exc:
                res.notes.append(f"from_json(to_json(m)) raises: {exc}")
            else:
                if again.serialize(deterministic=True, partial=True) != msg.serialize(deterministic=True, partial=True):
                    # Any payloads are bytes each side may order differently (maps):
                    # then the JSON of both must agree
                    if json.loads(again.to_json(**opts)) != json.loads(res.value):
                        res.notes.append("from_json(to_json(m)) != m (deterministic bytes)")
    except BaseException as exc:  # noqa: BLE001 - everything else is a bug to report
        if isinstance(exc, KeyboardInterrupt):
            raise
        res.ok = False
        res.crash = f"{stage}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-6)}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return res
