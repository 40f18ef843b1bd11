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
    tmp_path: Path, types: bool, monkeypatch: pytest.MonkeyPatch
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


PRESERVING_STORE = textwrap.dedent(
    """\
    from dataclasses import dataclass
    from typing import Any

    from loomlint.content import LlmMessage
    from store_helpers import save


    @dataclass
    class Record:
        payload: Any = None
        other: object = None


    def run(m: LlmMessage, record: Record) -> None:
        save(m.content, m.content)
        record.payload = m.content
        record.other = m.content
    """
)
# Another module: its body is not followed, so content passed there loses its type (LML005).
PRESERVING_HELPERS = textwrap.dedent(
    """\
    from typing import Any

    def save(body: Any, meta: Any) -> None:
        del body, meta
    """
)


@pytest.mark.parametrize(
    ("preserving", "expected"),
    [
        ([], [(15, 10), (15, 21), (16, 22), (17, 20)]),
        (["store_helpers.save.body", "store.Record.payload"], [(15, 21), (17, 20)]),
        (["store_helpers.save"], [(16, 22), (17, 20)]),
    ],
    ids=["none", "parameter-and-field", "whole-callee"],
)
def test_content_preserving_parameters_fields_and_callees_are_not_findings(
    tmp_path: Path,
    preserving: list[str],
    expected: list[tuple[int, int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.loomlint]\ncontent-preserving = {json.dumps(preserving)}\n"
    )
    (tmp_path / "store.py").write_text(PRESERVING_STORE)
    (tmp_path / "store_helpers.py").write_text(PRESERVING_HELPERS)
    args = ["check", "--format", "json", "--extend-select", "LML005", "store.py"]
    result = CliRunner().invoke(main, args)
    found = [(d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)]
    assert found == [(line, column, "LML005") for line, column in expected]
    # The opt-in rule is off by default: nothing is reported without it.
    default = CliRunner().invoke(main, ["check", "--format", "json", "store.py"])
    assert json.loads(default.stdout) == []


def test_a_bad_content_preserving_name_is_a_config_error_naming_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.loomlint]\ncontent-preserving = ["save"]\n')
    (tmp_path / "store.py").write_text(PRESERVING_STORE)
    result = CliRunner().invoke(main, ["check", "store.py"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: pyproject.toml: [tool.loomlint] key 'content-preserving': 'save' is not a "
        "qualified name (expected 'myapp.store.save.body' or 'myapp.models.Record.payload')"
    )
