"""`make demo`: generate the examples in the three API styles and use each of them.

Shows the command lines, then the same address book built, serialized and parsed
through the open, hybrid and opaque APIs, with byte-identical wire output; then the stories
of the examples beside this file (logentry, addressbook_interop, embed_blob, greeter), each
of which also runs alone: `.venv/bin/python examples/greeter.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import addressbook_interop
import embed_blob
import greeter
import logentry
from common import build, load

from tools.generate import BUILD

FILES = ["example/addressbook.proto", "example/logs.proto"]
STORIES = (logentry, addressbook_interop, embed_blob, greeter)


def build_listing(style: str) -> Path:
    out = build(style, FILES)
    for path in sorted(out.rglob("*.py")):
        print("   wrote", path.relative_to(BUILD.parent))
    return out


def open_style(ab: object) -> bytes:
    Person = ab.Person  # type: ignore[attr-defined]
    person = Person(name="Ada", id=1, email="ada@example.com")
    person.phones.append(Person.PhoneNumber(number="555-0100", type=Person.PhoneType.PHONE_TYPE_MOBILE))
    person.labels["team"] = "engines"
    person.preferred_email = "ada@work.example"
    print("   open:   person.name =", repr(person.name), "| person.email =", repr(person.email),
          "| which_contact_preference() =", repr(person.which_contact_preference()))
    return ab.AddressBook(people=[person]).serialize()  # type: ignore[attr-defined, no-any-return]


def hybrid_style(ab: object) -> bytes:
    Person = ab.Person  # type: ignore[attr-defined]
    person = Person(name="Ada", id=1)
    person.set_email("ada@example.com")          # accessor ...
    person.phones.append(Person.PhoneNumber(number="555-0100", type=Person.PhoneType.PHONE_TYPE_MOBILE))
    person.labels["team"] = "engines"            # ... and attribute, side by side
    person.set_preferred_email("ada@work.example")
    print("   hybrid: person.get_email() =", repr(person.get_email()), "| person.email =", repr(person.email),
          "| has_email() =", person.has_email())
    return ab.AddressBook(people=[person]).serialize()  # type: ignore[attr-defined, no-any-return]


def opaque_style(ab: object) -> bytes:
    Person = ab.Person  # type: ignore[attr-defined]
    person = Person(name="Ada", id=1)
    person.set_email("ada@example.com")
    person.get_phones().append(Person.PhoneNumber(number="555-0100", type=Person.PhoneType.PHONE_TYPE_MOBILE))
    person.get_labels()["team"] = "engines"
    person.set_preferred_email("ada@work.example")
    hidden = not hasattr(person, "email") and not hasattr(person, "__dict__")
    print("   opaque: person.get_email() =", repr(person.get_email()), "| fields hidden:", hidden,
          "| which_contact_preference() =", repr(person.which_contact_preference()))
    return ab.AddressBook(people=[person]).serialize()  # type: ignore[attr-defined, no-any-return]


def main() -> int:
    print("protoc-gen-pyopaque demo: one address book through three API styles\n")
    outputs: dict[str, bytes] = {}
    for style, use in (("open", open_style), ("hybrid", hybrid_style), ("opaque", opaque_style)):
        out = build_listing(style)
        outputs[style] = use(load(out, "example.addressbook_pb"))
        print()
    same = len(set(outputs.values())) == 1
    print(f"wire bytes identical across styles: {same} ({len(outputs['open'])} bytes)")
    opaque = load(BUILD / "examples" / "opaque", "example.addressbook_pb")
    book = opaque.AddressBook.parse(outputs["open"])  # type: ignore[attr-defined]
    print("parsed back (opaque):", repr(book))
    print("as JSON:", book.to_json())
    print("as text:", book.to_text(as_one_line=True))

    out = build_listing("edition-default")
    logs = load(out, "example.logs_pb")
    record_cls = logs.LogRecord  # type: ignore[attr-defined]
    print("   edition 2024 default style:", record_cls.__pyopaque_api__)
    record = record_cls(service="api", severity=record_cls.Severity.SEVERITY_ERROR,
                        payload=record_cls.Payload(lines=["boom"]))
    print("   round trip:", record_cls.parse(record.serialize()) == record)
    try:
        record_cls.parse(b"\x12\x05ab")
    except Exception as exc:  # the runtime's DecodeError, naming field and offset
        print(f"   malformed input -> {type(exc).__name__}: {exc}")
    for story in STORIES:
        print()
        story.main()
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
