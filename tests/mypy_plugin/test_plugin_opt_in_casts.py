"""LML004 is opt-in in mypy with the plugin as in ``loomlint check`` (issue 27): a cast of
content to one branch is reported as ``loom-content-cast`` only where ``[tool.loomlint]``
selects the rule by its full code."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy_runs import FIXTURES, run_mypy, write_project

CAST_ONLY = FIXTURES / "plugin_cast_only.py"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("loomlint", "expected"),
    [
        ("", set()),
        ('select = ["LML"]\n', set()),
        ('extend-select = ["LML004"]\n', {("plugin_cast_only.py", 9, "loom-content-cast")}),
    ],
    ids=["default", "prefix", "selected"],
)
def test_casts_are_reported_only_when_selected(
    tmp_path: Path, mypy_cache: Path, loomlint: str, expected: set[tuple[str, int, str]]
) -> None:
    config = write_project(tmp_path, loomlint=loomlint)
    run = run_mypy(
        ["--config-file", str(config), "--cache-dir", str(mypy_cache), str(CAST_ONLY)],
        cwd=tmp_path,
    )
    assert run.keys(loomlint_only=True) == expected, run.stdout + run.stderr
