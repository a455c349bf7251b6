"""The plugin's generator compiled with mypyc, kept in the user's cache folder.

    pyopaque compile-plugin        (needs the compile extra and a C compiler; a minute or two)

The modules that decode the request, resolve the schema, allocate names and build the views
(COMPILED) become native extensions in a folder of the user's cache named after a digest of the
installed sources (``sources_digest``: every module of the package's top level and of its gen,
plugin and runtime folders, which the compiled code was type-checked against, and the
interpreter's ABI). The plugin's entry point (cli) imports them from there only when a folder of
the installed sources' digest exists: an edited or upgraded source has another digest, and the
interpreted modules run; stale code cannot. ``PYOPAQUE_PLUGIN_COMPILED=0`` runs the interpreted
modules all the same. The generated code is the same either way.

Left interpreted: gen/views.py and gen/grpc_views.py, whose objects the templates read (an
attribute of a native object costs interpreted code more than a slot: compiled, rendering took
11 % more instructions, as much as compiling saved building them), and gen/render.py (its
classes derive from Jinja's, which a native class cannot).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

__all__ = ["COMPILED", "activate", "build", "compiled_folder", "remove_builds", "sources_digest", "user_cache"]

PACKAGE = "protoc_gen_pyopaque"
PACKAGE_ROOT = Path(__file__).resolve().parent
COMPILED = ("gen/build.py", "gen/pyexpr.py", "plugin/comments.py", "plugin/features.py", "plugin/names.py",
            "plugin/options.py", "plugin/request.py", "plugin/run.py", "plugin/schema.py")
# the folders whose modules the digest covers (mypyc folds other modules' Final constants into
# the compiled code, and checks the types of what it calls)
DIGESTED = (".", "gen", "plugin", "runtime")
EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
PREFIX = "plugin-"  # a compiled build's folder in the cache: PREFIX + the sources' digest
MANIFEST = "files"  # in a build's folder: the files it holds, one a line
SWITCH = "PYOPAQUE_PLUGIN_COMPILED"
# google.protobuf's types are not checked: with or without its stubs installed, the build is the same
_MYPY_CONFIG = "[mypy]\n\n[mypy-google.*]\nignore_missing_imports = True\nfollow_imports = skip\n"


def user_cache() -> Path | None:
    """The plugin's folder in the user's cache folder, if the user has one."""
    try:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # no home
        return None
    return root / "protoc-gen-pyopaque"


def sources_digest(root: Path = PACKAGE_ROOT) -> str:
    """The digest of the sources under ``root`` (a protoc_gen_pyopaque folder) that a compiled
    build depends on, for this interpreter's ABI."""
    digest = hashlib.sha256(f"{sys.implementation.cache_tag}\0{EXT_SUFFIX}\0".encode())
    for folder in DIGESTED:
        for path in sorted((root / folder).glob("*.py")):
            data = path.read_bytes()
            digest.update(f"{folder}/{path.name}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()[:32]


def compiled_folder(root: Path = PACKAGE_ROOT, cache: Path | None = None) -> Path | None:
    """The compiled build of the sources under ``root`` as they are now, in ``cache`` (default:
    the user's), if there is one and it is whole (cache cleaners remove old files one by one:
    a process missing some compiled modules would mix them with interpreted ones)."""
    cache = cache or user_cache()
    # no hashing where nothing was ever compiled (the common case; the digest costs ~2 ms)
    if cache is None or not any(p.name.startswith(PREFIX) for p in _entries(cache)):
        return None
    folder = cache / f"{PREFIX}{sources_digest(root)}"
    try:
        files = (folder / MANIFEST).read_text().splitlines()
    except OSError:
        return None
    return folder if files and all((folder / rel).is_file() for rel in files) else None


def _entries(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def activate() -> Path | None:
    """Make the compiled build of the installed sources the modules that imports find, if there
    is one (and PYOPAQUE_PLUGIN_COMPILED is not 0): its folder, else None. Does nothing once any
    of those modules is imported: a process never mixes the two."""
    if os.environ.get(SWITCH, "").strip() == "0":
        return None
    if any(_module_name(rel) in sys.modules for rel in COMPILED):
        return None
    folder = compiled_folder()
    if folder is None:
        return None
    from . import gen, plugin

    before = set(sys.modules)
    packages = (("gen", gen), ("plugin", plugin))
    for name, package in packages:
        package.__path__.insert(0, str(folder / PACKAGE / name))
    sys.path.append(str(folder))  # the build's shared library: a top-level module of its own name
    try:  # loaded now, so that a build that cannot load (another libc, a damaged file) is passed over
        for rel in COMPILED:
            importlib.import_module(_module_name(rel))
    except (ImportError, OSError) as exc:
        for name in set(sys.modules) - before:  # nothing of the attempt stays: no mix
            del sys.modules[name]
        for name, package in packages:
            package.__path__.remove(str(folder / PACKAGE / name))
        sys.path.remove(str(folder))
        sys.stderr.write(f"protoc-gen-pyopaque: the compiled generator in {folder} does not load ({exc}); "
                         "running the interpreted one (`pyopaque compile-plugin --clean` removes it)\n")
        return None
    return folder


def remove_builds(cache: Path | None = None, *, keep: Path | None = None) -> list[Path]:
    """Remove the compiled builds in ``cache`` (default: the user's) but ``keep``; those removed."""
    removed = []
    for entry in _entries(cache or user_cache() or Path("/nonexistent")):
        if entry.name.startswith(PREFIX) and entry != keep:
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def _module_name(rel: str) -> str:
    return f"{PACKAGE}." + rel.removesuffix(".py").replace("/", ".")


def build(cache: Path | None = None, *, verbose: bool = False) -> Path:
    """Compile the installed sources' COMPILED modules into ``cache`` (default: the user's), unless
    that build is there already; its folder. Raises compile.CompileError."""
    from .compile import CompileError, check_toolchain, run_mypyc

    cache = cache or user_cache()
    if cache is None:
        raise CompileError("no cache folder (set XDG_CACHE_HOME)")
    check_toolchain()
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pyopaque-plugin-", dir=cache) as tmp:
        work = Path(tmp)
        # a copy of the sources: the digest names what was compiled, even if they change meanwhile
        shutil.copytree(PACKAGE_ROOT, work / PACKAGE, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
        digest = sources_digest(work / PACKAGE)
        folder = cache / f"{PREFIX}{digest}"
        if folder.is_dir():
            return folder
        (work / "mypy.ini").write_text(_MYPY_CONFIG)
        run_mypyc(work, [f"{PACKAGE}/{rel}" for rel in COMPILED], group=f"pyopaque_plugin_{digest[:16]}",
                  verbose=verbose)
        built = work / "out"
        for so in sorted(work.glob(f"*{EXT_SUFFIX}")) + [work / PACKAGE / f"{rel.removesuffix('.py')}{EXT_SUFFIX}"
                                                          for rel in COMPILED]:
            target = built / so.relative_to(work)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(so, target)
        (built / MANIFEST).write_text("".join(f"{p.relative_to(built).as_posix()}\n"
                                              for p in sorted(built.rglob(f"*{EXT_SUFFIX}"))))
        try:
            built.rename(folder)  # whole or not at all: a build is found only once complete
        except OSError:  # another process finished the same build first
            if not folder.is_dir():
                raise
    return folder
