"""The registry of generated message classes by full name (Any, JSON and text format resolve
payload types through it), and the wiring generated modules do at import: registering their
classes and extensions, attaching nested classes."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Final

from ._deferred import full_name
from .reflect import ExtensionInfo, MessageInfo, message_info

if TYPE_CHECKING:
    from .message import Message

__all__ = [
    "register_message_class", "register_module", "find_message_class", "register_messages",
    "nest_class", "register_extension",
]

# the well-known types whose modules ship in the runtime (google/protobuf/<name>_pb.py)
WKT_MODULES: Final = ("any", "duration", "empty", "field_mask", "struct", "timestamp", "wrappers",
                       "source_context", "type", "api")


# the module name of a hybrid module's opaque twin ends so
TWIN_SUFFIX: Final = "_protoopaque_pb"

_registry: dict[str, type] = {}
_wkt_loaded = False
_reachable_cache: dict[type, dict[str, type]] = {}


def register_message_class(cls: type) -> None:
    """Make ``cls`` (a generated message class) known to Any by its full name.

    The opaque twin of a hybrid module, imported by name while hybrid modules serve their
    own classes, does not take the name from the hybrid class: hybrid code that unpacks an
    Any keeps getting hybrid messages, whatever else imported the twin.
    """
    name = full_name(cls)  # a deferred class stays uncompiled
    if cls.__module__.endswith(TWIN_SUFFIX):
        from .message import protoopaque_selected  # at call time: message imports this module

        if not protoopaque_selected():
            _registry.setdefault(name, cls)
            return
    _registry[name] = cls


def register_module(module: ModuleType) -> None:
    """Register every message class (nested ones too) defined in a generated module."""
    def walk(owner: object) -> None:
        for value in list(getattr(owner, "__dict__").values()):  # vars(): a dict to mypyc, not a mappingproxy
            if isinstance(value, type) and isinstance(getattr(value, "_pb_info", None), MessageInfo) \
                    and value.__module__ == module.__name__:
                register_message_class(value)
                walk(value)
    walk(module)


def _load_wkts() -> None:
    global _wkt_loaded
    if _wkt_loaded:
        return
    _wkt_loaded = True
    base = __name__.rpartition(".")[0] + ".google.protobuf."
    for name in WKT_MODULES:
        try:
            module = importlib.import_module(base + name + "_pb")
        except ImportError:  # pragma: no cover - the runtime ships them
            continue
        module = sys.modules.get(base + name + "_pb", module)
        for value in list(vars(module).values()):
            if isinstance(value, type) and isinstance(getattr(value, "_pb_info", None), MessageInfo):
                _registry.setdefault(message_info(value).full_name, value)


def _reachable(root: type) -> dict[str, type]:
    """Every message class reachable from ``root`` through fields and known extensions."""
    found = _reachable_cache.get(root)
    if found is not None:
        return found
    found = {}
    todo = [root]
    while todo:
        cls = todo.pop()
        info: MessageInfo | None = getattr(cls, "_pb_info", None)
        if info is None or info.full_name in found:
            continue
        found[info.full_name] = cls
        fields = list(info.fields) + [ext.field for ext in info.extensions.values()]
        for field in fields:
            for sub in (field, field.map_value):
                if sub is not None and sub.message_type is not None:
                    todo.append(sub.message_type)
    _reachable_cache[root] = found
    return found


def find_message_class(full_name: str, root: type | None = None) -> type | None:
    """Return the class of ``full_name``: reachable from ``root``, registered, or a WKT."""
    if root is not None:
        cls = _reachable(root).get(full_name)
        if cls is not None:
            return cls
    cls = _registry.get(full_name)
    if cls is None and not _wkt_loaded:
        _load_wkts()
        cls = _registry.get(full_name)
    return cls


def register_messages(*classes: type[Message]) -> None:
    """Make a module's message classes known by full name (Any, JSON and text resolve them)."""
    for cls in classes:
        register_message_class(cls)


def nest_class(outer: type, cls: type, qualname: str) -> None:
    """Attach ``cls`` (defined at module level) to ``outer`` as its nested class ``qualname``.

    Generated modules define nested types at module level, as mypyc compiles no class
    statement in a class body; names, pickling and repr stay those of a nested class.
    """
    name = qualname.rpartition(".")[2]
    setattr(outer, name, cls)
    setattr(cls, "__name__", name)
    setattr(cls, "__qualname__", qualname)


def register_extension(ext: ExtensionInfo) -> None:
    """Make the extendee's parser decode ``ext`` (called by the module declaring it)."""
    info: MessageInfo = ext.extendee._pb_info  # type: ignore[attr-defined]
    info.extensions[ext.field.number] = ext
