"""Golden outputs: the generated code for tests/golden/protos in each style.

The hybrid style's opaque twins are not committed: each is its file's opaque module but for
the differences ``twin_source`` makes, which the golden test asserts; ``importable`` makes a
folder of the hybrid modules with their twins for the tests that import or type-check them.
They import the plugin when called, not with this module: tests/behavior/compiled.py imports
it before it puts the compiled runtime first on sys.path.
"""

from __future__ import annotations

import functools
import hashlib
import re
import shutil
import tempfile
from pathlib import Path

from tools.builds import build_cached
from tools.generate import BUILD, generate

HERE = Path(__file__).resolve().parent
PROTOS = HERE / "protos"
EXPECTED = HERE / "expected"
# Style folders and the plugin options that make them.
VARIANTS = {
    "open": "default_api_level=API_OPEN",
    "hybrid": "default_api_level=API_HYBRID",
    "opaque": "default_api_level=API_OPAQUE",
    # opaque, with the classes of large files: created bare, compiled on first use, API in .pyi
    "deferred-classes": "default_api_level=API_OPAQUE,classes=deferred",
}
# Without an API level option, a file takes its edition's default style: opaque from edition
# 2024, open before. The test checks that output against those folders; it has none of its own.
DEFAULT_OPTIONS = ""
# Variants whose folders also hold the gRPC plugin's modules, and its options (they do not
# depend on the message style).
GRPC_VARIANTS = {"open": ""}


SOURCES = (".py", ".pyi")  # what the plugins write (not the .pyc of an import)


def proto_files() -> list[str]:
    """The golden .proto files, relative to PROTOS."""
    return sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))


def render(options: str, grpc_options: str | None = None) -> dict[str, str]:
    """Generate every golden proto with plugin ``options`` (and the gRPC plugin's
    ``grpc_options``, if given); return {relative path: source}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = generate(proto_files(), [PROTOS], Path(tmp), options=options, grpc_options=grpc_options)
        return {str(p.relative_to(out)): p.read_text() for p in sorted(out.rglob("*.py*")) if p.suffix in SOURCES}


def default_style(proto: str) -> str:
    """The style a golden proto takes without an API level option (by its edition)."""
    found = re.search(r'^edition = "(\d+)";', (PROTOS / proto).read_text(), re.M)
    return "opaque" if found and int(found.group(1)) >= 2024 else "open"


def twin_source(opaque_source: str) -> str:
    """The opaque twin of a hybrid golden module as the plugin writes it, made from its file's
    opaque module: the header calls it a twin and names the hybrid option, and the other
    golden modules and the well-known types it imports are their twins. Nothing else differs."""
    from protoc_gen_pyopaque.plugin.names import SHIPPED_PROTOS, import_path
    source = opaque_source.replace("; style opaque)\n", "; style opaque, opaque twin)\n", 1)
    source = source.replace(f'# parameter: "{VARIANTS["opaque"]}"\n', f'# parameter: "{VARIANTS["hybrid"]}"\n', 1)
    renames = {}
    for proto in proto_files() + sorted(SHIPPED_PROTOS):
        module, twin = import_path(proto), import_path(proto, twin=True)
        renames[module] = twin
        renames["_m_" + module.replace(".", "__")] = "_m_" + twin.replace(".", "__")  # its alias
    pattern = re.compile(r"(?<![\w.'])(" + "|".join(map(re.escape, renames)) + r")\b")
    return pattern.sub(lambda m: renames[m.group(1)], source)


def is_twin(rel: str) -> bool:
    """Say whether the generated file ``rel`` is a hybrid module's opaque twin."""
    from protoc_gen_pyopaque.plugin.names import TWIN_SUFFIX
    return rel.endswith(TWIN_SUFFIX + ".py")


def twins() -> dict[str, str]:
    """The hybrid style's opaque twins, made from the committed opaque modules: {relative path: source}."""
    from protoc_gen_pyopaque.plugin.names import output_path
    return {output_path(proto, twin=True): twin_source((EXPECTED / "opaque" / output_path(proto)).read_text())
            for proto in proto_files()}


@functools.cache  # once per process: the behaviour tests ask for each test
def importable(style: str) -> Path:
    """The folder of the golden modules of ``style`` to import or type-check: the committed
    folder, but for hybrid a copy under build/ with the opaque twins added."""
    if style != "hybrid":
        return EXPECTED / style
    made = twins()
    digest = hashlib.sha256()
    for path in sorted((EXPECTED / "hybrid").rglob("*.py")):
        digest.update(str(path.relative_to(EXPECTED)).encode() + b"\0" + path.read_bytes())
    for rel, source in sorted(made.items()):
        digest.update(rel.encode() + b"\0" + source.encode())

    def build(folder: Path) -> None:
        shutil.copytree(EXPECTED / "hybrid", folder, ignore=shutil.ignore_patterns("__pycache__"))
        for rel, source in made.items():
            (folder / rel).write_text(source)

    return build_cached(BUILD / "golden-hybrid", digest.hexdigest(), build)
