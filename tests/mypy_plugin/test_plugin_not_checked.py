"""A file the engine cannot analyse is an error in mypy too (``loom-not-checked``), with
``loomlint check``'s message: a gate on mypy with the plugin never passes a file nobody
checked. Here LibCST cannot parse what CPython (and mypy) can: 3001 strings in a row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from mypy_runs import run_project, write_project

from loomlint.cli import main

SOURCE = (
    "from loomlint.content import LlmMessage\n\n\n"
    "def f(m: LlmMessage) -> str:\n"
    '    return f"{m.content}"\n\n\n'
    "x = " + " ".join(['"a"'] * 3001) + "\n"
)


@pytest.mark.slow
def test_a_file_the_engine_cannot_analyse_is_a_mypy_error(
    tmp_path: Path, mypy_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_project(tmp_path, files={"app.py": SOURCE})
    run = run_project(config, mypy_cache, "app.py", cwd=tmp_path)
    assert [(e.path.name, e.line, e.column, e.code) for e in run.errors] == [
        ("app.py", 8, 1, "loom-not-checked")
    ]
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", "app.py"])
    assert result.exit_code == 2, result.output
    (reported,) = json.loads(result.stdout)
    assert (reported["code"], reported["line"], reported["column"]) == ("LML903", 8, 1)
    assert run.errors[0].message == reported["message"]
    assert "compiles the file but LibCST's parser cannot parse it" in reported["message"]
