"""What plugin/run.py holds for one request only: the resolved schema is kept out of the cyclic
collector's passes (frozen) while the modules are generated, and given back to it when the
response ends, whether read to its end or dropped before; the renderer's indented texts are
dropped then too."""

from __future__ import annotations

import gc

import pytest

from protoc_gen_pyopaque.gen import render
from protoc_gen_pyopaque.plugin import run

from ._support import make_request

PROTO = "apilevel/plain_proto3.proto"


@pytest.fixture(scope="module")
def request_data() -> bytes:
    data: bytes = make_request([PROTO]).SerializeToString()
    return data


def test_schema_frozen_while_modules_are_generated(request_data: bytes) -> None:
    assert gc.isenabled() and gc.get_freeze_count() == 0
    pieces = run.run(request_data)
    next(pieces)  # the header, before the schema is read
    assert gc.get_freeze_count() == 0
    next(pieces)  # the first module's
    assert gc.isenabled() and gc.get_freeze_count() > 0
    for _ in pieces:
        pass
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_response_dropped_before_its_end_unfreezes(request_data: bytes) -> None:
    pieces = run.run(request_data)
    next(pieces)
    next(pieces)
    assert gc.get_freeze_count() > 0
    pieces.close()
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_host_frozen_objects_stay_frozen(request_data: bytes) -> None:
    def frozen(obj: object) -> bool:  # the collector's generations hold all but the frozen
        return all(o is not obj for o in gc.get_objects())

    host = [object()]  # a host's own object, frozen before it runs the plugin
    gc.freeze()
    try:
        assert frozen(host)
        pieces = run.run(request_data)
        next(pieces)
        next(pieces)
        for _ in pieces:
            pass
        assert gc.isenabled() and frozen(host)
    finally:
        gc.unfreeze()
    assert not frozen(host)


def test_indented_texts_kept_for_the_request_only(request_data: bytes) -> None:
    pieces = run.run(request_data)
    next(pieces)
    next(pieces)  # the first module's, rendered
    assert render.indent.cache_info().currsize > 0
    for _ in pieces:
        pass
    assert render.indent.cache_info().currsize == 0
