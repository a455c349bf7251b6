"""Renders view models through the Jinja2 templates.

The output is not compile-checked here: compiling took most of the plugin's time on large schemas,
and every module the tests generate is compiled (tests/unit/_support.py) or imported.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

from .grpc_views import GrpcFileView
from .views import FileView


def templates_dir() -> Path:
    """The templates folder: inside the installed package, or the repository's top level."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "templates", here.parent / "templates"):
        if (candidate / "module.py.j2").is_file():
            return candidate
    raise FileNotFoundError(f"templates not found next to {here}")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The one Jinja2 environment: strict about undefined names, trims block whitespace."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["indent"] = indent
    return env


def indent(text: str, width: int = 4) -> str:
    """Indent every line but the first by ``width`` spaces, as Jinja2's own filter does, at a
    fraction of its cost (it was a quarter of rendering); blank lines get spaces, which _tidy strips."""
    pad = "\n" + " " * width
    if text.endswith("\n"):
        return text[:-1].replace("\n", pad) + "\n"
    return text.replace("\n", pad)


def render_module(view: FileView) -> str:
    """Render one generated module."""
    return _tidy(environment().get_template("module.py.j2").render(file=view))


def _tidy(source: str) -> str:
    """Strip trailing spaces and collapse runs of blank lines to at most two."""
    out: list[str] = []
    blank = 0
    for line in source.splitlines():
        line = line.rstrip()
        if not line:
            blank += 1
            if blank > 2:
                continue
        else:
            blank = 0
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def render_grpc_module(view: GrpcFileView) -> str:
    """Render one generated gRPC module."""
    return _tidy(environment().get_template("grpc.py.j2").render(file=view))
