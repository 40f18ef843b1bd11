"""`--shard K/N` takes its presets from all the files of the run, never from its own part:
every finding's message and fix offer are the full run's (issue 21 item 10)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import langchain_sample
import pytest
from click.testing import CliRunner

from loomlint.cli import main

Project = Callable[..., Path]

LOOM = "from loomlint.content import LlmMessage\n\n\ndef shout(m: LlmMessage) -> str:\n"
UNTYPED = "def shout(m) -> str:\n"


def check(*args: str) -> tuple[int, list[dict[str, object]], str]:
    # The plain files' `m` is no message by any preset's data: their findings are guesses
    # (``Guess.NO_TYPES``), asked for, so that their advice is compared too.
    result = CliRunner().invoke(
        main,
        ["check", "--no-types", "--report-guesses", "--no-cache", "--format", "json", *args],
    )
    return result.exit_code, json.loads(result.stdout), result.stderr


@pytest.mark.parametrize("count", [2, 3, 5])
def test_every_shard_reports_as_the_full_run_does(project: Project, count: int) -> None:
    # One LangChain file among files that import nothing of a preset, or loomlint's SPI.
    project(
        "pyproject.toml=[tool.loomlint]\n",
        f"pkg/chat.py={langchain_sample.APP}",
        *(f"pkg/loom{n}.py={LOOM}    return str(m.content)\n" for n in range(3)),
        *(f"pkg/plain{n}.py={UNTYPED}    return str(m.content)\n" for n in range(6)),
    )
    note = (
        "note: no preset configured; using loom, langchain (from the imports of the checked "
        "files)\n"
    )
    code, full, stderr = check()
    assert (code, len(full)) == (1, 11)
    assert stderr == (
        note
        + "note: checking without types (--no-types): precision is reduced\n"
        + "warning: 6 findings in 6 files are in code checked without types, judged by syntax "
        "alone, and no preset knows those reads nor does a declared type say they are content: "
        "they are reported as guesses. Check with types (without --no-types, where mypy can "
        "check the files) to have them judged by types\n"
    )
    shards: list[dict[str, object]] = []
    for index in range(1, count + 1):
        _, found, stderr = check("--shard", f"{index}/{count}")
        shards += found
        assert note in stderr
    key = lambda d: (d["path"], d["line"], d["column"])  # noqa: E731
    assert sorted(shards, key=key) == sorted(full, key=key)
