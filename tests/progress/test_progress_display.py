"""The progress line: shown on terminals only, throttled, erased at the end."""

from __future__ import annotations

import io

import pytest

from loomlint.run.progress import ProgressDisplay, is_terminal


class FakeStream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class BrokenIsatty:
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


def test_is_terminal() -> None:
    assert is_terminal(FakeStream(tty=True))
    assert not is_terminal(FakeStream(tty=False))
    assert not is_terminal(object())  # no isatty at all
    assert not is_terminal(BrokenIsatty())
    real_closed = io.StringIO()
    real_closed.close()
    assert not is_terminal(real_closed)


@pytest.mark.parametrize(
    ("tty", "quiet", "enabled"), [(True, False, True), (True, True, False), (False, False, False)]
)
def test_enabled_only_on_a_terminal_and_not_quiet(tty: bool, quiet: bool, enabled: bool) -> None:
    stream = FakeStream(tty)
    with ProgressDisplay.for_stream(stream, quiet=quiet) as progress:
        assert progress.enabled is enabled
        progress.start(3)
        progress(1, 3)
        progress(3, 3)
    assert (stream.getvalue() != "") is enabled


def test_the_line_is_rewritten_in_place_and_erased() -> None:
    stream = FakeStream(tty=True)
    clock = Clock()
    progress = ProgressDisplay(stream, enabled=True, interval=0.1, clock=clock)
    progress.start(120)
    clock.now += 0.05
    progress(1, 120)  # too soon: skipped
    clock.now += 0.1
    progress(9, 120)
    clock.now += 0.01
    progress(120, 120)  # the last file is always drawn
    progress.close()
    progress.close()  # erasing twice writes nothing more
    assert stream.getvalue() == (
        "\rChecking 0/120 files..."
        "\rChecking 9/120 files..."
        "\rChecking 120/120 files..."
        "\r" + " " * len("Checking 120/120 files...") + "\r"
    )


def test_a_shorter_line_covers_the_longer_one() -> None:
    stream = FakeStream(tty=True)
    progress = ProgressDisplay(stream, enabled=True, interval=0)
    progress(10, 10)
    progress(1, 1)
    assert stream.getvalue() == "\rChecking 10/10 files...\rChecking 1/1 file...   "


def test_nothing_for_no_files_or_odd_counts() -> None:
    stream = FakeStream(tty=True)
    with ProgressDisplay(stream, enabled=True, interval=0) as progress:
        progress.start(0)
        progress(3, 0)
        progress(-1, -1)
    assert stream.getvalue() == ""
    with ProgressDisplay(stream, enabled=True, interval=0) as progress:
        progress(7, 5)  # more than announced: capped
    assert stream.getvalue() == "\rChecking 5/5 files...\r" + " " * 21 + "\r"


class GoneStream(FakeStream):
    def write(self, text: str) -> int:
        raise OSError(5, "Input/output error")


def test_a_stream_that_fails_disables_the_display() -> None:
    progress = ProgressDisplay(GoneStream(tty=True), enabled=True, interval=0)
    progress(1, 2)  # does not raise
    assert progress.enabled is False
    progress(2, 2)
    progress.close()
