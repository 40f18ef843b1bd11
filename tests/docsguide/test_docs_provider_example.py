"""The provider example of docs/provider-checklist.md is real: it passes the conformance kit."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from loomlint.cli import main
from loomlint.content.conformance import run_conformance

DOC = Path(__file__).resolve().parents[2] / "docs" / "provider-checklist.md"


def python_blocks(markdown: str) -> list[str]:
    """The ```python blocks, dedented (a block inside a list item is indented)."""
    return [
        textwrap.dedent(block)
        for block in re.findall(r"^ *```python\n(.*?)^ *```", markdown, flags=re.M | re.S)
    ]


def test_the_example_provider_passes_every_case() -> None:
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    example = next(block for block in blocks if "class MyProvider" in block)
    namespace: dict[str, Any] = {}
    exec(compile(example, str(DOC), "exec"), namespace)
    results = run_conformance(namespace["MyProvider"], raise_on_failure=True)
    assert [(result.case_id, result.passed) for result in results] == [
        ("text-parts-as-text[complete]", True),
        ("undeclared-image-refused[complete]", True),
        ("declared-image-on-wire[complete]", True),
        ("text-parts-as-text[stream]", True),
        ("undeclared-image-refused[stream]", True),
        ("declared-image-on-wire[stream]", True),
    ]


def test_the_pytest_snippet_names_real_things() -> None:
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    snippet = next(block for block in blocks if "def test_conformance" in block)
    snippet = snippet.replace("from myprovider import MyProvider\n", "MyProvider = object\n")
    namespace: dict[str, Any] = {}
    exec(compile(snippet, str(DOC), "exec"), namespace)
    assert callable(namespace["factory"]) and callable(namespace["test_conformance"])


@pytest.mark.parametrize("types", [[], ["--no-types"]], ids=["mypy", "no-types"])
def test_the_example_provider_has_no_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, types: list[str]
) -> None:
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    (tmp_path / "provider.py").write_text(
        next(block for block in blocks if "class MyProvider" in block), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", *types, "--report-unused-suppressions"])
    assert (result.exit_code, result.stdout) == (0, "All checks passed.\n")
