"""A file-level ``# loomlint: noqa`` (all codes, or the codes it names) silences the plugin's
findings in that file, as it does ``loomlint check``'s: real mypy with the plugin, exact output."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy_runs import run_mypy, write_project

BODY = """\
from loomlint.content import LlmMessage


def f(m: LlmMessage) -> int:
    label = str(m.content)
    size: int = label
    return size + len(m.content)
"""


def _mypy_output(root: Path, cache: Path, source: str) -> str:
    config = write_project(root, files={"app.py": source})
    run = run_mypy(["--config-file", str(config), "--cache-dir", str(cache), "app.py"], cwd=root)
    assert run.stderr == ""
    # mypy is run with --show-absolute-path.
    return run.stdout.replace(f"{root}/", "")


# mypy's error lines for BODY's lines 5-7, for a file that puts `shift` lines above BODY.
def _coercion(shift: int) -> str:
    return (
        f"app.py:{5 + shift}: error: content of `m` is coerced to str by str(); "
        "use text_of(...)  [loom-content-coercion]\n"
    )


def _assignment(shift: int) -> str:
    return (
        f'app.py:{6 + shift}: error: Incompatible types in assignment (expression has type "str", '
        'variable has type "int")  [assignment]\n'
    )


def _use(shift: int) -> str:
    return (
        f"app.py:{7 + shift}: error: content of `m` is used as one branch by len(), but it may "
        "be a list of parts; narrow it with isinstance() first, or use text_of(...)  "
        "[loom-content-use]\n"
    )


@pytest.mark.slow
def test_without_a_file_noqa_every_finding_is_reported(tmp_path: Path, mypy_cache: Path) -> None:
    assert _mypy_output(tmp_path, mypy_cache, BODY) == _coercion(0) + _assignment(0) + _use(0)


@pytest.mark.slow
def test_a_whole_file_noqa_leaves_only_mypys_own_errors(tmp_path: Path, mypy_cache: Path) -> None:
    assert _mypy_output(tmp_path, mypy_cache, "# loomlint: noqa\n" + BODY) == _assignment(1)


@pytest.mark.slow
def test_a_file_noqa_naming_a_code_leaves_the_other_codes(tmp_path: Path, mypy_cache: Path) -> None:
    source = "# loomlint: noqa: LML003\n" + BODY
    assert _mypy_output(tmp_path, mypy_cache, source) == _assignment(1) + _use(1)
