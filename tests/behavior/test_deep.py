"""Deep nesting: messages built in code deeper than parse's limit, and input nested past the
limit inside lazily decoded bytes (rejected at parse, as an eager decode rejects it)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from protoc_gen_pyopaque.runtime import DecodeError, EncodeError
from tests.behavior.conftest import Modules

LIMIT = 100  # parse's default max_depth
CHILD_FIELDS = ["child", "lazy_child"]  # decoded at parse / [lazy]


def chain(mods: Modules, levels: int, field: str) -> Any:
    """A Node with ``levels`` Nodes below it, one below another, built in code."""
    Node = mods.load("edition2024").Node
    node = Node(value=levels)
    for i in range(levels):
        node = Node(value=i, **{field: node})
    return node


@pytest.mark.parametrize("field", CHILD_FIELDS)
def test_deeper_than_the_parse_limit_still_copies_compares_and_prints(mods: Modules, field: str) -> None:
    node = chain(mods, LIMIT + 50, field)
    same = chain(mods, LIMIT + 50, field)
    assert node == same
    for clone in (copy.copy(node), copy.deepcopy(node), pickle.loads(pickle.dumps(node))):
        assert clone == same and clone is not node
    assert repr(node).count("value=") == LIMIT + 51
    assert str(node) == node.to_text() and node.to_text().count("value:") == LIMIT + 51
    data = node.serialize()
    with pytest.raises(DecodeError, match="nested deeper than the limit"):
        type(node).parse(data)  # the limit holds for input
    assert type(node).parse(data, max_depth=LIMIT + 50) == same
    for to_json in (node.to_json, node.to_dict):  # ProtoJSON output stops where input would
        with pytest.raises(EncodeError, match=f"nested deeper than {LIMIT}, the JSON nesting limit"):
            to_json()


@pytest.mark.parametrize("field", CHILD_FIELDS)
def test_deeper_than_the_stack_works_or_is_an_encode_error_naming_the_depth(mods: Modules, field: str) -> None:
    node = chain(mods, 20_000, field)
    other = chain(mods, 20_000, field)
    operations = {
        "serialize": node.serialize, "copy": lambda: copy.copy(node),
        "deepcopy": lambda: copy.deepcopy(node), "pickle": lambda: pickle.dumps(node),
        "to_text": node.to_text, "str": lambda: str(node),
    }
    for name, operation in operations.items():
        try:
            operation()
        except EncodeError as exc:
            assert "golden.Node: messages nested 20001 deep, deeper than the Python stack" in str(exc)
        else:  # compiled code follows the nesting on the C stack (see SECURITY.md for its limit)
            assert mods.compiled, f"{name} of a message nested 20001 deep worked interpreted"
    for operation in (lambda: repr(node), lambda: node == other, node.to_json):
        with pytest.raises(EncodeError, match="nested"):  # the level that failed names itself
            operation()


@pytest.mark.parametrize("field", CHILD_FIELDS)
@pytest.mark.parametrize("lazy", [None, True, False], ids=["lazy-fields", "lazy-message", "eager"])
def test_input_nested_past_the_limit_fails_at_parse(mods: Modules, field: str, lazy: bool | None) -> None:
    Node = mods.load("edition2024").Node
    assert Node.parse(chain(mods, LIMIT, field).serialize(), lazy=lazy) == chain(mods, LIMIT, field)
    with pytest.raises(DecodeError, match=f"Node.{field} .*nested deeper than the limit"):
        Node.parse(chain(mods, LIMIT + 1, field).serialize(), lazy=lazy)
    for max_depth in (0, 1, 7):
        data = chain(mods, max_depth + 1, field).serialize()
        with pytest.raises(DecodeError, match="nested deeper than the limit"):
            Node.parse(data, lazy=lazy, max_depth=max_depth)
        assert Node.parse(data, lazy=lazy, max_depth=max_depth + 1).serialize() == data


@pytest.mark.parametrize("lazy", [None, True, False], ids=["lazy-fields", "lazy-message", "eager"])
def test_map_values_and_nested_lazy_fields_count_towards_the_limit(mods: Modules, lazy: bool | None) -> None:
    Collections = mods.load("collections").Collections
    item = Collections.Item(key="k" * 300)
    data = Collections(items_by_id={1: item}, items=[item]).serialize()
    with pytest.raises(DecodeError, match="nested deeper than the limit"):
        Collections.parse(data, lazy=lazy, max_depth=0)
    assert Collections.parse(data, lazy=lazy, max_depth=1).serialize() == data
    mod = mods.load("edition2024")
    LogEntry, Envelope = mod.LogEntry, mod.Envelope
    detail = LogEntry.Detail(lines=["x" * 100], level=1)
    data = Envelope(entry=LogEntry(detail=detail, history=[detail])).serialize()
    for max_depth in (0, 1):
        with pytest.raises(DecodeError, match="nested deeper than the limit"):
            Envelope.parse(data, lazy=lazy, max_depth=max_depth)
    assert Envelope.parse(data, lazy=lazy, max_depth=2).serialize() == data
