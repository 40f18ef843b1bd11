"""Configuration reaches the rules: extra accessors, sanitizers and content fields."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

PYPROJECT = textwrap.dedent(
    """\
    [tool.loomlint]
    accessors = ["helpers.render_text"]
    sanitizers = ["helpers.scrub"]
    content-fields = ["body"]
    """
)
HELPERS = textwrap.dedent(
    """\
    from loomlint.content import Content, text_of

    def render_text(value: Content) -> str:
        return text_of(value)

    def scrub(value: object) -> str:
        return text_of(value) if isinstance(value, (str, list)) else ""
    """
)
APP = textwrap.dedent(
    """\
    from dataclasses import dataclass

    from helpers import render_text, scrub
    from loomlint.content import LlmMessage, TextPart

    @dataclass
    class Note:
        body: str | list[TextPart]

    def show(m: LlmMessage, note: Note) -> str:
        shown = render_text(m.content) + scrub(note.body)
        return shown + str(note.body) + f"{m.content}"
    """
)


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_configured_accessors_sanitizers_and_fields_reach_the_rules(
    tmp_path: Path, types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "app.py").write_text(APP)
    args = ["check", "--format", "json", "app.py", *([] if types else ["--no-types"])]
    result = CliRunner().invoke(main, args)
    found = [(d["line"], d["column"], d["code"], d["message"]) for d in json.loads(result.stdout)]
    assert found == [
        (12, 24, "LML003", "content of `note` is coerced to str by str(); use text_of(...)"),
        (12, 40, "LML003", "content of `m` is coerced to str by an f-string; use text_of(...)"),
    ]
