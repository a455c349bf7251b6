"""Strict parsing of the plugin parameter (``--pyopaque_opt=k=v,...``) into frozen Options."""

from __future__ import annotations

from dataclasses import dataclass, field

from .schema import ApiLevel

__all__ = ["Options", "OptionError", "parse_options"]

_LEVELS = {level.value: level for level in ApiLevel}
_FILE_LEVEL_PREFIX = "apilevelM"


class OptionError(ValueError):
    """A plugin parameter that is unknown or malformed."""


@dataclass(frozen=True)
class Options:
    """What the plugin was asked to do.

    default_api_level: style for files that choose none (overrides the edition default).
    file_api_levels: per-file styles from ``apilevelM<file.proto>=API_...``.
    lazy_all: decode every message field of opaque messages lazily, as if
        it were declared ``[lazy = true]`` (``lazy_all=true``; for experiments and
        for running the test suites in lazy mode).
    bootstrap_wkt: generate the well-known types' files too (``bootstrap_wkt=true``, for
        ``make wkt`` only). Otherwise files whose modules ship in the runtime are skipped when
        asked for (buf's include_imports/include_wkt, or listed to protoc): a second
        ``google/protobuf`` package in the output would shadow the official runtime's and
        register the same message names twice.
    io: the gRPC plugin only: ``sync``, ``async`` or ``both`` (grpcio's API, grpc.aio, both).
    lazy_parse: the gRPC plugin only: requests and responses are parsed with
        ``parse(data, lazy=True)``, so an untouched message is forwarded as the bytes it came in.
    classes: how message classes are written: ``inline`` (whole), ``deferred`` (each class's
        methods packed, compiled on the class's first use, its API in a .pyi next to the module:
        a large module imports in a fraction of the time and memory) or ``auto`` (deferred for
        files of DEFERRED_CLASSES_FIELDS fields or more, and for ``optimize_for = CODE_SIZE``).
    """

    default_api_level: ApiLevel | None = None
    file_api_levels: dict[str, ApiLevel] = field(default_factory=dict)
    lazy_all: bool = False
    bootstrap_wkt: bool = False
    io: str = "both"
    lazy_parse: bool = False
    classes: str = "auto"

    @property
    def sync_io(self) -> bool:
        """Say whether grpcio's synchronous API is generated."""
        return self.io in ("sync", "both")

    @property
    def async_io(self) -> bool:
        """Say whether the grpc.aio API is generated."""
        return self.io in ("async", "both")


def _level(key: str, value: str) -> ApiLevel:
    level = _LEVELS.get(value)
    if level is None:
        choices = ", ".join(_LEVELS)
        raise OptionError(f"option {key}: unknown API level {value!r} (expected one of {choices})")
    return level


_BOOLS = {"true": True, "false": False}
_IO = ("sync", "async", "both")
_CLASSES = ("auto", "inline", "deferred")


def _bool(key: str, value: str) -> bool:
    if value not in _BOOLS:
        raise OptionError(f"option {key}: expected true or false, got {value!r}")
    return _BOOLS[value]


def parse_options(parameter: str, *, grpc: bool = False) -> Options:
    """Parse the comma-separated ``key=value`` parameter; unknown keys are errors.

    ``grpc``: the parameter of the gRPC plugin, which also knows ``io`` and ``lazy_parse``.
    """
    default: ApiLevel | None = None
    per_file: dict[str, ApiLevel] = {}
    lazy_all = False
    bootstrap_wkt = False
    io = "both"
    lazy_parse = False
    classes = "auto"
    for item in parameter.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep:
            raise OptionError(f"option {key!r}: expected key=value")
        if not key:
            raise OptionError(f"option {item!r}: expected key=value (the key is empty)")
        if key == "default_api_level":
            default = _level(key, value)
        elif key == "lazy_all":
            lazy_all = _bool(key, value)
        elif key == "bootstrap_wkt":
            bootstrap_wkt = _bool(key, value)
        elif key == "classes" and not grpc:
            if value not in _CLASSES:
                raise OptionError(f"option classes: expected one of {', '.join(_CLASSES)}, got {value!r}")
            classes = value
        elif key.startswith(_FILE_LEVEL_PREFIX) and len(key) > len(_FILE_LEVEL_PREFIX):
            per_file[key[len(_FILE_LEVEL_PREFIX):]] = _level(key, value)
        elif grpc and key == "io":
            if value not in _IO:
                raise OptionError(f"option io: expected one of {', '.join(_IO)}, got {value!r}")
            io = value
        elif grpc and key == "lazy_parse":
            lazy_parse = _bool(key, value)
        else:
            known = "default_api_level, apilevelM<file.proto>, lazy_all, bootstrap_wkt" + (
                ", io, lazy_parse" if grpc else ", classes")
            raise OptionError(f"unknown option {key!r} (known: {known})")
    return Options(default_api_level=default, file_api_levels=per_file, lazy_all=lazy_all,
                   bootstrap_wkt=bootstrap_wkt, io=io, lazy_parse=lazy_parse, classes=classes)
