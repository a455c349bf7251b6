"""Generated code names the runtime surface it was written for; another one fails at import."""

from __future__ import annotations

import pytest

from protoc_gen_pyopaque.runtime import _gen_v1


def test_current_surface_is_accepted() -> None:
    _gen_v1.check_version(_gen_v1.VERSION)


def test_newer_generated_code_asks_for_an_upgrade() -> None:
    with pytest.raises(ImportError, match="upgrade protoc-gen-pyopaque"):
        _gen_v1.check_version(_gen_v1.VERSION + 1)


def test_older_generated_code_asks_to_be_regenerated() -> None:
    # v1 code appended to a bytearray with +=, which the BytesWriter output does not support;
    # v4 code marked kept input by a negative _pb_p0, which v5 classes may not have
    for version in (1, 4):
        with pytest.raises(ImportError, match="regenerate it"):
            _gen_v1.check_version(version)
