"""Plugin options (``--pyopaque_opt=k=v,...``): strict, and reported, never raised.

Bad parameters reach protoc as ``CodeGeneratorResponse.error`` naming the option;
``plugin.run.generate`` never raises for them and writes no file.
"""

from __future__ import annotations

import pytest
from google.protobuf.compiler import plugin_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

from protoc_gen_pyopaque.plugin import run
from protoc_gen_pyopaque.plugin.options import OptionError, Options, parse_options
from protoc_gen_pyopaque.plugin.schema import ApiLevel

from ._support import generate, make_request

PROTO = "apilevel/plain_proto3.proto"


@pytest.fixture(scope="module")
def base_request() -> plugin_pb2.CodeGeneratorRequest:
    return make_request([PROTO])


def _with_parameter(request: plugin_pb2.CodeGeneratorRequest, parameter: str) -> plugin_pb2.CodeGeneratorRequest:
    copy = plugin_pb2.CodeGeneratorRequest()
    copy.CopyFrom(request)
    copy.parameter = parameter
    return copy


@pytest.mark.parametrize(("parameter", "expected"), [
    ("", Options()),
    (",", Options()),
    ("default_api_level=API_OPEN", Options(default_api_level=ApiLevel.OPEN)),
    ("default_api_level=API_HYBRID,", Options(default_api_level=ApiLevel.HYBRID)),
    (" default_api_level=API_OPAQUE ", Options(default_api_level=ApiLevel.OPAQUE)),
    ("apilevelMa/b.proto=API_OPAQUE,apilevelMc-d.proto=API_OPEN",
     Options(file_api_levels={"a/b.proto": ApiLevel.OPAQUE, "c-d.proto": ApiLevel.OPEN})),
    ("default_api_level=API_OPEN,apilevelMx.proto=API_HYBRID",
     Options(default_api_level=ApiLevel.OPEN, file_api_levels={"x.proto": ApiLevel.HYBRID})),
    # repeated keys: the last one wins (protoc joins several --pyopaque_opt with commas)
    ("default_api_level=API_OPEN,default_api_level=API_OPAQUE", Options(default_api_level=ApiLevel.OPAQUE)),
    ("apilevelMx.proto=API_OPEN,apilevelMx.proto=API_HYBRID",
     Options(file_api_levels={"x.proto": ApiLevel.HYBRID})),
])
def test_good_options_parse(parameter: str, expected: Options) -> None:
    assert parse_options(parameter) == expected


BAD = [
    # (parameter, text the error must contain)
    ("foo=bar", "'foo'"),
    ("default_api_level=API_OPEN,verbose=1", "'verbose'"),
    ("Default_api_level=API_OPEN", "'Default_api_level'"),
    ("default_api_level", "'default_api_level'"),
    ("default_api_level=", "default_api_level"),
    ("default_api_level=API_SHINY", "API_SHINY"),
    ("default_api_level=api_open", "api_open"),
    ("default_api_level=1", "default_api_level"),
    ("default_api_level=API_LEVEL_UNSPECIFIED", "API_LEVEL_UNSPECIFIED"),
    ("default_api_level=API_OPEN=x", "API_OPEN=x"),
    ("default_api_level = API_OPEN", "'default_api_level '"),
    ("apilevelM=API_OPEN", "'apilevelM'"),
    ("apilevelMx.proto", "apilevelMx.proto"),
    ("apilevelMx.proto=API_NOPE", "apilevelMx.proto"),
    ("apilevelMx.proto=", "apilevelMx.proto"),
    ("=API_OPEN", "=API_OPEN"),
    ("default_api_level=API_OPEN,,bogus", "'bogus'"),
    ("default_api_level=\x00", "default_api_level"),
    ("Mfoo.proto=bar", "'Mfoo.proto'"),
]


@pytest.mark.parametrize(("parameter", "needle"), BAD)
def test_bad_options_raise_option_error(parameter: str, needle: str) -> None:
    with pytest.raises(OptionError) as info:
        parse_options(parameter)
    assert needle in str(info.value)


@pytest.mark.parametrize(("parameter", "needle"), BAD)
def test_bad_options_become_response_errors(base_request: plugin_pb2.CodeGeneratorRequest,
                                            parameter: str, needle: str) -> None:
    response = generate(_with_parameter(base_request, parameter))
    assert needle in response.error
    assert "option" in response.error
    assert not response.file
    # protoc still learns what the plugin supports
    assert response.supported_features & plugin_pb2.CodeGeneratorResponse.FEATURE_SUPPORTS_EDITIONS


def test_level_errors_list_the_choices() -> None:
    with pytest.raises(OptionError) as info:
        parse_options("default_api_level=API_SHINY")
    assert all(level in str(info.value) for level in ("API_OPEN", "API_HYBRID", "API_OPAQUE"))


def test_good_options_generate(base_request: plugin_pb2.CodeGeneratorRequest) -> None:
    response = generate(_with_parameter(base_request, f"apilevelM{PROTO}=API_HYBRID"))
    assert not response.error
    assert sorted(f.name for f in response.file) == [
        "apilevel/plain_proto3_pb.py", "apilevel/plain_proto3_protoopaque_pb.py"]


def test_apilevelM_for_a_file_not_in_the_request_is_ignored(base_request: plugin_pb2.CodeGeneratorRequest) -> None:
    response = generate(_with_parameter(base_request, "apilevelMelsewhere.proto=API_OPAQUE"))
    assert not response.error
    assert '"open.v1"' in response.file[0].content


def test_run_reports_bad_options_in_the_serialized_response(base_request: plugin_pb2.CodeGeneratorRequest) -> None:
    data = b"".join(run.run(_with_parameter(base_request, "nope").SerializeToString()))
    response = plugin_pb2.CodeGeneratorResponse.FromString(data)
    assert "'nope'" in response.error


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("=,M _apilevdfuOPNHYBRIDAQxtro.\\/\x00é")), max_size=40))
def test_any_parameter_parses_or_fails_cleanly(parameter: str) -> None:
    try:
        parse_options(parameter)
    except OptionError as exc:
        assert str(exc)


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=30))
def test_generate_never_raises_for_any_parameter(parameter: str) -> None:
    request = plugin_pb2.CodeGeneratorRequest(parameter=parameter)  # no files: only options matter
    response = generate(request)
    assert response.error or not response.file


def test_file_to_generate_missing_from_the_request_is_an_error() -> None:
    request = plugin_pb2.CodeGeneratorRequest(file_to_generate=["ghost.proto"])
    response = generate(request)
    assert "ghost.proto" in response.error and not response.file


@pytest.mark.parametrize(("parameter", "expected"), [
    ("io=sync", Options(io="sync")),
    ("io=async,lazy_parse=true", Options(io="async", lazy_parse=True)),
    ("default_api_level=API_OPEN,io=both", Options(default_api_level=ApiLevel.OPEN)),
])
def test_grpc_options_parse(parameter: str, expected: Options) -> None:
    assert parse_options(parameter, grpc=True) == expected


@pytest.mark.parametrize(("parameter", "grpc", "needle"), [
    ("io=sync", False, "unknown option 'io'"),  # the message plugin has no such option
    ("lazy_parse=true", False, "unknown option 'lazy_parse'"),
    ("io=threads", True, "option io: expected one of sync, async, both, got 'threads'"),
    ("lazy_parse=1", True, "option lazy_parse: expected true or false"),
])
def test_bad_grpc_options(parameter: str, grpc: bool, needle: str) -> None:
    with pytest.raises(OptionError, match=needle):
        parse_options(parameter, grpc=grpc)


def test_grpc_plugin_reports_bad_options(base_request: plugin_pb2.CodeGeneratorRequest) -> None:
    data = b"".join(run.run(_with_parameter(base_request, "io=threads").SerializeToString(), grpc=True))
    response = plugin_pb2.CodeGeneratorResponse.FromString(data)
    assert "option io" in response.error and not response.file
