"""The baseline with the real analysis: record, shift lines, add a finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

HEADER = "from loomlint.content import LlmMessage\n\n\ndef f(m: LlmMessage) -> str:\n"
BAD_RETURN = '    return f"{m.content}"\n'
NEW_BAD = "    print(str(m.content))\n"
NO_TYPES = "note: checking without types (--no-types): precision is reduced\n"


def check(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.loomlint]\n", encoding="utf-8")
    (tmp_path / "app.py").write_text(HEADER + BAD_RETURN, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("types", [True, False], ids=["mypy", "no-types"])
def test_record_shift_and_add(project: Path, types: bool) -> None:
    options = [] if types else ["--no-types"]
    note = "" if types else NO_TYPES
    assert check(*options) == (
        1,
        "app.py:5:15: LML003 [*] content of `m` is coerced to str by an f-string; "
        "use text_of(...)\n"
        "Found 1 finding (1 fixable with `loomlint fix`).\n",
        note,
    )
    assert check("--write-baseline", "loomlint-baseline.json", *options) == (
        0,
        "",
        f"{note}Wrote 1 finding in 1 file to the baseline 'loomlint-baseline.json'.\n",
    )
    recorded = json.loads((project / "loomlint-baseline.json").read_text(encoding="utf-8"))
    assert [(e["path"], e["code"], e["count"]) for e in recorded["findings"]] == [
        ("app.py", "LML003", 1)
    ]

    # Lines inserted above the finding: nothing new.
    (project / "app.py").write_text(
        '"""A module."""\n\nimport logging\n\n' + HEADER + BAD_RETURN, encoding="utf-8"
    )
    assert check("--baseline", "loomlint-baseline.json", *options) == (
        0,
        "All checks passed.\n",
        f"{note}note: 1 finding recorded in the baseline is not shown\n",
    )

    # A new bad line: exactly that one.
    (project / "app.py").write_text(
        '"""A module."""\n\nimport logging\n\n' + HEADER + NEW_BAD + BAD_RETURN,
        encoding="utf-8",
    )
    assert check("--baseline", "loomlint-baseline.json", *options) == (
        1,
        "app.py:9:15: LML003 [*] content of `m` is coerced to str by str(); use text_of(...)\n"
        "Found 1 finding (1 fixable with `loomlint fix`).\n",
        f"{note}note: 1 finding recorded in the baseline is not shown\n",
    )
