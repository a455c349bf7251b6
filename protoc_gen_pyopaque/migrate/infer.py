"""Which expressions are messages: imports, annotations, constructors, parse results, local flow.

No guessing: an expression is a message of class C only when every way its value can
arrive says C. A local name assigned a message on one path and something unknown on
another is *ambiguous*; uses of it are reported, never rewritten.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst
from libcst.metadata import Assignment, ParentNodeProvider, Scope, ScopeProvider

from ..runtime.reflect import FieldInfo
from .schema import Schema

__all__ = ["Inference", "Ambiguous", "CONSTRUCTORS"]

# Class methods that return an instance of their class (ours, and the official runtime's).
CONSTRUCTORS = frozenset({"parse", "from_json", "from_dict", "from_text", "FromString"})
# Functions that return a message of their argument's class.
COPIES = frozenset({"copy.copy", "copy.deepcopy"})
# The official runtime's functions that parse into their second argument and return it.
PARSED_INTO = frozenset({"google.protobuf.json_format.Parse", "google.protobuf.json_format.ParseDict",
                         "google.protobuf.text_format.Parse", "google.protobuf.text_format.Merge"})


class Ambiguous:
    """A value that is a message of some class on some paths only."""

    def __init__(self, classes: frozenset[type]) -> None:
        self.classes = classes


Kind = type | Ambiguous | None


def is_none(node: cst.BaseExpression) -> bool:
    """Say whether ``node`` is the literal None."""
    return isinstance(node, cst.Name) and node.value == "None"


def string_argument(node: cst.Call) -> str | None:
    """The value of a call's one argument when it is a plain string literal."""
    if len(node.args) == 1 and isinstance(node.args[0].value, cst.SimpleString) and not node.args[0].keyword:
        value = node.args[0].value.evaluated_value
        return value if isinstance(value, str) else None
    return None


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


class Inference:
    """Answers "which message class is this expression?" over one module's metadata."""

    def __init__(self, schema: Schema, scopes: Mapping[cst.CSTNode, Scope | None],
                 parents: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        self.schema = schema
        self.scopes = scopes
        self.parents = parents
        self._names: dict[cst.Name, Kind] = {}
        self._active: set[cst.CSTNode] = set()

    @classmethod
    def of(cls, schema: Schema, wrapper: cst.MetadataWrapper) -> Inference:
        """Resolve the metadata this inference needs on ``wrapper``."""
        return cls(schema, wrapper.resolve(ScopeProvider), wrapper.resolve(ParentNodeProvider))

    # -- classes --------------------------------------------------------------------

    def class_ref(self, node: cst.BaseExpression, scope_node: cst.CSTNode | None = None) -> type | None:
        """The message class ``node`` names (``Person``, ``addressbook_pb.Person.PhoneNumber``)."""
        name = dotted(node)
        scope = self.scopes.get(scope_node if scope_node is not None else node)
        if name is None or scope is None:
            return None
        found = {self.schema.message_class(q.name) for q in scope.get_qualified_names_for(name)}
        found.discard(None)
        return found.pop() if len(found) == 1 else None

    def annotation(self, node: cst.BaseExpression, scope_node: cst.CSTNode) -> type | None:
        """The message class of an annotation: ``P``, ``P | None``, ``Optional[P]``, ``"P"``."""
        if isinstance(node, cst.SimpleString):
            try:
                inner = cst.parse_expression(node.evaluated_value if isinstance(node.evaluated_value, str)
                                             else "")
            except cst.ParserSyntaxError:
                return None
            return self.annotation(inner, scope_node)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            sides = [s for s in (node.left, node.right) if not (isinstance(s, cst.Name) and s.value == "None")]
            return self.annotation(sides[0], scope_node) if len(sides) == 1 else None
        if isinstance(node, cst.Subscript) and dotted(node.value) in ("Optional", "typing.Optional", "_t.Optional"):
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
                return self.annotation(node.slice[0].slice.value, scope_node)
            return None
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self.class_ref(node, scope_node)
        return None

    # -- instances ------------------------------------------------------------------

    def instance(self, node: cst.BaseExpression) -> Kind:
        """The message class of the value of ``node``, Ambiguous, or None (not known a message)."""
        if node in self._active:  # x = f(x): a cycle says nothing
            return None
        self._active.add(node)
        try:
            return self._instance(node)
        finally:
            self._active.discard(node)

    def _instance(self, node: cst.BaseExpression) -> Kind:
        if isinstance(node, cst.Name):
            return self._name(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.Attribute):
            owner = self.instance(node.value)
            if isinstance(owner, type):
                field = self.schema.field(owner, node.attr.value)
                if field is not None and field.message_type is not None and not field.repeated and not field.is_map:
                    return field.message_type
            return None
        if isinstance(node, cst.Subscript):
            field = self.container(node.value)
            if field is None or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                return None
            if field.is_map:
                assert field.map_value is not None
                return field.map_value.message_type
            return field.message_type
        if isinstance(node, cst.NamedExpr):
            return self.instance(node.value)
        if isinstance(node, cst.IfExp):  # None on one side: an Optional message, still that class
            return _merge([self.instance(n) for n in (node.body, node.orelse) if not is_none(n)])
        return None

    def _call(self, node: cst.Call) -> Kind:
        func = node.func
        cls = self.class_ref(func)
        if cls is not None:
            return cls
        if isinstance(func, cst.Attribute):
            if func.attr.value in CONSTRUCTORS:
                return self.class_ref(func.value)
            if func.attr.value == "add":  # the official repeated.add(): a new element
                return self.element(func.value)
            owner = self.instance(func.value)
            if isinstance(owner, type):
                method = func.attr.value
                if method in ("get", "mutable"):  # m.get("sub"), m.mutable("sub")
                    name = string_argument(node)
                    field = None if name is None else self.schema.field_by_name(owner, name)
                else:
                    field = self.schema.field_of_accessor(owner, "get_", method)
                if (field is not None and field.message_type is not None and not field.repeated
                        and not field.is_map):
                    return field.message_type
                return None
        scope = self.scopes.get(func)
        name = dotted(func)
        if scope is not None and name is not None and node.args:
            qualified = {q.name for q in scope.get_qualified_names_for(name)}
            if qualified & COPIES and len(node.args) == 1:
                return self.instance(node.args[0].value)
            if qualified & PARSED_INTO and len(node.args) >= 2:
                return self.instance(node.args[1].value)
            if qualified == {"builtins.getattr"} and len(node.args) == 2:  # getattr(m, "sub")
                owner = self.instance(node.args[0].value)
                value = node.args[1].value
                literal = value.evaluated_value if isinstance(value, cst.SimpleString) else None
                field = (self.schema.field_by_name(owner, literal)
                         if isinstance(owner, type) and isinstance(literal, str) else None)
                if field is not None and field.message_type is not None and not field.repeated:
                    return field.message_type
        return None

    def container(self, node: cst.BaseExpression) -> FieldInfo | None:
        """The repeated or map field behind ``m.f`` or ``m.get_f()``, or None."""
        field: FieldInfo | None = None
        if isinstance(node, cst.Attribute):
            owner = self.instance(node.value)
            if isinstance(owner, type):
                field = self.schema.field(owner, node.attr.value)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and not node.args:
            owner = self.instance(node.func.value)
            method = node.func.attr.value
            if isinstance(owner, type):
                field = self.schema.field_of_accessor(owner, "get_", method)
        if field is None or not (field.repeated or field.is_map):
            return None
        return field

    def element(self, iterable: cst.BaseExpression) -> Kind:
        """The message class of the elements of a repeated message field (``for x in m.f``)."""
        field = self.container(iterable)
        if field is None or field.is_map:
            return None
        return field.message_type

    # -- names: every assignment that can reach a use --------------------------------

    def _name(self, node: cst.Name) -> Kind:
        if node in self._names:
            return self._names[node]
        scope = self.scopes.get(node)
        result: Kind = None
        if scope is not None and node in scope.accesses:
            kinds: list[Kind] = []
            for access in scope.accesses[node]:
                for referent in access.referents:
                    if not isinstance(referent, Assignment):
                        return None  # an import, a builtin, a class or function: not an instance
                    kinds.append(self._assigned(referent))
            result = _merge(kinds)
        self._names[node] = result
        return result

    def assigned_values(self, node: cst.Name) -> list[cst.BaseExpression]:
        """The expressions assigned (``x = v``, ``x := v``) to the local name ``node`` reads."""
        scope = self.scopes.get(node)
        if scope is None or node not in scope.accesses:
            return []
        values = []
        for access in scope.accesses[node]:
            for referent in access.referents:
                if isinstance(referent, Assignment):
                    parent = self.parents.get(referent.node)
                    if isinstance(parent, cst.AssignTarget):
                        statement = self.parents.get(parent)
                        if isinstance(statement, cst.Assign):
                            values.append(statement.value)
                    elif isinstance(parent, (cst.NamedExpr, cst.AnnAssign)) and parent.value is not None:
                        values.append(parent.value)
        return values

    def _assigned(self, assignment: Assignment) -> Kind:
        """What one assignment of a name gives it."""
        target = assignment.node
        if isinstance(target, cst.Param):
            if target.annotation is not None:
                return self.annotation(target.annotation.annotation, target)
            return None
        parent = self.parents.get(target)
        if isinstance(parent, cst.AssignTarget):
            statement = self.parents.get(parent)
            if isinstance(statement, cst.Assign):
                return self.instance(statement.value)
        elif isinstance(parent, cst.AnnAssign) and parent.target is target:
            return self.annotation(parent.annotation.annotation, parent)
        elif isinstance(parent, (cst.For, cst.CompFor)) and parent.target is target:
            return self.element(parent.iter)
        elif isinstance(parent, cst.NamedExpr) and parent.target is target:
            return self.instance(parent.value)
        return None


def _merge(kinds: list[Kind]) -> Kind:
    classes = {k for k in kinds if isinstance(k, type)}
    for k in kinds:
        if isinstance(k, Ambiguous):
            classes |= k.classes
    if not classes:
        return None
    if len(classes) == 1 and all(isinstance(k, type) for k in kinds):
        return classes.pop()
    return Ambiguous(frozenset(classes))
