"""``# loomlint: noqa`` for a whole file, with and without codes, through `loomlint check`."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

BODY = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage


    def f(m: LlmMessage) -> str:
        b = m.content.strip()
        return b + str(m.content)
    """
)


def check(folder: Path, header: str, *extra: str) -> list[tuple[int, int, str, str]]:
    (folder / "mod.py").write_text(header + BODY, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--format", "json", *extra, "mod.py"])
    assert result.exit_code in (0, 1), result.output
    return [(d["line"], d["column"], d["code"], d["message"]) for d in json.loads(result.stdout)]


@pytest.mark.parametrize("types", [(), ("--no-types",)], ids=["mypy", "no-types"])
def test_file_level_noqa(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, types: tuple[str, ...]
) -> None:
    monkeypatch.chdir(tmp_path)
    found = [(line, column, code) for line, column, code, _ in check(tmp_path, "", *types)]
    assert found == [(5, 9, "LML001"), (6, 20, "LML003")]
    assert check(tmp_path, "# loomlint: noqa\n", *types) == []
    assert [f[:3] for f in check(tmp_path, "# Loomlint: NOQA: LML003\n", *types)] == [
        (6, 9, "LML001")
    ]
    # At the end of a line of code it is no directive: nothing is suppressed.
    shifted = check(tmp_path, "import os  # loomlint: noqa\n", *types)
    assert [f[:3] for f in shifted] == [(6, 9, "LML001"), (7, 20, "LML003")]


def test_unused_file_level_noqa_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert check(
        tmp_path, "# loomlint: noqa: LML001, LML002\n", "--report-unused-suppressions"
    ) == [
        (1, 27, "LML100", "unused suppression: no LML002 finding in this file"),
        (7, 20, "LML003", check(tmp_path, "\n")[1][3]),
    ]
    assert (
        check(tmp_path, "#!/usr/bin/env python\n# loomlint: noqa\n", "--report-unused-suppressions")
        == []
    )
    (tmp_path / "clean.py").write_text("# loomlint: noqa\nx = 1\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["check", "--report-unused-suppressions", "--format", "json", "clean.py"]
    )
    assert [(d["line"], d["column"], d["message"]) for d in json.loads(result.stdout)] == [
        (1, 1, "unused suppression: no finding in this file")
    ]
