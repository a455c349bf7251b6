"""The object floor of a compiled parse: what making the decoded objects costs, without decoding.

A parser that hands back Python objects has to allocate them: an object per message, a list
per repeated field, a dict per map, a str or bytes per string field (from a slice of the
input, the only way Python code has to make one), an int object per integer above 256 put
in a list. `make bench` compiles this module with mypyc (as the "object floor, compiled"
contender) and times its builders, which make those objects for each workload — native
classes with the fields of pyopaque's compiled opaque classes — from values decoded
beforehand (`plan`, from upb's decode). upb's parse leaves its result in C arenas until a
field is read; this floor says how close to it a parse into Python objects can get.
"""

from __future__ import annotations

from typing import Any


class Strings:
    """The strings of a payload, UTF-8, one after another; plans refer to them by offsets."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, value: str | bytes) -> tuple[int, int]:
        data = value.encode() if isinstance(value, str) else value
        self.parts.append(data)
        self.size += len(data)
        return self.size - len(data), self.size

    def blob(self) -> bytes:
        return b"".join(self.parts)


# -- log ---------------------------------------------------------------------------------------

class LogEntry:
    def __init__(self) -> None:
        self.unknown = b""
        self.timestamp_nanos = 0
        self.level = 0
        self.service = ""
        self.host = ""
        self.message = ""
        self.trace_id = 0
        self.span_id = 0
        self.labels: dict[str, str] = {}


LogPlan = tuple[int, int, int, int, int, int, int, int, int, int, list[tuple[int, int, int, int]]]


def build_log(blob: bytes, p: LogPlan) -> LogEntry:
    m = LogEntry()
    m.timestamp_nanos = p[0]
    m.level = p[1]
    m.service = blob[p[2]:p[3]].decode()
    m.host = blob[p[4]:p[5]].decode()
    m.message = blob[p[6]:p[7]].decode()
    m.trace_id = p[8]
    m.span_id = p[9]
    for k0, k1, v0, v1 in p[10]:
        m.labels[blob[k0:k1].decode()] = blob[v0:v1].decode()
    return m


def plan_log(msg: Any) -> tuple[bytes, LogPlan]:
    s = Strings()
    plan = (msg.timestamp_nanos, msg.level, *s.add(msg.service), *s.add(msg.host), *s.add(msg.message),
            msg.trace_id, msg.span_id, [(*s.add(k), *s.add(v)) for k, v in msg.labels.items()])
    return s.blob(), plan


# -- scalars -----------------------------------------------------------------------------------

class Item:
    def __init__(self) -> None:
        self.unknown = b""
        self.id = 0
        self.name = ""
        self.weight = 0.0
        self.enabled = False


class Scalars:
    def __init__(self) -> None:
        self.unknown = b""
        self.presence = 0
        self.i32_a = self.i32_b = self.i32_c = 0
        self.i64_a = self.i64_b = self.i64_c = 0
        self.u32_a = self.u32_b = self.u32_c = 0
        self.u64_a = self.u64_b = self.u64_c = 0
        self.s32_a = self.s32_b = self.s64_a = self.s64_b = 0
        self.f32_a = self.f32_b = self.f64_a = self.f64_b = self.sf32_a = self.sf64_a = 0
        self.float_a = self.float_b = self.float_c = 0.0
        self.double_a = self.double_b = self.double_c = 0.0
        self.bool_a = self.bool_b = self.bool_c = False
        self.str_a = self.str_b = self.str_c = self.str_d = ""
        self.bytes_a = self.bytes_b = b""
        self.kind_a = self.kind_b = self.kind_c = 0
        self.items: list[Item] = []


INT_FIELDS = ("i32_a", "i32_b", "i32_c", "i64_a", "i64_b", "i64_c", "u32_a", "u32_b", "u32_c", "u64_a",
              "u64_b", "u64_c", "s32_a", "s32_b", "s64_a", "s64_b", "f32_a", "f32_b", "f64_a", "f64_b",
              "sf32_a", "sf64_a", "kind_a", "kind_b", "kind_c")
ScalarsPlan = tuple[list[int], list[float], list[bool], list[int], list[tuple[int, int, int, float, bool]]]


def build_scalars(blob: bytes, p: ScalarsPlan) -> Scalars:
    ints, floats, bools, spans, items = p
    m = Scalars()
    m.presence = (1 << 40) - 1
    m.i32_a, m.i32_b, m.i32_c = ints[0], ints[1], ints[2]
    m.i64_a, m.i64_b, m.i64_c = ints[3], ints[4], ints[5]
    m.u32_a, m.u32_b, m.u32_c = ints[6], ints[7], ints[8]
    m.u64_a, m.u64_b, m.u64_c = ints[9], ints[10], ints[11]
    m.s32_a, m.s32_b, m.s64_a, m.s64_b = ints[12], ints[13], ints[14], ints[15]
    m.f32_a, m.f32_b, m.f64_a, m.f64_b = ints[16], ints[17], ints[18], ints[19]
    m.sf32_a, m.sf64_a = ints[20], ints[21]
    m.kind_a, m.kind_b, m.kind_c = ints[22], ints[23], ints[24]
    m.float_a, m.float_b, m.float_c = floats[0], floats[1], floats[2]
    m.double_a, m.double_b, m.double_c = floats[3], floats[4], floats[5]
    m.bool_a, m.bool_b, m.bool_c = bools[0], bools[1], bools[2]
    m.str_a = blob[spans[0]:spans[1]].decode()
    m.str_b = blob[spans[2]:spans[3]].decode()
    m.str_c = blob[spans[4]:spans[5]].decode()
    m.str_d = blob[spans[6]:spans[7]].decode()
    m.bytes_a = blob[spans[8]:spans[9]]
    m.bytes_b = blob[spans[10]:spans[11]]
    for id_, n0, n1, weight, enabled in items:
        item = Item()
        item.id = id_
        item.name = blob[n0:n1].decode()
        item.weight = weight
        item.enabled = enabled
        m.items.append(item)
    return m


def plan_scalars(msg: Any) -> tuple[bytes, ScalarsPlan]:
    s = Strings()
    spans = [x for f in ("str_a", "str_b", "str_c", "str_d", "bytes_a", "bytes_b") for x in s.add(getattr(msg, f))]
    plan = ([getattr(msg, f) for f in INT_FIELDS],
            [msg.float_a, msg.float_b, msg.float_c, msg.double_a, msg.double_b, msg.double_c],
            [msg.bool_a, msg.bool_b, msg.bool_c], spans,
            [(i.id, *s.add(i.name), i.weight, i.enabled) for i in msg.items])
    return s.blob(), plan


# -- addressbook -------------------------------------------------------------------------------

class PhoneNumber:
    def __init__(self) -> None:
        self.unknown = b""
        self.number = ""
        self.type = 0


class Timestamp:
    def __init__(self) -> None:
        self.unknown = b""
        self.seconds = 0
        self.nanos = 0


class Person:
    def __init__(self) -> None:
        self.unknown = b""
        self.name = ""
        self.id = 0
        self.email = ""
        self.phones: list[PhoneNumber] = []
        self.last_updated: Timestamp | None = None


class AddressBook:
    def __init__(self) -> None:
        self.unknown = b""
        self.people: list[Person] = []


PersonPlan = tuple[int, int, int, int, int, list[tuple[int, int, int]], int, int]


def build_addressbook(blob: bytes, people: list[PersonPlan]) -> AddressBook:
    m = AddressBook()
    for n0, n1, id_, e0, e1, phones, seconds, nanos in people:
        person = Person()
        person.name = blob[n0:n1].decode()
        person.id = id_
        person.email = blob[e0:e1].decode()
        for p0, p1, kind in phones:
            phone = PhoneNumber()
            phone.number = blob[p0:p1].decode()
            phone.type = kind
            person.phones.append(phone)
        ts = Timestamp()
        ts.seconds = seconds
        ts.nanos = nanos
        person.last_updated = ts
        m.people.append(person)
    return m


def plan_addressbook(msg: Any) -> tuple[bytes, list[PersonPlan]]:
    s = Strings()
    plan = [(*s.add(p.name), p.id, *s.add(p.email), [(*s.add(n.number), n.type) for n in p.phones],
             p.last_updated.seconds, p.last_updated.nanos) for p in msg.people]
    return s.blob(), plan


# -- batch -------------------------------------------------------------------------------------

class Sample:
    def __init__(self) -> None:
        self.unknown = b""
        self.id = 0
        self.timestamp_millis = 0
        self.latitude = 0.0
        self.longitude = 0.0
        self.value = 0.0
        self.name = ""
        self.tags: list[int] = []


class Batch:
    def __init__(self) -> None:
        self.unknown = b""
        self.source = ""
        self.samples: list[Sample] = []


SamplePlan = tuple[int, int, float, float, float, int, int, list[int]]


def build_batch(blob: bytes, p: tuple[int, int, list[SamplePlan]]) -> Batch:
    m = Batch()
    m.source = blob[p[0]:p[1]].decode()
    for id_, millis, latitude, longitude, value, n0, n1, tags in p[2]:
        sample = Sample()
        sample.id = id_
        sample.timestamp_millis = millis
        sample.latitude = latitude
        sample.longitude = longitude
        sample.value = value
        sample.name = blob[n0:n1].decode()
        for tag in tags:  # boxed again on append: ints above 256 are new objects, as decoded ones are
            sample.tags.append(tag)
        m.samples.append(sample)
    return m


def plan_batch(msg: Any) -> tuple[bytes, tuple[int, int, list[SamplePlan]]]:
    s = Strings()
    source = s.add(msg.source)
    samples = [(x.id, x.timestamp_millis, x.latitude, x.longitude, x.value, *s.add(x.name), list(x.tags))
               for x in msg.samples]
    return s.blob(), (*source, samples)


# workload -> (plan from a upb message, builder of the objects)
FLOORS: dict[str, tuple[Any, Any]] = {
    "log": (plan_log, build_log),
    "scalars": (plan_scalars, build_scalars),
    "addressbook": (plan_addressbook, build_addressbook),
    "batch-1MB": (plan_batch, build_batch),
}
