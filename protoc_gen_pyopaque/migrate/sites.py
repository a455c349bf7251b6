"""What the migration found: one Site per use of the message API, graded by level.

Levels follow Go's open2opaque: green rewrites preserve behaviour, yellow ones
need a reviewer, red ones may change behaviour (aliasing, auto-creation,
evaluation order). Levels are cumulative: ``--level yellow`` applies green and
yellow rewrites. A site the tool cannot rewrite at any level (it cannot tell
the type, or no accessor expresses it) has no level and is always left.
"""

from __future__ import annotations

import enum
import json
from collections import Counter
from dataclasses import dataclass


class Level(enum.IntEnum):
    """How safe a rewrite is; a higher level includes the lower ones."""

    GREEN = 1
    YELLOW = 2
    RED = 3
    # no rewrite at any level: the code stays and the site is reported
    NONE = 4

    @property
    def label(self) -> str:
        """The lower-case name, as on the command line and in the stats."""
        return self.name.lower()


@dataclass(frozen=True)
class Site:
    """One use of the message API: where, what the rule decided, and why."""

    path: str
    line: int
    column: int
    level: Level
    reason: str  # a short stable code, counted in the summary ("get", "presence-read", ...)
    detail: str  # the human explanation, for reports and TODO comments
    code: str  # the expression or statement as written
    applied: bool  # rewritten at the chosen level

    def report_line(self) -> str:
        """``file:line: reason`` for a site left as it was."""
        return f"{self.path}:{self.line}: {self.reason}: {self.detail}"

    def stats_line(self) -> str:
        """One JSON object per site, for ``--stats FILE``."""
        return json.dumps({
            "file": self.path, "line": self.line, "column": self.column, "level": self.level.label,
            "reason": self.reason, "status": "rewritten" if self.applied else "left",
            "detail": self.detail, "code": self.code,
        }, ensure_ascii=False)


def summary(sites: list[Site], level: Level) -> str:
    """Rewrites counted per level and reason, then what is left and why."""
    done = Counter((s.level, s.reason) for s in sites if s.applied)
    left = Counter((s.level, s.reason) for s in sites if not s.applied)
    lines = [f"pyopaque migrate: {sum(done.values())} rewritten, {sum(left.values())} left "
             f"(level {level.label})"]
    for title, counts in (("rewritten", done), ("left", left)):
        for (lvl, reason), n in sorted(counts.items()):
            lines.append(f"  {title:9} {lvl.label:6} {reason:28} {n}")
    return "\n".join(lines)
