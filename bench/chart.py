"""An SVG bar chart of times relative to a baseline, written by hand (no plotting dependency).

One group of bars per (workload, operation), one bar per contender, on a log scale: a bar goes up
from the baseline's line when the contender is slower, down when it is faster.
"""

from __future__ import annotations

import math
from html import escape

COLORS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
          "#9c755f", "#bab0ac")
BAR, GAP, HEIGHT, LEFT, TOP, BOTTOM = 9, 14, 320, 60, 40, 110


def bar_chart(groups: dict[str, dict[str, float]], series: list[str], *, title: str, baseline: str) -> str:
    """The SVG text of ``groups`` (group label -> series label -> time relative to ``baseline``);
    ``series`` orders the bars and the legend. Missing or non-positive values draw no bar."""
    values = [v for row in groups.values() for v in row.values() if v > 0]
    low = 10.0 ** math.floor(math.log10(min(values, default=1.0) * 0.99))
    high = 10.0 ** math.ceil(math.log10(max(values, default=1.0) * 1.01))
    low, high = min(low, 0.1), max(high, 10.0)
    span = math.log10(high) - math.log10(low)

    def y(value: float) -> float:
        return TOP + HEIGHT * (math.log10(high) - math.log10(value)) / span

    group_width = BAR * len(series) + GAP
    width = LEFT + group_width * len(groups) + GAP
    legend_rows = math.ceil(len(series) / 4)
    total_height = TOP + HEIGHT + BOTTOM + 16 * legend_rows
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total_height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{total_height}" fill="white"/>',
           f'<text x="{LEFT}" y="20" font-size="14">{escape(title)}</text>']
    decade = low
    while decade <= high * 1.001:
        at = y(decade)
        out.append(f'<line x1="{LEFT}" x2="{width - GAP}" y1="{at:.1f}" y2="{at:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{at + 4:.1f}" text-anchor="end">{decade:g}×</text>')
        decade *= 10
    one = y(1.0)
    for g, (label, row) in enumerate(groups.items()):
        x0 = LEFT + GAP + g * group_width
        for s, name in enumerate(series):
            value = row.get(name, 0.0)
            if value <= 0:
                continue
            top, bottom = sorted((y(value), one))
            out.append(f'<rect x="{x0 + s * BAR}" y="{top:.1f}" width="{BAR - 1}" height="{max(bottom - top, 0.5):.1f}" '
                       f'fill="{COLORS[s % len(COLORS)]}"><title>{escape(name)}, {escape(label)}: '
                       f'{value:.2f}× {escape(baseline)}</title></rect>')
        cx = x0 + BAR * len(series) / 2
        out.append(f'<text x="{cx:.1f}" y="{TOP + HEIGHT + 12}" text-anchor="end" '
                   f'transform="rotate(-45 {cx:.1f} {TOP + HEIGHT + 12})">{escape(label)}</text>')
    out.append(f'<line x1="{LEFT}" x2="{width - GAP}" y1="{one:.1f}" y2="{one:.1f}" stroke="black"/>')
    out.append(f'<text x="{width - GAP}" y="{one - 4:.1f}" text-anchor="end">{escape(baseline)} = 1×</text>')
    for s, name in enumerate(series):
        lx = LEFT + (s % 4) * 200
        ly = TOP + HEIGHT + BOTTOM + 16 * (s // 4)
        out.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{COLORS[s % len(COLORS)]}"/>')
        out.append(f'<text x="{lx + 14}" y="{ly}">{escape(name)}</text>')
    out.append("</svg>\n")
    return "\n".join(out)
