"""bench/chart.py: the SVG bar chart of times relative to upb, on small data."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from chart import BAR, bar_chart  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def bars(svg: str) -> dict[str, tuple[float, float]]:
    """Tooltip -> (y, height) of every bar."""
    root = ET.fromstring(svg)
    return {rect.find(f"{SVG}title").text: (float(rect.get("y")), float(rect.get("height")))  # type: ignore[union-attr, arg-type]
            for rect in root.iter(f"{SVG}rect") if rect.find(f"{SVG}title") is not None}


def test_a_bar_per_value_above_the_baseline_when_slower_below_when_faster() -> None:
    svg = bar_chart({"log parse": {"ours": 2.0, "theirs": 0.5}, "log serialize": {"ours": 20.0}},
                    ["ours", "theirs"], title="t <&>", baseline="upb")
    found = bars(svg)
    assert set(found) == {"ours, log parse: 2.00× upb", "theirs, log parse: 0.50× upb",
                          "ours, log serialize: 20.00× upb"}
    (slow_y, slow_h), (fast_y, fast_h) = found["ours, log parse: 2.00× upb"], found["theirs, log parse: 0.50× upb"]
    assert abs(slow_y + slow_h - fast_y) < 0.2  # both start at the 1× line: one ends there, one begins there
    assert abs(slow_h - fast_h) < 0.2  # 2× and 0.5× are the same distance on a log scale
    assert found["ours, log serialize: 20.00× upb"][1] > slow_h * 4
    assert "t &lt;&amp;&gt;" in svg and "upb = 1×" in svg
    assert re.findall(r">(\d+(?:\.\d+)?)×<", svg) == ["0.1", "1", "10", "100"]  # decades of the axis


def test_missing_values_draw_no_bar_and_bars_do_not_overlap() -> None:
    svg = bar_chart({"a": {"x": 1.5, "z": 3.0}, "b": {"y": 0.25}}, ["x", "y", "z"], title="", baseline="upb")
    root = ET.fromstring(svg)
    xs = sorted(float(r.get("x")) for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None)  # type: ignore[arg-type]
    assert len(xs) == 3 and all(b - a >= BAR for a, b in zip(xs, xs[1:], strict=False))
    assert bar_chart({}, [], title="empty", baseline="upb").startswith("<svg")
