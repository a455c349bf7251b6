"""The seed corpus (tests/fuzz/corpus): each golden class filled in, in every entry point's
form, and a few hostile shapes (nesting at and past the limit)."""

from __future__ import annotations

import importlib
from typing import Any

from tests.fuzz.targets import CLASSES, CORPUS, MODES, loaded


def _filled() -> dict[str, Any]:
    """One filled-in message per fuzzed class (open style: keyword arguments)."""
    mod = {m: importlib.import_module(f"golden.{m}_pb") for m, _ in CLASSES}
    c, l, e, g = mod["collections"], mod["legacy"], mod["editions"], mod["edition2024"]
    item = c.Collections.Item(key="k", color=1)
    legacy = l.Legacy(id=1, label="l\u00e9", level=2, ratio=-0.5, samples=[1, -2, 1 << 40],
                      point=l.Legacy.Point(x=3, y=-4))
    legacy.set_extension(l.note, "n")
    legacy.set_extension(l.tags, [5, 6])
    detail = g.LogEntry.Detail(lines=["a", "\u00fc"], level=2)
    entry = g.LogEntry(timestamp=-7, message="m", detail=detail, unchecked_detail=detail,
                       history=[detail, g.LogEntry.Detail(level=3)])
    node = g.Node(value=1, child=g.Node(value=2, lazy_child=g.Node(value=3)), lazy_child=g.Node(value=4))
    return {
        "Scalars": mod["scalars"].Scalars(
            f_double=1.5, f_float=-2.5, f_int64=-(1 << 63), f_uint64=(1 << 64) - 1, f_int32=-1,
            f_fixed64=7, f_fixed32=9, f_bool=True, f_string="h\u00e9", f_bytes=b"\x00\xff",
            f_uint32=(1 << 32) - 1, f_sfixed32=-5, f_sfixed64=-6, f_sint32=-7, f_sint64=-8,
            opt_int32=0, opt_string=""),
        "FixedFirst": mod["scalars"].FixedFirst(id=1, count=300, small=2),
        "Collections": c.Collections(packed_ints=[1, -1, 300], names=["a", ""], items=[item], colors=[1, 2],
                                     counts={"x": 5}, items_by_id={3: item}, color_by_flag={True: 2}, item=item),
        "Legacy": legacy,
        "Edition2023": e.Edition2023(explicit_by_default=1, implicit=2, required_legacy=3, expanded=[1, 2],
                                     unchecked="u", delimited_child=e.Edition2023.Child(value=4), state=1),
        "LogEntry": entry,
        "Envelope": g.Envelope(name="n", entry=entry),
        "Node": node,
    }


def _deep(levels: int) -> bytes:
    """A Node with ``levels`` Nodes below it, encoded by hand (lazy_child, field 3)."""
    data = b"\x08\x01"
    for _ in range(levels):
        data = b"\x08\x01\x1a" + _varint(len(data)) + data
    return data


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def write_corpus() -> None:
    """Rewrite tests/fuzz/corpus: every class in every mode, and the hostile shapes."""
    CORPUS.mkdir(parents=True, exist_ok=True)
    for old in CORPUS.iterdir():
        old.unlink()
    with loaded("open"):
        filled = _filled()
        for index, (_, name) in enumerate(CLASSES):
            msg = filled[name]
            for mode_index, mode in enumerate(MODES):
                if mode == "json":
                    payload = msg.to_json().encode()
                elif mode == "text":
                    payload = msg.to_text().encode()
                else:
                    payload = msg.serialize()
                (CORPUS / f"{name}-{mode}").write_bytes(bytes((index, mode_index)) + payload)
    node = [i for i, (_, name) in enumerate(CLASSES) if name == "Node"][0]
    for levels in (100, 101):
        for mode_index in range(3):
            (CORPUS / f"Node-deep{levels}-{MODES[mode_index]}").write_bytes(bytes((node, mode_index)) + _deep(levels))
