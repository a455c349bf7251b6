"""The machinery every rewrite rule shares: sites, levels, TODO comments, node builders."""

from __future__ import annotations

from typing import TypeVar

import libcst as cst
from libcst.metadata import (
    ExpressionContext, ExpressionContextProvider, ParentNodeProvider, PositionProvider,
)

from ..runtime.reflect import FieldInfo
from .infer import Ambiguous, Inference, is_none
from .schema import Schema
from .sites import Level, Site

__all__ = ["Rewriter", "TODO_TAG", "call", "is_none", "fresh_container", "pure", "boolean_context",
           "parenthesized", "keep_parens", "singular_message",
           "keyword_arg"]

NodeT = TypeVar("NodeT", bound=cst.CSTNode)
DYNAMIC_ACCESS = frozenset({"getattr", "setattr", "hasattr", "delattr"})
TODO_TAG = "# TODO(pyopaque-migrate): "


def call(receiver: cst.BaseExpression, method: str, *args: cst.BaseExpression) -> cst.Call:
    """``receiver.method(args)``."""
    return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name(method)),
                    args=[cst.Arg(a) for a in args])


def fresh_container(node: cst.BaseExpression) -> bool:
    """A value no one else holds: a display, a comprehension, or list()/dict()/sorted() of something."""
    if isinstance(node, (cst.List, cst.ListComp, cst.Dict, cst.DictComp, cst.Tuple, cst.GeneratorExp)):
        return True
    return (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)
            and node.func.value in ("list", "dict", "sorted", "tuple"))


def singular_message(field: FieldInfo) -> bool:
    """Say whether ``field`` holds one message (not a list, not a map)."""
    return field.message_type is not None and not field.repeated and not field.is_map


def pure(node: cst.BaseExpression) -> bool:
    """An expression that may be evaluated twice with the same result and no effect: ``a.b[0].c``."""
    if isinstance(node, (cst.Name, cst.Integer, cst.SimpleString)):
        return True
    if isinstance(node, cst.Subscript):
        return (pure(node.value) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                and pure(node.slice[0].slice.value))
    return isinstance(node, cst.Attribute) and pure(node.value)


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value``."""
    return cst.Arg(value, keyword=cst.Name(name), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))


def parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` in parentheses unless it binds tighter than any operator."""
    atoms = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
             cst.SimpleString, cst.List, cst.Dict)
    if isinstance(node, atoms) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def keep_parens(new: cst.BaseExpression, old: cst.BaseExpression) -> cst.BaseExpression:
    """``new`` with the parentheses that were around ``old``."""
    return new.with_changes(lpar=old.lpar, rpar=old.rpar)


class Rewriter(cst.CSTTransformer):
    """A transformer that records a Site for every decision and applies it up to a level."""

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider, ExpressionContextProvider)
    # a file moves as a whole: rewritten only when nothing is left (--from pb2: the imports
    # change, so a use left behind would meet the other runtime's class)
    whole_file = False

    def __init__(self, path: str, schema: Schema, inference: Inference, level: Level,
                 todo: bool) -> None:
        super().__init__()
        self.path = path
        self.schema = schema
        self.infer = inference
        self.level = level
        self.todo = todo
        self.sites: list[Site] = []
        # original nodes left as they were: what contains them is left too
        self.left: set[cst.CSTNode] = set()
        self._todos: dict[cst.CSTNode, list[str]] = {}
        self._decided: set[cst.CSTNode] = set()
        # positions of the sites to mark with TODO comments in a pass that rewrites nothing
        self.only_todo: set[tuple[int, int, str]] | None = None

    def finish(self, module: cst.Module) -> cst.Module:
        """The whole rewritten module, for a last pass over it (imports)."""
        return module

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The parent of an original node."""
        return self.get_metadata(ParentNodeProvider, node, None)

    def decide(self, node: cst.CSTNode, level: Level, reason: str, detail: str) -> bool:
        """Record a site at ``node``; say whether its rewrite applies at the chosen level."""
        pos = self.get_metadata(PositionProvider, node)
        if self.only_todo is not None:  # a pass that rewrites nothing, only marks what was left
            if self.todo and (pos.start.line, pos.start.column + 1, reason) in self.only_todo:
                statement = self._statement(node)
                if statement is not None:
                    self._todos.setdefault(statement, []).append(f"{reason}: {detail}")
            self.left.add(node)
            return False
        applied = level <= self.level
        if node in self._decided:  # asked again by another rule: one site
            return applied
        self._decided.add(node)
        code = cst.Module([]).code_for_node(node)
        self.sites.append(Site(self.path, pos.start.line, pos.start.column + 1, level, reason, detail,
                               code if len(code) < 200 else code[:197] + "...", applied))
        if not applied:
            self.left.add(node)
            if self.todo:
                statement = self._statement(node)
                if statement is not None:
                    self._todos.setdefault(statement, []).append(f"{reason}: {detail}")
        return applied

    def refuse(self, node: cst.CSTNode, reason: str, detail: str) -> None:
        """Record a site no level rewrites."""
        self.decide(node, Level.NONE, reason, detail)

    def was_left(self, *nodes: cst.CSTNode) -> bool:
        """Say whether a part of the rewrite was left (so the whole must be left): the node, its
        receivers (``a`` in ``a.b``, ``a[0]``, ``a.f()``), or what a local name was assigned."""
        if self.only_todo is not None:  # nothing is rewritten: every rule looks
            return False
        for node in nodes:
            current: cst.CSTNode | None = node
            while current is not None:
                if current in self.left:
                    return True
                if isinstance(current, cst.Name):
                    return any(value in self.left for value in self.infer.assigned_values(current))
                current = (current.value if isinstance(current, (cst.Attribute, cst.Subscript))
                           else current.func if isinstance(current, cst.Call) else None)
        return False

    # -- what an attribute is -----------------------------------------------------

    def field_of(self, node: cst.BaseExpression) -> tuple[type, FieldInfo] | None:
        """``(class, field)`` when ``node`` is ``m.f`` with ``m`` a message and ``f`` a field.

        A receiver that is a message on some paths only is reported here, once.
        """
        if not isinstance(node, cst.Attribute):
            return None
        owner = self.infer.instance(node.value)
        attr = node.attr.value
        if isinstance(owner, Ambiguous):
            names = sorted(c.__qualname__ for c in owner.classes if self.schema.field(c, attr) is not None)
            if names:
                self.refuse(node, "ambiguous-type",
                            f"{cst.Module([]).code_for_node(node.value)} is {' or '.join(names)} on some paths, "
                            "something else on others")
            return None
        if owner is None:
            return None
        field = self.schema.field(owner, attr)
        return None if field is None else (owner, field)

    def dynamic_access(self, node: cst.Call) -> str | None:
        """``getattr``/``setattr``/``hasattr``/``delattr`` of a message: the builtin's name."""
        func = node.func
        if (isinstance(func, cst.Name) and func.value in DYNAMIC_ACCESS and node.args
                and isinstance(self.infer.instance(node.args[0].value), type)):
            scope = self.infer.scopes.get(func)
            if scope is not None and {q.name for q in scope.get_qualified_names_for(func)} == {
                    f"builtins.{func.value}"}:
                return func.value
        return None

    def is_read(self, node: cst.CSTNode) -> bool:
        """A load of ``node`` that is not the target of an augmented assignment (leave_AugAssign's)."""
        parent = self.parent(node)
        return (self.context(node) is ExpressionContext.LOAD
                and not (isinstance(parent, cst.AugAssign) and parent.target is node))

    def unblocked_field(self, node: cst.Attribute) -> tuple[type, FieldInfo] | None:
        """``field_of(node)``, unless its receiver was left (then ``node`` is left too)."""
        found = self.field_of(node)
        if found is not None and self.was_left(node.value):
            self.left.add(node)
            return None
        return found

    def method(self, node: cst.CSTNode, cls: type, prefix: str, field: FieldInfo) -> str | None:
        """The accessor ``prefix + field`` of ``cls``, or None after reporting why it is missing."""
        name = self.schema.accessor(cls, prefix, field.name)
        if name is None:
            style = self.schema.style(cls)
            why = (f"{self.schema.info(cls).full_name} is generated in the open style: generate it as "
                   "hybrid (API_HYBRID) first" if style == "open"
                   else f"{cls.__qualname__} has no {prefix}{field.name}()")
            self.refuse(node, "no-accessor", why)
        return name

    def context(self, node: cst.CSTNode) -> ExpressionContext | None:
        return self.get_metadata(ExpressionContextProvider, node, None)

    def _statement(self, node: cst.CSTNode) -> cst.CSTNode | None:
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(
                current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            current = self.parent(current)
        return current

    def on_leave(self, original_node: NodeT, updated_node: NodeT
                 ) -> NodeT | cst.RemovalSentinel | cst.FlattenSentinel[NodeT]:
        result = super().on_leave(original_node, updated_node)
        notes = self._todos.get(original_node)
        if notes and isinstance(result, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            have = {line.comment.value for line in result.leading_lines if line.comment is not None}
            lines = [cst.EmptyLine(comment=cst.Comment(TODO_TAG + note)) for note in dict.fromkeys(notes)]
            new = [line for line in lines if line.comment is not None and line.comment.value not in have]
            result = result.with_changes(leading_lines=[*result.leading_lines, *new])
        return result


def boolean_context(rewriter: Rewriter, node: cst.CSTNode) -> bool:
    """Say whether only the truth of ``node``'s value matters (an ``if`` test, ``not x``, ...)."""
    parent = rewriter.parent(node)
    if isinstance(parent, (cst.If, cst.While, cst.Assert)) and parent.test is node:
        return True
    if isinstance(parent, cst.IfExp) and parent.test is node:
        return True
    if isinstance(parent, cst.CompIf):
        return True
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        return True
    if isinstance(parent, cst.BooleanOperation):
        return boolean_context(rewriter, parent)
    if isinstance(parent, cst.Arg):
        call_node = rewriter.parent(parent)
        return (isinstance(call_node, cst.Call) and isinstance(call_node.func, cst.Name)
                and call_node.func.value == "bool" and len(call_node.args) == 1)
    return False

