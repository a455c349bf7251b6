"""The fuzz target: one input is a class, an entry point (parse eager or lazy, JSON, text) and
the bytes it reads. Only the runtime's own errors (ProtobufError: DecodeError, EncodeError,
JsonError, TextFormatError) may escape; whatever parses must serialize, and its output must
parse again. The golden messages are the schema, in every style.

This module imports no runtime at import time: a compiled run must put its build first.
"""

from __future__ import annotations

import copy
import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
CRASHES = HERE / "crashes"  # inputs that once failed: replayed by test_fuzz.py in every style
INTERPRETED_STYLES = ("open", "hybrid", "hybrid-opaque", "opaque", "lazy")
COMPILED_STYLE = "compiled"  # the opaque golden modules compiled with mypyc (tests/behavior/compiled.py)
# the classes fuzzed, in the order of an input's first byte
CLASSES = (
    ("scalars", "Scalars"), ("scalars", "FixedFirst"), ("collections", "Collections"),
    ("legacy", "Legacy"), ("editions", "Edition2023"), ("edition2024", "LogEntry"),
    ("edition2024", "Envelope"), ("edition2024", "Node"),
)
# the entry points, in the order of an input's second byte
MODES = ("eager", "lazy-fields", "lazy-message", "json", "text")
BINARY_LAZY = {"eager": False, "lazy-fields": None, "lazy-message": True}


def style_root(style: str) -> Path:
    """The folder holding the golden modules of ``style`` (generated or built if needed)."""
    if style in ("open", "hybrid", "opaque", "hybrid-opaque"):
        from tests.golden.golden import importable

        return importable("hybrid" if style == "hybrid-opaque" else style)
    if style == "lazy":  # opaque with every message field lazy, as the conformance suite's lazy style
        from tests.golden.golden import PROTOS, proto_files
        from tools.builds import build_cached
        from tools.generate import BUILD, generate, source_digest

        options = "default_api_level=API_OPAQUE,lazy_all=true"
        digest = "\n".join([source_digest(*(PROTOS / p for p in proto_files())), options])
        return build_cached(BUILD / "fuzz" / "gen-lazy",  digest,
                            lambda out: generate(proto_files(), [PROTOS], out, options=options) and None)
    if style == COMPILED_STYLE:
        from tests.behavior.compiled import selected_build

        build = selected_build()  # the compiled runtime first on sys.path (COMPILED_ENV must be set)
        assert build is not None, "a compiled run sets PYOPAQUE_TEST_COMPILED"
        return build[1]
    raise ValueError(f"unknown style {style!r}")


class Target:
    """The classes of one style and the checks of one input."""

    def __init__(self, classes: list[Any]) -> None:
        from protoc_gen_pyopaque.runtime import ProtobufError

        self.classes = classes
        self.runtime_errors = ProtobufError

    def run(self, data: bytes) -> None:
        """Feed one input; raise only if something other than a runtime error escapes."""
        if len(data) < 2:
            return
        cls = self.classes[data[0] % len(self.classes)]
        mode = MODES[data[1] % len(MODES)]
        payload = data[2:]
        try:
            self._check(cls, mode, payload)
        except self.runtime_errors:
            pass

    def _check(self, cls: Any, mode: str, payload: bytes) -> None:
        lazy = BINARY_LAZY.get(mode, False)
        if mode in BINARY_LAZY:
            msg = cls.parse(payload, lazy=lazy, partial=True)
            _must_parse(cls, msg.serialize(partial=True), lazy)  # untouched: lazy bytes written back
        elif mode == "json":
            msg = cls.from_json(payload, ignore_unknown_fields=payload.endswith(b" "))
        else:
            msg = cls.from_text(payload)
        repr(msg)  # decodes what was deferred (content errors surface here, as DecodeError)
        _must_parse(cls, msg.serialize(partial=True), lazy)
        msg == copy.deepcopy(msg)  # noqa: B015 (equality may be False: NaN)
        text = msg.to_text()
        cls.from_text(text)
        cls.from_json(msg.to_json())


def _must_parse(cls: Any, data: bytes, lazy: bool | None) -> None:
    """Output of serialize() parses again: a DecodeError here is a bug, not a rejected input."""
    from protoc_gen_pyopaque.runtime import DecodeError

    try:
        cls.parse(data, lazy=lazy, partial=True)
    except DecodeError as exc:
        raise AssertionError(f"serialize() wrote bytes that do not parse ({exc}): {data!r}") from exc


@contextmanager
def loaded(style: str) -> Iterator[Target]:
    """Import the golden modules of ``style``; forget them afterwards (styles share module names)."""
    root = style_root(style)
    if style == COMPILED_STYLE:
        yield Target([getattr(importlib.import_module(f"golden.{m}_pb"), c) for m, c in CLASSES])
        return
    from protoc_gen_pyopaque.runtime import message

    saved = message.protoopaque_selected()
    message.select_protoopaque(style == "hybrid-opaque")
    sys.path.insert(0, str(root))
    try:
        yield Target([getattr(importlib.import_module(f"golden.{m}_pb"), c) for m, c in CLASSES])
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "golden" or m.startswith("golden.")]:
            del sys.modules[name]
        message.select_protoopaque(saved)


def corpus() -> list[bytes]:
    """The seed inputs, then the inputs that once crashed."""
    return [p.read_bytes() for folder in (CORPUS, CRASHES) if folder.is_dir() for p in sorted(folder.iterdir())]
