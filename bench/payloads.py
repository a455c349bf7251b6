"""The workload payloads, built once with Google's runtime so every contender decodes the same bytes.

Also writes the field schema that the workers' readers are compiled from, and the
canonical JSON that every contender's from_json parses.
"""

from __future__ import annotations

import importlib
import json
import random
import sys
from typing import Any

from contenders import BUILD, DATA, WORKLOADS

TARGET_BATCH_BYTES = 1_000_000


def _modules() -> dict[str, Any]:
    sys.path.insert(0, str(BUILD / "google"))
    return {stem: importlib.import_module(f"benchpb.{stem}_pb2") for stem, _ in WORKLOADS.values()}


def _log(m: Any, rng: random.Random) -> Any:
    e = m["logentry"].LogEntry()
    e.timestamp_nanos = 1_764_000_000_000_000_000 + rng.randrange(10**9)
    e.level = e.LEVEL_WARNING
    e.service = "checkout-api"
    e.host = "web-17.eu-west-1.internal"
    e.message = "payment provider answered 503 after 2 retries; falling back to queue"
    e.trace_id = rng.getrandbits(64)
    e.span_id = rng.getrandbits(32)
    e.labels.update({"region": "eu-west-1", "version": "2.14.3", "customer_tier": "gold"})
    return e


def _scalars(m: Any, rng: random.Random) -> Any:
    S = m["scalars"].Scalars
    s = S(
        i32_a=-12, i32_b=300, i32_c=2_000_000_000,
        i64_a=-5_000_000_000, i64_b=42, i64_c=9_000_000_000_000_000_000,
        u32_a=7, u32_b=70_000, u32_c=4_000_000_000,
        u64_a=1, u64_b=1 << 40, u64_c=(1 << 64) - 1,
        s32_a=-1, s32_b=-100_000, s64_a=-(1 << 50), s64_b=12345,
        f32_a=0xDEADBEEF, f32_b=3, f64_a=1 << 60, f64_b=17,
        sf32_a=-77, sf64_a=-(1 << 40),
        float_a=1.5, float_b=-0.25, float_c=3.0e10,
        double_a=3.141592653589793, double_b=-2.5e-8, double_c=6.02214076e23,
        bool_a=True, bool_b=False, bool_c=True,
        str_a="alpha", str_b="a somewhat longer string value", str_c="ünïcödé ✓", str_d="",
        bytes_a=bytes(range(16)), bytes_b=b"\x00\xff" * 8,
        kind_a=S.KIND_A, kind_b=S.KIND_C, kind_c=S.KIND_UNSPECIFIED,
    )
    for i in range(10):
        s.items.add(id=rng.randrange(10**12), name=f"item-{i:03d}", weight=rng.random() * 100,
                    enabled=i % 3 != 0)
    return s


def _addressbook(m: Any, rng: random.Random) -> Any:
    ab = m["addressbook"]
    book = ab.AddressBook()
    first = ["Ada", "Grace", "Alan", "Barbara", "Edsger", "Donald", "Frances", "Ken", "Radia", "Tony"]
    last = ["Lovelace", "Hopper", "Turing", "Liskov", "Dijkstra", "Knuth", "Allen", "Thompson"]
    for i in range(20):
        p = book.people.add()
        p.name = f"{rng.choice(first)} {rng.choice(last)}"
        p.id = 1000 + i
        p.email = f"{p.name.split()[0].lower()}.{i}@example.com"
        for j in range(1 + i % 3):
            p.phones.add(number=f"+1-555-{rng.randrange(10000):04d}", type=1 + j)
        p.last_updated.seconds = 1_700_000_000 + rng.randrange(10**7)
        p.last_updated.nanos = rng.randrange(10**9)
    return book


def _batch(m: Any, rng: random.Random) -> Any:
    b = m["batch"].Batch(source="sensor-export-2026-11")
    size = 0
    i = 0
    while size < TARGET_BATCH_BYTES:
        s = b.samples.add(
            id=i, timestamp_millis=1_764_000_000_000 + i * 250,
            latitude=rng.uniform(-90, 90), longitude=rng.uniform(-180, 180),
            value=rng.random(), name=f"probe-{i % 500:04d}",
        )
        s.tags.extend(rng.randrange(1000) for _ in range(3))
        size += s.ByteSize() + 3
        i += 1
    return b


BUILDERS = {"log": _log, "scalars": _scalars, "addressbook": _addressbook, "batch-1MB": _batch}

def _is_repeated(f: Any) -> bool:
    if hasattr(f, "is_repeated"):  # protobuf >= 6; `label` is gone from upb's descriptors
        return bool(f.is_repeated)
    from google.protobuf.descriptor import FieldDescriptor

    return bool(f.label == FieldDescriptor.LABEL_REPEATED)


def _schema(desc: Any, out: dict[str, list[list[str]]]) -> None:
    if desc.full_name in out:
        return
    fields: list[list[str]] = []
    out[desc.full_name] = fields
    for f in desc.fields:
        repeated = _is_repeated(f)
        sub = f.message_type
        if sub is not None and sub.GetOptions().map_entry:
            value = sub.fields_by_name["value"]
            if value.message_type is not None:
                fields.append([f.name, "map_message", value.message_type.full_name])
                _schema(value.message_type, out)
            else:
                fields.append([f.name, "map", ""])
        elif sub is not None:
            fields.append([f.name, "repeated_message" if repeated else "message", sub.full_name])
            _schema(sub, out)
        else:
            fields.append([f.name, "repeated" if repeated else "scalar", ""])


def build() -> dict[str, Any]:
    """Write DATA/<workload>.bin and .json and DATA/schema.json; return the upb messages."""
    from google.protobuf import json_format

    mods = _modules()
    DATA.mkdir(parents=True, exist_ok=True)
    schema: dict[str, list[list[str]]] = {}
    messages: dict[str, Any] = {}
    for workload, builder in BUILDERS.items():
        msg = builder(mods, random.Random(20261129))
        messages[workload] = msg
        (DATA / f"{workload}.bin").write_bytes(msg.SerializeToString())
        (DATA / f"{workload}.json").write_text(json_format.MessageToJson(msg, indent=None))
        _schema(msg.DESCRIPTOR, schema)
    roots = {w: m.DESCRIPTOR.full_name for w, m in messages.items()}
    (DATA / "schema.json").write_text(json.dumps({"roots": roots, "messages": schema}, indent=1))
    return messages


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """The path and values of the first field where two messages of one type differ."""
    for f in a.DESCRIPTOR.fields:
        x, y = getattr(a, f.name), getattr(b, f.name)
        where = f"{path}.{f.name}" if path else f.name
        if x == y:
            continue
        if f.message_type is not None and not f.message_type.GetOptions().map_entry:
            if _is_repeated(f):
                if len(x) != len(y):
                    return f"{where}: {len(x)} != {len(y)} elements"
                for i, (u, v) in enumerate(zip(x, y)):
                    if u != v:
                        return first_difference(u, v, f"{where}[{i}]")
            else:
                return first_difference(x, y, where)
        return f"{where}: {x!r} != {y!r}"
    return "unknown fields"


def check(workload: str, wire: bytes | None, text: str | None, messages: dict[str, Any]) -> list[str]:
    """Compare a contender's serialize()/to_json() output with the reference message."""
    from google.protobuf import json_format

    ref = messages[workload]
    problems = []
    if wire is not None:
        got = type(ref).FromString(wire)
        if got != ref:
            problems.append(f"{workload}: serialize() output differs from the input "
                            f"(first at {first_difference(ref, got)})")
    if text is not None:
        try:
            got = json_format.Parse(text, type(ref)())
        except json_format.ParseError as exc:
            problems.append(f"{workload}: to_json() output rejected by json_format: {exc}")
        else:
            if got != ref:
                problems.append(f"{workload}: to_json() output differs from the input "
                                f"(first at {first_difference(ref, got)})")
    return problems
