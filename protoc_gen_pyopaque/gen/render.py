"""Renders view models through the Jinja2 templates.

The output is not compile-checked here: compiling took most of the plugin's time on large schemas,
and every module the tests generate is compiled (tests/unit/_support.py) or imported.
"""

from __future__ import annotations

import base64
import json
import os
import zlib
from functools import lru_cache
from hashlib import sha1
from io import StringIO
from pathlib import Path
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.bccache import Bucket
from jinja2.compiler import CodeGenerator, Frame, MacroRef, optimizeconst
from jinja2.runtime import Macro
from jinja2.utils import missing

from ..compiled_plugin import user_cache
from .grpc_views import GrpcFileView
from .pyexpr import quoted
from .views import FileView, OneofView


def templates_dir() -> Path:
    """The templates folder: inside the installed package, or the repository's top level."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "templates", here.parent / "templates"):
        if (candidate / "module.py.j2").is_file():
            return candidate
    raise FileNotFoundError(f"templates not found next to {here}")


def _macro(environment: jinja2.Environment, func: Callable[..., str], name: str, arguments: tuple[str, ...],
           catch_kwargs: bool, catch_varargs: bool, caller: bool, default_autoescape: bool | None = None) -> Any:
    """A macro that takes no caller, ``varargs`` or ``kwargs`` (none of the templates' does) is its
    function, called directly: Jinja's argument matching, or even a wrapper's call, cost more than
    most macro bodies. Its parameters default to ``missing``, which the function replaces with
    the macro's defaults itself; calls with keywords go through _Environment.keyword_call."""
    if catch_kwargs or catch_varargs or caller:
        return Macro(environment, func, name, list(arguments), catch_kwargs, catch_varargs, caller, default_autoescape)
    func.jinja_arguments = arguments  # type: ignore[attr-defined]
    func.__qualname__ = f"macro {name}"  # as Python's errors name it
    return func


class _CodeGenerator(CodeGenerator):
    """Jinja's code generator, writing plain Python where these templates need no more: attributes
    and items read as Python reads them (no fallback from one to the other: a missing one raises),
    calls made directly (the templates call no function that takes Jinja's context), macros made
    as _DirectMacro. The rendered text is the same."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tested: set[int] = set()  # ``x.y is defined``: these read as Jinja reads them
        self._macros: set[str] = set()  # the template's macros and those it imports, by name

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        self._macros = {m.name for m in node.find_all(nodes.Macro)} | {
            name if isinstance(name, str) else name[1]
            for imported in node.find_all(nodes.FromImport) for name in imported.names}
        super().visit_Template(node, frame)

    def visit_Test(self, node: nodes.Test, frame: Frame) -> None:
        if node.name in ("defined", "undefined") and isinstance(node.node, (nodes.Getattr, nodes.Getitem)):
            self._tested.add(id(node.node))
        super().visit_Test(node, frame)

    @optimizeconst
    def visit_Getattr(self, node: nodes.Getattr, frame: Frame) -> None:
        if id(node) in self._tested:
            super().visit_Getattr(node, frame)
            return
        self.write("(")
        self.visit(node.node, frame)
        self.write(f").{node.attr}")

    @optimizeconst
    def visit_Getitem(self, node: nodes.Getitem, frame: Frame) -> None:
        if id(node) in self._tested:
            super().visit_Getitem(node, frame)
            return
        self.write("(")
        self.visit(node.node, frame)
        self.write(")[")
        self.visit(node.arg, frame)
        self.write("]")

    @optimizeconst
    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        """``a ~ b``: a %-format of its operands (%s applies str(), as Jinja's str_join does)."""
        if frame.eval_ctx.volatile or frame.eval_ctx.autoescape:
            super().visit_Concat(node, frame)
            return
        self.write(f"({'%s' * len(node.nodes)!r} % (")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")

    @optimizeconst
    def visit_Call(self, node: nodes.Call, frame: Frame, forward_caller: bool = False) -> None:
        keywords = bool(node.kwargs or node.dyn_args or node.dyn_kwargs or forward_caller)
        # a macro's parameters are not named as its arguments; a method of a view (an attribute:
        # macros are imported by name) takes its keywords as they are
        by_position = keywords and not isinstance(node.node, nodes.Getattr)
        if by_position:
            self.write("environment.keyword_call(")
        self.visit(node.node, frame)
        stream, self.stream = self.stream, StringIO()  # signature() puts ", " before each argument
        self.signature(node, frame, {"caller": "caller"} if forward_caller else None)
        arguments, self.stream = self.stream.getvalue(), stream
        self.write(f"{arguments})" if by_position else f"({arguments.removeprefix(', ')})")

    def visit_Output(self, node: nodes.Output, frame: Frame) -> None:
        """Inside macros, an output statement appends one string: a %-format of its text with its
        expressions as the arguments (%s applies str(), as Jinja does), not each piece in turn;
        a macro it calls as a whole expression appends its own output to the same list
        (``into``): nested output is not joined and copied again at every level."""
        finalize = self._make_finalize()
        if (frame.buffer is None or frame.require_output_check or finalize.src is not None
                or frame.eval_ctx.volatile or frame.eval_ctx.autoescape):
            super().visit_Output(node, frame)
            return
        # ``{{ x if c }}`` prints "" when not c: Jinja makes an Undefined each time to print it
        node.nodes = [nodes.CondExpr(child.test, child.expr1, nodes.Const("", lineno=child.lineno),
                                     lineno=child.lineno)
                      if isinstance(child, nodes.CondExpr) and child.expr2 is None else child
                      for child in node.nodes]
        if any(self._writes_into(child, frame) for child in node.nodes):
            pieces: list[nodes.Expr] = []
            for child in [*node.nodes, None]:
                if child is not None and not self._writes_into(child, frame):
                    pieces.append(child)
                    continue
                if pieces:
                    self.visit_Output(nodes.Output(pieces, lineno=node.lineno), frame)
                    pieces = []
                if isinstance(child, nodes.Call):
                    self.writeline("")
                    self.visit(child.node, frame)
                    self.write("(")
                    for arg in child.args:
                        self.visit(arg, frame)
                        self.write(", ")
                    self.write(f"into={frame.buffer})")
            return
        parts: list[str | nodes.Expr] = []  # text known now, or an expression evaluated at run time
        for child in node.nodes:
            try:
                if not (finalize.const or isinstance(child, nodes.TemplateData)):
                    raise nodes.Impossible()
                parts.append(self._output_child_to_const(child, frame, finalize))
            except Exception:  # not constant (nodes.Impossible), or an error better raised at run time
                parts.append(child)
        values = [part for part in parts if not isinstance(part, str)]
        if not values or len(parts) == 1:
            super().visit_Output(node, frame)
            return
        text = "".join(part.replace("%", "%%") if isinstance(part, str) else "%s" for part in parts)
        self.writeline(f"{frame.buffer}.append({text!r} % (")
        for value in values:
            self.visit(value, frame)
            self.write(", ")
        self.write("))")

    def _writes_into(self, node: nodes.Node, frame: Frame) -> bool:
        """Whether ``node`` calls a macro of the templates by position (macros take ``into``)."""
        return (isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name)
                and node.node.name in self._macros  # and not a local of the same name:
                and frame.symbols.find_ref(node.node.name) == f"l_0_{node.node.name}"
                and not (node.kwargs or node.dyn_args or node.dyn_kwargs))

    def visit_For(self, node: nodes.For, frame: Frame) -> None:
        """A loop whose body reads only ``loop.first`` and ``loop.last`` iterates with
        _Environment.loop_positions, not Jinja's LoopContext (whose other members cost a call
        on every step). A loop that sets no variable makes no dict of them at each step."""
        loop_names = [n for n in node.find_all(nodes.Name) if n.name == "loop"]
        read = [n for n in node.find_all(nodes.Getattr)
                if isinstance(n.node, nodes.Name) and n.node.name == "loop" and n.attr in ("first", "last")]
        stream, self.stream = self.stream, StringIO()
        super().visit_For(node, frame)
        code, self.stream = self.stream.getvalue(), stream
        # the first of each is this loop's: its head is written before its body
        if not node.recursive and loop_names and len(read) == len(loop_names):
            code = code.replace("LoopContext(", "environment.loop_positions(", 1)
        if code.count("_loop_vars") == 1:  # the loop's dict, which nothing fills or reads
            code = code.replace("_loop_vars = {}", "pass", 1)  # a line still: line numbers stay
        self.write(code)

    def macro_body(self, node: nodes.Macro | nodes.CallBlock, frame: Frame) -> tuple[Frame, MacroRef]:
        stream, self.stream = self.stream, StringIO()
        frame, macro_ref = super().macro_body(node, frame)
        body, self.stream = self.stream.getvalue(), stream
        if isinstance(node, nodes.Macro) and not (
                macro_ref.accesses_caller or macro_ref.accesses_kwargs or macro_ref.accesses_varargs):
            # def macro(l_1_a, l_1_b): ... becomes def macro(l_1_a=missing, l_1_b=missing, *, into=None):
            # ..., its output appended to ``into`` if given (see visit_Output), else returned
            head, paren, rest = body.partition("(")
            params, close, rest = rest.partition("):")
            body = head + paren + "".join(f"{p}=missing, " for p in params.split(", ") if p) + "*, into=None" \
                + close + rest
            buffer = frame.buffer
            body = body.replace(f"{buffer} = []", f"{buffer} = [] if into is None else into", 1)
            body = body.replace(f"return concat({buffer})", f"return concat({buffer}) if into is None else None", 1)
        self.write(body)
        return frame, macro_ref

    def macro_def(self, macro_ref: MacroRef, frame: Frame) -> None:
        stream, self.stream = self.stream, StringIO()
        super().macro_def(macro_ref, frame)
        definition, self.stream = self.stream.getvalue(), stream
        self.write("environment.macro_class" + definition.removeprefix("Macro"))


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between runs (compiling them cost a small run more than the run):
    in the user's cache folder, valid for the template's source compiled by this module with this
    Jinja; a folder that cannot be written or a damaged entry is no error."""

    def __init__(self, directory: Path) -> None:
        super().__init__(str(directory), "%s.jinja")
        self._compiler = sha1(Path(__file__).read_bytes() + jinja2.__version__.encode()).hexdigest()

    def get_source_checksum(self, source: str) -> str:
        return super().get_source_checksum(f"{source}\0{self._compiler}")

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # damaged: compiled again and replaced
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _cache_dir() -> Path | None:
    """The folder of compiled templates, if the user has a cache folder."""
    cache = user_cache()
    return None if cache is None else cache / "templates"


@dataclass(frozen=True, slots=True)
class _LoopPosition:
    """What a loop compiled by _CodeGenerator.visit_For reads of ``loop``."""

    first: bool
    last: bool


_ONLY, _FIRST, _MIDDLE, _LAST = (_LoopPosition(True, True), _LoopPosition(True, False),
                                 _LoopPosition(False, False), _LoopPosition(False, True))


class _Environment(jinja2.Environment):
    code_generator_class = _CodeGenerator
    macro_class = staticmethod(_macro)

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as a dict, not Jinja's ChainMap over the environment's: each
        render and each import of a template iterated it, in Python, several times. The
        environment's globals do not change once templates are loaded."""
        return {**self.globals, **(d or {})}

    @staticmethod
    def loop_positions(iterable: Any, undefined: Any) -> Iterator[tuple[Any, _LoopPosition]]:
        """Each item of ``iterable`` with its position, as LoopContext(iterable, undefined) gives
        it for loop.first and loop.last."""
        items = iterable if type(iterable) is list else list(iterable)
        if len(items) < 2:
            return zip(items, (_ONLY,))
        positions = [_MIDDLE] * len(items)
        positions[0], positions[-1] = _FIRST, _LAST
        return zip(items, positions)

    @staticmethod
    def keyword_call(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call ``func`` with keywords: a macro made by _macro by its parameters' positions."""
        names: tuple[str, ...] | None = getattr(func, "jinja_arguments", None)
        if names is None:
            return func(*args, **kwargs)
        for name in kwargs:
            if name not in names[len(args):]:
                raise TypeError(f"{func.__qualname__}() takes no keyword argument {name!r}")
        return func(*args, *(kwargs.get(name, missing) for name in names[len(args):]))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The one Jinja2 environment of the process."""
    return make_environment(_cache_dir())


def make_environment(cache: Path | None) -> jinja2.Environment:
    """A Jinja2 environment of the templates: strict about undefined names, trims block
    whitespace; templates compiled once (not checked for changes on every use), and kept in
    ``cache`` between runs."""
    env = _Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        auto_reload=False,
        bytecode_cache=_CompiledTemplates(cache) if cache is not None else None,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["indent"] = indent
    env.filters["tojson"] = tojson
    env.filters["literal"] = repr  # a Python literal of a string
    env.filters["packed"] = packed
    # ``item is oneof``: an isinstance test, where ``item.fields is defined`` raised and caught two
    # exceptions for every field that is not a oneof
    env.tests["oneof"] = lambda item: isinstance(item, OneofView)
    return env


def tojson(value: object) -> str:
    """Jinja's own filter (JSON, keys sorted, with <, >, & and ' escaped), without its markup
    wrapper; a string, the common case, as json.dumps quotes it (pyexpr.quoted)."""
    text = quoted(value) if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027")


def packed(code: str, class_name: str = "", helpers: str = "") -> str:
    """The literal of source for ``_rt.defer_classes`` (``class_name``: a class's methods, as the
    body of a class of that name, so that names mangle alike, then ``helpers``: the module-level
    classes only its methods use) or ``_rt.defer_enums``, deflated, in base 85 (no quote or
    backslash in its alphabet)."""
    source = (f"class {class_name}:\n{code}\n\n{helpers}" if class_name else code).encode()
    return f"'{base64.b85encode(zlib.compress(source, 6)).decode()}'"


# Kept for the request (see forget_request): the same text comes again and again (a macro's
# output for fields of one shape and number in many messages), and indenting it costs tens of
# instructions a character (a replace makes a call per line), where a hit costs its hash.
@lru_cache(maxsize=4096)
def indent(text: str, width: int | str = 4) -> str:
    """Indent every line but the first by ``width`` spaces (or by the string ``width``), as
    Jinja2's own filter does, at a fraction of its cost (it was a quarter of rendering); blank
    lines stay empty."""
    if "\n" not in text:  # a third of the calls
        return text
    pads = _PADS.get(width)
    if pads is None:
        pad = width if isinstance(width, str) else " " * width
        pads = _PADS[width] = ("\n" + pad, pad + "\n", len(pad))
    # blank lines stay empty: a pad followed by a newline is one (the text has no trailing spaces)
    indented = text.replace("\n", pads[0]).replace(pads[1], "\n")
    # a last newline ends the text: no spaces after it
    return indented[:len(indented) - pads[2]] if text[-1] == "\n" else indented


# by width: a newline and the pad, the pad and a newline, the pad's length
_PADS: dict[int | str, tuple[str, str, int]] = {}


def forget_request() -> None:
    """Drop what rendering kept for one request (the indented texts): a run's figures are its
    own, as in a plugin process, which runs once."""
    indent.cache_clear()


def render_module(view: FileView) -> str:
    """Render one generated module."""
    return environment().get_template("module.py.j2").render(file=view)


def render_stub(view: FileView) -> str:
    """Render the .pyi of a module with deferred classes: its API for type checkers and IDEs."""
    return environment().get_template("stub.pyi.j2").render(file=view)


def render_grpc_module(view: GrpcFileView) -> str:
    """Render one generated gRPC module."""
    return environment().get_template("grpc.py.j2").render(file=view)
