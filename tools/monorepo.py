"""A synthetic monorepo of .proto files, for the plugin's scaling benchmark and test.

File ``i`` imports up to three earlier files and uses their messages as field types, so the first
``n`` files of the list are a closed set: any prefix is a smaller monorepo of the same shape.
Syntaxes rotate (proto3 mostly, proto2 with required fields, editions 2023 and 2024: open and
opaque styles by default), and so do the message shapes: scalars, enums, nested messages and
enums, maps, oneofs, repeated fields, imported message types, a well-known type; a few files
declare a service.
"""

from __future__ import annotations

import random
from pathlib import Path

FILES_PER_PACKAGE = 100
SYNTAXES = ("proto3",) * 7 + ("proto2", "edition2023", "edition2024")
SHAPES = 8


def proto_name(i: int) -> str:
    return f"mono/p{i // FILES_PER_PACKAGE:02d}/f{i:04d}.proto"


def package(i: int) -> str:
    return f"mono.p{i // FILES_PER_PACKAGE:02d}"


def proto_source(i: int, messages: int) -> str:
    """The text of file ``i``, with ``messages`` top-level messages."""
    rng = random.Random(i)
    syntax = SYNTAXES[i % len(SYNTAXES)]
    imports = sorted({rng.randrange(i) for _ in range(3)}) if i else []
    with_timestamp = i % 7 == 3

    def imported(j: int) -> str:
        if not imports:
            return f"F{i}M0"
        d = imports[j % len(imports)]
        return f".{package(d)}.F{d}M{(i + j) % messages}"

    opt = "optional " if syntax in ("proto2", "proto3") else ""
    lines = [f'edition = "{syntax[7:]}";' if syntax.startswith("edition") else f'syntax = "{syntax}";',
             f"package {package(i)};"]
    lines += [f'import "{proto_name(d)}";' for d in imports]
    if with_timestamp:
        lines.append('import "google/protobuf/timestamp.proto";')
    lines.append(f"enum F{i}Kind {{ F{i}_KIND_UNSPECIFIED = 0; F{i}_KIND_A = 1; F{i}_KIND_B = 2; }}")
    for j in range(messages):
        shape = (i + j) % SHAPES
        if shape == 0:
            body = [f"{'required ' if syntax == 'proto2' else opt}int32 id = 1;",
                    f"{opt}int64 count = 2;", f"{opt}string name = 3;", f"{opt}bool active = 4;",
                    f"{opt}double score = 5;", f"{opt}bytes blob = 6;", f"{opt}uint32 flags = 7;"]
        elif shape == 1:
            body = [f"{opt}F{i}Kind kind = 1;", f"repeated F{i}Kind kinds = 2;", f"{opt}string label = 3;"]
        elif shape == 2:
            body = [f"message Inner {{ {opt}string key = 1; {opt}sint64 delta = 2; }}",
                    "enum Level { LEVEL_UNSPECIFIED = 0; LEVEL_HIGH = 1; }",
                    f"{opt}Inner inner = 1;", "repeated Inner inners = 2;", f"{opt}Level level = 3;"]
        elif shape == 3:
            body = ["map<string, int64> counters = 1;", f"map<int32, {imported(j)}> items = 2;",
                    f"{opt}fixed64 stamp = 3;"]
        elif shape == 4:
            body = [f"oneof choice {{ string text = 1; int32 number = 2; {imported(j)} ref = 3; }}",
                    f"{opt}float ratio = 4;"]
        elif shape == 5:
            body = ["repeated int32 values = 1;", "repeated string tags = 2;", f"repeated {imported(j)} refs = 3;"]
        elif shape == 6:
            body = [f"{opt}{imported(j)} a = 1;", f"{opt}{imported(j + 1)} b = 2;", f"{opt}sfixed32 c = 3;"]
        else:
            at = "google.protobuf.Timestamp" if with_timestamp else "uint64"
            body = [f"{opt}{at} at = 1;", f"{opt}string note = 2;"]
        lines.append(f"message F{i}M{j} {{")
        lines += ["  " + line for line in body]
        lines.append("}")
    if i % 100 == 50 and messages > 1:
        lines.append(f"service F{i}Service {{ rpc Get(F{i}M0) returns (F{i}M1); }}")
    return "\n".join(lines) + "\n"


def write_monorepo(root: Path, files: int, messages: int = 10) -> list[str]:
    """Write ``files`` files of ``messages`` messages each under ``root``; their names, in order."""
    names = []
    for i in range(files):
        path = root / proto_name(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(proto_source(i, messages))
        names.append(proto_name(i))
    return names
