"""Findings the engine words alike on one line: each after the first says where it is, so
mypy, which keeps one error per message and line, reports them all (fixture
one_message_twice.py; test_plugin_cli_agreement checks that the plugin does)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from expectations import REPO

from loomlint.cli import main

COERCED = "content of `m` is coerced to str by print(); use text_of(...)"
SLICED = (
    "content of `m` (read at line 18, held in `lines`) is sliced, but it may be a list of "
    "parts; narrow it with isinstance() first, or use text_of(...)"
)


def test_a_repeated_message_on_a_line_says_its_column(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = CliRunner().invoke(
        main,
        ["check", "--format", "json", "--no-types", "fixtures/analysis/one_message_twice.py"],
    )
    assert result.exit_code == 1, result.output + result.stderr
    messages = [(d["line"], d["column"], d["message"]) for d in json.loads(result.stdout)]
    assert [m for m in messages if m[0] in (19, 24)] == [
        (19, 18, SLICED),
        (19, 31, f"{SLICED} (again on this line, at column 31)"),
        (24, 11, COERCED),
        (24, 22, f"{COERCED} (again on this line, at column 22)"),
        (24, 33, f"{COERCED} (again on this line, at column 33)"),
    ]
    # Findings worded apart keep their messages.
    assert [m[2] for m in messages if m[0] == 28] == [
        "content of `m` is coerced to str by str(); use text_of(...)",
        "content of `other` is coerced to str by str(); use text_of(...)",
    ]
