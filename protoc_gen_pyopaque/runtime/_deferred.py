"""Codec methods compiled on a class's first use: the deferred form of very large modules.

Most of a generated module is its classes' parse, serialize and JSON methods; a file of
thousands of messages (the plugin's ``codecs`` option: deferred from DEFERRED_CODECS_FIELDS
fields, or for ``optimize_for = CODE_SIZE``) would spend most of its first import compiling
methods a program mostly never calls. In the deferred form each class is written without them,
and its methods' source — the inline form's, as the body of a class of the same name — is
packed at the module's end. ``defer_codecs`` stands a placeholder for each of the runtime's
codec methods on the class; the first read of any of them compiles the class's source, in the
module's namespace, and sets its methods on the class. From then on the class is the inline
form's, method for method, and costs nothing more.

Tracebacks show the compiled source (it is registered with linecache). Compiled builds
(pyopaque-compile) take the inline form only.
"""

from __future__ import annotations

import __future__
import base64
import linecache
import threading
import zlib
from types import ModuleType
from typing import Any, Final

__all__ = ["defer_codecs"]

# The methods the runtime, other classes and operators call on a class: each may be among its
# packed ones (__eq__ too: Message's __hash__ = None holds for the class all the same).
# Runs of a split parser (_pb_merge_1, ...) are called from their own class only, once loaded.
CODEC_METHODS: Final = (
    "parse", "_pb_merge", "_pb_scan", "_pb_scan_input", "_pb_encode", "_pb_kept_input", "_pb_adopt",
    "_pb_items", "_pb_set", "_pb_reset", "_pb_checks_required", "_pb_missing", "_pb_json_keys",
    "_pb_json_write", "_pb_json_merge", "__eq__",
)
# what a class statement puts in a class's namespace itself
_CLASS_KEYS: Final = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                                "__annotations__", "__firstlineno__", "__static_attributes__"})

_LOCK: Final = threading.RLock()
_pending: dict[type, tuple[dict[str, Any], str]] = {}  # class -> (its module's namespace, packed source)


class _Pending:
    """A codec method of ``owner`` not compiled yet: reading it compiles the class's methods."""

    __slots__ = ("owner", "name")

    def __init__(self, owner: type, name: str) -> None:
        self.owner = owner
        self.name = name

    def __get__(self, obj: object, cls: type | None = None) -> Any:
        compile_codecs(self.owner)
        return getattr(obj if obj is not None else cls if cls is not None else self.owner, self.name)


def defer_codecs(namespace: dict[str, Any], classes: tuple[tuple[type, str], ...]) -> None:
    """Register each class's packed codec methods, compiled in ``namespace`` (the module's
    globals) on the class's first use of one."""
    with _LOCK:
        for cls, source in classes:
            _pending[cls] = (namespace, source)
            for name in CODEC_METHODS:
                if name not in cls.__dict__:
                    setattr(cls, name, _Pending(cls, name))


def compile_codecs(cls: type) -> None:
    """Compile ``cls``'s packed codec methods and set them on it (once; other threads wait)."""
    with _LOCK:
        entry = _pending.pop(cls, None)
        if entry is None:  # compiled meanwhile
            return
        namespace, packed = entry
        source = zlib.decompress(base64.b85decode(packed)).decode()
        # the module's imports named as such (never run): the compiler then reads their attributes
        # as it does in the inline form (a plain attribute load, not a method load)
        modules = [name for name, value in namespace.items() if isinstance(value, ModuleType)]
        source = f"if 0:\n    import {', '.join(f'_ as {name}' for name in modules)}\n{source}"
        filename = f"<codecs of {cls.__module__}.{cls.__qualname__}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)
        scope: dict[str, Any] = {}
        exec(code, namespace, scope)  # noqa: S102 - the plugin's own output, packed by it
        (body,) = scope.values()  # the imports above never run
        # every method in place before any placeholder goes: a reader never sees the base's
        for name, value in vars(body).items():
            if name not in _CLASS_KEYS:
                setattr(cls, name, value)
        cls.__annotations__.update(vars(body).get("__annotations__", {}))
        for name in CODEC_METHODS:
            if isinstance(cls.__dict__.get(name), _Pending):
                delattr(cls, name)
