"""What the migration knows about messages: it imports the generated modules themselves.

A qualified name such as ``example.addressbook_pb.Person.PhoneNumber`` is a message
class when its module part names a generated module (``*_pb``, ``*_protoopaque_pb``)
that defines it with a ``_pb_info`` table: the field kinds, presence, oneofs and
message types come from there, accessor names from the class. Only modules named
like generated ones are ever imported, so no user code runs.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from types import ModuleType

from ..runtime.reflect import FieldInfo, MessageInfo

__all__ = ["Schema", "import_generated", "is_message_class"]


def is_message_class(obj: object) -> bool:
    """Say whether ``obj`` is a generated message class."""
    return isinstance(obj, type) and isinstance(getattr(obj, "_pb_info", None), MessageInfo)


def import_generated(module: str) -> ModuleType | None:
    """Import a generated module, or return None when it is not importable."""
    try:
        return importlib.import_module(module)
    except Exception:  # noqa: BLE001 - a module that fails to import is not known
        return None


_OFFICIAL_WKT = "google.protobuf."
_OUR_WKT = "protoc_gen_pyopaque.runtime.google.protobuf."


def _generated_module_name(part: str) -> bool:
    return part.endswith("_pb")


class Schema:
    """Message classes by qualified name, and their fields and accessors.

    ``import_module`` is how modules are loaded (the command imports them with the
    user's path; tests may hand in a dictionary lookup). ``pb2=True`` maps the official
    runtime's ``x_pb2`` module names to the ``x_pb`` modules generated next to them.
    """

    def __init__(self, import_module: Callable[[str], ModuleType | None] = import_generated,
                 *, pb2: bool = False) -> None:
        self._import = import_module
        self._pb2 = pb2
        self._classes: dict[str, type | None] = {}
        self._modules: dict[str, ModuleType | None] = {}
        self.missing_modules: set[str] = set()

    def module_name(self, name: str) -> str | None:
        """Our module name for a module name as the user's code spells it, or None."""
        last = name.rpartition(".")[2]
        if self._pb2:
            if not last.endswith("_pb2"):
                return None
            if name.startswith(_OFFICIAL_WKT):  # the well-known types ship with our runtime
                return _OUR_WKT + name[len(_OFFICIAL_WKT):-1]
            return name[:-1]
        return name if _generated_module_name(last) else None

    def module(self, name: str) -> ModuleType | None:
        """The generated module behind ``name`` (in the user's spelling), or None."""
        ours = self.module_name(name)
        if ours is None:
            return None
        if ours not in self._modules:
            module = self._import(ours)
            self._modules[ours] = module
            if module is None:
                self.missing_modules.add(ours)
        return self._modules[ours]

    def message_class(self, qualified: str) -> type | None:
        """The message class a qualified name denotes, or None."""
        if qualified not in self._classes:
            obj = self.resolve(qualified)
            self._classes[qualified] = obj if is_message_class(obj) else None  # type: ignore[assignment]
        return self._classes[qualified]

    def resolve(self, qualified: str) -> object | None:
        """What a qualified name inside a generated module denotes (a class, an enum, a module)."""
        parts = qualified.split(".")
        for i in range(len(parts), 0, -1):
            module = self.module(".".join(parts[:i]))
            if module is None:
                continue
            obj: object = module
            for attr in parts[i:]:
                obj = getattr(obj, attr, None)
            return obj
        return None

    @staticmethod
    def info(cls: type) -> MessageInfo:
        """The field table of a message class."""
        info: MessageInfo = getattr(cls, "_pb_info")
        return info

    @staticmethod
    def field(cls: type, attr: str) -> FieldInfo | None:
        """The field whose Python attribute is ``attr`` (``class_`` for ``class``), or None."""
        for f in Schema.info(cls).fields:
            if f.attr == attr:
                return f
        return None

    @staticmethod
    def field_by_name(cls: type, name: str) -> FieldInfo | None:
        """The field whose .proto name is ``name``, or None."""
        return Schema.info(cls).by_name.get(name)

    @staticmethod
    def accessor(cls: type, prefix: str, name: str) -> str | None:
        """The generated method ``prefix + name`` (escaped with ``_`` as the generator does).

        The generator appends ``_`` to a name that is taken (by an earlier field's
        attribute or accessor, or the runtime's API), so the accessor is the first of
        ``get_x``, ``get_x_``, ... that is a method defined by the generated class itself.
        """
        wanted = prefix + name
        for _ in range(4):
            for klass in cls.__mro__:
                if not is_message_class(klass) or getattr(klass, "_pb_info") is not getattr(cls, "_pb_info"):
                    continue
                member = klass.__dict__.get(wanted)
                if member is not None and inspect.isroutine(member):
                    return wanted
            wanted += "_"
        return None

    @staticmethod
    def field_of_accessor(cls: type, prefix: str, method: str) -> FieldInfo | None:
        """The field whose accessor ``method`` is (``get_name`` → ``name``), or None."""
        if not method.startswith(prefix):
            return None
        stem = method[len(prefix):]
        for f in Schema.info(cls).fields:
            if stem.startswith(f.name) and Schema.accessor(cls, prefix, f.name) == method:
                return f
        return None

    @staticmethod
    def style(cls: type) -> str:
        """The API style of a message class: ``open``, ``hybrid`` or ``opaque``."""
        api: str = getattr(cls, "__pyopaque_api__", "")
        return api.partition(".")[0]
