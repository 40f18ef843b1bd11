"""A file name that is not valid UTF-8 (any byte string is a valid Linux file name) is checked
and reported in every format, and its result is cached like any other's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

BAD_USE = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage

    def f(m: LlmMessage) -> str:
        return f"{m.content}"
    """
)
NAME = b"bad\xff.py"
LOOMLINT = str(Path(sys.executable).parent / "loomlint")


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [LOOMLINT, "check", *args, "."], cwd=project, capture_output=True, timeout=300
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    try:
        (tmp_path / os.fsdecode(NAME)).write_text(BAD_USE)
    except (OSError, UnicodeError):  # pragma: no cover - a file system that refuses it
        pytest.skip("this file system does not take a name that is not UTF-8")
    return tmp_path


def test_text_and_github_write_the_name_as_its_bytes(project: Path) -> None:
    for attempt in ("fresh", "cached"):
        text = _run(project, "--no-types", "--format", "text")
        assert text.stdout.splitlines()[0] == (
            NAME + b":4:15: LML003 [*] content of `m` is coerced to str by an f-string; "
            b"use text_of(...)"
        ), attempt
        assert text.returncode == 1, text.stderr
    github = _run(project, "--no-types", "--format", "github")
    assert github.stdout.startswith(b"::error file=" + NAME + b",line=4,col=15,")
    assert github.returncode == 1


def test_json_and_sarif_stay_valid_utf8(project: Path) -> None:
    for attempt in ("fresh", "cached"):
        report = _run(project, "--no-types", "--format", "json")
        found = json.loads(report.stdout.decode("utf-8"))  # strict: valid UTF-8
        assert [(os.fsencode(d["path"]), d["line"], d["code"]) for d in found] == [
            (NAME, 4, "LML003")
        ], attempt
        assert report.returncode == 1
    sarif = json.loads(_run(project, "--no-types", "--format", "sarif").stdout.decode("utf-8"))
    [result] = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%FF.py"


def test_with_types_the_name_costs_only_its_own_types(project: Path) -> None:
    (project / "typed.py").write_text(
        BAD_USE + "\n\nclass Blob:\n    content: bytes = b''\n\n\n"
        "def g(b: Blob) -> str:\n    return f'{b.content!r}'\n"
    )
    report = _run(project, "--format", "json")
    found = [
        (os.fsencode(d["path"]), d["line"], d["code"], d["message"])
        for d in json.loads(report.stdout.decode("utf-8"))
    ]
    assert found == [
        (
            NAME,
            1,
            "LML904",
            "types unavailable: its name is not valid UTF-8, which mypy cannot take; "
            "checked without types, so precision is reduced",
        ),
        (NAME, 4, "LML003", found[1][3]),
        (b"typed.py", 4, "LML003", found[1][3]),  # typed: b.content is bytes, not flagged
    ]


def test_patterns_match_the_name(project: Path) -> None:
    """RE2 reads UTF-8: the name's other bytes are read as U+FFFD, as .gitignore lines are."""
    (project / "pyproject.toml").write_text('[tool.loomlint]\nextend-exclude = ["bad?.py"]\n')
    assert _run(project, "--no-types", "-q").returncode == 0
    (project / "pyproject.toml").write_text("")
    (project / ".gitignore").write_bytes(b"bad\xff.py\n")
    assert _run(project, "--no-types", "-q").returncode == 0
    (project / ".gitignore").write_bytes(b"good\xff.py\n")
    assert _run(project, "--no-types", "-q").returncode == 1
