"""An element of content only tested, in a function mypy does not check (issue 27): compared
with a call of a class no string is an instance of, or taken into a name that is tested next,
it is no use of one branch there either. mypy types nothing in such a function, but it still
resolves the class a call names: a class of the project's other modules, which no syntax of the
checked file can see, counts by it. A finding in a function mypy does not check is a guess,
reported only with ``report-guesses = true`` (set here); ``loomlint check`` (with and without
types) and mypy with the plugin then report exactly the same finding: the comparison with a
``str`` subclass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from mypy_runs import PLUGIN_STRICT, run_project, write_project

from loomlint.cli import main

RECORDS = """\
from dataclasses import dataclass


@dataclass
class Citation:
    url: str


class Tag(str):
    pass
"""
APP = """\
from records import Citation, Tag


def compared(results):
    message = results[0]
    assert message.role == "assistant"
    assert message.content[0] == Citation(url="u")
    assert message.content[1] == Tag("a")
    part = message.content[2]
    assert isinstance(part, Citation)
    return len(message.content)
"""
# Strict, but for `app`, whose function mypy then leaves unchecked.
MYPY = (
    PLUGIN_STRICT
    + '\n[[tool.mypy.overrides]]\nmodule = "app"\n'
    + "disallow_untyped_defs = false\ncheck_untyped_defs = false\n"
)
EXPECTED = [(8, 12, "LML001")]


@pytest.mark.slow
def test_an_unchecked_function_judges_element_tests_as_a_checked_one(
    tmp_path: Path, mypy_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_project(
        tmp_path,
        mypy=MYPY,
        loomlint="report-guesses = true",
        files={"records.py": RECORDS, "app.py": APP},
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MYPY_CACHE_DIR", str(mypy_cache))
    for mode in ([], ["--no-types"]):
        result = CliRunner().invoke(main, ["check", "--format", "json", *mode, "app.py"])
        assert result.exit_code == 1, result.output + result.stderr
        found = [(d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)]
        assert found == EXPECTED, mode
    run = run_project(config, mypy_cache, "app.py", cwd=tmp_path)
    reported = [(e.line, e.column, e.code) for e in run.errors]
    assert reported == [(8, 12, "loom-content-use")], run.stdout + run.stderr
