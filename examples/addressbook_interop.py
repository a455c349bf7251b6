"""The classic address book: written with our opaque classes, read by the official runtime
(`protobuf`'s `_pb2` module of the same .proto), changed there and read back, in binary and JSON.
Ruby's runtime joins in when a `ruby` with the google-protobuf gem is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from types import ModuleType

from common import PROTOS, build, load
from google.protobuf import json_format

from tools.generate import BUILD, grpc_include, protoc

FILES = ["example/addressbook.proto"]
RUBY_READS = """
require 'google/protobuf'
$LOAD_PATH.unshift(ARGV[0])
require 'example/addressbook_pb'
book = Example::AddressBook.decode($stdin.binmode.read)
book.people.each { |p| puts "   ruby reads: #{p.name} <#{p.email}> #{p.phones.map(&:number).join(', ')}" }
"""


def official() -> ModuleType:
    out = BUILD / "examples" / "pb2"
    out.mkdir(parents=True, exist_ok=True)
    args = [f"-I{PROTOS}", f"-I{grpc_include()}", f"--python_out={out}", *FILES]
    print("$ python -m grpc_tools.protoc", " ".join(args[2:]).replace(str(BUILD.parent) + "/", ""))
    result = protoc(args)
    if result.returncode != 0:
        raise RuntimeError(result.stderr)
    return load(out, "example.addressbook_pb2")


def ruby(data: bytes) -> None:
    """Let Ruby's runtime read ``data`` if it is installed (nothing is installed for it here)."""
    ruby_bin = shutil.which("ruby")
    has_gem = ruby_bin and subprocess.run([ruby_bin, "-e", "require 'google/protobuf'"],
                                          capture_output=True, check=False).returncode == 0
    if not has_gem:
        print("   (no ruby with the google-protobuf gem here: the Ruby reader is skipped)")
        return
    out = BUILD / "examples" / "ruby"
    out.mkdir(parents=True, exist_ok=True)
    result = protoc([f"-I{PROTOS}", f"-I{grpc_include()}", f"--ruby_out={out}", *FILES])
    if result.returncode != 0:
        raise RuntimeError(result.stderr)
    read = subprocess.run([str(ruby_bin), "-e", RUBY_READS, str(out)], input=data, capture_output=True, check=True)
    print(read.stdout.decode(), end="")


def main() -> None:
    print("== The address book: ours <-> the official runtime, binary and JSON ==")
    ours = load(build("opaque", FILES, name="addressbook-opaque"), "example.addressbook_pb")
    Person = ours.Person
    ada = Person(name="Ada Lovelace", id=1, email="ada@example.com",
                 phones=[Person.PhoneNumber(number="555-0100", type=Person.PhoneType.PHONE_TYPE_MOBILE)],
                 labels={"team": "engines"})
    book = ours.AddressBook(people=[ada])
    data, text = book.serialize(), book.to_json()
    print(f"   ours writes: {len(data)} bytes binary, {len(text)} bytes JSON")

    pb2 = official()
    theirs = pb2.AddressBook.FromString(data)
    print(f"   official reads binary: {theirs.people[0].name} <{theirs.people[0].email}>,",
          f"phone {theirs.people[0].phones[0].number}")
    from_json = json_format.Parse(text, pb2.AddressBook())
    print("   official reads JSON, same message:", from_json == theirs)
    ruby(data)

    grace = theirs.people.add(name="Grace Hopper", id=2)
    grace.phones.add(number="555-0199", type=pb2.Person.PHONE_TYPE_WORK)
    back = theirs.SerializeToString()
    back_json = json_format.MessageToJson(theirs, indent=None)
    print(f"   official adds a person and writes: {len(back)} bytes binary, {len(back_json)} bytes JSON")
    again = ours.AddressBook.parse(back)
    names = [p.get_name() for p in again.get_people()]
    print("   ours reads binary:", names, "| has_email() of each:", [p.has_email() for p in again.get_people()])
    print("   ours reads JSON, same message:", ours.AddressBook.from_json(back_json) == again)
    print("   written again unchanged (binary bytes equal, JSON equal):", again.serialize() == back and json.loads(again.to_json()) == json.loads(back_json))


if __name__ == "__main__":
    sys.exit(main())
