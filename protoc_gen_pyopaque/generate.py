"""``pyopaque generate``: protoc from the grpcio-tools wheel, run with this plugin.

No separately installed protoc is needed: grpcio-tools ships protoc (as a Python module) and
the well-known types' .proto files, and is a wheel for every platform and Python we support.
protoc writes into a zip archive per batch of files, which is then unpacked into the output
folder, so that the summary counts exactly the modules written.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from google.protobuf import descriptor_pb2

from .cli import include_dir

__all__ = ["Request", "Summary", "UsageError", "SchemaError", "generate", "proto_files"]

MISSING_PROTOC = ("pyopaque generate: protoc comes from grpcio-tools, which is not installed: "
                  "pip install 'protoc-gen-pyopaque[generate]'")
BATCH = 500  # files per protoc run: progress on large trees, bounded command lines


class UsageError(Exception):
    """Bad arguments or a missing dependency (exit code 2)."""


class SchemaError(Exception):
    """protoc or the plugin rejected the schema; the message is protoc's (exit code 1)."""


@dataclass(frozen=True)
class Request:
    """What to generate: ``sources`` are .proto files or folders walked for them."""

    sources: Sequence[Path]
    out: Path
    includes: Sequence[Path] = ()
    api_level: str | None = None
    options: Sequence[str] = ()
    grpc: bool = False
    grpc_options: Sequence[str] = ()


@dataclass
class Summary:
    files: int = 0
    messages: int = 0
    modules: int = 0
    seconds: float = 0.0
    written: list[str] = field(default_factory=list)

    def line(self, out: Path) -> str:
        return (f"pyopaque generate: {self.files} files, {self.messages} messages, "
                f"{self.modules} modules written to {out} in {self.seconds:.2f} s")


def proto_files(sources: Iterable[Path]) -> Iterator[Path]:
    """The .proto files named, and those under the folders named (sorted)."""
    for source in sources:
        if source.is_dir():
            yield from sorted(source.rglob("*.proto"))
        elif source.is_file():
            yield source
        else:
            raise UsageError(f"pyopaque generate: {source}: no such file or folder")


def wkt_include() -> Path:
    """grpcio-tools' folder of google/protobuf/*.proto."""
    spec = importlib.util.find_spec("grpc_tools")
    if spec is None or spec.origin is None:
        raise UsageError(MISSING_PROTOC)
    return Path(spec.origin).resolve().parent / "_proto"


def _includes(request: Request) -> list[Path]:
    """The user's include folders; without any, the folders named (and . for files named)."""
    if request.includes:
        return [Path(p) for p in request.includes]
    folders = [Path(s) for s in request.sources if Path(s).is_dir()]
    if any(not Path(s).is_dir() for s in request.sources):
        folders.append(Path("."))
    return folders


def _plugin_script(folder: Path, name: str, entry: str) -> Path:
    """An executable running the plugin with this interpreter (the same install, whatever PATH says)."""
    path = folder / name
    path.write_text(f"#!/bin/sh\nexec '{sys.executable}' -c "
                    f"'import sys; from protoc_gen_pyopaque.cli import {entry}; sys.exit({entry}())' \"$@\"\n")
    path.chmod(0o755)
    return path


def _count_messages(descriptors: Iterable[descriptor_pb2.DescriptorProto]) -> int:
    return sum(1 + _count_messages(d.nested_type) for d in descriptors if not d.options.map_entry)


def _protoc_args(request: Request, files: Sequence[Path], includes: Sequence[Path],
                 scratch: Path) -> list[str]:
    options = list(request.options)
    if request.api_level:
        options.insert(0, f"default_api_level=API_{request.api_level.upper()}")
    args = [f"-I{p}" for p in includes] + [f"-I{wkt_include()}", f"-I{include_dir()}"]
    args += [f"--plugin=protoc-gen-pyopaque={_plugin_script(scratch, 'protoc-gen-pyopaque', 'main')}",
             f"--pyopaque_out={scratch / 'out.zip'}",
             f"--descriptor_set_out={scratch / 'descriptors.pb'}"]
    if options:
        args.append(f"--pyopaque_opt={','.join(options)}")
    if request.grpc:
        grpc_plugin = _plugin_script(scratch, "protoc-gen-pyopaque-grpc", "main_grpc")
        args += [f"--plugin=protoc-gen-pyopaque-grpc={grpc_plugin}",
                 f"--pyopaque-grpc_out={scratch / 'grpc.zip'}"]
        if options or request.grpc_options:
            args.append(f"--pyopaque-grpc_opt={','.join([*options, *request.grpc_options])}")
    return args + [str(f) for f in files]


def generate(request: Request, progress: TextIO | None = None) -> Summary:
    """Run protoc with the plugin on ``request``; raise SchemaError with protoc's messages."""
    started = time.perf_counter()
    files = list(dict.fromkeys(proto_files(request.sources)))
    if not files:
        raise UsageError("pyopaque generate: no .proto files in " + " ".join(map(str, request.sources)))
    includes = _includes(request)
    summary = Summary()
    request.out.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(files), BATCH):
        batch = files[start:start + BATCH]
        with tempfile.TemporaryDirectory(prefix="pyopaque-generate-") as name:
            scratch = Path(name)
            result = subprocess.run([sys.executable, "-m", "grpc_tools.protoc",
                                     *_protoc_args(request, batch, includes, scratch)],
                                    capture_output=True, text=True, check=False)
            if result.returncode != 0:
                raise SchemaError(result.stderr.strip() or f"protoc exited with {result.returncode}")
            if result.stderr and progress is not None:
                progress.write(result.stderr)  # protoc's warnings
            descriptors = descriptor_pb2.FileDescriptorSet.FromString(
                (scratch / "descriptors.pb").read_bytes())
            summary.messages += sum(_count_messages(f.message_type) for f in descriptors.file)
            for archive in ("out.zip", "grpc.zip"):
                if (scratch / archive).exists():
                    with zipfile.ZipFile(scratch / archive) as zipped:
                        zipped.extractall(request.out)
                        summary.written += zipped.namelist()
        summary.files += len(batch)
        if progress is not None and len(files) > BATCH:
            progress.write(f"pyopaque generate: {summary.files}/{len(files)} files\n")
    summary.modules = sum(1 for name in summary.written if name.endswith((".py", ".pyi")))
    summary.seconds = time.perf_counter() - started
    return summary
