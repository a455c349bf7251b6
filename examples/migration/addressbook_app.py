"""A small address-book program written against the official protobuf runtime.

It is the starting point of the migration path in docs/migration.md; the test
tests/integration/test_migration_example.py moves a copy of it, with its tests, to
protoc-gen-pyopaque's modules and runs the tests at every step.
"""

from __future__ import annotations

from google.protobuf import json_format

from example import addressbook_pb2


def add_person(book: addressbook_pb2.AddressBook, name: str, email: str, phones: list[str]) -> None:
    """Add a person with an id one above the highest, and mobile phones."""
    person = book.people.add(name=name)
    person.id = max([p.id for p in book.people], default=0) + 1
    if email:
        person.email = email
    for number in phones:
        person.phones.add(number=number, type=addressbook_pb2.Person.PhoneType.PHONE_TYPE_MOBILE)
    person.last_updated.seconds = 1_700_000_000
    person.labels["source"] = "app"


def prefer_email(person: addressbook_pb2.Person) -> None:
    """Ask to be contacted by e-mail, when the person has one."""
    if person.HasField("email"):
        person.preferred_email = person.email


def summary(book: addressbook_pb2.AddressBook) -> list[str]:
    """One line per person: name, e-mail (or -), phones, contact preference."""
    lines = []
    for person in book.people:
        email = person.email if person.HasField("email") else "-"
        numbers = ",".join(phone.number for phone in person.phones)
        lines.append(f"{person.id} {person.name} {email} [{numbers}] {person.WhichOneof('contact_preference')}")
    return lines


def save(book: addressbook_pb2.AddressBook) -> bytes:
    """The book's wire form."""
    return book.SerializeToString(deterministic=True)


def load(data: bytes) -> addressbook_pb2.AddressBook:
    """A book from its wire form."""
    book = addressbook_pb2.AddressBook()
    book.ParseFromString(data)
    return book


def as_json(book: addressbook_pb2.AddressBook) -> str:
    """The book as ProtoJSON with the .proto field names."""
    return json_format.MessageToJson(book, preserving_proto_field_name=True)
