"""``--from open``: code using the attributes of open or hybrid classes → the accessor API.

The accessors exist on hybrid and opaque classes, so the path is Go's: generate the
files as hybrid (the attribute code keeps working), rewrite, then switch to opaque.

| written                    | rewritten                    | level                                   |
|----------------------------|------------------------------|-----------------------------------------|
| ``m.f`` (read)             | ``m.get_f()``                | green; red for a field with presence    |
|                            |                              | read as a value (None became default)   |
| ``m.f = v``                | ``m.set_f(v)``               | green; red for a list/dict that is not  |
|                            |                              | fresh (the setter copies it)            |
| ``m.f = None``, ``del m.f``| ``m.clear_f()``              | green                                   |
| ``m.f is None`` / not None | ``not m.has_f()``/``has_f()``| green                                   |
| ``m.f += v``               | ``m.set_f(m.get_f() + v)``   | green; yellow if ``m`` is not a plain   |
|                            | (lists: ``extend``)          | name (evaluated twice) or f has presence|
| ``m.sub.x = v``            | ``m.mutable("sub").set_x(v)``| red (creates an absent ``sub``)         |
| ``m.sub.x`` (read)         | ``m.get("sub").get_x()``     | yellow (empty where None raised; a      |
|                            |                              | narrowing of ``m.sub`` would not carry  |
|                            |                              | over to the Optional ``get_sub()``)     |
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ExpressionContext

from ..runtime.reflect import FieldInfo
from .rewrite import (
    Rewriter, boolean_context, call, singular_message, fresh_container, is_none, keep_parens, parenthesized, pure,
)
from .sites import Level

__all__ = ["OpenRewriter"]


def _scalar_presence(field: FieldInfo) -> bool:
    return field.presence and field.message_type is None


class OpenRewriter(Rewriter):
    """The rules of ``--from open``."""

    def _presence_test(self, node: cst.Comparison) -> tuple[cst.Attribute, bool] | None:
        """``(m.f, negated)`` for ``m.f is None`` / ``m.f is not None``."""
        if len(node.comparisons) != 1 or not isinstance(node.left, cst.Attribute):
            return None
        target = node.comparisons[0]
        if not is_none(target.comparator) or not isinstance(target.operator, (cst.Is, cst.IsNot)):
            return None
        return node.left, isinstance(target.operator, cst.Is)

    def _written_through(self, node: cst.Attribute) -> bool:
        """``m.sub`` in ``m.sub.x = v``, ``m.sub.x += v``, ``del m.sub.x`` (or deeper)."""
        parent = self.parent(node)
        if not isinstance(parent, cst.Attribute) or parent.value is not node:
            return False
        if self.context(parent) in (ExpressionContext.STORE, ExpressionContext.DEL):
            return True
        grand = self.parent(parent)
        if isinstance(grand, cst.AugAssign) and grand.target is parent:
            return True
        found = self.field_of(parent)
        return found is not None and singular_message(found[1]) and self._written_through(parent)

    # -- reads ---------------------------------------------------------------------

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute
                        ) -> cst.BaseExpression:
        if not self.is_read(original_node):
            return updated_node
        parent = self.parent(original_node)
        if isinstance(parent, cst.Comparison):
            test = self._presence_test(parent)
            if test is not None and test[0] is original_node:
                found = self.field_of(original_node)
                if found is not None and found[1].presence:
                    return updated_node  # leave_Comparison
        found = self.unblocked_field(original_node)
        if found is None:
            return updated_node
        cls, field = found
        if singular_message(field) and self._written_through(original_node):
            if not self.decide(original_node, Level.RED, "auto-create",
                               f'mutable("{field.name}") creates an absent {field.name} where the attribute '
                               "was None"):
                return updated_node
            return keep_parens(call(updated_node.value, "mutable", cst.SimpleString(f'"{field.name}"')),
                               updated_node)
        if singular_message(field) and isinstance(parent, cst.Attribute) and parent.value is original_node:
            # get_sub() is Optional, and a narrowing of m.sub does not carry over to it
            if not self.decide(original_node, Level.YELLOW, "read-through",
                               f'get("{field.name}") reads an unset {field.name} as an empty message where '
                               f"the attribute was None (or bind sub = m.get_{field.name}() and test it)"):
                return updated_node
            return keep_parens(call(updated_node.value, "get", cst.SimpleString(f'"{field.name}"')),
                               updated_node)
        method = self.method(original_node, cls, "get_", field)
        if method is None:
            return updated_node
        if _scalar_presence(field):
            if boolean_context(self, original_node) and not field.default:
                applied = self.decide(original_node, Level.GREEN, "get-truth",
                                      f"get_{field.name}() is as false when unset as the attribute's None")
            else:
                applied = self.decide(original_node, Level.RED, "presence-read",
                                      f"get_{field.name}() returns the default where the attribute was None "
                                      f"when unset (has_{field.name}() tells them apart)")
        else:
            applied = self.decide(original_node, Level.GREEN, "get", f"read of {field.name}")
        if not applied:
            return updated_node
        return keep_parens(call(updated_node.value, method), updated_node)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        builtin = self.dynamic_access(original_node)
        if builtin is not None:  # an attribute by name: gone in the opaque style
            self.refuse(original_node, "dynamic-access",
                        f"{builtin}() of a field: by name there are m.get(name), m.has(name), m.clear(name)")
        return updated_node

    def leave_Comparison(self, original_node: cst.Comparison, updated_node: cst.Comparison
                         ) -> cst.BaseExpression:
        test = self._presence_test(original_node)
        if test is None:
            return updated_node
        attribute, negated = test
        found = self.field_of(attribute)
        if found is None or not found[1].presence or self.was_left(attribute.value):
            return updated_node
        cls, field = found
        method = self.method(original_node, cls, "has_", field)
        if method is None or not self.decide(original_node, Level.GREEN, "has", f"presence of {field.name}"):
            return updated_node
        assert isinstance(updated_node.left, cst.Attribute)
        new: cst.BaseExpression = call(updated_node.left.value, method)
        if negated:
            new = cst.UnaryOperation(operator=cst.Not(), expression=new)
        return keep_parens(new, updated_node)

    # -- writes --------------------------------------------------------------------

    def _target(self, node: cst.BaseExpression) -> tuple[type, FieldInfo] | None:
        found = self.field_of(node)
        if found is None:
            return None
        assert isinstance(node, cst.Attribute)
        if self.was_left(node.value):
            self.left.add(node)
            return None
        return found

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign
                     ) -> cst.BaseSmallStatement:
        targets = [t.target for t in original_node.targets]
        elements = [e.value for t in targets if isinstance(t, (cst.Tuple, cst.List)) for e in t.elements]
        if len(targets) > 1 or elements:
            for t in [*targets, *elements]:
                if self.field_of(t) is not None:
                    self.refuse(original_node, "multiple-targets",
                                "assignment to several targets: write one set_x() per field (mind the "
                                "order of evaluation)")
                    break
            return updated_node
        found = self._target(targets[0])
        if found is None:
            return updated_node
        cls, field = found
        receiver = updated_node.targets[0].target
        assert isinstance(receiver, cst.Attribute)
        value = original_node.value
        if is_none(value) and (field.presence or field.message_type is not None):
            method = self.method(original_node, cls, "clear_", field)
            if method is None or not self.decide(original_node, Level.GREEN, "clear", f"{field.name} = None"):
                return updated_node
            return cst.Expr(call(receiver.value, method), semicolon=updated_node.semicolon)
        method = self.method(original_node, cls, "set_", field)
        if method is None:
            return updated_node
        if (field.repeated or field.is_map) and not fresh_container(value):
            applied = self.decide(original_node, Level.RED, "container-copy",
                                  f"set_{field.name}() copies the value: later changes to it no longer "
                                  "show in the message")
        else:
            applied = self.decide(original_node, Level.GREEN, "set", f"write of {field.name}")
        if not applied:
            return updated_node
        return cst.Expr(call(receiver.value, method, updated_node.value), semicolon=updated_node.semicolon)

    def leave_AugAssign(self, original_node: cst.AugAssign, updated_node: cst.AugAssign
                        ) -> cst.BaseSmallStatement:
        found = self._target(original_node.target)
        if found is None:
            return updated_node
        cls, field = found
        receiver = updated_node.target
        assert isinstance(receiver, cst.Attribute)
        op = type(original_node.operator).__name__.removesuffix("Assign")
        getter = self.method(original_node, cls, "get_", field)
        if getter is None:
            return updated_node
        if field.repeated or field.is_map:
            method = "update" if field.is_map and op == "BitOr" else "extend" if op == "Add" else None
            if method is None or (method == "extend") != (not field.is_map):
                self.refuse(original_node, "augmented-container", f"no in-place {op} on {field.name}")
                return updated_node
            if not self.decide(original_node, Level.GREEN, "augmented", f"in-place {op} on {field.name}"):
                return updated_node
            return cst.Expr(call(call(receiver.value, getter), method, updated_node.value),
                            semicolon=updated_node.semicolon)
        setter = self.method(original_node, cls, "set_", field)
        if setter is None:
            return updated_node
        assert isinstance(original_node.target, cst.Attribute)
        if not pure(original_node.target.value):
            level, reason, detail = (Level.YELLOW, "eval-order",
                                     "the receiver is evaluated twice (get, then set)")
        elif field.presence:
            level, reason, detail = (Level.YELLOW, "augmented-presence",
                                     f"an unset {field.name} now counts from its default where None raised")
        else:
            level, reason, detail = Level.GREEN, "augmented", f"{op} on {field.name}"
        if not self.decide(original_node, level, reason, detail):
            return updated_node
        operator = getattr(cst, op)()
        value = cst.BinaryOperation(left=call(receiver.value, getter), operator=operator,
                                    right=parenthesized(updated_node.value))
        return cst.Expr(call(receiver.value, setter, value), semicolon=updated_node.semicolon)

    def leave_Del(self, original_node: cst.Del, updated_node: cst.Del) -> cst.BaseSmallStatement:
        target = original_node.target
        if isinstance(target, (cst.Tuple, cst.List)):
            if any(self.field_of(e.value) is not None for e in target.elements):
                self.refuse(original_node, "multiple-targets", "del of several fields: one clear_x() each")
            return updated_node
        found = self._target(target)
        if found is None:
            return updated_node
        cls, field = found
        receiver = updated_node.target
        assert isinstance(receiver, cst.Attribute)
        method = self.method(original_node, cls, "clear_", field)
        if method is None or not self.decide(original_node, Level.GREEN, "clear", f"del {field.name}"):
            return updated_node
        return cst.Expr(call(receiver.value, method), semicolon=updated_node.semicolon)
