"""gen/render.py's Jinja environment renders as stock Jinja does, with plain Python attribute reads,
calls and macro calls."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest

from protoc_gen_pyopaque.gen.render import environment, indent, make_environment

TEMPLATE = """\
{% macro pair(a, b="B", c=none) %}{{ a }}-{{ b }}-{{ c }}{% endmacro %}
{% macro nest(a) %}[{{ pair(a) }}|{% for i in [a, 2] %}{{ pair(i, c=i) }}{{ pair(i) ~ ";" }}{% endfor %}]{% endmacro %}
{{ nest(7) }} {{ pair(1, 2, 3) }} {{ pair(1) }} {{ pair(1, c=3) }} {{ pair(a=1, b=2) }}
{{ x.name }} {{ x.upper() }} {{ "y" if x.other is defined else "n" }} {{ x.items|length }}
{% for i in x.items %}{{ loop.index }}:{{ i }}{{ "," if not loop.last }}{% endfor %}
100% {{ "%s" }} {{ x.items[0] }}%{{ none }} {{ x.name|tojson }} {{ "<a & 'b'>"|tojson }} {{ x.json|tojson }}
"""


def render(env: jinja2.Environment, source: str, **context: object) -> str:
    return env.from_string(source).render(**context)


def test_renders_as_stock_jinja() -> None:
    x = SimpleNamespace(name="n", upper=lambda: "U", items=[4, 5], json={"b": ["é", 1.5], "a": None})
    stock = jinja2.Environment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                               keep_trailing_newline=True)
    assert render(environment(), TEMPLATE, x=x) == render(stock, TEMPLATE, x=x) == (
        "[7-B-None|7-B-77-B-None;2-B-22-B-None;] 1-2-3 1-B-None 1-B-3 1-2-None\nn U n 2\n1:4,2:5"
        '100% %s 4%None "n" "\\u003ca \\u0026 \\u0027b\\u0027\\u003e" {"a": null, "b": ["\\u00e9", 1.5]}\n')


def test_wrong_macro_calls_and_missing_attributes_still_fail() -> None:
    env = environment()
    with pytest.raises(TypeError, match="no keyword argument 'd'"):
        render(env, '{% macro m(a, b="") %}{% endmacro %}{{ m(1, d=2) }}')
    with pytest.raises(TypeError, match=r"macro m\(\) takes from 0 to 1 positional arguments but 2 were given"):
        render(env, "{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}")
    with pytest.raises(jinja2.UndefinedError, match="'a' was not provided"):
        render(env, "{% macro m(a) %}{{ a }}{% endmacro %}{{ m() }}")
    with pytest.raises(AttributeError, match="other"):
        render(env, "{{ x.other }}", x=SimpleNamespace())


def test_compiled_templates_are_kept_between_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first environment compiles and keeps the templates; the next loads them (compiling
    nothing) and renders the same; a damaged entry is compiled again; an unwritable folder is
    no error."""
    cache = tmp_path / "cache"
    first = make_environment(cache).get_template("_message.py.j2").module
    kept = sorted(cache.iterdir())
    assert kept
    with monkeypatch.context() as patch:
        patch.setattr(jinja2.Environment, "compile", lambda *args, **kwargs: pytest.fail("compiled again"))
        again = make_environment(cache).get_template("_message.py.j2").module
    assert dir(again) == dir(first)
    damaged = {entry: entry.read_bytes()[:200] for entry in kept}  # cut short after the header
    for entry, data in damaged.items():
        entry.write_bytes(data)
    assert dir(make_environment(cache).get_template("_message.py.j2").module) == dir(first)
    assert all(entry.read_bytes() != data for entry, data in damaged.items())
    (tmp_path / "file").write_text("")
    make_environment(tmp_path / "file" / "cache").get_template("_message.py.j2")


def test_indent_leaves_blank_lines_empty() -> None:
    # the rendered modules are not cleaned up afterwards: no line may end in spaces
    assert indent("a\n\n\nb\n  c\n", 4) == "a\n\n\n    b\n      c\n"
    assert indent("a\nb", 2) == "a\n  b"
    assert indent("a\n", 0) == "a\n"
    assert indent("a\n\nb\n", "   ") == "a\n\n   b\n"  # a pad given as its string
