"""Pattern bombs in configuration and .gitignore files (a pull request can edit either): a
pattern of many wildcards against a long path matches in time linear in the path (RE2, never
Python's backtracking ``re``), a pattern beyond the size that keeps that time small is refused
with an error naming its key, and SIGTERM is answered at once, as ever.

Each run is a real `loomlint` process with a deadline: on a backtracking matcher these runs
take minutes (and ignore SIGTERM: the regex holds the interpreter lock)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

LOOMLINT = shutil.which("loomlint", path=str(Path(sys.executable).parent))
# 32 wildcards: the most a pattern may have. Python's re takes minutes on a 200-character path.
BOMB = "*a" * 31 + "*b"
# 41 wildcards: refused.
TOO_BIG = "*a" * 40 + "*b"
LONG_NAME = "a" * 200 + ".py"
BAD_USE = (
    "from loomlint.content import LlmMessage\n\n\n"
    "def f(m: LlmMessage) -> str:\n    return str(m.content)\n"
)
# Seconds a run may take: a few on a loaded machine; a backtracking matcher takes minutes.
DEADLINE = 60


def run(root: Path, *args: str) -> tuple[int, str, str, float]:
    assert LOOMLINT is not None
    started = time.monotonic()
    done = subprocess.run(
        [LOOMLINT, "check", "--no-types", "--no-cache", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - started


def project(tmp_path: Path, config: str, files: int = 20) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.loomlint]\n" + config)
    for number in range(files):
        (tmp_path / f"{number}{LONG_NAME}").write_text(BAD_USE)
    return tmp_path


def found(stdout: str) -> list[tuple[str, str]]:
    return sorted((d["path"], d["code"]) for d in json.loads(stdout))


@pytest.mark.parametrize("key", ["exclude", "extend-exclude"])
def test_an_exclude_bomb_matches_in_linear_time(tmp_path: Path, key: str) -> None:
    root = project(tmp_path, f'{key} = ["{BOMB}"]\n')
    code, stdout, stderr, _ = run(root, "--format", "json", ".")
    # Every name is all a's: the pattern (which wants a b after them) excludes none.
    assert (code, len(found(stdout)), stderr) == (
        1,
        20,
        "note: checking without types (--no-types): precision is reduced\n",
    )


def test_a_per_file_ignores_bomb_matches_in_linear_time(tmp_path: Path) -> None:
    root = project(
        tmp_path, f'[tool.loomlint.per-file-ignores]\n"{BOMB}" = ["LML003"]\n"*a" = ["LML001"]\n'
    )
    code, stdout, _, _ = run(root, "--format", "json", ".")
    assert (code, len(found(stdout))) == (1, 20)


def test_a_gitignore_bomb_matches_in_linear_time_and_a_bigger_one_is_not_applied(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, "")
    (root / ".gitignore").write_text(f"{BOMB}\n{TOO_BIG}\n1*.py\n")
    code, stdout, stderr, _ = run(root, "--format", "json", ".")
    assert (code, found(stdout)) == (1, [(f"{n}{LONG_NAME}", "LML003") for n in (0, *range(2, 10))])
    assert stderr == (
        f"warning: a .gitignore pattern '{TOO_BIG[:57]}...' is not applied: it has 41 "
        "wildcards (at most 32), which could make matching every "
        "path slow\n"
        "note: checking without types (--no-types): precision is reduced\n"
    )


@pytest.mark.parametrize(
    ("config", "error"),
    [
        (
            f'exclude = ["{TOO_BIG}"]\n',
            "pyproject.toml: [tool.loomlint] key 'exclude': pattern "
            f"'{TOO_BIG[:57]}...' refused: it has 41 wildcards (at most 32), which could make "
            "matching every path slow",
        ),
        (
            f'extend-exclude = ["build", "{"x" * 1025}"]\n',
            "pyproject.toml: [tool.loomlint] key 'extend-exclude': pattern "
            f"'{'x' * 57}...' refused: it is longer than 1024 characters",
        ),
        (
            f'[tool.loomlint.per-file-ignores]\n"{TOO_BIG}" = ["LML003"]\n',
            f"pyproject.toml: [tool.loomlint.per-file-ignores] key '{TOO_BIG}': pattern "
            "refused: it has 41 wildcards (at most 32), which could make matching every path "
            "slow",
        ),
    ],
    ids=["exclude", "extend-exclude", "per-file-ignores"],
)
def test_a_pattern_too_big_to_match_cheaply_is_refused_naming_its_key(
    tmp_path: Path, config: str, error: str
) -> None:
    root = project(tmp_path, config, files=1)
    assert run(root, ".")[:3] == (2, "", f"error: {error}\n")


def catches_sigterm(pid: int) -> None:
    """Wait until the process has installed its SIGTERM handler (the kernel's SigCgt mask),
    so that the signal is loomlint's to answer, not the interpreter's start-up's."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status").read_text()
        caught = int(status.split("SigCgt:")[1].split()[0], 16)
        if caught & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.02)
    raise AssertionError("loomlint never installed its SIGTERM handler")


def test_sigterm_is_answered_during_the_matching(tmp_path: Path) -> None:
    """A CI runner's cancel: SIGTERM to loomlint alone ends it with 143 at once, or it has
    already finished (RE2 is quick): never a run that goes on."""
    assert LOOMLINT is not None
    root = project(
        tmp_path,
        f'exclude = ["{BOMB}"]\n[tool.loomlint.per-file-ignores]\n"{BOMB}" = ["LML003"]\n',
        files=200,
    )
    process = subprocess.Popen(
        [LOOMLINT, "check", "--no-types", "--no-cache", "-q", "."],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    catches_sigterm(process.pid)
    sent = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        _, stderr = process.communicate(timeout=20)
    finally:
        process.kill()
    assert time.monotonic() - sent < 20
    if process.returncode == 143:
        assert stderr == "loomlint: interrupted by SIGTERM; the run stopped and wrote no report\n"
    else:
        assert (process.returncode, stderr) == (1, "")
