"""Rewrites tests/golden/expected from the current plugin (`make golden`), but for the hybrid
style's opaque twins, which the golden test makes from the opaque modules (golden.twin_source)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.golden.golden import EXPECTED, GRPC_VARIANTS, VARIANTS, is_twin, render  # noqa: E402


def main() -> None:
    if EXPECTED.exists():
        shutil.rmtree(EXPECTED)
    for variant in VARIANTS:
        for rel, source in render(VARIANTS[variant], GRPC_VARIANTS.get(variant)).items():
            if is_twin(rel):
                continue
            path = EXPECTED / variant / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source)
    print(f"golden outputs written to {EXPECTED}")


if __name__ == "__main__":
    main()
