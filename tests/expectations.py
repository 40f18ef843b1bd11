"""Expected findings written into fixture files as comments.

``# expect: LML003:17 LML001:5`` on a line means those codes at those (1-based) columns on that
line, with and without types. ``# expect[types]:`` and ``# expect[no-types]:`` hold what only
one mode reports: the no-types mode's known misses are the ``expect[types]`` entries.
``# expect[guess]:`` holds a guess (``engine.guesses``): reported without types, and with types
only when guesses are asked for (``--report-guesses``).
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

Finding = tuple[str, int, int, str]  # path, line, column, code

_EXPECT = re.compile(r"#\s*expect(?:\[(?P<mode>types|no-types|guess)\])?:(?P<items>[^#]*)")
_ITEM = re.compile(r"(LML\d{3}):(\d+)")


def expected_findings(
    paths: list[Path], root: Path, *, types: bool, guesses: bool = False
) -> list[Finding]:
    modes: set[str | None] = {None, "types" if types else "no-types"}
    if guesses or not types:
        modes.add("guess")
    found: list[Finding] = []
    for path in paths:
        relative = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for match in _EXPECT.finditer(line):
                if match.group("mode") not in modes:
                    continue
                for code, column in _ITEM.findall(match.group("items")):
                    found.append((relative, number, int(column), code))
    return sorted(found)
