"""Classes compiled on their first use: the deferred form of very large modules.

A file of thousands of messages (Google's compute.proto has about 2,000) would spend seconds and
gigabytes of its first import compiling methods a program mostly never calls. In the deferred
form (the plugin's ``classes`` option: the default from DEFERRED_CLASSES_FIELDS fields, and for
``optimize_for = CODE_SIZE``) the module gives ``defer_classes`` a table of its classes: what
each class's creation needs (name, base, ``__slots__``, class constants) and the source of
everything else packed — the inline form's constructor, accessors and codec methods, as the body
of a class of the same name; the typed API is in a ``.pyi`` next to the module, for type checkers
and IDEs. Each class gets a placeholder for what may be read of it before any instance exists
(``__init__``, ``parse`` and the runtime's hooks); the first read of any compiles the class's source in the
module's namespace and sets its methods on the class. From then on the class is the inline
form's, method for method (bytecode included), and costs nothing more.

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
from collections.abc import Callable
from typing import Any, Final

__all__ = ["compile_class", "defer_classes", "defer_enums", "define_enums"]

# What may be read of a class before any instance exists (creating one reads __init__): each
# may be among its packed methods (__eq__ too: Message's __hash__ = None holds all the same).
# The rest (accessors, runs of a split parser) is read on instances, made by __init__.
DEFERRED_METHODS: Final = (
    "__init__", "parse", "_pb_merge", "_pb_scan", "_pb_scan_input", "_pb_encode", "_pb_kept_input", "_pb_adopt",
    "_pb_items", "_pb_set", "_pb_reset", "_pb_checks_required", "_pb_missing", "_pb_json_keys",
    "_pb_json_write", "_pb_json_merge", "__eq__", "_pb_info",
)
# what a class statement puts in a class's namespace itself
_CLASS_KEYS: Final = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                                "__annotations__", "__firstlineno__", "__static_attributes__"})

_LOCK: Final = threading.RLock()
_pending: dict[type, tuple[dict[str, Any], str]] = {}  # class -> (its module's namespace, packed source)
_full_names: dict[type, str] = {}  # class -> its message's full name, known without compiling it
_enums: dict[int, tuple[dict[str, Any], str]] = {}  # id(module namespace) -> (it, packed enum definitions)


class _Pending:
    """A method (or nested enum) named ``name`` of a class not compiled yet: reading it compiles
    the class that holds it. One per name serves every class (the class is the one holding it)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, cls: type | None = None) -> Any:
        start = cls if cls is not None else type(obj)
        owner = next(c for c in start.__mro__ if c.__dict__.get(self.name) is self)
        compile_class(owner)
        return getattr(obj if obj is not None else start, self.name)


_PLACEHOLDERS: Final = {name: _Pending(name) for name in DEFERRED_METHODS}


def defer_classes(namespace: dict[str, Any],
                  classes: tuple[tuple[str, type, str, str, bool, str, str | None, str], ...]) -> None:
    """Make a module's classes in ``namespace`` (its globals) from their table, each row: name,
    base, its message's full name, ``__pyopaque_api__``, lazy-capable, slots (separated by
    spaces), docstring, packed methods; compiled on the class's first use. (A class statement
    each would cost a module this large more to compile than the rest of its import.)"""
    module = namespace["__name__"]
    with _LOCK:
        for name, base, full_name, api, lazy_capable, slots, doc, source in classes:
            body = dict(_PLACEHOLDERS, __module__=module, __qualname__=name, __doc__=doc,
                        __slots__=tuple(slots.split()), __pyopaque_api__=api)
            if lazy_capable:
                body["_pb_lazy_capable"] = True
            cls = type(name, (base,), body)
            namespace[name] = cls
            _pending[cls] = (namespace, source)
            _full_names[cls] = full_name


def defer_enums(namespace: dict[str, Any], packed: str,
                nested: tuple[tuple[type, tuple[str, ...]], ...]) -> Callable[[str], Any]:
    """Register a module's packed enum definitions (enum classes: the bulk of a large module's
    import otherwise), made on the first use of any of its classes or enums; ``nested``: each
    class's nested enums, read on the class before any instance exists. Return the module's
    ``__getattr__``, which makes them when one is asked for by name."""
    with _LOCK:
        _enums[id(namespace)] = (namespace, packed)
        for cls, names in nested:
            for name in names:
                setattr(cls, name, _Pending(name))

    def module_getattr(name: str) -> Any:
        define_enums(namespace)
        try:
            return namespace[name]
        except KeyError:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}") from None

    return module_getattr


def define_enums(namespace: dict[str, Any]) -> None:
    """Make the enums ``namespace``'s module deferred, if not made yet (once; others wait)."""
    with _LOCK:
        entry = _enums.get(id(namespace))
        if entry is not None:
            _run(namespace, entry[1], f"<deferred enums of {namespace['__name__']}>", namespace)
            del _enums[id(namespace)]  # once made (a failure, e.g. an edited module, fails again)


def _run(namespace: dict[str, Any], packed: str, filename: str, scope: dict[str, Any]) -> None:
    """Compile and run packed source in ``namespace``, binding its names in ``scope``."""
    try:
        source = zlib.decompress(base64.b85decode(packed)).decode()
    except (ValueError, zlib.error) as exc:
        raise ImportError(f"{filename[1:-1]}: its packed source is damaged ({exc}): generate the module "
                          "again") from None
    # the module's imports named as such (never run): the compiler then reads their attributes
    # as it does in the inline form (a plain attribute load, not a method load)
    modules = [name for name, value in namespace.items() if isinstance(value, ModuleType)]
    source = f"if 0:\n    import {', '.join(f'_ as {name}' for name in modules)}\n{source}"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)
    exec(code, namespace, scope)  # noqa: S102 - the plugin's own output, packed by it


def full_name(cls: type) -> str:
    """The full name of ``cls``'s message, without compiling a deferred class."""
    name = _full_names.get(cls)
    return name if name is not None else cls._pb_info.full_name  # type: ignore[attr-defined]


def compile_class(cls: type) -> None:
    """Compile ``cls``'s packed methods and set them on it (once; other threads wait)."""
    with _LOCK:
        entry = _pending.get(cls)
        if entry is None:  # compiled meanwhile
            return
        namespace, packed = entry
        define_enums(namespace)  # the class's code names them as the module's globals
        scope: dict[str, Any] = {}
        _run(namespace, packed, f"<deferred class {cls.__module__}.{cls.__qualname__}>", scope)
        # the imports _run names never run; after the class's body, the module-level classes only
        # its methods use (a deferred parse's state), bound in the module before any method is set
        body, *helpers = scope.values()
        for helper in helpers:
            namespace[helper.__name__] = helper
        # every method in place before any placeholder goes: a reader never sees the base's
        for name, value in vars(body).items():
            if name not in _CLASS_KEYS:
                setattr(cls, name, value)
        cls.__annotations__.update(vars(body).get("__annotations__", {}))
        for name in DEFERRED_METHODS:
            if isinstance(cls.__dict__.get(name), _Pending):
                delattr(cls, name)
        del _pending[cls]  # once compiled (a failure, e.g. an edited module, fails again)
