"""Runs protoc with this plugin for tests, the conformance testee and the demo."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "build"
STYLES = {"open": "API_OPEN", "hybrid": "API_HYBRID", "opaque": "API_OPAQUE"}


def grpc_include() -> Path:
    """The include folder of grpc_tools (descriptor.proto and the well-known types)."""
    import grpc_tools

    return Path(grpc_tools.__file__).resolve().parent / "_proto"


def plugin_command(entry: str = "main") -> Path:
    """A small executable that runs this checkout's plugin with this interpreter
    (``entry``: the function of protoc_gen_pyopaque.cli, ``main_grpc`` for the gRPC plugin)."""
    path = BUILD / "bin" / {"main": "protoc-gen-pyopaque", "main_grpc": "protoc-gen-pyopaque-grpc"}[entry]
    text = (f"#!/bin/sh\nexec {sys.executable} -c "
            f"'import sys; from protoc_gen_pyopaque.cli import {entry}; sys.exit({entry}())' \"$@\"\n")
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
    return path


def protoc(args: list[str], protoc_path: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run protoc (a given binary, else grpc_tools' bundled one) with ``args``."""
    if protoc_path:
        cmd = [protoc_path, *args]
    else:
        cmd = [sys.executable, "-m", "grpc_tools.protoc", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def generate(protos: list[str], include: list[Path], out: Path, *, options: str = "",
             protoc_path: str | None = None, extra_args: tuple[str, ...] = (),
             grpc_options: str | None = None) -> Path:
    """Generate ``protos`` into ``out``; raise with protoc's message on failure.

    ``grpc_options``: also run the gRPC plugin, with these options.
    """
    out.mkdir(parents=True, exist_ok=True)
    args = [f"-I{p}" for p in include] + [f"-I{grpc_include()}"]
    args += [f"--plugin=protoc-gen-pyopaque={plugin_command()}", f"--pyopaque_out={out}"]
    if options:
        args.append(f"--pyopaque_opt={options}")
    if grpc_options is not None:
        args += [f"--plugin=protoc-gen-pyopaque-grpc={plugin_command('main_grpc')}",
                 f"--pyopaque-grpc_out={out}"]
        if grpc_options:
            args.append(f"--pyopaque-grpc_opt={grpc_options}")
    args += list(extra_args) + protos
    result = protoc(args, protoc_path)
    if result.returncode != 0:
        raise RuntimeError(f"protoc failed ({' '.join(protos)}):\n{result.stderr}")
    return out


def source_digest(*paths: Path) -> str:
    """A digest of the plugin, templates and given inputs: regenerate when it changes."""
    h = hashlib.sha256()
    roots = [REPO / "protoc_gen_pyopaque", REPO / "templates", *paths]
    for root in roots:
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for f in files:
            if f.is_file() and "__pycache__" not in f.parts and f.suffix in (".py", ".j2", ".proto"):
                h.update(str(f.relative_to(root.parent if root.is_dir() else root.parent)).encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def env_with_path(*paths: Path, protoopaque: bool = False) -> dict[str, str]:
    """An environment whose PYTHONPATH puts ``paths`` (generated code) first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), str(REPO), env.get("PYTHONPATH", "")])
    if protoopaque:
        env["PYOPAQUE_PROTOOPAQUE"] = "1"
    return env
