"""A progress line for long runs: ``Checking 120/4000 files...``, rewritten in place.

Shown only when the stream is a terminal (a person is watching) and not ``--quiet``; in CI,
in pre-commit and when redirected, nothing is written, so logs and captured output stay clean.
The line is redrawn at most every ``interval`` seconds (and always for the last file) and is
erased when the run ends, so what follows starts on a clean line.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Protocol


class Stream(Protocol):
    """What the display needs of a text stream (``sys.stderr``)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


def is_terminal(stream: object) -> bool:
    """Whether ``stream`` is an interactive terminal; ``False`` for anything odd or closed."""
    isatty = getattr(stream, "isatty", None)
    if not callable(isatty):
        return False
    try:
        return bool(isatty())
    except (OSError, ValueError):
        return False


class ProgressDisplay:
    """Counts finished files on one terminal line. Usable as ``progress(done, total)``.

    A disabled display does nothing at all. Safe to call from several threads.
    """

    # Seconds between redraws of a display made by `for_stream`.
    DEFAULT_INTERVAL = 0.1

    def __init__(
        self,
        stream: Stream,
        *,
        enabled: bool,
        interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.enabled = enabled
        self.interval = interval
        self.clock = clock
        self._lock = threading.Lock()
        self._shown = 0  # characters of the line now on screen
        self._last_draw: float | None = None

    @classmethod
    def for_stream(cls, stream: Stream, *, quiet: bool = False) -> ProgressDisplay:
        """Enabled only when ``stream`` is a terminal and the run is not quiet."""
        return cls(stream, enabled=not quiet and is_terminal(stream), interval=cls.DEFAULT_INTERVAL)

    def start(self, total: int) -> None:
        """Show ``0/total`` at once: the first files may take a while (the mypy build)."""
        self.update(0, total)

    def update(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        with self._lock:
            now = self.clock()
            last = self._last_draw
            if done < total and last is not None and now - last < self.interval:
                return
            self._last_draw = now
            noun = "file" if total == 1 else "files"
            self._draw(f"Checking {min(done, total)}/{total} {noun}...")

    __call__ = update

    def close(self) -> None:
        """Erase the line (if one is shown)."""
        if not self.enabled:
            return
        with self._lock:
            if self._shown:
                self._write("\r" + " " * self._shown + "\r")
                self._shown = 0

    def __enter__(self) -> ProgressDisplay:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _draw(self, text: str) -> None:
        # Pad over a longer previous line instead of using terminal escapes: works everywhere.
        padding = " " * max(0, self._shown - len(text))
        self._write("\r" + text + padding)
        self._shown = len(text)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False  # the terminal went away: stop drawing, never fail the run
