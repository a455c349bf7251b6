"""Threads sharing one message: concurrent reads see the whole decoded value, and a write is
not undone by a decode that another thread's read started (the rules of SECURITY.md).

Many threads start behind a barrier with the switch interval set very low, so that the
interpreter switches threads inside first decodes; each test repeats for many rounds.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from tests.behavior.conftest import Modules

THREADS = 8
ROUNDS = 60


@pytest.fixture(autouse=True)
def switch_often() -> Iterator[None]:
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(saved)


def run_together(*tasks: Callable[[], Any]) -> list[Any]:
    """Run the tasks in threads started together; return their results (re-raising a failure)."""
    barrier = threading.Barrier(len(tasks))
    results: list[Any] = [None] * len(tasks)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = tasks[i]()
        except BaseException as exc:  # reported by the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(tasks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def sample(mods: Modules) -> tuple[Any, bytes]:
    LogEntry = mods.load("edition2024").LogEntry
    Detail = LogEntry.Detail
    msg = LogEntry(timestamp=7, message="hello", detail=Detail(lines=["a"] * 40, level=3),
                   history=[Detail(lines=["h"] * 20, level=i) for i in range(1, 11)])
    return LogEntry, msg.serialize()


def has_detail(mods: Modules, entry: Any) -> bool:
    return entry.has_detail() if mods.accessors else entry.detail is not None


def view(mods: Modules, entry: Any) -> tuple[Any, ...]:
    """Every field of a LogEntry, read through getters (which every style has)."""
    detail = entry.get_detail()
    return (entry.get_timestamp(), entry.get_message(), has_detail(mods, entry),
            detail.get_level(), len(detail.get_lines()),
            [(d.get_level(), len(d.get_lines())) for d in entry.get_history()])


def has_and_get_detail(mods: Modules, entry: Any) -> tuple[bool, Any]:
    return has_detail(mods, entry), entry.get_detail()


def level_and_lines(detail: Any) -> tuple[int, list[str]]:
    return detail.get_level(), detail.get_lines()


def set_timestamp(mods: Modules, entry: Any, value: int) -> None:
    if mods.accessors:
        entry.set_timestamp(value)
    else:
        entry.timestamp = value


@pytest.mark.parametrize("lazy", [True, None, False], ids=["lazy-message", "lazy-fields", "eager"])
def test_concurrent_reads_see_the_decoded_message(mods: Modules, lazy: bool | None) -> None:
    LogEntry, data = sample(mods)
    expected = view(mods, LogEntry.parse(data, lazy=False))
    for _ in range(ROUNDS):
        msg = LogEntry.parse(data, lazy=lazy)
        seen = run_together(*[partial(view, mods, msg)] * THREADS)
        assert seen == [expected] * THREADS


def test_concurrent_reads_of_a_lazy_field_share_one_value(mods: Modules) -> None:
    LogEntry, data = sample(mods)
    for _ in range(ROUNDS):
        msg = LogEntry.parse(data)
        seen = run_together(*[partial(has_and_get_detail, mods, msg)] * THREADS)
        assert all(has for has, _ in seen)
        assert len({id(detail) for _, detail in seen}) == 1
        assert seen[0][1].get_level() == 3 and len(seen[0][1].get_lines()) == 40


def test_concurrent_reads_of_a_lazy_element(mods: Modules) -> None:
    LogEntry, data = sample(mods)
    for _ in range(ROUNDS):
        element = LogEntry.parse(data).get_history()[4]  # keeps its bytes until first access
        seen = run_together(*[partial(level_and_lines, element)] * THREADS)
        assert seen == [(5, ["h"] * 20)] * THREADS


def test_a_write_is_not_undone_by_a_concurrent_first_decode(mods: Modules) -> None:
    LogEntry, data = sample(mods)
    Detail = LogEntry.Detail
    for _ in range(ROUNDS):
        msg = LogEntry.parse(data, lazy=True)
        run_together(partial(view, mods, msg), partial(set_timestamp, mods, msg, 99), partial(view, mods, msg))
        assert msg.get_timestamp() == 99
        if not mods.accessors:
            continue
        msg = LogEntry.parse(data)
        replacement = Detail(level=8)
        run_together(msg.get_detail, partial(msg.set_detail, replacement), msg.get_detail)
        assert msg.get_detail() is replacement
        msg = LogEntry.parse(data)
        run_together(msg.get_detail, msg.clear_detail, msg.get_detail)
        assert not msg.has_detail()
