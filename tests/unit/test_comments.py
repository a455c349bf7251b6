"""Comments of .proto elements (plugin/comments.py) and where they end up.

Rule observed and tested: each element gets its leading comment, else its trailing
one; a blank leading comment (a bare ``//``) does not hide the trailing one;
detached comments (separated by a blank line) belong to nothing. Each line loses
the one space protoc leaves after ``//`` but keeps deeper indentation; ``\\r`` line
ends go; the lone ``*`` line a ``/** ... */`` comment starts with is dropped; the
whole text is stripped. The file's comment is the one of its ``syntax`` or
``edition`` statement (SourceCodeInfo path [12] for both).
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from protoc_gen_pyopaque.plugin import comments
from protoc_gen_pyopaque.plugin.options import Options
from protoc_gen_pyopaque.plugin.request import build_schema
from protoc_gen_pyopaque.plugin.schema import Schema

from ._support import STYLES, generate_files, imported, make_request

PROTOS = ["comments/comments.proto", "comments/edition_crlf.proto", "comments/edition_header.proto"]


def _fdp(*locations: tuple[list[int], str, str]) -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(name="x.proto")
    for path, leading, trailing in locations:
        loc = fdp.source_code_info.location.add()
        loc.path.extend(path)
        loc.leading_comments = leading
        loc.trailing_comments = trailing
    return fdp


@pytest.mark.parametrize(("leading", "trailing", "expected"), [
    (" Leading.\n", " Trailing.\n", "Leading."),
    ("", " Trailing.\n", "Trailing."),
    ("\n", " Trailing.\n", "Trailing."),
    ("  \n \n", "", None),
    ("", "", None),
    (" one\n   indented\n\n three\n", "", "one\n  indented\n\nthree"),
    ("no space\n", "", "no space"),
    (" Block. ", "", "Block."),
    ("*\n Javadoc.\n Second.\n", "", "Javadoc.\nSecond."),
    (" crlf\r\n second\r\n", "", "crlf\nsecond"),
    (' quotes """ and \\ stay\n', "", 'quotes """ and \\ stay'),
    ("\t tab\n", "", "tab"),
])
def test_comment_index(leading: str, trailing: str, expected: str | None) -> None:
    index = comments.comment_index(_fdp(([4, 0], leading, trailing)))
    assert index.get((4, 0)) == expected


def test_comment_index_keys_are_paths() -> None:
    index = comments.comment_index(_fdp(([4, 0, 2, 1], " f\n", ""), ([5, 2], "", " e\n"), ([12], " h\n", "")))
    assert index == {(4, 0, 2, 1): "f", (5, 2): "e", (12,): "h"}


def test_path_constants_match_descriptor_proto() -> None:
    file_fields = descriptor_pb2.FileDescriptorProto.DESCRIPTOR.fields_by_name
    msg_fields = descriptor_pb2.DescriptorProto.DESCRIPTOR.fields_by_name
    assert comments.FILE_MESSAGE == file_fields["message_type"].number
    assert comments.FILE_ENUM == file_fields["enum_type"].number
    assert comments.FILE_EXTENSION == file_fields["extension"].number
    assert file_fields["syntax"].number == 12
    assert comments.MESSAGE_FIELD == msg_fields["field"].number
    assert comments.MESSAGE_NESTED == msg_fields["nested_type"].number
    assert comments.MESSAGE_ENUM == msg_fields["enum_type"].number
    assert comments.MESSAGE_EXTENSION == msg_fields["extension"].number
    assert comments.MESSAGE_ONEOF == msg_fields["oneof_decl"].number
    assert comments.ENUM_VALUE == descriptor_pb2.EnumDescriptorProto.DESCRIPTOR.fields_by_name["value"].number


@pytest.fixture(scope="module")
def schema() -> Schema:
    return build_schema(PROTOS, make_request(PROTOS).proto_file, Options())


def test_comments_reach_the_model(schema: Schema) -> None:
    m = schema.messages["comments.M"]
    assert m.comment == ("Leading comment of M.\n  An indented line keeps its two extra spaces.\n\n"
                         "After a blank comment line.")
    fields = {f.name: f.comment for f in m.fields}
    assert fields == {
        "a": "Trailing comment of a.",
        "b": "Block comment of b.",
        "c": "Javadoc-style comment of c.\nSecond line.",
        "d": "No space after the slashes.",
        "e": "Trailing comment of e, under an empty leading comment.",
        "f": "",  # only a detached comment
        "g": "",
        "no_comment": "",
        "trailing_block": "Trailing block of trailing_block.",
    }
    assert [o.comment for o in m.oneofs] == ["Trailing comment of the oneof."]
    nested = schema.messages["comments.M.Nested"]
    assert nested.comment == "Leading comment of Nested."
    assert nested.fields[0].comment == "Leading comment of h."
    enum = schema.enums["comments.M.E"]
    assert enum.comment == "Leading comment of E."
    assert [v.comment for v in enum.values] == ["Leading comment of E_ZERO.", "Trailing comment of E_ONE."]
    assert schema.enums["comments.Top"].comment == "Leading comment of Top."


def test_file_comments(schema: Schema) -> None:
    assert schema.files["comments/comments.proto"].comment == (
        "The file's header: the leading comment of the syntax statement.")
    assert schema.files["comments/edition_header.proto"].comment == "Header of an editions file."
    crlf = schema.files["comments/edition_crlf.proto"]
    assert crlf.comment == "Trailing comment of the edition statement."
    assert schema.messages["comments.ed.Crlf"].comment == "Leading comment of\nCRLF message."
    assert schema.messages["comments.ed.Crlf"].fields[0].comment == "Trailing, CRLF."


def test_comments_of_files_not_generated_are_not_read() -> None:
    request = make_request(PROTOS)
    schema = build_schema(PROTOS[1:], request.proto_file, Options())
    assert schema.files["comments/comments.proto"].comment == ""
    assert schema.messages["comments.M"].comment == ""
    assert all(f.comment == "" for f in schema.messages["comments.M"].fields)
    assert schema.files["comments/edition_header.proto"].comment == "Header of an editions file."


@pytest.mark.parametrize("style", STYLES)
def test_comments_become_docstrings(tmp_path: Path, style: str) -> None:
    generate_files(make_request(PROTOS, f"default_api_level={style}"), tmp_path)
    with imported(tmp_path, "comments.comments_pb", "comments.edition_crlf_pb") as (mod, crlf):
        assert mod.__doc__ == "The file's header: the leading comment of the syntax statement."
        assert inspect.getdoc(mod.M) == (
            "Leading comment of M.\n  An indented line keeps its two extra spaces.\n\n"
            "After a blank comment line.")
        assert inspect.getdoc(mod.M.Nested) == "Leading comment of Nested."
        assert inspect.getdoc(mod.M.E) == "Leading comment of E."
        assert inspect.getdoc(mod.Top) == "Leading comment of Top."
        # the proto comment, then the field's declaration
        assert inspect.getdoc(mod.M.get_a) == "Trailing comment of a.\n\nField: int32 a = 1;"
        assert inspect.getdoc(mod.M.get_c) == "Javadoc-style comment of c.\nSecond line.\n\nField: int32 c = 3;"
        assert inspect.getdoc(mod.M.get_no_comment) == "Field: int32 no_comment = 8;"
        source = Path(mod.__file__).read_text()
        # continuation lines indented as a hand-written docstring's
        assert '        """Javadoc-style comment of c.\n        Second line.\n\n        Field: int32 c = 3;\n        """' in source
        if style != "API_OPAQUE":  # the public attribute's docstring
            assert '    c: int\n    """Javadoc-style comment of c.\n    Second line.\n\n    Field: int32 c = 3;\n    """' in source
        assert inspect.getdoc(crlf.Crlf) == "Leading comment of\nCRLF message."
        assert "\r" not in Path(crlf.__file__).read_text()
