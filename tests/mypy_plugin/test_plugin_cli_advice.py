"""Messages and advice are the same in ``loomlint check`` and the mypy plugin, and, with several
presets active, the advice is the receiver's own SPI's: ``use .text`` for a LangChain message,
``use text_of(...)`` for an ``LlmMessage`` (which has no ``.text``), whichever preset is first."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from mypy_runs import run_mypy, write_project

from loomlint.cli import main

SOURCE = """\
from langchain_core.messages import BaseMessage

from loomlint.content import Content, LlmMessage


def show(m: LlmMessage, lc: BaseMessage, c: Content) -> int:
    print(m.content)
    print(lc.content)
    print(c)
    return len(m.content)
"""
# LangChain first: the first preset's fix (".text") is the wrong advice for loom's values.
PRESETS = 'preset = ["langchain", "loom"]\n'
EXPECTED = {
    (7, "LML003"): "is coerced to str by print(); use text_of(...)",
    (8, "LML003"): "is coerced to str by print(); use .text",
    (9, "LML003"): "is coerced to str by print(); use text_of(...)",
    (10, "LML001"): "is used as one branch by len(), but it may be a list of parts; "
    "narrow it with isinstance() first, or use text_of(...)",
}
RULE = {"loom-content-coercion": "LML003", "loom-content-use": "LML001"}


@pytest.mark.slow
def test_both_front_ends_give_each_receivers_own_advice(
    tmp_path: Path, sdk_mypy_cache: Path, check_sdk_mypy_cache: Path
) -> None:
    config = write_project(tmp_path, loomlint=PRESETS, files={"app.py": SOURCE})
    run = run_mypy(
        ["--config-file", str(config), "--cache-dir", str(sdk_mypy_cache), "app.py"], cwd=tmp_path
    )
    plugin = {(e.line, RULE[e.code]): e.message for e in run.errors if e.code in RULE}

    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache", "app.py"])
    finally:
        os.chdir(previous)
    assert result.exit_code == 1, result.output + result.stderr
    cli = {(d["line"], d["code"]): d["message"] for d in json.loads(result.stdout)}

    assert set(plugin) == set(cli) == set(EXPECTED), (run.stdout, result.stdout)
    for key, predicate in EXPECTED.items():
        assert plugin[key].endswith(f" {predicate}"), plugin[key]
        assert cli[key].endswith(f" {predicate}"), cli[key]
