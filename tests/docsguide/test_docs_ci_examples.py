"""The copy-paste material of docs/ci.md works: the workflow files are valid YAML (their
commands are run by test_docs_commands), and the baseline example has the real shape."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import yaml

DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def blocks(language: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    pattern = rf"^ *```{language}\n(.*?)^ *```"
    return [textwrap.dedent(b) for b in re.findall(pattern, text, flags=re.M | re.S)]


def test_yaml_examples_parse() -> None:
    examples = blocks("yaml")
    assert len(examples) >= 4
    for example in examples:
        assert yaml.safe_load(example) is not None


def test_baseline_example_has_the_documented_shape() -> None:
    example = json.loads(next(b for b in blocks("json") if '"version": 1' in b))
    assert list(example) == ["version", "tool", "findings"]
    assert list(example["findings"][0]) == ["path", "code", "fingerprint", "count"]
