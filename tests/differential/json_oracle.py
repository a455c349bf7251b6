"""Our side of the JSON differential checks (standard library and our runtime only, so
the hybrid-opaque worker subprocess runs exactly the same code as the in-process styles).

Ops:

* ``from_json``: ``cls.from_json(text)`` then ``serialize(partial=True)``; also
  ``from_dict(json.loads(text))`` must agree.
* ``to_json``: ``cls.parse(wire)`` (``lazy=True`` for the lazy style), then
  ``to_json(**opts)``; also ``to_dict(**opts)`` must equal the parsed text, and
  ``from_json(to_json(m))`` must equal ``m``.

Both ops also hold the generated JSON code (the fast path) to the reflective codec:
the same text printed, the same inputs accepted, the same messages read.
"""

from __future__ import annotations

import json
import signal
import traceback
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from protoc_gen_pyopaque.runtime import JsonError
from protoc_gen_pyopaque.runtime import _json


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
            stage = "reflective from_json"
            _check_fast_parse(cls, payload, msg, opts, res.notes)
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
            stage = "reflective to_json"
            reflective = _json.COMPACT.encode(_json.print_message(msg, _ctx(msg, opts), "$", 0))
            if json.loads(reflective) != json.loads(res.value) or (not opts and reflective != res.value):
                res.notes.append(f"generated printer != reflective printer: {reflective}")
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


def _ctx(msg: Any, opts: dict[str, Any]) -> Any:
    return _json.JsonCtx(type(msg), opts.get("preserving_proto_field_names", False),
                   opts.get("always_print_fields_with_no_presence", False),
                   opts.get("ignore_unknown_fields", False))


def _check_fast_parse(cls: Any, text: str, msg: Any, opts: dict[str, Any], notes: list[str]) -> None:
    """The generated parser accepts ``text`` (which from_json accepted) and reads ``msg``, as the
    reflective parser does."""
    obj = _json._load(text)
    fast = cls()
    if not _json._fast_merge(fast, obj, opts.get("ignore_unknown_fields", False)):
        notes.append("the generated parser refuses what the reflective one accepts")
    elif not (fast == msg):
        notes.append("the generated parser reads another message than the reflective one")
    reflective = cls()
    _json.merge_message(reflective, obj, _ctx(reflective, opts), "$", 0)
    if not (reflective == msg):
        notes.append("from_json reads another message than the reflective parser")
