"""`loomlint rules`, `loomlint explain`, `--version`, help texts."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from loomlint import __version__
from loomlint.catalog.rules import load_catalog
from loomlint.cli import main
from loomlint.report.docs import render_rule_page

RULES_TABLE = """\
Code    Name                 Fixable  Summary
LML001  unsafe-content-use   no       Part-message content is used as if it were always one branch (a string, or a list).
LML002  content-destructure  no       Content taken apart by a match pattern or tuple unpack is used as one branch.
LML003  content-coercion     yes      Part-message content, a narrowed parts list, or a single part is turned into a string.
LML004  content-cast         no       `typing.cast` of content to one branch instead of narrowing it (opt-in).
LML005  content-type-erased  no       Content passed or stored where its type is lost (`Any`, `object`, unannotated), and no body to follow (opt-in).
LML006  content-list-only    no       Content that may be a string used in a way only a list allows (`.append()`, `+= [...]`) (opt-in).
LML100  unused-suppression   no       A `# loomlint: ignore[...]` or `# noqa: LML...` comment that suppresses nothing.
LML901  syntax-error         no       The file could not be parsed, so it was not checked.
LML902  undecodable-source   no       The file could not be read or decoded as Python source, so it was not checked.
LML903  too-deeply-nested    no       The file is nested too deeply or too complex for the parser, so it was not checked.
LML904  types-unavailable    no       The type oracle (mypy) failed on this file; it was checked without types.
LML905  internal-error       no       loomlint itself failed on this file; the other files were still checked.
"""  # noqa: E501


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert (result.exit_code, result.output) == (0, f"loomlint {__version__}\n")


def test_rules_table() -> None:
    result = CliRunner().invoke(main, ["rules"])
    assert (result.exit_code, result.stdout) == (0, RULES_TABLE)


def test_rules_json() -> None:
    result = CliRunner().invoke(main, ["rules", "--format", "json"])
    assert result.exit_code == 0
    rules = json.loads(result.stdout)
    assert [rule["code"] for rule in rules] == sorted(load_catalog().rules)
    assert rules[2] == {
        "code": "LML003",
        "name": "content-coercion",
        "fixable": True,
        "summary": "Part-message content, a narrowed parts list, or a single part is turned into "
        "a string.",
        "mypy_code": "loom-content-coercion",
        "opt_in": False,
        "url": "https://github.com/loomlint/loomlint/blob/main/docs/rules/LML003.md",
    }


@pytest.mark.parametrize("code", ["LML003", "lml003", " content-coercion"])
def test_explain_prints_the_rule_page(code: str) -> None:
    result = CliRunner().invoke(main, ["explain", code])
    assert (result.exit_code, result.stdout) == (
        0,
        render_rule_page(load_catalog().rules["LML003"]),
    )


def test_explain_unknown_code() -> None:
    result = CliRunner().invoke(main, ["explain", "LML999"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "error: unknown rule code 'LML999' (known: LML001, LML002, LML003, LML004, LML005, "
        "LML006, LML100, LML901, LML902, LML903, LML904, LML905)\n"
    )


def test_rules_and_explain_do_not_import_the_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "loomlint.run.runner", None)  # importing it would fail
    assert CliRunner().invoke(main, ["rules"]).exit_code == 0
    assert CliRunner().invoke(main, ["explain", "LML001"]).exit_code == 0


@pytest.mark.parametrize("command", [[], ["check"], ["rules"], ["explain"]])
def test_help_has_examples(command: list[str]) -> None:
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.stdout
