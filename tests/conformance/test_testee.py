"""Fast checks of the conformance testee itself, for every style.

Requests and responses are encoded by hand here, so these tests do not trust the
codec they exercise.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conformance import harness
from tests.conformance.harness import HERE, STYLES, SetupError, find_runner

TESTEE = HERE / "testee"
PROTO3 = "protobuf_test_messages.proto3.TestAllTypesProto3"
PROTO2 = "protobuf_test_messages.proto2.TestAllTypesProto2"

# conformance.proto field numbers and enum values
REQ_PROTOBUF, REQ_JSON, REQ_OUTPUT, REQ_TYPE, REQ_CATEGORY, REQ_TEXT = 1, 2, 3, 4, 5, 8
OUT_PROTOBUF, OUT_JSON, OUT_TEXT = 1, 2, 4  # conformance.WireFormat
BINARY_TEST, JSON_TEST, TEXT_FORMAT_TEST = 1, 2, 5
RESULTS = {1: "parse_error", 2: "runtime_error", 3: "protobuf_payload", 4: "json_payload",
           5: "skipped", 6: "serialize_error", 8: "text_payload"}


def varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field_len(number: int, value: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(value)) + value


def field_varint(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value)


def request(message_type: str, *, protobuf: bytes | None = None, json: str | None = None,
            text: str | None = None, output: int = OUT_PROTOBUF, category: int = BINARY_TEST) -> bytes:
    out = b""
    if protobuf is not None:
        out += field_len(REQ_PROTOBUF, protobuf)
    if json is not None:
        out += field_len(REQ_JSON, json.encode())
    out += field_varint(REQ_OUTPUT, output) + field_len(REQ_TYPE, message_type.encode())
    out += field_varint(REQ_CATEGORY, category)
    if text is not None:
        out += field_len(REQ_TEXT, text.encode())
    return out


def decode_response(data: bytes) -> tuple[str, bytes]:
    """Return the one result of a ConformanceResponse as (field name, raw value)."""
    tag = data[0]  # result fields are numbered below 16: one-byte tags
    pos = 1
    length = 0
    shift = 0
    while True:
        b = data[pos]
        pos += 1
        length |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            break
    assert tag & 7 == 2 and pos + length == len(data), data
    return RESULTS[tag >> 3], data[pos:]


class RunningTestee:
    def __init__(self, style: str) -> None:
        env = dict(os.environ, PYOPAQUE_PYTHON=sys.executable)
        env.pop("PYOPAQUE_PROTOOPAQUE", None)
        self.proc = subprocess.Popen([str(TESTEE), style], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)

    def ask(self, data: bytes) -> tuple[str, bytes]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(struct.pack("<I", len(data)) + data)
        self.proc.stdin.flush()
        header = self.proc.stdout.read(4)
        assert len(header) == 4, self.close()
        (n,) = struct.unpack("<I", header)
        return decode_response(self.proc.stdout.read(n))

    def close(self) -> tuple[int, str]:
        _, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, err.decode()


@pytest.fixture(scope="module")
def runner_available() -> None:
    try:
        find_runner()
    except SetupError as exc:
        pytest.skip(f"no conformance runner: {exc}")


# the compiled style takes minutes to build: `make conformance` runs it (and builds it once)
@pytest.fixture(scope="module", params=[name for name, style in STYLES.items() if not style.compiled])
def testee(request: pytest.FixtureRequest, runner_available: None) -> Iterator[RunningTestee]:
    t = RunningTestee(request.param)
    yield t
    code, err = t.close()
    assert code == 0, err


def test_binary_round_trip_keeps_fields_and_unknowns(testee: RunningTestee) -> None:
    # optional_int32 = 150, optional_string = "hi", unknown field 501 (varint 1)
    payload = field_varint(1, 150) + field_len(14, b"hi") + bytes.fromhex("a81f01")
    assert testee.ask(request(PROTO3, protobuf=payload)) == ("protobuf_payload", payload)


def test_binary_output_is_canonical(testee: RunningTestee) -> None:
    # fields out of order and an overlong varint come back in field order, minimal
    payload = field_len(14, b"hi") + bytes.fromhex("08 96 81 00")
    assert testee.ask(request(PROTO3, protobuf=payload)) == (
        "protobuf_payload", field_varint(1, 150) + field_len(14, b"hi"))


def test_malformed_payload_is_a_parse_error(testee: RunningTestee) -> None:
    kind, _ = testee.ask(request(PROTO3, protobuf=b"\x08"))  # a tag without its value
    assert kind == "parse_error"
    kind, _ = testee.ask(request(PROTO2, protobuf=b"\x0c"))  # an end-group nothing opened
    assert kind == "parse_error"
    # an unknown field (501) whose varint runs past ten bytes
    kind, _ = testee.ask(request(PROTO3, protobuf=b"\xa8\x1f" + b"\x80" * 10 + b"\x01"))
    assert kind == "parse_error"


def test_json_in_and_out(testee: RunningTestee) -> None:
    result, payload = testee.ask(request(PROTO3, json='{"optionalInt32": 1}', category=JSON_TEST))
    assert (result, payload) == ("protobuf_payload", b"\x08\x01")
    result, payload = testee.ask(request(PROTO3, protobuf=b"\x08\x01", output=OUT_JSON))
    assert (result, payload) == ("json_payload", b'{"optionalInt32":1}')
    assert testee.ask(request(PROTO3, json='{"optionalInt32": "x"}', category=JSON_TEST))[0] == "parse_error"
    assert testee.ask(request(PROTO3, json='{"unknownName": 1}', category=JSON_TEST))[0] == "parse_error"


def test_text_in_and_out(testee: RunningTestee) -> None:
    result, payload = testee.ask(request(PROTO3, text="optional_int32: 1", category=TEXT_FORMAT_TEST))
    assert (result, payload) == ("protobuf_payload", b"\x08\x01")
    result, payload = testee.ask(request(PROTO3, protobuf=b"\x08\x01", output=OUT_TEXT))
    assert result == "text_payload" and payload.strip() == b"optional_int32: 1"
    assert testee.ask(request(PROTO3, text="no_such_field: 1", category=TEXT_FORMAT_TEST))[0] == "parse_error"


def test_unknown_message_type_is_a_runtime_error(testee: RunningTestee) -> None:
    kind, text = testee.ask(request("no.such.Message", protobuf=b""))
    assert kind == "runtime_error" and b"no.such.Message" in text


def test_unknown_style_is_rejected() -> None:
    done = subprocess.run([str(TESTEE), "eager-ish"], capture_output=True, text=True, check=False,
                          env=dict(os.environ, PYOPAQUE_PYTHON=sys.executable))
    assert done.returncode == 2
    assert "unknown style 'eager-ish'" in done.stderr and "hybrid-opaque" in done.stderr


def test_a_build_it_may_not_make_is_refused_not_started(runner_available: None, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A serving testee of the compiled style passes may_build=False: a missing build is an error
    naming --prepare, and nothing is generated (the runner would time a minutes-long build out)."""
    monkeypatch.setattr(harness, "CONFORMANCE_BUILD", tmp_path)
    with pytest.raises(SetupError, match="--prepare"):
        harness.ensure_generated(STYLES["compiled"], find_runner(), may_build=False)
    assert list(tmp_path.iterdir()) == [tmp_path / ".gen-compiled.lock"]
