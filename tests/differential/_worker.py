"""Subprocess side of the hybrid-opaque style: imports generated hybrid modules normally,
with PYOPAQUE_PROTOOPAQUE=1 set by the parent, and runs ``oracle.check_ours`` on request.

Protocol over stdin/stdout: 4-byte little-endian length + pickle, both ways.
Request: ``(module, qualname, data, required, timeout)``; reply: an OursResult.
Or ``("json", module, qualname, op, payload, opts, timeout)``; reply: a JsonResult
(``json_oracle.run_json``).
"""

from __future__ import annotations

import importlib
import pickle
import struct
import sys
from typing import Any, BinaryIO

from tests.differential.json_oracle import JsonResult, run_json
from tests.differential.oracle import OursResult, check_ours


def _read(stream: BinaryIO) -> Any:
    head = stream.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack("<I", head)
    return pickle.loads(stream.read(n))


def _write(stream: BinaryIO, obj: object) -> None:
    data = pickle.dumps(obj)
    stream.write(struct.pack("<I", len(data)) + data)
    stream.flush()


def _resolve(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def main() -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # stray prints must not corrupt the protocol
    while True:
        req = _read(stdin)
        if req is None:
            return
        if req[0] == "json":
            _, module, qualname, op, payload, opts, timeout = req
            try:
                cls = _resolve(module, qualname)
            except Exception as exc:  # noqa: BLE001
                _write(stdout, JsonResult(crash=f"import: {type(exc).__name__}: {exc}"))
                continue
            _write(stdout, run_json(cls, op, payload, opts, timeout=timeout))
            continue
        module, qualname, data, required, timeout = req
        try:
            cls = _resolve(module, qualname)
        except Exception as exc:  # noqa: BLE001
            _write(stdout, OursResult(crash=f"import: {type(exc).__name__}: {exc}"))
            continue
        _write(stdout, check_ours(cls, data, required=required, timeout=timeout))


if __name__ == "__main__":
    main()
