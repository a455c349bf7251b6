"""``--from pb2``: code using the official runtime's ``*_pb2`` modules → our modules and API.

The official semantics are kept: a read of an unset field gives its default (``get_x()``;
for a sub-message ``get("sub")``, a new default instance), a write through a sub-message
creates it (``mutable("sub")``). The rewritten code runs on hybrid and opaque modules.
docs/migration.md has the whole table.
"""

from __future__ import annotations

import enum
from types import ModuleType
from typing import Any

import libcst as cst
from libcst.metadata import ExpressionContext, ScopeProvider

from .infer import dotted, string_argument
from .rewrite import Rewriter, call, keyword_arg, parenthesized, pure, singular_message
from .schema import is_message_class
from .sites import Level

__all__ = ["Pb2Rewriter"]

# The well-known types' readers: (full name, official) → (ours, arguments when none are given).
WKT_READERS = {
    ("google.protobuf.Timestamp", "ToDatetime"): ("to_datetime", ("None",)),  # naive UTC, as the official
    ("google.protobuf.Timestamp", "ToNanoseconds"): ("to_nanoseconds", ()),
    ("google.protobuf.Duration", "ToTimedelta"): ("to_timedelta", ()),
    ("google.protobuf.Duration", "ToNanoseconds"): ("to_nanoseconds", ()),
    ("google.protobuf.Any", "TypeName"): ("type_name", ()),
}
# ... and in-place setters: (full name, official) → our class method making the new value.
WKT_SETTERS = {
    ("google.protobuf.Timestamp", "GetCurrentTime"): "now",
    ("google.protobuf.Timestamp", "FromDatetime"): "from_datetime",
    ("google.protobuf.Timestamp", "FromNanoseconds"): "from_nanoseconds",
    ("google.protobuf.Duration", "FromTimedelta"): "from_timedelta",
    ("google.protobuf.Duration", "FromNanoseconds"): "from_nanoseconds",
    ("google.protobuf.Any", "Pack"): "pack",
}
# Official methods with an equivalent of the same arguments: (ours, extra keyword arguments).
RENAMED = {
    "SerializeToString": ("serialize", ()),
    "SerializePartialToString": ("serialize", (("partial", "True"),)),
    "CopyFrom": ("copy_from", ()),
    "MergeFrom": ("merge_from", ()),
    "Clear": ("clear", ()),
    "ByteSize": ("byte_size", ()),
    "IsInitialized": ("is_initialized", ()),
    "FindInitializationErrors": ("find_initialization_errors", ()),
    "DiscardUnknownFields": ("discard_unknown_fields", ()),
    "HasExtension": ("has_extension", ()),
    "ClearExtension": ("clear_extension", ()),
}
# ... whose official result (a byte count, the message) we do not return: statements only.
IN_PLACE = {"ParseFromString": "parse_from_bytes", "MergeFromString": "merge_from_bytes"}
# By field or oneof name: a literal name becomes the typed accessor, another the generic method.
BY_NAME = {"HasField": ("has_", "has"), "ClearField": ("clear_", "clear"), "WhichOneof": ("which_", "which")}
# What makes a sub-message of the official runtime present when called through it.
MUTATORS = frozenset({"CopyFrom", "MergeFrom", "MergeFromString", "ParseFromString", "SetInParent",
                      "append", "extend", "insert", "add", "remove", "pop", "update", "setdefault"})
FORMAT_MODULES = frozenset({"json_format", "text_format"})
JSON_OPTIONS = frozenset({"preserving_proto_field_name", "always_print_fields_with_no_presence",
                          "indent"})
MODULE_FUNCTIONS = {
    "google.protobuf.json_format.MessageToJson": ("to_json", JSON_OPTIONS),
    "google.protobuf.json_format.MessageToDict": ("to_dict", JSON_OPTIONS - {"indent"}),
    "google.protobuf.text_format.MessageToString": ("to_text", frozenset({"as_one_line",
                                                                          "print_unknown_fields"})),
}
PARSE_FUNCTIONS = {
    "google.protobuf.json_format.Parse": ("from_json", frozenset({"ignore_unknown_fields"})),
    "google.protobuf.json_format.ParseDict": ("from_dict", frozenset({"ignore_unknown_fields"})),
    "google.protobuf.text_format.Parse": ("from_text", frozenset()),
}


def _name_arg(node: cst.Call) -> cst.BaseExpression:
    return node.args[0].value


class Pb2Rewriter(Rewriter):
    """The rules of ``--from pb2``."""

    whole_file = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # x = m.r.add(...) statements, and the m.get_r() their element is appended to
        self._adds: dict[cst.CSTNode, cst.BaseExpression] = {}

    def finish(self, module: cst.Module) -> cst.Module:
        return drop_unused_format_imports(module)

    # -- imports: x_pb2 → x_pb ---------------------------------------------------------

    def _ours(self, module: str) -> str | None:
        ours = self.schema.module_name(module)
        if ours is None or self.schema.module(module) is None:
            return None
        return ours

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        names = []
        for alias in updated_node.names:
            module = dotted(alias.name)
            ours = None if module is None else self._ours(module)
            if ours is not None and module is not None:
                if alias.asname is None and ours.rpartition(".")[0] != module.rpartition(".")[0]:
                    self.refuse(original_node, "import", f"import {module}: uses of it need {ours}")
                elif self.decide(original_node, Level.GREEN, "import", f"{module} → {ours}"):
                    alias = alias.with_changes(name=cst.parse_expression(ours))
            names.append(alias)
        return updated_node.with_changes(names=names)

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
                         ) -> cst.ImportFrom:
        if updated_node.module is None or isinstance(updated_node.names, cst.ImportStar) or updated_node.relative:
            return updated_node
        module = dotted(updated_node.module)
        if module is None:
            return updated_node
        ours = self._ours(module)
        if ours is not None:  # from x_pb2 import M
            if not self.decide(original_node, Level.GREEN, "import", f"{module} → {ours}"):
                return updated_node
            return updated_node.with_changes(module=cst.parse_expression(ours))
        renamed: list[tuple[cst.ImportAlias, str]] = []  # from pkg import x_pb2, y_pb2
        for alias in updated_node.names:
            name = dotted(alias.name)
            renamed.append((alias, (None if name is None else self._ours(f"{module}.{name}")) or ""))
        packages = {ours.rpartition(".")[0] for _, ours in renamed if ours}
        if not packages:
            return updated_node
        if len(packages) > 1 or (packages != {module} and not all(ours for _, ours in renamed)):
            self.refuse(original_node, "import", f"import the modules of {module} one by one: their "
                                                 f"equivalents live in {', '.join(sorted(packages))}")
            return updated_node
        if not self.decide(original_node, Level.GREEN, "import", f"{module} → {packages.pop()}"):
            return updated_node
        package = {ours.rpartition(".")[0] for _, ours in renamed if ours}.pop()
        return updated_node.with_changes(
            module=cst.parse_expression(package),
            names=[alias.with_changes(name=cst.Name(ours.rpartition(".")[2])) if ours else alias
                   for alias, ours in renamed])

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        """A module bound by ``from pkg import x_pb2`` is now ``x_pb``: so are its uses."""
        if (not original_node.value.endswith("_pb2") or self.only_todo is not None
                or self._in_import(original_node)):
            return updated_node
        parent = self.parent(original_node)
        if isinstance(parent, cst.Attribute) and parent.attr is original_node:
            return updated_node  # pkg.x_pb2: leave_Attribute
        scope = self.infer.scopes.get(original_node)
        if scope is None:
            return updated_node
        if any(self._ours(q.name) is not None for q in scope.get_qualified_names_for(original_node)):
            return updated_node.with_changes(value=original_node.value[:-1])
        return updated_node

    def _in_import(self, node: cst.CSTNode) -> bool:
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(current, cst.BaseStatement):
            if isinstance(current, (cst.Import, cst.ImportFrom)):
                return True
            current = self.parent(current)
        return False

    def _module_ref(self, node: cst.Attribute) -> bool:
        """``pkg.x_pb2`` used as an expression (after ``import pkg.x_pb2``)."""
        name = dotted(node)
        return name is not None and self.context(node) is ExpressionContext.LOAD and self._ours(name) is not None

    # -- method calls ------------------------------------------------------------------

    def _uses_result(self, node: cst.Call) -> bool:
        return not isinstance(self.parent(node), cst.Expr)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        rewritten = self._module_function(original_node, updated_node) or self._enum_call(original_node, updated_node)
        if rewritten is not None:
            return rewritten
        builtin = self.dynamic_access(original_node)
        if builtin is not None:
            if builtin != "getattr" or len(original_node.args) != 2:
                self.refuse(original_node, "dynamic-access", f"{builtin}() of a field: by name there are "
                                                             "m.get(name), m.has(name), m.clear(name)")
                return updated_node
            if not self.decide(original_node, Level.GREEN, "by-name", "getattr(m, name) → m.get(name)"):
                return updated_node
            return call(updated_node.args[0].value, "get", updated_node.args[1].value)
        if not isinstance(func, cst.Attribute) or not isinstance(updated_node.func, cst.Attribute):
            return updated_node
        method = func.attr.value
        receiver = updated_node.func.value
        if method == "FromString" and self.infer.class_ref(func.value) is not None:
            if self.decide(original_node, Level.GREEN, "parse", "FromString → parse"):
                return updated_node.with_changes(func=updated_node.func.with_changes(attr=cst.Name("parse")))
            return updated_node
        owner = self.infer.instance(func.value)
        if not isinstance(owner, type):
            return self._container_call(original_node, updated_node)
        if self.was_left(func.value):
            return updated_node
        if method in RENAMED:
            ours, extra = RENAMED[method]
            if not self.decide(original_node, Level.GREEN, "method", f"{method} → {ours}"):
                return updated_node
            args = [*updated_node.args, *(keyword_arg(k, cst.parse_expression(v)) for k, v in extra)]
            return updated_node.with_changes(func=updated_node.func.with_changes(attr=cst.Name(ours)),
                                             args=_commas(args))
        if method in IN_PLACE:
            if self._uses_result(original_node):
                self.refuse(original_node, "result-used", f"{method}'s result (a byte count) is used")
                return updated_node
            if not self.decide(original_node, Level.GREEN, "method", f"{method} → {IN_PLACE[method]}"):
                return updated_node
            return updated_node.with_changes(func=updated_node.func.with_changes(attr=cst.Name(IN_PLACE[method])))
        if method in BY_NAME and len(original_node.args) == 1:
            return self._by_name(original_node, updated_node, owner, method, receiver)
        if method == "SetInParent" and isinstance(func.value, cst.Attribute):
            if self.decide(original_node, Level.GREEN, "method", "SetInParent: mutable() sets it"):
                return receiver  # the receiver became m.mutable("sub")
            return updated_node
        if method == "ListFields":
            if self.decide(original_node, Level.YELLOW, "list-fields",
                           "pairs of (FieldInfo, value): .name and .number as a descriptor's, not the rest"):
                return cst.Call(func=cst.Name("list"), args=[cst.Arg(call(receiver, "iter_set_fields"))])
            return updated_node
        wkt = self._wkt_call(original_node, updated_node, owner, method, receiver)
        if wkt is not None:
            return wkt
        if method[:1].isupper():
            self.refuse(original_node, "no-equivalent", f"{method}() has no equivalent here (see docs/migration.md)")
        return updated_node

    def _wkt_call(self, original_node: cst.Call, updated_node: cst.Call, owner: type, method: str,
                  receiver: cst.BaseExpression) -> cst.BaseExpression | None:
        """The well-known types' helpers: conversions keep their meaning; the official in-place
        setters (``FromDatetime``, ``GetCurrentTime``, ``Pack``) copy a new message in."""
        full_name = self.schema.info(owner).full_name
        args = [a.value for a in updated_node.args]
        if ((full_name, method) in WKT_READERS and len(args) <= 1
                and not any(a.keyword for a in updated_node.args)):
            ours, default = WKT_READERS[full_name, method]
            if not self.decide(original_node, Level.GREEN, "well-known", f"{method} → {ours}"):
                return updated_node
            return call(receiver, ours, *(args or [cst.parse_expression(e) for e in default]))
        if (full_name, method) in WKT_SETTERS:
            if self._uses_result(original_node):
                return None
            ours = WKT_SETTERS[full_name, method]
            assert isinstance(original_node.func, cst.Attribute)
            level = Level.GREEN if pure(original_node.func.value) else Level.YELLOW
            if not self.decide(original_node, level, "well-known",
                               f"{method} → copy_from(type(x).{ours}(...)): a new value copied in"):
                return updated_node
            made = call(cst.Call(func=cst.Name("type"), args=[cst.Arg(receiver)]), ours, *args)
            return call(receiver, "copy_from", made)
        if full_name == "google.protobuf.Any" and method == "Is" and len(args) == 1:
            target = original_node.args[0].value
            if not (isinstance(target, cst.Attribute) and target.attr.value == "DESCRIPTOR"
                    and self.infer.class_ref(target.value) is not None):
                return None
            if not self.decide(original_node, Level.GREEN, "well-known", "Is(M.DESCRIPTOR) → is_(M)"):
                return updated_node
            assert isinstance(args[0], cst.Attribute)
            return call(receiver, "is_", args[0].value)
        return None

    def _by_name(self, original_node: cst.Call, updated_node: cst.Call, owner: type, method: str,
                 receiver: cst.BaseExpression) -> cst.BaseExpression:
        prefix, generic = BY_NAME[method]
        name = string_argument(original_node)
        if name is None:
            if not self.decide(original_node, Level.GREEN, "by-name", f"{method}(name) → {generic}(name)"):
                return updated_node
            return call(receiver, generic, _name_arg(updated_node))
        info = self.schema.info(owner)
        known = name in info.by_name or any(o.name == name for o in info.oneofs)
        accessor = self.schema.accessor(owner, prefix, name) if known else None
        if accessor is None:
            self.refuse(original_node, "no-accessor", f"{info.full_name} has no {prefix}{name}()")
            return updated_node
        if not self.decide(original_node, Level.GREEN, "by-name", f'{method}("{name}") → {accessor}()'):
            return updated_node
        return call(receiver, accessor)

    def _container_call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        """``m.r.add(**kw)`` and ``m.r.append(x)`` on a repeated message field."""
        func = original_node.func
        assert isinstance(func, cst.Attribute) and isinstance(updated_node.func, cst.Attribute)
        field = self.infer.container(func.value)
        if field is None or field.is_map or field.message_type is None or self.was_left(func.value):
            return updated_node
        method = func.attr.value
        if method == "add":
            element = self.class_expr(field.message_type)
            if element is None:
                self.refuse(original_node, "add", f"{field.message_type.__qualname__} is not imported here")
                return updated_node
            statement = self._add_statement(original_node)
            if self._uses_result(original_node) and statement is None:
                self.refuse(original_node, "add", "add()'s result is used: x = Cls(...); m.get_r().append(x)")
                return updated_node
            owner = self.infer.instance(func.value.value) if isinstance(func.value, cst.Attribute) else None
            getter = (self.method(original_node, owner, "get_", field)
                      if isinstance(owner, type) and isinstance(updated_node.func.value, cst.Attribute) else None)
            if getter is None or not self.decide(original_node, Level.GREEN, "add", "add(**kw) → append(Cls(**kw))"):
                return updated_node
            assert isinstance(updated_node.func.value, cst.Attribute)
            receiver = call(updated_node.func.value.value, getter)
            new = cst.Call(func=element, args=updated_node.args)
            if statement is not None:  # x = Cls(**kw), then the append (leave_SimpleStatementLine)
                self._adds[statement] = receiver
                return new
            return call(receiver, "append", new)
        if method in ("append", "insert", "extend") and updated_node.args:
            value = original_node.args[-1].value
            fresh = self._new_messages(value, many=method == "extend")
            if not fresh and not self.decide(original_node, Level.YELLOW, "append-keeps",
                                             f"{method} keeps the element where the official runtime copied it"):
                self.left.add(original_node)
        return updated_node

    def _add_statement(self, node: cst.Call) -> cst.Assign | None:
        """The statement ``x = m.r.add(...)`` alone on its line, when ``node`` is its value."""
        parent = self.parent(node)
        if (isinstance(parent, cst.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0].target, cst.Name)):
            line = self.parent(parent)
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                return parent
        return None

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine
                                  ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.BaseStatement]:
        receiver = self._adds.get(original_node.body[0]) if len(original_node.body) == 1 else None
        assign = updated_node.body[0]
        if receiver is None or not isinstance(assign, cst.Assign):
            return updated_node
        append = cst.SimpleStatementLine(body=[cst.Expr(call(receiver, "append", assign.targets[0].target))])
        return cst.FlattenSentinel([updated_node, append])

    def _new_messages(self, node: cst.BaseExpression, many: bool) -> bool:
        """A constructor call (``many``: a list or tuple display of them): nothing else holds it."""
        if many:
            return isinstance(node, (cst.List, cst.Tuple)) and all(
                self._new_messages(e.value, False) for e in node.elements)
        return isinstance(node, cst.Call) and self.infer.class_ref(node.func) is not None

    def class_expr(self, cls: type) -> cst.BaseExpression | None:
        """An expression naming ``cls`` in this file, through the names it imports."""
        module = cls.__module__
        for name, target in self._bindings().items():
            if target == module:
                return cst.parse_expression(f"{name}.{cls.__qualname__}")
            if target == f"{module}.{cls.__qualname__.split('.')[0]}":
                return cst.parse_expression(".".join([name, *cls.__qualname__.split(".")[1:]]))
        return None

    def _bindings(self) -> dict[str, str]:
        """Names this module binds at its top, and the (our) dotted names they stand for."""
        found: dict[str, str] = {}
        for scope in self.infer.scopes.values():
            if scope is None:
                continue
            globals_ = scope.globals
            for assignment in globals_.assignments:
                # the name as the rewritten file spells it (x_pb2 modules renamed)
                spelled = ".".join(p[:-1] if p.endswith("_pb2") else p for p in assignment.name.split("."))
                for qualified in globals_.get_qualified_names_for(assignment.name):
                    parts = qualified.name.split(".")
                    for i in range(len(parts), 0, -1):
                        ours = self.schema.module_name(".".join(parts[:i]))
                        if ours is not None:
                            found[spelled] = ".".join([ours, *parts[i:]])
                            break
            return found
        return found

    # -- module functions: json_format, text_format --------------------------------------

    def _module_function(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression | None:
        scope = self.infer.scopes.get(original_node.func)
        name = dotted(original_node.func)
        if scope is None or name is None:
            return None
        qualified = {q.name for q in scope.get_qualified_names_for(name)}
        for function, (ours, allowed) in MODULE_FUNCTIONS.items():
            if function in qualified:
                return self._printer(original_node, updated_node, function, ours, allowed)
        for function, (ours, allowed) in PARSE_FUNCTIONS.items():
            if function in qualified:
                return self._parser(original_node, updated_node, function, ours, allowed)
        return None

    def _printer(self, original_node: cst.Call, updated_node: cst.Call, function: str, ours: str,
                 allowed: frozenset[str]) -> cst.BaseExpression:
        args = updated_node.args
        short = function.rpartition(".")[2]
        if not args or args[0].keyword is not None or not isinstance(self.infer.instance(original_node.args[0].value), type):
            return updated_node
        options = [a for a in args[1:]]
        if any(a.keyword is None or a.keyword.value not in allowed for a in options):
            self.refuse(original_node, "options", f"{short}: only the options {', '.join(sorted(allowed))} "
                                                  "have an equivalent")
            return updated_node
        if ours == "to_json" and not any(a.keyword and a.keyword.value == "indent" for a in options):
            options.append(cst.Arg(cst.Integer("2"), keyword=cst.Name("indent")))  # json_format's default
        level = Level.YELLOW if ours in ("to_json", "to_text") else Level.GREEN
        if not self.decide(original_node, level, "format",
                           f"{short} → {ours}" + (": spacing and escapes may differ" if level is Level.YELLOW
                                                  else "")):
            return updated_node
        return cst.Call(func=cst.Attribute(value=parenthesized(args[0].value), attr=cst.Name(ours)),
                        args=_commas([a.with_changes(equal=cst.AssignEqual(
                            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
                            for a in options]))

    def _parser(self, original_node: cst.Call, updated_node: cst.Call, function: str, ours: str,
                allowed: frozenset[str]) -> cst.BaseExpression:
        args = updated_node.args
        short = function.rpartition(".")[2]
        if len(args) < 2 or any(a.keyword is not None for a in args[:2]):
            return updated_node
        target = original_node.args[1].value
        cls = self.infer.class_ref(target.func) if isinstance(target, cst.Call) else None
        if cls is None or (isinstance(target, cst.Call) and target.args):
            if isinstance(self.infer.instance(target), type):
                self.refuse(original_node, "parse-into", f"{short} merges into an existing message: "
                                                         f"m.copy_from(Cls.{ours}(...)) replaces it")
            return updated_node
        options = args[2:]
        if any(a.keyword is None or a.keyword.value not in allowed for a in options):
            self.refuse(original_node, "options", f"{short}: only {', '.join(sorted(allowed)) or 'no options'} "
                                                  "have an equivalent")
            return updated_node
        if not self.decide(original_node, Level.GREEN, "format", f"{short}(text, Cls()) → Cls.{ours}(text)"):
            return updated_node
        assert isinstance(target, cst.Call) and isinstance(args[1].value, cst.Call)
        return cst.Call(func=cst.Attribute(value=args[1].value.func, attr=cst.Name(ours)),
                        args=_commas([args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT), *options]))

    # -- attributes: official read and write semantics ---------------------------------

    def _mutated_through(self, node: cst.Attribute) -> bool:
        """``m.sub`` whose chain ends in a write: a store, a mutator call, a container change."""
        parent = self.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            if self.context(parent) in (ExpressionContext.STORE, ExpressionContext.DEL):
                return True
            grand = self.parent(parent)
            if isinstance(grand, cst.AugAssign) and grand.target is parent:
                return True
            if isinstance(grand, cst.Call) and grand.func is parent:
                return parent.attr.value in MUTATORS
            found = self.field_of(parent)
            if found is not None and (singular_message(found[1]) or found[1].repeated or found[1].is_map):
                return self._mutated_through(parent)
            return False
        if isinstance(parent, cst.Subscript) and parent.value is node:
            return self.context(parent) in (ExpressionContext.STORE, ExpressionContext.DEL)
        return False

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute
                        ) -> cst.BaseExpression:
        if not self.is_read(original_node):
            return updated_node
        parent = self.parent(original_node)
        if self._module_ref(original_node):  # pkg.x_pb2 → pkg.x_pb
            if self.only_todo is not None:
                return updated_node
            return updated_node.with_changes(attr=cst.Name(original_node.attr.value[:-1]))
        enum_value = self._enum_value(original_node, updated_node)
        if enum_value is not None:
            return enum_value
        found = self.unblocked_field(original_node)
        if found is None:
            return updated_node
        cls, field = found
        if field.repeated and isinstance(parent, cst.Attribute) and parent.attr.value == "add" \
                and isinstance(self.parent(parent), cst.Call):
            return updated_node  # m.r.add(...): _container_call
        receiver = updated_node.value
        name = cst.SimpleString(f'"{field.name}"')
        if singular_message(field):
            dereferenced = isinstance(parent, cst.Attribute) and parent.value is original_node
            if self._mutated_through(original_node):
                if not self.decide(original_node, Level.GREEN, "auto-create",
                                   f'mutable("{field.name}") creates {field.name} as the official write does'):
                    return updated_node
                return call(receiver, "mutable", name)
            level = Level.GREEN if dereferenced else Level.RED
            detail = (f'get("{field.name}") reads a default instance when unset, as the official runtime'
                      if dereferenced else
                      f'get("{field.name}") is a detached default when unset: writes to it no longer set '
                      f'{field.name} (mutable("{field.name}") does)')
            if not self.decide(original_node, level, "get" if dereferenced else "sub-message-alias", detail):
                return updated_node
            return call(receiver, "get", name)
        if field.is_map and isinstance(parent, cst.Subscript) and self.context(parent) is ExpressionContext.LOAD:
            if isinstance(self.parent(parent), cst.Attribute) and self._mutated_through_subscript(parent):
                self.refuse(original_node, "map-auto-insert",
                            "writing through a missing map key inserts it in the official runtime: "
                            "get_x().setdefault(k, V())")
                return updated_node
            level, reason = Level.YELLOW, "map-read-insert"
            detail = "a missing key raises KeyError where the official read inserted it"
        else:
            level, reason, detail = Level.GREEN, "get", f"read of {field.name}"
        getter = self.method(original_node, cls, "get_", field)
        if getter is None or not self.decide(original_node, level, reason, detail):
            return updated_node
        return call(receiver, getter)

    def _resolved(self, node: cst.BaseExpression) -> object | None:
        """What a name in our modules that ``node`` spells denotes (a module, class or enum)."""
        scope = self.infer.scopes.get(node)
        name = dotted(node)
        if scope is None or name is None:
            return None
        for qualified in scope.get_qualified_names_for(name):
            found = self.schema.resolve(qualified.name)
            if found is not None:
                return found
        return None

    def _enum_value(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression | None:
        """``M.VALUE``, ``x_pb2.VALUE``: the official runtime puts the values of an enum on the
        class or module that holds it; ours are members of the enum class: ``M.Enum.VALUE``."""
        owner = self._resolved(original_node.value)
        name = original_node.attr.value
        if not (is_message_class(owner) or isinstance(owner, ModuleType)) or hasattr(owner, name):
            return None
        for enum_name, value in vars(owner).items():
            if (not enum_name.startswith("_") and isinstance(value, type) and issubclass(value, enum.IntEnum)
                    and name in value.__members__):
                if not self.decide(original_node, Level.GREEN, "enum-value", f"{name} → {enum_name}.{name}"):
                    return None
                return updated_node.with_changes(
                    value=cst.Attribute(value=updated_node.value, attr=cst.Name(enum_name)))
        return None

    def _enum_call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression | None:
        """``E.Name(v)`` → ``E(v).name``; ``E.Value("X")`` → ``E["X"]`` (KeyError, not ValueError)."""
        func = original_node.func
        if (not isinstance(func, cst.Attribute) or func.attr.value not in ("Name", "Value")
                or len(original_node.args) != 1 or not isinstance(updated_node.func, cst.Attribute)):
            return None
        found = self._resolved(func.value)
        if not (isinstance(found, type) and issubclass(found, enum.IntEnum)):
            return None
        enum_class = updated_node.func.value
        argument = updated_node.args[0].value
        if func.attr.value == "Name":
            if not self.decide(original_node, Level.GREEN, "enum-name", "E.Name(v) → E(v).name"):
                return updated_node
            return cst.Attribute(value=cst.Call(func=enum_class, args=[cst.Arg(argument)]), attr=cst.Name("name"))
        if not self.decide(original_node, Level.YELLOW, "enum-value-of",
                           'E.Value("X") → E["X"]: an unknown name raises KeyError, not ValueError'):
            return updated_node
        return cst.Subscript(value=enum_class, slice=[cst.SubscriptElement(cst.Index(argument))])

    def _mutated_through_subscript(self, node: cst.Subscript) -> bool:
        parent = self.parent(node)
        return (isinstance(parent, cst.Attribute) and parent.value is node
                and self.context(parent) in (ExpressionContext.STORE, ExpressionContext.DEL))

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript
                        ) -> cst.BaseExpression:
        """``m.Extensions[e]`` read → ``m.get_extension(e)``."""
        value = original_node.value
        if (not isinstance(value, cst.Attribute) or value.attr.value != "Extensions"
                or self.context(original_node) is not ExpressionContext.LOAD
                or not isinstance(self.infer.instance(value.value), type) or len(original_node.slice) != 1):
            return updated_node
        index = updated_node.slice[0].slice
        assert isinstance(updated_node.value, cst.Attribute)
        if not isinstance(index, cst.Index) or not self.decide(original_node, Level.GREEN, "extension",
                                                               "Extensions[e] → get_extension(e)"):
            return updated_node
        return call(updated_node.value.value, "get_extension", index.value)

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.BaseSmallStatement:
        if len(original_node.targets) != 1:
            return updated_node
        target = original_node.targets[0].target
        new_target = updated_node.targets[0].target
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Attribute) \
                and target.value.attr.value == "Extensions" \
                and isinstance(self.infer.instance(target.value.value), type):
            assert isinstance(new_target, cst.Subscript) and isinstance(new_target.value, cst.Attribute)
            index = new_target.slice[0].slice
            if not isinstance(index, cst.Index) or not self.decide(
                    original_node, Level.GREEN, "extension", "Extensions[e] = v → set_extension(e, v)"):
                return updated_node
            return cst.Expr(call(new_target.value.value, "set_extension", index.value, updated_node.value),
                            semicolon=updated_node.semicolon)
        found = self.field_of(target)
        if found is None or self.was_left(target):
            return updated_node
        assert isinstance(target, cst.Attribute) and isinstance(new_target, cst.Attribute)
        if self.was_left(target.value):
            return updated_node
        cls, field = found
        if field.message_type is not None or field.repeated:
            self.refuse(original_node, "assign-composite",
                        f"the official runtime refuses to assign {field.name}: set_{field.name}() would")
            return updated_node
        setter = self.method(original_node, cls, "set_", field)
        if setter is None or not self.decide(original_node, Level.GREEN, "set", f"write of {field.name}"):
            return updated_node
        return cst.Expr(call(new_target.value, setter, updated_node.value), semicolon=updated_node.semicolon)

    def leave_AugAssign(self, original_node: cst.AugAssign, updated_node: cst.AugAssign
                        ) -> cst.BaseSmallStatement:
        found = self.field_of(original_node.target)
        target = original_node.target
        if found is None or not isinstance(target, cst.Attribute) or self.was_left(target.value):
            return updated_node
        cls, field = found
        if field.repeated or field.is_map:
            return updated_node
        receiver = updated_node.target
        assert isinstance(receiver, cst.Attribute)
        getter = self.method(original_node, cls, "get_", field)
        setter = self.method(original_node, cls, "set_", field)
        if getter is None or setter is None:
            return updated_node
        level, reason = (Level.GREEN, "augmented") if pure(target.value) or isinstance(
            receiver.value, cst.Call) else (Level.YELLOW, "eval-order")
        op = type(original_node.operator).__name__.removesuffix("Assign")
        if not self.decide(original_node, level, reason, f"{op} on {field.name}"):
            return updated_node
        value = cst.BinaryOperation(left=call(receiver.value, getter), operator=getattr(cst, op)(),
                                    right=parenthesized(updated_node.value))
        return cst.Expr(call(receiver.value, setter, value), semicolon=updated_node.semicolon)


class _UnusedFormatImports(cst.CSTTransformer):
    """Drops ``json_format`` / ``text_format`` imports that no rewritten line uses any more."""

    METADATA_DEPENDENCIES = (ScopeProvider,)

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
                         ) -> cst.ImportFrom | cst.RemovalSentinel:
        if (updated_node.module is None or dotted(updated_node.module) != "google.protobuf"
                or isinstance(updated_node.names, cst.ImportStar)):
            return updated_node
        scope = self.get_metadata(ScopeProvider, original_node)
        keep = []
        for alias in updated_node.names:
            bound = alias.evaluated_alias or alias.evaluated_name
            if alias.evaluated_name in FORMAT_MODULES and scope is not None and not any(
                    a.references for a in scope.assignments[bound]):
                continue
            keep.append(alias)
        if not keep:
            return cst.RemoveFromParent()
        if len(keep) == len(updated_node.names):
            return updated_node
        return updated_node.with_changes(names=[*keep[:-1], keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])


def drop_unused_format_imports(module: cst.Module) -> cst.Module:
    """``module`` without the json_format/text_format imports its rewrites made unused."""
    return cst.MetadataWrapper(module).visit(_UnusedFormatImports())


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """Arguments separated by ", " (the last without a comma)."""
    out = []
    for i, arg in enumerate(args):
        comma = (cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1
                 else cst.MaybeSentinel.DEFAULT)
        out.append(arg.with_changes(comma=comma))
    return out

