"""A type-aware run where mypy cannot find the module that defines the messages read (the SPI
package is not installed where loomlint runs) judges those files as --no-types would, and
says which imports were unresolved and what to do: it never passes silently."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from langchain_sample import APP, UNRESOLVED_WARNING, findings

LOOMLINT = str(Path(sys.executable).with_name("loomlint"))
# requests' `.content` is bytes: its absence is no reason to warn.
UNRELATED = (
    "import requests\n\n\ndef body(url: str) -> bytes:\n    return requests.get(url).content\n"
)
FINDINGS = findings("app.py")


def _check(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LOOMLINT, "check", "--preset", "langchain", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "fetch.py").write_text(UNRELATED, encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_unresolved_spi_types_fall_back_and_warn(project: Path) -> None:
    # mypy told to ignore the installed packages: langchain_core cannot be found.
    (project / "mypy.ini").write_text("[mypy]\nno_site_packages = True\n", encoding="utf-8")
    result = _check(project, "-q")
    assert (result.returncode, result.stdout, result.stderr) == (1, FINDINGS, UNRESOLVED_WARNING)
    # Not cached as if typed: the second run (cache warm) says it again.
    again = _check(project, "-q")
    assert (again.returncode, again.stdout, again.stderr) == (1, FINDINGS, UNRESOLVED_WARNING)
    github = _check(project, "--format", "github", "-q")
    assert github.stdout.splitlines()[0].startswith(
        "::warning title=loomlint::mypy could not find langchain_core.messages, "
    )


@pytest.mark.slow
def test_resolved_spi_types_say_nothing(project: Path) -> None:
    result = _check(project, "-q")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == FINDINGS.replace("LML003 content", "LML003 [*] content")
