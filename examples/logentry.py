"""The log entry of Go's Opaque API announcement in the three styles, side by side.

Presence: with explicit presence (edition 2023), a field set to its empty value is not the same
as an unset one, in every style. Memory and speed: every field of a Python object is a pointer
already, so the opaque layout saves no memory as Go's does (it adds one slot of presence bits);
what it buys is hidden fields, and so lazy decoding: `parse(data, lazy=True)`. Compiled with
mypyc the opaque layout stores scalars unboxed and uses less memory than open (docs/performance.md).
"""

from __future__ import annotations

import timeit
import tracemalloc
from types import ModuleType

from common import build, load

FILES = ["example/logentry.proto"]
COUNT = 2000


def entry(pb: ModuleType) -> bytes:
    return pb.LogEntry(backend_server="be-1.example", request_size=1234,  # type: ignore[no-any-return]
                       ip_address=pb.IPAddress(v4=0x7F000001), tags=["edge", "tls"]).serialize()


def presence(style: str, pb: ModuleType) -> None:
    unset, empty = pb.LogEntry(), pb.LogEntry()
    if style == "open":
        empty.backend_server = ""
        shown = f"unset.backend_server={unset.backend_server!r}  empty.backend_server={empty.backend_server!r}"
    else:
        empty.set_backend_server("")
        shown = f"unset.has_backend_server()={unset.has_backend_server()}  empty.has_backend_server()={empty.has_backend_server()}"
    print(f"   {style:6}  {shown}  bytes: {unset.serialize()!r} vs {empty.serialize()!r}")


def cost(pb: ModuleType, lazy: bool) -> tuple[float, float]:
    """Bytes held per parsed message (tracemalloc) and microseconds per parse (timeit, best of 3)."""
    data = entry(pb)
    tracemalloc.start()
    kept = [pb.LogEntry.parse(data, lazy=lazy) for _ in range(COUNT)]
    held = tracemalloc.get_traced_memory()[0] / len(kept)
    tracemalloc.stop()
    seconds = min(timeit.repeat(lambda: pb.LogEntry.parse(data, lazy=lazy), number=COUNT, repeat=3))
    return held, seconds / COUNT * 1e6


def main() -> None:
    print("== The log entry of Go's Opaque API announcement, three styles ==")
    modules = {style: load(build(style, FILES, name=f"logentry-{style}"), "example.logentry_pb")
               for style in ("open", "hybrid", "opaque")}
    print("presence (edition 2023: explicit): unset vs set to the empty string")
    for style, pb in modules.items():
        presence(style, pb)
    print(f"cost of parsing a {len(entry(modules['open']))}-byte entry ({COUNT} messages kept):")
    rows = [(style, False) for style in modules] + [("opaque", True)]
    for style, lazy in rows:
        held, micros = cost(modules[style], lazy)
        label = style + (" parse(lazy=True)" if lazy else "")
        print(f"   {label:25} {held:6.0f} bytes/message  {micros:5.1f} µs/parse")
    print("   (interpreted, every field is a pointer: the opaque layout adds a slot of presence bits;\n"
          "    parse(lazy=True) checks the wire structure and keeps the entry as bytes until a field is read)")


if __name__ == "__main__":
    main()
