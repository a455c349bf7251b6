"""The JSON-lines protocol between a benchmark (bench/run.py, lazy.py, adversarial.py) and the
worker processes that time its contenders: one command line on the worker's stdin, one reply line
on its stdout. The worker's first line says it is ready, or why it is unavailable; "quit" ends it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import traceback
from collections.abc import Callable
from typing import Any

Reply = dict[str, Any]
Handler = Callable[[dict[str, Any]], Reply]


def serve(setup: Callable[[], tuple[Reply, Handler]]) -> None:
    """The worker's side: ``setup()`` returns what the ready line adds and the handler of the other
    commands. A failing set-up is replied as {"error": ...} (the contender is then reported
    unavailable), a failing command likewise (its result is that error)."""
    channel = sys.stdout
    sys.stdout = sys.stderr  # nothing but replies on the protocol channel

    def reply(obj: Reply) -> None:
        channel.write(json.dumps(obj) + "\n")
        channel.flush()

    try:
        hello, handle = setup()
    except Exception as exc:  # noqa: BLE001 - reported as unavailable
        traceback.print_exc()
        reply({"error": f"{type(exc).__name__}: {exc}".splitlines()[0][:200]})
        return
    reply({"ready": True, **hello})
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "quit":
            reply({"bye": True})
            return
        try:
            reply(handle(cmd))
        except Exception as exc:  # noqa: BLE001 - a contender's failure is a result
            traceback.print_exc()
            reply({"error": f"{type(exc).__name__}: {exc}"[:200]})


class WorkerChannel:
    """The coordinator's side, a base of the records the benchmarks keep per worker: ``proc`` is the
    worker process (None before it starts and once it is gone), ``name`` names it in errors."""

    name: str
    proc: subprocess.Popen[str] | None

    def start(self, args: list[str], env: dict[str, str], verbose: bool) -> None:
        """Start ``python ARGS`` as the worker (its stderr shown only if ``verbose``)."""
        self.proc = subprocess.Popen([sys.executable, *args], env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=None if verbose else subprocess.DEVNULL)

    def ready(self) -> Reply:
        """The worker's first line: its ready message, or {"error": why it is unavailable}, and then
        the process is gone."""
        assert self.proc and self.proc.stdout
        line = self.proc.stdout.readline()
        hello: Reply = json.loads(line) if line else {"error": "worker exited during set-up"}
        if "error" in hello:
            self.proc.wait()
            self.proc = None
        return hello

    def send(self, cmd: dict[str, Any]) -> None:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def receive(self) -> Reply:
        assert self.proc and self.proc.stdout
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name}: worker exited")
        return json.loads(line)  # type: ignore[no-any-return]

    def ask(self, cmd: dict[str, Any]) -> Reply:
        self.send(cmd)
        return self.receive()

    def stop(self) -> None:
        """Ask the worker to quit, and wait for it."""
        if self.proc:
            try:
                self.ask({"cmd": "quit"})
            except (OSError, RuntimeError):
                pass
            self.proc.wait(timeout=30)
