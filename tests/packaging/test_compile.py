"""pyopaque-compile: a generated module and the runtime built together with mypyc, then used."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from protoc_gen_pyopaque.compile import MANIFEST, generated_modules
from tools.generate import generate

REPO = Path(__file__).resolve().parents[2]
BENCH_PROTOS = REPO / "bench" / "protos"


def _toolchain_missing() -> str | None:
    if importlib.util.find_spec("mypyc") is None or importlib.util.find_spec("setuptools") is None:
        return "mypyc/setuptools not installed (the [compile] extra)"
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc})"
    return None


CHECK = textwrap.dedent('''
    import copy, pickle
    from benchpb import logentry_pb
    from protoc_gen_pyopaque import runtime
    from protoc_gen_pyopaque.compile import is_compiled
    from protoc_gen_pyopaque.runtime import message
    assert is_compiled(logentry_pb), logentry_pb.__file__
    assert is_compiled(message), message.__file__
    L = logentry_pb.LogEntry
    m = L(timestamp_nanos=5, level=L.Level.LEVEL_ERROR, service="s", message="m" * 200,
          trace_id=2**64 - 1, labels={"k": "v"})
    data = m.serialize()
    back = L.parse(data)
    assert back == m and back.serialize() == data
    assert back.get_labels() == {"k": "v"} and back.get_trace_id() == 2**64 - 1
    assert L.parse(data, lazy=True) == m
    assert pickle.loads(pickle.dumps(m)) == m and copy.deepcopy(m) == m
    assert L.from_json(m.to_json()) == m and L.from_text(m.to_text()) == m
    assert L.Level.__qualname__ == "LogEntry.Level"
    try:
        L.parse(data[:-1])
    except runtime.DecodeError as exc:
        assert "LogEntry" in str(exc)
    else:
        raise AssertionError("no DecodeError")
    print("ok")
''')


@pytest.mark.skipif(_toolchain_missing() is not None, reason=str(_toolchain_missing()))
def test_compile_round_trip(tmp_path: Path) -> None:
    out = generate(["benchpb/logentry.proto"], [BENCH_PROTOS], tmp_path / "gen",
                   options="default_api_level=API_OPAQUE")
    assert [p.as_posix() for p in generated_modules(out)] == ["benchpb/logentry_pb.py"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    refused = subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.compile", str(out), "--jobs", "0"],
                             capture_output=True, text=True, env=env, check=False)
    assert refused.returncode == 2 and "--jobs must be at least 1" in refused.stderr, refused.stderr
    # -O0: the C compiler's time dominates and this test checks behaviour, not speed; one C file
    # per module, compiled two at a time
    build = subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.compile", str(out), "--opt-level", "0", "--jobs", "2"],
                           capture_output=True, text=True, env=env, check=False, timeout=900)
    assert build.returncode == 0, build.stdout + build.stderr
    assert (out / MANIFEST).is_file()
    # generated code first on the path, as a script's folder or PYTHONPATH are
    run_env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(out), str(REPO)]))
    run = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                         env=run_env, cwd=tmp_path, check=False, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
    # the pure runtime imported first: the compiled modules refuse to load beside it
    mixed = subprocess.run(
        [sys.executable, "-c", "import sys, protoc_gen_pyopaque.runtime\n"
         f"sys.path.insert(0, {str(out)!r})\nimport benchpb.logentry_pb"],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), cwd=tmp_path,
        check=False, timeout=120)
    assert mixed.returncode != 0 and "ImportError: modules compiled by pyopaque-compile" in mixed.stderr, \
        mixed.stderr
    clean = subprocess.run([sys.executable, "-m", "protoc_gen_pyopaque.compile", str(out), "--clean"],
                           capture_output=True, text=True, env=env, check=False)
    assert clean.returncode == 0, clean.stderr
    assert not (out / MANIFEST).exists() and not (out / "protoc_gen_pyopaque").exists()
    assert not list(out.rglob("*" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")))
