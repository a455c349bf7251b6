"""The runtime's varint writers and readers at the boundaries of their paths (compiled, ints
outside -2**62..2**62-1 are heap objects and take paths of their own, and the reader puts nine
bytes together in native int64s; interpreted, packed runs of one-byte values are taken whole),
against protobuf's own encoder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.internal import encoder
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protoc_gen_pyopaque.runtime import DecodeError, _kept, _packed, reflect
from protoc_gen_pyopaque.runtime import _wire as wire

EDGES = [0, 1, 0x7F, 0x80, 2**56 - 1, 2**56, 2**62 - 1, 2**62, 2**63 - 1, 2**63, 2**64 - 1,
         -1, -0x80, -2**56, -2**56 - 1, -2**62, -2**62 - 1, -2**63]


def written(v: int) -> bytes:
    out = wire.BytesWriter()
    wire.write_varint(out, v)
    return out.getvalue()


def expected(v: int) -> bytes:
    return encoder._VarintBytes(v + (1 << 64) if v < 0 else v)


def test_varint_edges() -> None:
    for v in EDGES:
        assert written(v) == expected(v), v


@given(st.integers(min_value=-2**63, max_value=2**64 - 1))
def test_varint_any_value_of_the_wire_range(v: int) -> None:
    assert written(v) == expected(v)


def written64(kind: int, v: int) -> bytes:
    out = wire.BytesWriter()
    _packed.write_varint64(out, kind, v)
    return out.getvalue()


def test_varint64_edges_and_range() -> None:
    for v in EDGES:
        if v >= 0:
            assert written64(reflect.TYPE_UINT64, v) == expected(v), v
        if v < 2**63:
            assert written64(reflect.TYPE_INT64, v) == expected(v), v
    for kind, bad in ((reflect.TYPE_UINT64, -1), (reflect.TYPE_UINT64, 2**64), (reflect.TYPE_INT64, 2**63),
                      (reflect.TYPE_INT64, -2**63 - 1)):
        with pytest.raises(ValueError, match="out of range"):
            written64(kind, bad)


@given(st.integers(min_value=-2**63, max_value=2**64 - 1))
def test_varint64_any_value_of_its_kind(v: int) -> None:
    assert written64(reflect.TYPE_INT64 if v < 2**63 else reflect.TYPE_UINT64, v) == expected(v)
    if v >= 0:
        assert written64(reflect.TYPE_UINT64, v) == expected(v)


def read(data: bytes) -> tuple[int, int]:
    return wire.dec_varint(data + b"\x01", 0)  # a byte after it, which must not be read


def test_varint_reader_edges() -> None:
    for v in EDGES:
        data = expected(v)
        assert read(data) == (v & 0xFFFFFFFFFFFFFFFF, len(data)), v
    for n in range(1, 11):  # every length, its top byte as large as it may be
        data = b"\xff" * (n - 1) + (b"\x01" if n == 10 else b"\x7f")
        assert read(data) == ((1 << min(7 * n, 64)) - 1, n), n
    assert read(b"\xff" * 9 + b"\x7f") == (2**64 - 1, 10)  # bits above 64 are dropped
    assert read(b"\x80" * 9 + b"\x7e") == (0, 10)  # only bit 63 of the tenth byte counts
    assert read(b"\xff" * 9 + b"\x00") == (2**63 - 1, 10)
    with pytest.raises(DecodeError, match="varint longer than 10 bytes at offset 0"):
        read(b"\xff" * 10 + b"\x01")


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_varint_reader_any_value(v: int) -> None:
    data = expected(v)
    assert read(data) == (v, len(data))


def signed(bits: int, width: int) -> int:
    """The low ``width`` bits of ``bits``, two's complement."""
    bits &= (1 << width) - 1
    return bits - (1 << width) if bits >> (width - 1) else bits


def check_typed_readers(v: int) -> None:
    """Each kind's reader takes what protobuf takes from the varint of ``v`` (64 bits), also one
    its encoder never writes (an int32 or uint32 beyond 32 bits): compiled, the signed kinds
    read the 64 bits as an int64, with no big-int step."""
    data = expected(v) + b"\x01"
    end = len(data) - 1
    assert wire.dec_int64(data, 0) == (signed(v, 64), end)
    assert wire.dec_int32(data, 0) == (signed(v, 32), end)
    assert wire.dec_uint32(data, 0) == (v & 0xFFFFFFFF, end)
    assert wire.dec_sint64(data, 0) == ((v >> 1) ^ -(v & 1), end)
    low = v & 0xFFFFFFFF
    assert wire.dec_sint32(data, 0) == ((low >> 1) ^ -(low & 1), end)


def test_typed_varint_readers_edges() -> None:
    for v in EDGES + [2**63 - 1, 2**64 - 2, 2**32 + 5]:
        check_typed_readers(v & 0xFFFFFFFFFFFFFFFF)


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_typed_varint_readers_any_value(v: int) -> None:
    check_typed_readers(v)


@pytest.mark.parametrize("depth", [0, 1, 0x7F, 0x80, 0xFF, 0x100, 300, 2**20])
def test_kept_input_carries_its_depth_limit(depth: int) -> None:
    fields = b"\x08\x01"
    for checked, lazy in ((False, True), (True, _kept.NESTING_CHECKED)):
        kept = _kept.keep_fields(b"ab" + fields + b"cd", 2, 4, depth, checked)  # a lazy element: a copy
        assert kept[0] == 0  # the mark: unknown fields never start with a 0 byte
        buf, start, limit, decode_lazy = _kept.kept_fields(kept)
        assert (buf[start:], limit, decode_lazy) == (fields, depth, lazy)
        assert _kept.kept_bytes(kept) == fields
    long = fields * (_kept.KEEP_COPY_BELOW // len(fields))
    for canonical in (True, False):
        short = _kept.keep_input(fields, depth, canonical)  # parse(lazy=True) of a short input: a copy
        buf, start, limit, decode_lazy = _kept.kept_fields(short)
        assert short[0] == 0 and (buf[start:], limit, decode_lazy) == (fields, depth, _kept.NESTING_CHECKED)
        assert _kept.kept_verbatim(short) == (fields if canonical else None)
        whole = _kept.keep_input(long, depth, canonical)  # of a long one: the input itself, not a copy
        assert whole[0] == 0 and _kept.kept_fields(whole) == (long, 0, depth, _kept.NESTING_CHECKED)
        assert _kept.kept_bytes(whole) is long
        assert _kept.kept_verbatim(whole) is (long if canonical else None)


@pytest.mark.parametrize("compared_in_place", [2, _kept.MAP_KEYS_COMPARED_IN_PLACE + 1])
@pytest.mark.parametrize("key_kind", ["varint", "fixed32", "fixed64", "string"])
def test_map_keys_unique(key_kind: str, compared_in_place: int) -> None:
    """The keys of canonical map entries, of every wire type, long entries and keys among them
    (two-byte lengths), in small and large maps: a key given twice is found wherever it is."""
    tag = b"\x92\x01"  # field 18 of the enclosing message: a two-byte tag between entries

    def key(i: int) -> bytes:
        if key_kind == "varint":
            return b"\x08" + encoder._VarintBytes(i << 20 | i)
        if key_kind == "fixed32":
            return b"\x0d" + i.to_bytes(4, "little")
        if key_kind == "fixed64":
            return b"\x09" + i.to_bytes(8, "little")
        text = b"x" * (i % 3 * 100) + b"%d" % i  # some of 100 bytes or more: two-byte lengths
        return b"\x0a" + encoder._VarintBytes(len(text)) + text

    def entries(ids: list[int]) -> bytes:
        run = []
        for i in ids:
            entry = key(i) + b"\x12" + (b"\x02vv" if i % 2 else b"\x82\x01" + b"v" * 130)
            run.append(encoder._VarintBytes(len(entry)) + entry)
        return tag.join(run)

    ids = list(range(1, compared_in_place + 1))
    for keys, unique in ((ids, True), (ids[::-1], True), (ids + ids[:1], False), (ids[:1] + ids, False),
                         (ids[:-1] + ids[-2:], False), (ids[:1], True)):
        data = b"\xff" + entries(keys) + b"\xff"  # other bytes around the run
        assert _kept.map_keys_unique(data, 1, len(data) - 1, len(tag)) is unique


def _zigzag(v: int) -> int:
    return (v << 1) ^ (v >> 63)


# packed decoder, its values (whole range, and those that take one byte), how one goes on the wire
PACKED_VARINT_KINDS: dict[str, tuple[Callable[[bytes, int, int, list[Any]], None], st.SearchStrategy[Any],
                                     st.SearchStrategy[Any], Callable[[Any], int]]] = {
    "int32": (_packed.dec_packed_int32, st.integers(-2**31, 2**31 - 1), st.integers(0, 0x7F), lambda v: v),
    "int64": (_packed.dec_packed_int64, st.integers(-2**63, 2**63 - 1), st.integers(0, 0x7F), lambda v: v),
    "uint32": (_packed.dec_packed_uint32, st.integers(0, 2**32 - 1), st.integers(0, 0x7F), lambda v: v),
    "uint64": (_packed.dec_packed_uint64, st.integers(0, 2**64 - 1), st.integers(0, 0x7F), lambda v: v),
    "sint32": (_packed.dec_packed_sint32, st.integers(-2**31, 2**31 - 1), st.integers(-64, 63), _zigzag),
    "sint64": (_packed.dec_packed_sint64, st.integers(-2**63, 2**63 - 1), st.integers(-64, 63), _zigzag),
    "bool": (_packed.dec_packed_bool, st.booleans(), st.booleans(), int),
}


@pytest.mark.parametrize("kind", sorted(PACKED_VARINT_KINDS))
@given(data=st.data(), one_byte=st.booleans())
def test_packed_varint_runs(kind: str, data: st.DataObject, one_byte: bool) -> None:
    """A packed run between two bytes it must not read, its values all one byte long (a path of
    its own, interpreted) or drawn from the whole range."""
    decode, values, one_byte_values, wire_value = PACKED_VARINT_KINDS[kind]
    run = data.draw(st.lists(one_byte_values if one_byte else values, max_size=40))
    payload = b"".join(expected(wire_value(v)) for v in run)
    assert not one_byte or len(payload) == len(run)
    buf = b"\x81" + payload + b"\x81"
    out: list[Any] = []
    decode(buf, 1, 1 + len(payload), out)
    assert out == run
    assert [type(v) for v in out] == [type(v) for v in run]  # bools, not ints equal to them


def test_packed_varint_run_cut_short() -> None:
    """The last varint of a run goes past the run's end: an error, whichever path reads it (an
    IndexError past the buffer becomes a DecodeError in the generated decoder)."""
    with pytest.raises(IndexError):
        _packed.dec_packed_int32(b"\x01\x02\x83", 0, 3, [])
    with pytest.raises(DecodeError, match="packed run overruns its length"):
        _packed.dec_packed_int32(b"\x01\x02\x83\x01", 0, 3, [])


# varints of every length, minimal or not, in and out of each kind's range
SCAN_FORMS = ([bytes([b]) for b in (0, 1, 2, 0x7F)] + [b"\x80" * (n - 1) + b"\x00" for n in range(2, 11)]
              + [b"\xff" * (n - 1) + last for n in range(2, 11) for last in (b"\x01", b"\x0f", b"\x10", b"\x7f")]
              + [expected(v) for v in (-1, -2**31, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63)])


def scan_form_expected(form: bytes, kind: int) -> bool:
    if len(form) == 1:  # one byte: minimal; a bool's only 0 or 1
        return kind != _kept.VARINT_BOOL or form[0] <= 1
    return scan_varint_expected(form, kind)


@pytest.mark.parametrize("kind", [_kept.VARINT_64, _kept.VARINT_UINT32, _kept.VARINT_INT32, _kept.VARINT_BOOL])
@given(forms=st.lists(st.sampled_from(SCAN_FORMS), max_size=12), after=st.binary(max_size=9))
def test_scan_packed_varints_judges_every_value(kind: int, forms: list[bytes], after: bytes) -> None:
    """A packed run is canonical when it is not empty and each of its values is as the encoder
    writes it; the bytes after the run are not read."""
    payload = b"".join(forms)
    buf = b"\x81" + payload + b"\x80" + after
    canonical = bool(forms) and all(scan_form_expected(form, kind) for form in forms)
    assert _kept.scan_packed_varints(buf, 1, 1 + len(payload), kind, None) == canonical


@pytest.mark.parametrize("kind", [_kept.VARINT_64, _kept.VARINT_UINT32, _kept.VARINT_INT32, _kept.VARINT_BOOL])
def test_scan_packed_varints_run_cut_short(kind: int) -> None:
    """A run whose last varint goes on past the run's end is an error, however long that varint."""
    for tail in (b"\x83\x01", b"\x83\x83\x01", b"\x83" * 9 + b"\x01"):
        with pytest.raises(DecodeError, match="packed run overruns its length"):
            _kept.scan_packed_varints(b"\x01" + tail + b"\x00" * 8, 0, 2, kind, None)


def decodes(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


# lead and continuation bytes at the edges of UTF-8's well-formed ranges, and ASCII
UTF8_EDGES = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
              0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]


@given(st.lists(st.sampled_from(UTF8_EDGES) | st.integers(0, 255), max_size=12).map(bytes),
       st.binary(max_size=9), st.binary(max_size=9))
def test_valid_utf8_agrees_with_decode(text: bytes, before: bytes, after: bytes) -> None:
    """Short text (checked byte by byte compiled) and longer text (word by word while ASCII),
    inside a larger buffer: valid exactly when bytes.decode() accepts it."""
    for data in (text, text * 12, b"x" * 9 + text):
        buf = before + data + after
        assert wire.valid_utf8(buf, len(before), len(before) + len(data)) == decodes(data)


def test_valid_utf8_every_code_point() -> None:
    """Every scalar value's encoding is valid; surrogates' (as surrogatepass writes them) are not."""
    for cp in range(0, 0x110000, 7):
        data = chr(cp).encode("utf-8", "surrogatepass")
        assert wire.valid_utf8(b"a" + data, 1, 1 + len(data)) == (not 0xD800 <= cp < 0xE000)


def scan_varint_expected(data: bytes, kind: int) -> bool:
    """Whether ``data``, one varint, is what the encoder writes for its value as a field of ``kind``."""
    value, _ = wire.dec_varint(data, 0)
    if kind == _kept.VARINT_BOOL:  # written in one byte
        return False
    if kind == _kept.VARINT_UINT32 and value >= 2**32:
        return False
    if kind == _kept.VARINT_INT32 and 2**31 <= value < 2**64 - 2**31:  # a negative int32 takes ten bytes
        return False
    return expected(value) == data


@pytest.mark.parametrize("kind", [_kept.VARINT_64, _kept.VARINT_UINT32, _kept.VARINT_INT32, _kept.VARINT_BOOL])
def test_scan_varint_every_length_and_place(kind: int) -> None:
    """Varints of two to ten bytes, minimal or not, in and out of their kind's range, with 0 to
    9 bytes after them in the buffer (compiled, a varint's first eight bytes are read as one
    word where the buffer holds them); over ten bytes is an error wherever it ends."""
    forms = [b"\x80" * (n - 1) + b"\x00" for n in range(2, 11)]  # not minimal
    forms += [b"\xff" * (n - 1) + last for n in range(2, 11) for last in (b"\x01", b"\x0f", b"\x10", b"\x7f")]
    forms += [expected(v) for v in (-1, -2**31, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63)]
    for form in forms:
        for after in range(10):
            buf = b"\x81" + form + b"\xff" * after
            end = 1 + len(form)
            assert _kept.scan_varint(buf, 1, kind) == (end if scan_varint_expected(form, kind) else ~end), (form, after)
    for after in range(10):
        with pytest.raises(DecodeError, match="varint longer than 10 bytes at offset 1"):
            _kept.scan_varint(b"\x81" + b"\xff" * 10 + b"\x01" + b"\x00" * after, 1, kind)
