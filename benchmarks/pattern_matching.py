"""Path patterns matched by RE2 (what loomlint uses, ``loomlint.project.globs``) against pathspec's
default of Python's ``re``, side by side in one run.

Two workloads, each timed as the best of ``--rounds`` for both backends, alternating:

- ordinary: the default ``exclude`` list and two project patterns, against 20000 paths of a
  made-up tree (what every discovery and every ``per-file-ignores`` question costs);
- bomb: ``*a*a...*b`` with 13 wildcards against a 30-character name (Python's ``re``
  backtracks: its time grows exponentially with the wildcards; 41 wildcards against a
  200-character path ran for minutes in issue 21).

    python benchmarks/pattern_matching.py [--rounds 3]

It prints microseconds per path and the ratio ``re`` / RE2 for each workload.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from pathspec import GitIgnoreSpec

from loomlint.project.config import DEFAULT_EXCLUDE

BACKENDS = ("simple", "re2")  # pathspec's names: "simple" is Python's re


def _seconds(patterns: Sequence[str], paths: Sequence[str], backend: str) -> float:
    spec = GitIgnoreSpec.from_lines(patterns, backend=backend)
    started = time.perf_counter()
    for path in paths:
        spec.match_file(path)
    return time.perf_counter() - started


def _compare(name: str, patterns: Sequence[str], paths: Sequence[str], rounds: int) -> None:
    best = {backend: float("inf") for backend in BACKENDS}
    for number in range(rounds):
        order = BACKENDS if number % 2 == 0 else tuple(reversed(BACKENDS))
        for backend in order:
            best[backend] = min(best[backend], _seconds(patterns, paths, backend))
    per_path = {backend: best[backend] * 1e6 / len(paths) for backend in BACKENDS}
    print(
        f"{name}: re {per_path['simple']:.2f} us/path, RE2 {per_path['re2']:.2f} us/path, "
        f"re / RE2 = {best['simple'] / best['re2']:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    ordinary = [*DEFAULT_EXCLUDE, "tests/**/fixtures/*.py", "*_pb2.py"]
    paths = [f"src/pkg{i % 50}/sub{i % 7}/module_{i}.py" for i in range(20000)]
    _compare("ordinary (26 patterns, 20000 paths)", ordinary, paths, rounds)
    _compare("bomb (13 wildcards, a 30-character name)", ["*a" * 12 + "*b"], ["a" * 30], rounds)


if __name__ == "__main__":
    main()
