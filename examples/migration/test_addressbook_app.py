"""The address-book program's tests: they must pass before, during and after the migration."""

from __future__ import annotations

import json

import addressbook_app
from example import addressbook_pb2


def _book() -> addressbook_pb2.AddressBook:
    book = addressbook_pb2.AddressBook()
    addressbook_app.add_person(book, "Ada", "ada@example.com", ["555-1", "555-2"])
    addressbook_app.add_person(book, "Alan", "", [])
    addressbook_app.prefer_email(book.people[0])
    addressbook_app.prefer_email(book.people[1])
    return book


def test_summary() -> None:
    assert addressbook_app.summary(_book()) == [
        "1 Ada ada@example.com [555-1,555-2] preferred_email",
        "2 Alan - [] None",
    ]


def test_round_trip() -> None:
    book = _book()
    back = addressbook_app.load(addressbook_app.save(book))
    assert back == book
    assert addressbook_app.summary(back) == addressbook_app.summary(book)


def test_json() -> None:
    data = json.loads(addressbook_app.as_json(_book()))
    first = data["people"][0]
    assert first["name"] == "Ada" and first["last_updated"] == "2023-11-14T22:13:20Z"
    assert first["phones"][1] == {"number": "555-2", "type": "PHONE_TYPE_MOBILE"}
    assert data["people"][1] == {"name": "Alan", "id": 2, "last_updated": "2023-11-14T22:13:20Z",
                                 "labels": {"source": "app"}}
