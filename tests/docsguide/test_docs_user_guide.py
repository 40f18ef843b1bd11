"""docs/index.md tells the truth: its safe examples pass, its output sample is what loomlint
prints, and its suppression example suppresses exactly what it says."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "index.md"


def blocks(language: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    pattern = rf"^ *```{language}\n(.*?)^ *```"
    return [textwrap.dedent(b) for b in re.findall(pattern, text, flags=re.M | re.S)]


def check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.stdout


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("types", [[], ["--no-types"]], ids=["mypy", "no-types"])
def test_the_safe_ways_are_not_flagged(folder: Path, types: list[str]) -> None:
    safe = [b for b in blocks("python") if "text_of(m.content)" in b or "isinstance" in b]
    safe += [b for b in blocks("python") if "dataclasses.replace" in b]
    assert len(safe) == 3
    for index, block in enumerate(safe):
        (folder / f"safe_{index}.py").write_text(block, encoding="utf-8")
    assert check(*types, "--report-unused-suppressions") == (0, "All checks passed.\n")


def test_the_output_sample_is_real(folder: Path) -> None:
    source = next(b for b in blocks("python") if "def summary(result: ToolResultPart)" in b)
    sample = next(b for b in blocks("text") if b.startswith("$ loomlint check app.py\n"))
    (folder / "app.py").write_text(source, encoding="utf-8")
    expected = sample.removeprefix("$ loomlint check app.py\n")
    assert check("app.py") == (1, expected)


def test_the_suppression_example(folder: Path) -> None:
    example = next(b for b in blocks("python") if "def debug_dump" in b)
    (folder / "suppressed.py").write_text(example, encoding="utf-8")
    assert check("--report-unused-suppressions", "suppressed.py") == (0, "All checks passed.\n")
    # The same code without its comments (lines kept, so the numbers stay).
    bare = re.sub(r" *# (loomlint|noqa).*", "", example)
    (folder / "suppressed.py").write_text(bare, encoding="utf-8")
    exit_code, stdout = check("suppressed.py", "-q")
    assert exit_code == 1
    assert [line.split(" ")[:2] for line in stdout.splitlines()] == [
        ["suppressed.py:5:16:", "LML003"],
        ["suppressed.py:9:9:", "LML001"],
        ["suppressed.py:11:15:", "LML001"],
    ]
