"""Embedding a large pre-serialized message into a request without re-encoding it.

A batch of log entries arrives as bytes and is forwarded inside an UploadRequest. Parsed with
`parse(blob, lazy=True)` (opaque style), the batch keeps its bytes, and `serialize()` writes them
back verbatim; the naive way decodes every entry and encodes it again.
"""

from __future__ import annotations

import sys
import timeit

from common import build, load

FILES = ["example/logentry.proto", "example/upload.proto"]
ENTRIES = 5000
REPEAT = 5


def main() -> None:
    print("== Embedding a large pre-serialized message without re-encoding it ==")
    pb = load(build("opaque", FILES, name="upload-opaque"), "example.upload_pb")
    entry_pb = sys.modules["example.logentry_pb"]  # imported by upload_pb
    batch = pb.Batch(entries=[entry_pb.LogEntry(backend_server=f"be-{i % 7}.example", request_size=i,
                                                tags=["edge"]) for i in range(ENTRIES)])
    blob = batch.serialize()

    def naive() -> bytes:
        return pb.UploadRequest(request_id="r-1", batch=pb.Batch.parse(blob)).serialize()  # type: ignore[no-any-return]

    def lazy() -> bytes:
        return pb.UploadRequest(request_id="r-1", batch=pb.Batch.parse(blob, lazy=True)).serialize()  # type: ignore[no-any-return]

    same = naive() == lazy()
    print(f"   blob: {len(blob):,} bytes, {ENTRIES:,} entries; both requests byte-identical: {same}")
    slow = min(timeit.repeat(naive, number=1, repeat=REPEAT)) * 1e3
    fast = min(timeit.repeat(lazy, number=1, repeat=REPEAT)) * 1e3
    print(f"   parse and re-serialize: {slow:8.2f} ms")
    print(f"   parse(blob, lazy=True): {fast:8.2f} ms  ({slow / fast:.0f}x faster)")


if __name__ == "__main__":
    main()
