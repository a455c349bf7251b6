"""Lazy decoding: [lazy]/[unverified_lazy] fields and parse(lazy=True), in the opaque layout.

Open and hybrid classes have public attributes, so they decode eagerly; the same
tests check that they do.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Iterator

import pytest

from protoc_gen_pyopaque.runtime import DecodeError, set_lazy_decoding
from tests.behavior.conftest import Modules

# Detail { lines: "ab" level: 1 } with level's varint in a non-canonical two-byte form:
# a re-encoding would shorten it, a verbatim copy keeps it.
DETAIL = b"\x0a\x02ab" + b"\x10\x81\x00"
BAD_UTF8_DETAIL = b"\x0a\x02\xff\xfe"
TRUNCATED_DETAIL = b"\x0a\x05ab"


def entry(detail: bytes, number: int = 3) -> bytes:
    return b"\x08\x07" + bytes([number << 3 | 2, len(detail)]) + detail


def lazy(mods: Modules) -> bool:
    return mods.style in ("opaque", "hybrid-opaque", "deferred-classes")


@pytest.fixture(autouse=True)
def restore_lazy_default() -> Iterator[None]:
    yield
    set_lazy_decoding(True)


def test_untouched_lazy_field_is_written_back_verbatim(mods: Modules) -> None:
    LogEntry = mods.load("edition2024").LogEntry
    data = entry(DETAIL)
    msg = LogEntry.parse(data)
    assert (msg.serialize() == data) is lazy(mods)
    assert msg.get_detail().get_level() == 1
    assert msg.get_detail().get_lines() == ["ab"]
    assert msg.serialize() == b"\x08\x07\x1a\x06\x0a\x02ab\x10\x01"  # decoded: canonical again


# Node { lazy_child { child { value: <tag without its varint> } } }: the error is two levels
# inside the lazy field, where a check of its own fields' structure would not reach.
NESTED_TRUNCATED_NODE = b"\x1a\x03\x12\x01\x08"


@pytest.mark.parametrize("whole", [None, True], ids=["parse", "parse-lazy"])
def test_contents_are_checked_at_parse_unless_unverified(mods: Modules, whole: bool | None) -> None:
    """[lazy] fields reject at parse all that an eager decode rejects, in every style and
    through parse(lazy=True) too; [unverified_lazy] defers its checks to first access."""
    mod = mods.load("edition2024")
    LogEntry, Node = mod.LogEntry, mod.Node
    for bad in (entry(BAD_UTF8_DETAIL), entry(BAD_UTF8_DETAIL, number=5),  # singular, an element
                entry(DETAIL, number=5) + entry(BAD_UTF8_DETAIL, number=5)[2:]):  # a later element
        with pytest.raises(DecodeError, match="invalid UTF-8"):
            LogEntry.parse(bad, lazy=whole)
    with pytest.raises(DecodeError, match="truncated"):
        Node.parse(NESTED_TRUNCATED_NODE, lazy=whole)
    with pytest.raises(DecodeError, match="truncated"):  # a lazy field inside a lazy field
        Node.parse(b"\x1a\x05" + NESTED_TRUNCATED_NODE, lazy=whole)
    unverified = entry(BAD_UTF8_DETAIL, number=4)
    if not lazy(mods):
        with pytest.raises(DecodeError, match="invalid UTF-8"):
            LogEntry.parse(unverified, lazy=whole)
        return
    msg = LogEntry.parse(unverified, lazy=whole)
    assert msg.has_unchecked_detail()
    with pytest.raises(DecodeError, match="invalid UTF-8"):
        msg.get_unchecked_detail()


def node_field(number: int, body: bytes) -> bytes:
    return bytes([number << 3 | 2, len(body)]) + body


# Node { lazy_child { unchecked_child { value: <tag without its varint> } } }, and the same in
# the second element of lazy_child's unchecked_children: [unverified_lazy] contents that a
# decode checks at first access only, inside a [lazy] field that parse checks.
UNCHECKED_IN_LAZY = (node_field(3, node_field(4, b"\x08")),
                     node_field(3, node_field(5, b"\x08\x01") + node_field(5, b"\x08")))


@pytest.mark.parametrize("whole", [None, True], ids=["parse", "parse-lazy"])
def test_unverified_contents_inside_a_lazy_field_wait_for_first_access(mods: Modules, whole: bool | None) -> None:
    """The check at parse of a [lazy] field leaves [unverified_lazy] fields inside it as a decode
    leaves them: their contents fail their first access, not the parse. An eager parse decodes
    them, so it fails."""
    Node = mods.load("edition2024").Node
    for data in UNCHECKED_IN_LAZY:
        with pytest.raises(DecodeError, match="truncated"):
            Node.parse(data, lazy=False)
        if not lazy(mods):  # open and hybrid classes decode everything at parse
            with pytest.raises(DecodeError, match="truncated"):
                Node.parse(data, lazy=whole)
            continue
        child = Node.parse(data, lazy=whole).get_lazy_child()
        with pytest.raises(DecodeError, match="truncated"):
            if child.has_unchecked_child():
                child.get_unchecked_child()
            else:
                assert child.get_unchecked_children()[0].get_value() == 1
                child.get_unchecked_children()[1].get_value()
    # the depth limit is checked at parse: unchecked_child is a third level
    deep = node_field(3, node_field(4, b""))
    with pytest.raises(DecodeError, match="nested deeper"):
        Node.parse(deep, max_depth=1, lazy=whole)
    assert Node.parse(deep, max_depth=2, lazy=whole).serialize() == deep


def test_interpreted_check_skips_unverified_contents(mods: Modules, monkeypatch: pytest.MonkeyPatch) -> None:
    """Interpreted, the walk that checks a [lazy] field accepts what the scan accepts inside an
    [unverified_lazy] field without entering it: the scan, which names the walk's errors, does
    not run."""
    from protoc_gen_pyopaque.runtime import _wire

    Node = mods.load("edition2024").Node
    if _wire.NATIVE or not lazy(mods):
        pytest.skip("compiled (check_structure runs the scan alone), or a style without [lazy] fields")
    scan = Node._pb_scan
    scans = []

    def counted(buf: bytes, pos: int, end: int, depth: int, canon: bool = True) -> bool:
        scans.append(pos)
        return bool(scan(buf, pos, end, depth, canon))

    monkeypatch.setattr(Node, "_pb_scan", staticmethod(counted))
    for data in UNCHECKED_IN_LAZY:
        Node.parse(data)
    assert scans == []
    with pytest.raises(DecodeError, match="truncated"):  # a checked field: the walk rejects, the scan names it
        Node.parse(node_field(3, node_field(3, b"\x08")))
    assert scans[:1] == [2]  # from lazy_child's bytes on


def test_mutation_replaces_the_kept_bytes(mods: Modules) -> None:
    LogEntry = mods.load("edition2024").LogEntry
    msg = LogEntry.parse(entry(DETAIL))
    if mods.accessors:
        msg.get_detail().set_level(5)
    else:
        msg.get_detail().level = 5
    assert LogEntry.parse(msg.serialize()).get_detail().get_level() == 5
    if not mods.accessors:
        return  # the open style has no setters; attributes are plain
    msg = LogEntry.parse(entry(DETAIL))
    msg.set_detail(LogEntry.Detail(level=9))
    assert LogEntry.parse(msg.serialize()).get_detail().get_level() == 9
    msg = LogEntry.parse(entry(DETAIL))
    msg.clear_detail()
    assert msg.serialize() == b"\x08\x07"


def test_opt_outs(mods: Modules) -> None:
    LogEntry = mods.load("edition2024").LogEntry
    data = entry(DETAIL)
    assert LogEntry.parse(data, lazy=False).serialize() != data  # per call
    set_lazy_decoding(False)  # program-wide
    assert LogEntry.parse(data).serialize() != data
    assert (LogEntry.parse(data, lazy=True).serialize() == data) is lazy(mods)


def test_equality_repr_and_copies_decode_first(mods: Modules) -> None:
    import copy
    import pickle

    LogEntry = mods.load("edition2024").LogEntry
    data = entry(DETAIL)
    a, b = LogEntry.parse(data), LogEntry.parse(data)
    assert a == b
    assert a == LogEntry(timestamp=7, detail=LogEntry.Detail(lines=["ab"], level=1))
    assert "level=1" in repr(LogEntry.parse(data))
    assert copy.deepcopy(LogEntry.parse(data)) == a
    assert pickle.loads(pickle.dumps(LogEntry.parse(data))) == a
    assert LogEntry.parse(data).to_dict()["detail"] == {"lines": ["ab"], "level": 1}


def test_whole_message_lazy_and_embedding(mods: Modules) -> None:
    mod = mods.load("edition2024")
    LogEntry, Envelope = mod.LogEntry, mod.Envelope
    data = entry(DETAIL)
    msg = LogEntry.parse(data, lazy=True)
    wrapped = Envelope(name="x", entry=msg).serialize()
    assert wrapped == b"\x0a\x01x\x12" + bytes([len(data)]) + data or not lazy(mods)
    assert msg.get_timestamp() == 7
    with pytest.raises(DecodeError):
        LogEntry.parse(b"\x08", lazy=True)  # structure checked even for a whole lazy message


def test_whole_lazy_message_keeps_its_unknown_fields(mods: Modules) -> None:
    LogEntry = mods.load("edition2024").LogEntry
    unknown = b"\xa0\x06\x07"  # field 100, varint 7
    data = entry(DETAIL) + unknown
    assert LogEntry.parse(data, lazy=True).unknown_fields() == unknown
    msg = LogEntry.parse(data, lazy=True)
    msg.discard_unknown_fields()  # recursive: lazy sub-messages are decoded (their bytes may hold some)
    assert msg.serialize() == LogEntry.parse(entry(DETAIL), lazy=False).serialize()
    assert msg.unknown_fields() == b""


def test_elements_of_a_lazy_repeated_field_decode_one_by_one(mods: Modules) -> None:
    LogEntry = mods.load("edition2024").LogEntry
    data = entry(DETAIL, number=5) + entry(b"\x10\x02", number=5)[2:]
    msg = LogEntry.parse(data)
    assert (msg.serialize() == data) is lazy(mods)  # untouched elements: written back verbatim
    first, second = msg.get_history()
    assert second.get_level() == 2
    assert (msg.serialize() == data) is lazy(mods)  # the first one is still untouched
    assert first.get_lines() == ["ab"] and first.get_level() == 1
    assert msg == LogEntry(timestamp=7, history=[LogEntry.Detail(lines=["ab"], level=1),
                                                 LogEntry.Detail(level=2)])
    if mods.accessors:
        second.set_level(3)
    else:
        second.level = 3
    assert LogEntry.parse(msg.serialize()).get_history()[1].get_level() == 3
    with pytest.raises(DecodeError):  # [lazy]: each element is checked at parse
        LogEntry.parse(entry(TRUNCATED_DETAIL, number=5))


def test_elements_keep_a_depth_limit_of_any_size(mods: Modules) -> None:
    LogEntry = mods.load("edition2024").LogEntry
    data = entry(DETAIL, number=5)
    for max_depth in (2, 65, 257, 5000):  # kept times four: one byte below 32, table-made below 128, three bytes from 4096
        msg = LogEntry.parse(data, max_depth=max_depth)
        assert (msg.serialize() == data) is lazy(mods)
        assert msg.get_history()[0].get_level() == 1


def test_lazy_buffer_is_released_once_decoded(mods: Modules) -> None:
    LogEntry = mods.load("edition2024").LogEntry
    data = bytes(entry(DETAIL))
    before = sys.getrefcount(data)
    msg = LogEntry()
    msg.merge_from_bytes(data)  # decodes the message (a deferred parse keeps a short input as a copy)
    held = sys.getrefcount(data) - before
    assert held == (1 if lazy(mods) else 0)
    msg.get_detail()
    assert sys.getrefcount(data) == before


def test_threads_see_one_decoded_value(mods: Modules) -> None:
    LogEntry = mods.load("edition2024").LogEntry
    msg = LogEntry.parse(entry(DETAIL))
    seen: list[object] = []
    barrier = threading.Barrier(8)

    def read() -> None:
        barrier.wait()
        seen.append(msg.get_detail())

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(x) for x in seen}) == 1


def test_large_verbatim_pieces_are_joined_once(mods: Modules) -> None:
    """Lazy bytes above the deferral threshold keep nested lengths right, at any depth."""
    mod = mods.load("edition2024")
    LogEntry, Envelope = mod.LogEntry, mod.Envelope
    big = LogEntry.Detail(lines=["x" * 70_000, "y" * 200]).serialize()
    data = entry_with(big)
    for lazy_whole in (True, False):
        inner = LogEntry.parse(data, lazy=lazy_whole)
        wrapped = Envelope(name="n", entry=inner).serialize()
        twice = Envelope.parse(Envelope(name="m", entry=Envelope.parse(wrapped).get_entry()).serialize())
        assert twice.get_entry().get_detail().get_lines()[0] == "x" * 70_000
        assert Envelope.parse(wrapped).get_entry() == LogEntry.parse(data, lazy=False)


def test_spliced_lengths_and_pieces_at_every_depth(mods: Modules) -> None:
    """Lengths of 128 bytes or more and large verbatim pieces are spliced into the output
    when it is taken: siblings before, inside and after them keep their places."""
    mod = mods.load("edition2024")
    LogEntry, Envelope = mod.LogEntry, mod.Envelope
    Detail = LogEntry.Detail
    details = [Detail(lines=[c * n]) for c, n in zip("abcdefgh", (0, 120, 125, 126, 300, 70_000, 3, 70_000))]
    eager = Envelope(name="e", entry=LogEntry(timestamp=5, message="m" * 200, history=details))
    data = eager.serialize()
    for lazy_whole in (True, False):
        # kept bytes of the lazy history elements (and of the whole entry) are written back verbatim
        entry = LogEntry.parse(Envelope.parse(data).get_entry().serialize(), lazy=lazy_whole)
        outer = Envelope(name="e", entry=entry)
        assert outer.serialize() == data
        nested = Envelope(name="x" * 130, entry=LogEntry(history=[*details[:5], entry.get_history()[5]]))
        back = Envelope.parse(nested.serialize(), lazy=False)
        assert [d.get_lines() for d in back.get_entry().get_history()] == [d.get_lines() for d in details[:6]]


def entry_with(detail: bytes) -> bytes:
    out = bytearray(b"\x08\x07\x1a")
    n = len(detail)
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out) + detail


def test_depth_limit_holds_through_deferred_decoding(mods: Modules) -> None:
    mod = mods.load("edition2024")
    LogEntry, Envelope = mod.LogEntry, mod.Envelope
    data = Envelope(name="n", entry=LogEntry.parse(entry(DETAIL), lazy=False)).serialize()
    for lazy_whole in (False, True):  # deferred or not, the limit fails the parse
        with pytest.raises(DecodeError, match="nested deeper"):
            Envelope.parse(data, max_depth=1, lazy=lazy_whole)
    assert Envelope.parse(data, max_depth=2, lazy=True).get_entry().get_detail().get_level() == 1


def test_a_depth_limit_beyond_any_input_holds_after_the_parse(mods: Modules) -> None:
    """A limit no input reaches (2**62 and up) is kept whole: the first access decodes what the
    parse accepted. Kept input notes the limit times four in a 64-bit varint, which 2**62 once
    overflowed (to 0: "nested deeper than the limit" at the first read)."""
    Node = mods.load("edition2024").Node
    data = b"\x08\x05\x12\x03\x08\x81\x01\x1a\x06\x08\x02\x1a\x02\x08\x03"  # child, lazy_child in lazy_child
    expected = repr(Node.parse(data, lazy=False))
    for max_depth in (2**62, 2**62 + 1, 2**63, 2**64 + 3):
        for whole in (True, None, False):
            assert repr(Node.parse(data, lazy=whole, max_depth=max_depth)) == expected, (max_depth, whole)
            merged = Node()
            merged.merge_from_bytes(data, lazy=whole, max_depth=max_depth)
            assert repr(merged) == expected, (max_depth, whole)


def test_interpreted_check_accepts_only_what_the_scan_accepts(mods: Modules) -> None:
    """check_structure's table-driven walk (interpreted) takes valid input without the scan,
    and never accepts what the class's scan rejects (where it does, the scan decides); on these
    inputs it rejects nothing the scan accepts either (which would run the scan for nothing),
    leaving [unverified_lazy] contents unchecked as the scan does."""
    from protoc_gen_pyopaque.runtime import _kept, _wire

    mod = mods.load("edition2024")
    if _wire.NATIVE or getattr(mod.LogEntry, "_pb_scan", None) is None:
        pytest.skip("compiled, or a style without scans: check_structure runs the scan alone")
    node = b"\x08\x05\x12\x03\x08\x81\x01\x1a\x06\x08\x02\x1a\x02\x08\x03"  # child, lazy_child in lazy_child
    # value: 2, unchecked_child { value: 7, lazy_child { value: 1 } },
    # unchecked_children [{ value: 1 }, { child { value: 2 } }]: a lazy_child's, below
    unchecked = (b"\x08\x02" + node_field(4, b"\x08\x07\x1a\x02\x08\x01") + node_field(5, b"\x08\x01")
                 + node_field(5, b"\x12\x02\x08\x02"))
    seeds = [(mod.LogEntry, entry(DETAIL) + entry(DETAIL, number=5) + entry(DETAIL, number=4)),
             (mod.LogEntry, b"\x12\x06h\xc3\xa9llo" + entry(b"\x0a\x03\xe2\x82\xac\x0a\x00")),
             (mod.Node, node), (mod.Node, b"\x08\x05" + node_field(3, unchecked)), (mod.Envelope, b"\x0a\x01n\x12" + bytes([len(entry(DETAIL))]) + entry(DETAIL))]
    collections = mods.load("collections").Collections  # packed runs, fixed widths, maps, a message member
    seeds.append((collections, bytes.fromhex(
        "0a03019601" "5a080000803f00000040"  # packed_ints [1, 150], ratios [1.0, 2.0]
        "2a050a01611005" "3209080712050a016b1001"  # counts {"a": 5}, items_by_id {7: Item("k", RED)}
        "62080a0177150000803f" "4a0e09000000000000f03f3d07000000")))  # weights {"w": 1.0}, scalars
    rng = random.Random(20261206)

    def verified(cls: type, data: bytes, depth: int) -> bool:
        verifier = _kept._verifier(cls)
        assert verifier is not None
        try:
            _kept._verify(verifier, data, 0, len(data), depth)
        except (_kept._Unverified, DecodeError, IndexError, UnicodeDecodeError, RecursionError):
            return False
        return True

    for cls, data in seeds:
        assert verified(cls, data, 100), data.hex()
    for bad in ("5a03000000", "0a0196", "2a050a01ff1005", "4a0509000000f0"):  # a float run of 3 bytes,
        assert not verified(collections, bytes.fromhex(bad), 100), bad  # a cut varint, a bad UTF-8 key, a cut double
    for _ in range(3000):
        cls, data = rng.choice(seeds)
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(mutated) + 1)
            if rng.random() < 0.6:
                mutated[at:at + 1] = bytes([rng.choice((0, 0x7F, 0x80, 0xFF, 0xC3, 0x0A, rng.randrange(256)))])
            else:
                del mutated[at:at + rng.randint(1, 4)]
        depth = rng.choice((0, 1, 2, 100))
        try:
            cls._pb_scan(bytes(mutated), 0, len(mutated), depth)
            scanned = True
        except DecodeError:
            scanned = False
        assert verified(cls, bytes(mutated), depth) == scanned, (bytes(mutated).hex(), depth)
