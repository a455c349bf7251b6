"""Both sides of the differential tests: our generated modules per style, and upb classes.

Layout under build/differential/ (regenerated when ``source_digest`` changes):

* ``open/``, ``hybrid/``, ``opaque/``, ``lazy/``: our modules for every schema, one
  tree per style (see TREES).
* ``upb/descriptors.pb``: a FileDescriptorSet (``--descriptor_set_out --include_imports``).

The official side does not import ``*_pb2`` modules: it builds upb classes with
``message_factory.GetMessageClass`` from that descriptor set in a *private*
DescriptorPool. The result is the same upb message classes ``--python_out``
would give, but nothing touches ``sys.path``, ``sys.modules`` or the default pool,
so neither our ``conformance.messages.*`` modules nor other tests that might import
the official test protos can clash with it.

Our in-process styles (open, hybrid, opaque, and lazy: opaque generated with
``lazy_all=true`` and parsed with ``parse(lazy=True)``) are loaded with importlib from file
paths under private module names. The hybrid-opaque style runs in a worker
subprocess (``_worker.py``) that imports the hybrid tree the ordinary way with
``PYOPAQUE_PROTOOPAQUE=1``, which is exactly what users do.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import pickle
import select
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from tests.differential.json_oracle import JsonResult, run_json
from tests.differential.oracle import OursResult, check_ours
from tools.generate import BUILD, REPO, env_with_path, generate, protoc, source_digest

HERE = Path(__file__).resolve().parent
OWN_PROTOS = HERE / "protos"
OUT = BUILD / "differential"
CONFORMANCE_FILES = [
    "conformance/messages/test_messages_proto3.proto",
    "conformance/messages/test_messages_proto2.proto",
    "conformance/messages/test_messages_edition2023.proto",
]
# generated trees: build/differential/<name>/ and the plugin options that make them
TREES = {
    "open": "default_api_level=API_OPEN",
    "hybrid": "default_api_level=API_HYBRID",
    "opaque": "default_api_level=API_OPAQUE",
    # opaque with every message field lazy, parsed with parse(lazy=True)
    "lazy": "default_api_level=API_OPAQUE,lazy_all=true",
}
TIMEOUT = 5.0  # seconds one parse + serialize round may take before it counts as a hang


@dataclass(frozen=True)
class Root:
    """A top-level message type the tests draw inputs for."""

    proto: str  # file path as imported, e.g. "pyopaque_diff/rich_proto2.proto"
    full_name: str  # e.g. "pyopaque_diff.p2.Rich2"
    package: str
    required: bool = False  # has required fields: ours rejects them missing unless partial=True

    @property
    def module(self) -> str:
        return self.proto[: -len(".proto")].replace("/", ".") + "_pb"

    @property
    def qualname(self) -> str:
        return self.full_name[len(self.package) + 1:] if self.package else self.full_name

    def __repr__(self) -> str:
        return f"<{self.full_name}>"


OWN_ROOTS = [
    Root("pyopaque_diff/rich_proto2.proto", "pyopaque_diff.p2.Rich2", "pyopaque_diff.p2"),
    Root("pyopaque_diff/rich_proto3.proto", "pyopaque_diff.p3.Rich3", "pyopaque_diff.p3"),
    Root("pyopaque_diff/rich_edition.proto", "pyopaque_diff.ed.Ed", "pyopaque_diff.ed"),
]
# messages of the deterministic tests in test_regressions.py (not drawn by the random ones)
NAN_DEFAULTS = Root("pyopaque_diff/regressions.proto", "pyopaque_diff.reg.NanDefaults", "pyopaque_diff.reg")
REQUIRED_VALUES = Root("pyopaque_diff/regressions.proto", "pyopaque_diff.reg.RequiredValues", "pyopaque_diff.reg",
                       required=True)
RICH2 = OWN_ROOTS[0]
RICH3 = OWN_ROOTS[1]
CONFORMANCE_ROOTS = [
    Root(CONFORMANCE_FILES[0], "protobuf_test_messages.proto3.TestAllTypesProto3", "protobuf_test_messages.proto3"),
    Root(CONFORMANCE_FILES[1], "protobuf_test_messages.proto2.TestAllTypesProto2", "protobuf_test_messages.proto2"),
    Root(CONFORMANCE_FILES[2], "protobuf_test_messages.editions.TestAllTypesEdition2023",
         "protobuf_test_messages.editions"),
    Root(CONFORMANCE_FILES[1], "protobuf_test_messages.proto2.TestAllRequiredTypesProto2",
         "protobuf_test_messages.proto2", required=True),
]


def conformance_include() -> Path | None:
    """The conformance suite's proto include folder (``runner --protos``), or None."""
    runner = os.environ.get("CONFORMANCE_RUNNER") or str(REPO.parent / "shared" / "conformance" / "runner")
    if not os.access(runner, os.X_OK):
        return None
    try:
        proc = subprocess.run([runner, "--protos"], capture_output=True, text=True, timeout=300, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return None
    include = Path(lines[-1].strip())
    if all((include / f).is_file() for f in CONFORMANCE_FILES):
        return include
    return None


def _own_files() -> list[str]:
    return sorted(str(p.relative_to(OWN_PROTOS)) for p in OWN_PROTOS.rglob("*.proto"))


@contextmanager
def _locked() -> Iterator[None]:
    """Serialize generation between concurrent pytest sessions sharing this tree."""
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _generate_all(include: Path | None, stamp: str) -> None:
    """Generate every style and the descriptor set afresh."""
    from tools.generate import grpc_include

    jobs: list[tuple[list[str], list[Path]]] = [(_own_files(), [OWN_PROTOS])]
    if include is not None:
        jobs.append((CONFORMANCE_FILES, [include]))
    for tree, options in TREES.items():
        target = OUT / tree
        shutil.rmtree(target, ignore_errors=True)
        for files, inc in jobs:
            generate(files, inc, target, options=options)
    upb = OUT / "upb"
    shutil.rmtree(upb, ignore_errors=True)
    upb.mkdir(parents=True)
    args = [f"-I{p}" for _, inc in jobs for p in inc] + [f"-I{grpc_include()}"]
    args += [f"--descriptor_set_out={upb / 'descriptors.pb'}", "--include_imports"]
    args += [f for files, _ in jobs for f in files]
    result = protoc(args)
    if result.returncode != 0:
        raise RuntimeError(f"protoc --descriptor_set_out failed:\n{result.stderr}")
    (OUT / "stamp").write_text(stamp)


# ----------------------------------------------------------------------------- upb side


class Upb:
    """upb message classes for every message in the descriptor set, from a private pool."""

    def __init__(self, descriptor_set: Path) -> None:
        self.pool = descriptor_pool.DescriptorPool()
        fds = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set.read_bytes())
        for f in fds.file:
            self.pool.Add(f)
        self._classes: dict[str, type] = {}
        # extendee full name -> extension FieldDescriptors
        self.extensions: dict[str, list[Any]] = {}
        for f in fds.file:
            fd = self.pool.FindFileByName(f.name)
            for ext in fd.extensions_by_name.values():
                self._add_ext(ext)
            for md in fd.message_types_by_name.values():
                self._walk(md)

    def _walk(self, md: Any) -> None:
        for ext in md.extensions:
            self._add_ext(ext)
        for nested in md.nested_types:
            self._walk(nested)

    def _add_ext(self, ext: Any) -> None:
        self.extensions.setdefault(ext.containing_type.full_name, []).append(ext)

    def cls(self, full_name: str) -> type:
        c = self._classes.get(full_name)
        if c is None:
            c = message_factory.GetMessageClass(self.pool.FindMessageTypeByName(full_name))
            self._classes[full_name] = c
        return c

    def descriptor(self, full_name: str) -> Any:
        return self.pool.FindMessageTypeByName(full_name)


# ----------------------------------------------------------------------------- our side


class Backend:
    """One of our API styles: runs ``check_ours`` for a root's class."""

    name: str

    def __repr__(self) -> str:
        return f"<{self.name}>"

    def check(self, root: Root, data: bytes) -> OursResult:
        raise NotImplementedError

    def json(self, root: Root, op: str, payload: Any, **opts: Any) -> JsonResult:
        """Run ``json_oracle.run_json`` (``op`` "from_json" or "to_json") for a root's class."""
        raise NotImplementedError

    def close(self) -> None:
        pass


class InProcess(Backend):
    """Our modules of one style tree, loaded from file paths under private module names."""

    def __init__(self, name: str, tree: Path, *, lazy: bool = False) -> None:
        self.name = name
        self.tree = tree
        self.lazy = lazy
        self._modules: dict[str, ModuleType] = {}

    def module(self, root: Root) -> ModuleType:
        mod = self._modules.get(root.module)
        if mod is None:
            path = self.tree / (root.module.replace(".", "/") + ".py")
            private = f"_pyopaque_differential_{self.name}_" + root.module.replace(".", "__")
            spec = importlib.util.spec_from_file_location(private, path)
            assert spec is not None and spec.loader is not None
            mod = importlib.util.module_from_spec(spec)
            sys.modules[private] = mod
            from protoc_gen_pyopaque.runtime import protoopaque_selected, select_protoopaque

            was = protoopaque_selected()
            select_protoopaque(False)  # the hybrid tree must serve its hybrid classes here
            try:
                spec.loader.exec_module(mod)
            finally:
                select_protoopaque(was)
            self._modules[root.module] = mod
        return mod

    def cls(self, root: Root) -> Any:
        obj: Any = self.module(root)
        for part in root.qualname.split("."):
            obj = getattr(obj, part)
        return obj

    def check(self, root: Root, data: bytes) -> OursResult:
        return check_ours(self.cls(root), data, required=root.required, timeout=TIMEOUT, lazy=self.lazy)

    def json(self, root: Root, op: str, payload: Any, **opts: Any) -> JsonResult:
        return run_json(self.cls(root), op, payload, opts, lazy=self.lazy, timeout=TIMEOUT)


class Worker(Backend):
    """The hybrid tree imported in a subprocess with PYOPAQUE_PROTOOPAQUE=1."""

    def __init__(self, name: str, tree: Path) -> None:
        self.name = name
        self.tree = tree
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.differential._worker"], cwd=REPO,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                env=env_with_path(self.tree, protoopaque=True))
        return self.proc

    def check(self, root: Root, data: bytes) -> OursResult:
        result = self._call((root.module, root.qualname, data, root.required, TIMEOUT))
        return result if result is not None else OursResult(crash="worker died or hung (no reply)")

    def json(self, root: Root, op: str, payload: Any, **opts: Any) -> JsonResult:
        result = self._call(("json", root.module, root.qualname, op, payload, opts, TIMEOUT))
        return result if result is not None else JsonResult(crash="worker died or hung (no reply)")

    def _call(self, request: tuple[Any, ...]) -> Any:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        req = pickle.dumps(request)
        proc.stdin.write(struct.pack("<I", len(req)) + req)
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], TIMEOUT * 4 + 30)
        head = proc.stdout.read(4) if ready else b""
        if len(head) < 4:
            self.close()
            return None
        (n,) = struct.unpack("<I", head)
        return pickle.loads(proc.stdout.read(n))

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()
            self.proc = None


class World:
    """Everything a differential test needs."""

    def __init__(self, upb: Upb, roots: list[Root]) -> None:
        self.upb = upb
        self.roots = roots
        self.backends: dict[str, Backend] = {}

    def __repr__(self) -> str:
        return f"World(roots={[str(r) for r in self.roots]})"


STYLE_NAMES = ["open", "hybrid", "hybrid-opaque", "opaque", "lazy"]


def make_world() -> World:
    """Generate (when sources changed) and load both sides."""
    include = conformance_include()
    inputs = [OWN_PROTOS, Path(__file__)]
    if include is not None:
        inputs += [include / f for f in CONFORMANCE_FILES]
    stamp = source_digest(*inputs) + ("+conformance" if include is not None else "")
    with _locked():
        stamp_file = OUT / "stamp"
        if not stamp_file.exists() or stamp_file.read_text() != stamp:
            _generate_all(include, stamp)
        upb = Upb(OUT / "upb" / "descriptors.pb")
        roots = OWN_ROOTS + (CONFORMANCE_ROOTS if include is not None else [])
        world = World(upb, roots)
        for name in STYLE_NAMES:
            if name == "hybrid-opaque":
                world.backends[name] = Worker(name, OUT / "hybrid")
            elif name == "lazy":
                world.backends[name] = InProcess(name, OUT / "lazy", lazy=True)
            else:
                world.backends[name] = InProcess(name, OUT / name)
        # import everything now, while the lock keeps other sessions from regenerating
        for backend in world.backends.values():
            for root in roots + [NAN_DEFAULTS, REQUIRED_VALUES]:
                res = backend.check(root, b"")
                if res.crash:
                    raise RuntimeError(f"{backend.name}: cannot load {root}: {res.crash}")
    return world
