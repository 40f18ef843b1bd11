"""What one file may cost the analysis: past it, the file is LML903 and the run goes on.

- *Memory*: a file larger than ``FILE_BYTES`` is not parsed. LibCST's syntax tree takes tens
  of times the source's size, and every file of a run is held by some worker at once.
- *Time*: ``FILE_SECONDS`` of analysis, checked as the flow analysis steps through the file.
  LibCST's own passes cannot be interrupted, but they are linear once ``compilecheck`` has
  refused the nesting its parser is superlinear on.
"""

from __future__ import annotations

import time

FILE_BYTES = 10 * 1024 * 1024
FILE_SECONDS = 60.0

# The clock is read once every this many steps: reading it costs more than a step.
_STEPS_PER_LOOK = 1024


class OverBudget(Exception):
    """The file's analysis went over its time budget."""


class Deadline:
    """The time one file's analysis may take, checked cheaply at every step."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = FILE_SECONDS if seconds is None else seconds
        self._end = time.monotonic() + self.seconds
        self._steps = 0

    def restart(self) -> None:
        """Count the budget from now: a file prepared in advance (its flow followed while mypy
        still checks, in the mypy plugin's worker) is judged later, and judging follows the
        flow further."""
        self._end = time.monotonic() + self.seconds

    def step(self) -> None:
        self._steps += 1
        if self._steps % _STEPS_PER_LOOK == 0 and time.monotonic() > self._end:
            raise OverBudget
