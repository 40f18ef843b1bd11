"""Suppression comments cross over: one comment silences a finding for ``loomlint check`` and
for the mypy plugin alike, and a comment one of them uses is never called unused by the other
(``--report-unused-suppressions`` / LML100, mypy's ``warn_unused_ignores``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from mypy_runs import run_mypy, write_project

from loomlint.cli import main

SOURCE = """\
import logging

from loomlint.content import LlmMessage


def f(m: LlmMessage) -> str:
    a = str(m.content)  # loomlint: ignore[LML003]
    # loomlint: ignore[LML003]
    logging.info(
        "%s",
        m.content,
    )
    n = len(m.content)  # noqa: E501, LML001
    b = str(m.content)  # type: ignore[loom-content-coercion]
    c = "%s" % m.content  # type: ignore[loom-content-coercion]
    d = str(m.content)  # type: ignore[loom-content-use]
    e = str(m.content)  # type: ignore
    return a + b + c + d + e + str(n)
"""
MYPY = 'plugins = ["loomlint.mypy_plugin"]\nstrict = true\nwarn_unused_ignores = true\n'


def _column(line: int, text: str) -> int:
    return SOURCE.splitlines()[line - 1].index(text) + 1


@pytest.mark.slow
def test_the_plugin_honours_loomlints_comments_and_leaves_its_ignores_to_loomlint(
    tmp_path: Path, mypy_cache: Path
) -> None:
    config = write_project(tmp_path, mypy=MYPY, files={"app.py": SOURCE})
    run = run_mypy(
        ["--config-file", str(config), "--cache-dir", str(mypy_cache), "app.py"], cwd=tmp_path
    )
    # Line 16 names the wrong code; line 17's bare ignore is mypy's to honour. Lines 14-15's
    # ignores are not "unused": line 15's finding is one only loomlint check sees.
    assert run.keys() == {("app.py", 16, "loom-content-coercion")}, run.stdout


@pytest.mark.slow
def test_loomlint_check_honours_the_plugins_type_ignore(tmp_path: Path) -> None:
    write_project(tmp_path, mypy=MYPY, files={"app.py": SOURCE})
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(
            main, ["check", "--format", "json", "--report-unused-suppressions", "app.py"]
        )
    finally:
        os.chdir(previous)
    assert result.exit_code == 1, result.output + result.stderr
    reported = [
        (d["line"], d["column"], d["code"], d["message"]) for d in json.loads(result.stdout)
    ]
    assert [(line, column, code) for line, column, code, _ in reported] == [
        (16, _column(16, "m.content"), "LML003"),
        (16, _column(16, "loom-content-use"), "LML100"),
        (17, _column(17, "m.content"), "LML003"),
    ]
    assert reported[1][3] == "unused suppression: no loom-content-use finding on this line"
