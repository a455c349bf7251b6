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
    """

    default_api_level: ApiLevel | None = None
    file_api_levels: dict[str, ApiLevel] = field(default_factory=dict)
    lazy_all: bool = False


def _level(key: str, value: str) -> ApiLevel:
    level = _LEVELS.get(value)
    if level is None:
        choices = ", ".join(_LEVELS)
        raise OptionError(f"option {key}: unknown API level {value!r} (expected one of {choices})")
    return level


_BOOLS = {"true": True, "false": False}


def _bool(key: str, value: str) -> bool:
    if value not in _BOOLS:
        raise OptionError(f"option {key}: expected true or false, got {value!r}")
    return _BOOLS[value]


def parse_options(parameter: str) -> Options:
    """Parse the comma-separated ``key=value`` parameter; unknown keys are errors."""
    default: ApiLevel | None = None
    per_file: dict[str, ApiLevel] = {}
    lazy_all = False
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
        elif key.startswith(_FILE_LEVEL_PREFIX) and len(key) > len(_FILE_LEVEL_PREFIX):
            per_file[key[len(_FILE_LEVEL_PREFIX):]] = _level(key, value)
        else:
            raise OptionError(
                f"unknown option {key!r} (known: default_api_level, apilevelM<file.proto>, lazy_all)")
    return Options(default_api_level=default, file_api_levels=per_file, lazy_all=lazy_all)
