"""Suppression comments, end to end through the engine's statement ranges."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

SOURCE = textwrap.dedent(
    """\
    import logging
    from loomlint.content import LlmMessage

    def f(m: LlmMessage) -> str:
        a = str(m.content)  # loomlint: ignore[LML003]
        # loomlint: ignore[LML003]
        logging.info(
            "%s",
            m.content,
        )
        b = m.content.strip()  # noqa: E501, LML001
        c = m.role  # loomlint: ignore[LML002]
        d = m.content.lower()  # noqa: LML003
        return a + b + c + d + f"{m.content}"
    """
)


def _run(tmp_path: Path, *extra: str) -> list[tuple[int, int, str]]:
    (tmp_path / "mod.py").write_text(SOURCE)
    result = CliRunner().invoke(
        main, ["check", "--no-types", "--format", "json", *extra, str(tmp_path / "mod.py")]
    )
    return [(d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)]


def test_suppressions_cover_their_line_or_the_next_statement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path) == [(13, 9, "LML001"), (14, 31, "LML003")]


def test_unused_suppressions_are_reported_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path, "--report-unused-suppressions") == [
        (12, 36, "LML100"),
        (13, 9, "LML001"),
        (13, 36, "LML100"),
        (14, 31, "LML003"),
    ]
