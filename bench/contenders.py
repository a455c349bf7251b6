"""The contenders: how each one's code is generated and how the worker drives it.

Each contender runs in its own worker process (bench/worker.py), so the three
styles of ours, Buf's pure and native runtimes, and Google's upb and pure-Python
implementations never share a process (their modules have the same names).
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
PROTOS = BENCH / "protos"
# where generated code and payloads go; the smoke test points it at a temporary folder
BUILD = Path(os.environ.get("PYOPAQUE_BENCH_BUILD") or REPO / "build" / "bench")
DATA = BUILD / "data"
FILES = ["benchpb/logentry.proto", "benchpb/scalars.proto", "benchpb/addressbook.proto",
         "benchpb/batch.proto"]
BIN = Path(sys.executable).parent

# workload name -> (proto module stem, top-level message name)
WORKLOADS: dict[str, tuple[str, str]] = {
    "log": ("logentry", "LogEntry"),
    "scalars": ("scalars", "Scalars"),
    "addressbook": ("addressbook", "AddressBook"),
    "batch-1MB": ("batch", "Batch"),
}
# reserialize: serialize() of a message parsed from the workload and never read (the serialize
# row's message was read first: every field)
OPS = ["parse", "serialize", "reserialize", "parse+read", "to_json", "from_json"]


@dataclass
class Contender:
    name: str
    label: str
    gen_dir: str            # folder under build/bench with the generated code
    access: str = "attr"    # how the reader reads a field: "attr" (m.x) or "get" (m.get_x())
    unwrap_wkt: bool = False  # Timestamp fields surface as datetime, not as messages
    env: dict[str, str] = field(default_factory=dict)
    block_modules: tuple[str, ...] = ()  # imported as missing in the worker (forces pure Python)
    requires: tuple[str, ...] = ()       # distributions that must be importable
    parse_only: bool = False  # makes the decoded objects only (the object floor): no other operation


CONTENDERS: list[Contender] = [
    Contender("ours-open", "pyopaque open", "ours-open"),
    Contender("ours-hybrid", "pyopaque hybrid", "ours-hybrid", access="get"),
    Contender("ours-opaque", "pyopaque opaque", "ours-opaque", access="get"),
    # compiled with mypyc by `python -m protoc_gen_pyopaque.compile` (needs the [compile] extra)
    Contender("ours-open-native", "pyopaque open, compiled", "ours-open-native", requires=("mypyc",)),
    Contender("ours-opaque-native", "pyopaque opaque, compiled", "ours-opaque-native", access="get",
              requires=("mypyc",)),
    Contender("upb", "google protobuf (upb)", "google",
              env={"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "upb"}, requires=("google.protobuf",)),
    Contender("python", "google protobuf (pure Python)", "google",
              env={"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"}, requires=("google.protobuf",)),
    Contender("betterproto2", "betterproto2", "betterproto2", unwrap_wkt=True,
              requires=("betterproto2", "betterproto2_compiler")),
    Contender("protobuf-py", "protobuf-py (Buf, native)", "protobuf-py",
              requires=("protobuf", "protobuf_ext")),
    Contender("protobuf-py-pure", "protobuf-py (Buf, pure)", "protobuf-py",
              block_modules=("protobuf_ext",), requires=("protobuf",)),
    # bench/floor.py compiled with mypyc: the decoded objects made without decoding (values from upb)
    Contender("floor", "object floor, compiled", "floor", env={"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "upb"},
              requires=("mypyc", "google.protobuf"), parse_only=True),
]
BY_NAME = {c.name: c for c in CONTENDERS}


# -- generation (coordinator side) -------------------------------------------------------

def _grpc_include() -> Path:
    import grpc_tools

    return Path(grpc_tools.__file__).resolve().parent / "_proto"


def _protoc(args: list[str], env: dict[str, str] | None = None) -> None:
    cmd = [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTOS}", f"-I{_grpc_include()}", *args, *FILES]
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        lines = [ln for ln in (result.stderr or result.stdout).strip().splitlines() if ln.strip()]
        raise RuntimeError(lines[-1] if lines else f"protoc exited {result.returncode}")


def _fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def build_ours_native(out: Path, files: list[str], options: str) -> None:
    """Generate ``files`` into ``out`` and compile them with mypyc (raise RuntimeError(reason) if
    that fails), unless ``out`` holds such a build from the same sources: a compile takes minutes."""
    sys.path.insert(0, str(REPO))
    from tools.builds import build_cached, compile_generated, toolchain
    from tools.generate import generate as ours_generate
    from tools.generate import source_digest

    def build(folder: Path) -> None:
        ours_generate(files, [PROTOS], folder, options=options)
        compile_generated(folder, fastest_code=True)

    build_cached(out, "\n".join([source_digest(*(PROTOS / f for f in files)), options, toolchain()]), build)


FLOOR_MODULE = "pyopaque_bench_floor"


def build_floor(out: Path) -> None:
    """Compile bench/floor.py with mypyc into ``out`` (raise RuntimeError(reason) if that fails),
    unless ``out`` holds such a build from the same source."""
    sys.path.insert(0, str(REPO))
    from tools.builds import build_cached, toolchain

    source = BENCH / "floor.py"

    def build(folder: Path) -> None:
        folder.mkdir(parents=True)
        shutil.copy2(source, folder / f"{FLOOR_MODULE}.py")
        result = subprocess.run([sys.executable, "-m", "mypyc", f"{FLOOR_MODULE}.py"], cwd=folder,
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError("mypyc failed: " + (result.stdout + result.stderr)[-2000:])

    build_cached(out, "\n".join([source.read_text(), toolchain()]), build)


def generate(gen_dir: str) -> None:
    """Generate the workload protos for one generated-code folder; raise RuntimeError(reason)."""
    if gen_dir == "floor":
        build_floor(BUILD / gen_dir)
        return
    if gen_dir.startswith("ours-"):
        style = gen_dir.removeprefix("ours-").removesuffix("-native")
        options = f"default_api_level=API_{style.upper()}"
        if gen_dir.endswith("-native"):
            build_ours_native(BUILD / gen_dir, FILES, options)
            return
        sys.path.insert(0, str(REPO))
        from tools.generate import generate as ours_generate

        ours_generate(FILES, [PROTOS], _fresh(BUILD / gen_dir), options=options)
        return
    out = _fresh(BUILD / gen_dir)
    if gen_dir == "google":
        _protoc([f"--python_out={out}"])
    elif gen_dir == "betterproto2":
        plugin = shutil.which("protoc-gen-python_betterproto2", path=str(BIN))
        if not plugin:
            raise RuntimeError("protoc-gen-python_betterproto2 not installed")
        env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")  # it runs ruff
        _protoc([f"--plugin=protoc-gen-python_betterproto2={plugin}",
                 f"--python_betterproto2_out={_fresh(out / 'bp2gen')}"], env)
    elif gen_dir == "protobuf-py":
        plugin = shutil.which("protoc-gen-py", path=str(BIN))
        if not plugin:
            raise RuntimeError("protoc-gen-py not installed")
        _protoc([f"--plugin=protoc-gen-py={plugin}", f"--py_out={out}"])
    else:
        raise ValueError(gen_dir)


def section_command_line(doc: str, heading: str, quick: str, tiny: str) -> tuple[argparse.Namespace, str]:
    """Parse the command line of a benchmark that writes one section of a results file; return it
    and the mode (full, quick or tiny). --output defaults to bench/RESULTS.md for a full run."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help=quick)
    ap.add_argument("--tiny", action="store_true", help=tiny)
    ap.add_argument("--output", type=Path, default=None,
                    help=f"the results file whose {heading[3:]} section is replaced (default: "
                         "bench/RESULTS.md for a full run, build/bench/RESULTS-<mode>.md otherwise)")
    ap.add_argument("--no-write", action="store_true", help="print the section only")
    ap.add_argument("--verbose", action="store_true", help="show the workers' stderr")
    args = ap.parse_args()
    mode_name = "tiny" if args.tiny else "quick" if args.quick else "full"
    if args.output is None:
        args.output = BENCH / "RESULTS.md" if mode_name == "full" else BUILD / f"RESULTS-{mode_name}.md"
    return args, mode_name


def publish_section(args: argparse.Namespace, heading: str, section: str) -> None:
    """Print ``section`` and, unless --no-write, put it in the results file in place of its old one."""
    print(section)
    if not args.no_write:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        write_section(args.output, heading, section)
        print(f"wrote the {heading[3:]} section of {args.output}", file=sys.stderr, flush=True)


def write_section(path: Path, heading: str, section: str) -> None:
    """Replace the section of a results file that starts at ``heading`` (up to the next "## "
    heading) by ``section``, or append it; the rest of the file stays."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    at = text.find("\n" + heading + "\n")
    rest = ""
    if at >= 0:
        after = text.find("\n## ", at + 1)
        rest = text[after:] if after >= 0 else ""
        text = text[:at + 1]
    path.write_text(text.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n" + rest)


def missing_requirement(c: Contender) -> str | None:
    """The first module this contender needs that cannot be found, if any."""
    import importlib.util

    for mod in c.requires:
        try:
            if importlib.util.find_spec(mod) is None:
                return f"module {mod} not installed"
        except (ImportError, ValueError) as exc:
            return f"module {mod}: {exc}"
    return None


# -- adapters (worker side) --------------------------------------------------------------

@dataclass
class Adapter:
    """Uniform operations on one contender's top-level message class."""
    cls: Any
    parse: Callable[[bytes], Any]
    serialize: Callable[[Any], bytes] | None
    to_json: Callable[[Any], str] | None
    from_json: Callable[[str], Any] | None
    version: str
    parse_eager: Callable[[bytes], Any] | None = None  # ours: parse(data, lazy=False)


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def load_adapter(c: Contender, workload: str) -> Adapter:
    stem, message = WORKLOADS[workload]
    gen = BUILD / c.gen_dir
    if c.name.startswith("ours-"):
        sys.path.insert(0, str(gen))
        cls = getattr(importlib.import_module(f"benchpb.{stem}_pb"), message)
        to_json: Callable[[Any], str] | None = None
        from_json: Callable[[str], Any] | None = None
        # JSON lights up by itself once the runtime has it: methods on the message if
        # the generated code has them, else the runtime's json_format module.
        try:
            jf: Any = importlib.import_module("protoc_gen_pyopaque.runtime.json_format")
        except ImportError:
            jf = None
        if callable(getattr(cls, "to_json", None)):
            to_json = lambda m: m.to_json()  # noqa: E731
        elif callable(getattr(jf, "to_json", None)):
            to_json = jf.to_json
        if callable(getattr(cls, "from_json", None)):
            from_json = cls.from_json
        elif callable(getattr(jf, "from_json", None)):
            from_json = lambda s, _f=jf.from_json: _f(cls, s)  # noqa: E731
        return Adapter(cls, cls.parse, lambda m: m.serialize(), to_json, from_json,
                       _dist_version("protoc-gen-pyopaque"), lambda data: cls.parse(data, lazy=False))
    if c.name == "floor":
        sys.path[:0] = [str(gen), str(BUILD / "google")]
        floor: Any = importlib.import_module(FLOOR_MODULE)
        if floor.__file__.endswith(".py"):
            raise RuntimeError("bench/floor.py was not compiled")
        upb = getattr(importlib.import_module(f"benchpb.{stem}_pb2"), message)
        plan, build = floor.FLOORS[workload]
        blob, values = plan(upb.FromString((DATA / f"{workload}.bin").read_bytes()))
        return Adapter(None, lambda _data: build(blob, values), None, None, None, "bench/floor.py")
    if c.gen_dir == "google":
        sys.path.insert(0, str(gen))
        from google.protobuf import json_format
        from google.protobuf.internal import api_implementation

        cls = getattr(importlib.import_module(f"benchpb.{stem}_pb2"), message)
        impl = api_implementation.Type()
        expected = c.env["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"]
        if impl != expected:
            raise RuntimeError(f"google.protobuf runs the {impl} implementation, not {expected}")
        return Adapter(cls, cls.FromString, lambda m: m.SerializeToString(),
                       lambda m: json_format.MessageToJson(m, indent=None),
                       lambda s: json_format.Parse(s, cls()),
                       f"{_dist_version('protobuf')} ({impl})")
    if c.gen_dir == "betterproto2":
        sys.path.insert(0, str(gen))
        cls = getattr(importlib.import_module("bp2gen.benchpb"), message)
        return Adapter(cls, cls.parse, bytes, lambda m: m.to_json(), cls.from_json,
                       _dist_version("betterproto2"))
    if c.gen_dir == "protobuf-py":
        sys.path.insert(0, str(gen))
        cls = getattr(importlib.import_module(f"benchpb.{stem}_pb"), message)
        native = any(b.__name__ == "NativeMessage" for b in cls.__mro__)
        if native == bool(c.block_modules):
            raise RuntimeError(f"protobuf-py loaded {'native' if native else 'pure'} messages")
        return Adapter(cls, cls.from_binary, lambda m: m.to_binary(), lambda m: m.to_json(),
                       cls.from_json,
                       f"{_dist_version('protobuf-py')} ({'native' if native else 'pure'})")
    raise ValueError(c.name)


def make_reader(c: Contender, schema: dict[str, list[list[str]]], root: str) -> Callable[[Any], None]:
    """Compile a function that reads every field of a decoded message, recursively.

    ``schema`` maps a message's full name to its fields as [name, kind, type], kind one of
    scalar, message, repeated, repeated_message, map, map_message.
    """
    lines: list[str] = []

    def fn(full: str) -> str:
        return "read_" + full.replace(".", "_")

    def get(var: str, name: str) -> str:
        return f"{var}.get_{name}()" if c.access == "get" else f"{var}.{name}"

    def leaf(full: str) -> bool:
        return c.unwrap_wkt and full.startswith("google.protobuf.")

    done: set[str] = set()
    todo = [root]
    while todo:
        full = todo.pop()
        if full in done:
            continue
        done.add(full)
        lines.append(f"def {fn(full)}(m):")
        body = []
        for name, kind, typ in schema[full]:
            value = get("m", name)
            if kind == "scalar" or (kind == "message" and leaf(typ)):
                body.append(f"    {value}")
            elif kind == "message":
                body.append(f"    s = {value}")
                body.append(f"    if s is not None: {fn(typ)}(s)")
                todo.append(typ)
            elif kind == "repeated":
                body.append(f"    for v in {value}: pass")
            elif kind == "repeated_message":
                body.append(f"    for v in {value}: {fn(typ)}(v)")
                todo.append(typ)
            elif kind == "map":
                body.append(f"    for k, v in {value}.items(): pass")
            elif kind == "map_message":
                body.append(f"    for k, v in {value}.items(): {fn(typ)}(v)")
                todo.append(typ)
            else:
                raise ValueError(kind)
        lines.extend(body or ["    pass"])
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(lines) + "\n", f"<reader {c.name} {root}>", "exec"), namespace)
    return namespace[fn(root)]  # type: ignore[no-any-return]
