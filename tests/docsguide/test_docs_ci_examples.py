"""The copy-paste material of docs/ci.md works: the GitLab Code Quality converter turns a real
SARIF report into GitLab's format, and the workflow files are valid YAML."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import yaml

from loomlint.diagnostics import Diagnostic
from loomlint.output.sarif import render_sarif

DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def blocks(language: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    pattern = rf"^ *```{language}\n(.*?)^ *```"
    return [textwrap.dedent(b) for b in re.findall(pattern, text, flags=re.M | re.S)]


def test_gitlab_code_quality_converter(tmp_path: Path) -> None:
    script = next(b for b in blocks("python") if "GitLab Code Quality" in b)
    (tmp_path / "convert.py").write_text(script, encoding="utf-8")
    (tmp_path / "src dir").mkdir()
    (tmp_path / "src dir" / "app.py").write_text("x\nprint(m.content)\n", encoding="utf-8")
    diagnostics = [
        Diagnostic("src dir/app.py", 2, 7, 2, 16, "LML003", "content-coercion", "coerced"),
        Diagnostic("src dir/app.py", 1, 1, 1, 2, "LML904", "types-unavailable", "no types"),
    ]
    sarif = render_sarif(diagnostics, source_root=tmp_path, cwd=tmp_path)
    (tmp_path / "loomlint.sarif").write_text(sarif, encoding="utf-8")
    subprocess.run(
        [sys.executable, "convert.py", "loomlint.sarif", "gl-code-quality.json"],
        cwd=tmp_path,
        check=True,
    )
    fingerprints = [
        r["partialFingerprints"]["loomlint/v1"] for r in json.loads(sarif)["runs"][0]["results"]
    ]
    report = json.loads((tmp_path / "gl-code-quality.json").read_text(encoding="utf-8"))
    assert report == [
        {
            "type": "issue",
            "check_name": "LML904",
            "description": "LML904 no types",
            "categories": ["Bug Risk"],
            "severity": "minor",
            "fingerprint": fingerprints[0],
            "location": {"path": "src dir/app.py", "lines": {"begin": 1}},
        },
        {
            "type": "issue",
            "check_name": "LML003",
            "description": "LML003 coerced",
            "categories": ["Bug Risk"],
            "severity": "major",
            "fingerprint": fingerprints[1],
            "location": {"path": "src dir/app.py", "lines": {"begin": 2}},
        },
    ]


def test_yaml_examples_parse() -> None:
    examples = blocks("yaml")
    assert len(examples) >= 4
    for example in examples:
        assert yaml.safe_load(example) is not None


def test_baseline_example_has_the_documented_shape() -> None:
    example = json.loads(next(b for b in blocks("json") if '"version": 1' in b))
    assert list(example) == ["version", "tool", "findings"]
    assert list(example["findings"][0]) == ["path", "code", "fingerprint", "count"]
