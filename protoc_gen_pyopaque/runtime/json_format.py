"""Canonical ProtoJSON for generated messages of every style, driven by the reflection tables.

``to_dict``/``to_json`` print a message; ``from_dict``/``from_json`` build one;
``merge_from_dict``/``merge_from_json`` merge into an existing one. Well-known types
(Any, Timestamp, Duration, FieldMask, Struct/Value/ListValue, wrappers, Empty) take
their special JSON forms. Every failure raises JsonError naming a JSON path.

``Any`` needs the class of its payload: types reachable from the message being
converted, every class given to ``register_message_class``/``register_module`` and
the well-known types are found by full name.
"""

from __future__ import annotations

from ._json import from_dict, merge_from_dict, merge_from_json, to_dict, to_json
from ._json_scan import from_json
from ._registry import find_message_class, register_message_class, register_module
from .reflect import MAX_DEPTH

__all__ = [
    "to_dict", "to_json", "from_dict", "from_json", "merge_from_dict", "merge_from_json",
    "register_message_class", "register_module", "find_message_class", "MAX_DEPTH",
]
