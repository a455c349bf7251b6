"""Renders view models through the Jinja2 templates and compile-checks the result."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

from .views import FileView


class RenderError(Exception):
    """Generated code that does not compile: a bug of ours, shown with numbered source."""


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
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_module(view: FileView) -> str:
    """Render one generated module; raise RenderError if it is not valid Python."""
    source = environment().get_template("module.py.j2").render(file=view)
    source = _tidy(source)
    try:
        compile(source, view.module, "exec")
    except SyntaxError as exc:
        lines = source.splitlines()
        lo = max((exc.lineno or 1) - 6, 0)
        excerpt = "\n".join(f"{i + 1:5}: {lines[i]}" for i in range(lo, min(lo + 12, len(lines))))
        raise RenderError(f"{view.proto}: generated code does not compile: {exc.msg}\n{excerpt}") from None
    return source


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
