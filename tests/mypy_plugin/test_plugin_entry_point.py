"""The plugin's entry point, version check, error codes and fingerprint."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy.errorcodes import error_codes
from mypy_runs import write_project

from loomlint.catalog.rules import load_catalog
from loomlint.mypy_plugin import LoomlintPlugin, codes, plugin
from loomlint.mypy_plugin.config import fingerprint
from loomlint.mypy_plugin.support import (
    RefusingPlugin,
    UnsupportedMypyError,
    check_supported,
    mypy_version_supported,
)
from loomlint.project.settings import load_settings


@pytest.mark.parametrize("version", ["2.4.1", "2.4.0", "2.9.0", "2.5.0+dev.0123abcd"])
def test_supported_mypy_versions_load_the_plugin(version: str) -> None:
    assert plugin(version) is LoomlintPlugin


@pytest.mark.parametrize("version", ["1.19.1", "2.3.0", "3.0.0", "0.991", "unknown"])
def test_an_unsupported_mypy_version_is_refused_with_a_clear_message(version: str) -> None:
    refusing = plugin(version)
    assert issubclass(refusing, RefusingPlugin)
    message = refusing.problem
    assert f"this is mypy {version}" in message
    assert "mypy>=2.4,<3" in message
    assert not mypy_version_supported(version)
    with pytest.raises(UnsupportedMypyError):
        check_supported(version)


def test_error_codes_are_registered_with_mypy_and_named_by_the_catalog() -> None:
    catalog = load_catalog()
    by_rule = codes.ERROR_CODE_OF_RULE
    assert {rule: code.code for rule, code in by_rule.items()} == {
        code: rule.mypy_code for code, rule in catalog.rules.items() if rule.mypy_code
    }
    assert by_rule["LML001"].code == by_rule["LML002"].code == "loom-content-use"
    assert by_rule["LML001"] is by_rule["LML002"]
    assert by_rule["LML003"].code == "loom-content-coercion"
    assert by_rule["LML004"].code == "loom-content-cast"
    for code in by_rule.values():
        assert error_codes[code.code] is code
        assert code.category == "loomlint"


def test_the_fingerprint_follows_the_loomlint_configuration(tmp_path: Path) -> None:
    write_project(tmp_path)
    before = fingerprint(load_settings(tmp_path))
    assert fingerprint(load_settings(tmp_path)) == before
    write_project(tmp_path, loomlint='accessors = ["helpers.loose_text"]')
    assert fingerprint(load_settings(tmp_path)) != before


def test_mypy_config_sections_other_than_loomlints_do_not_change_the_fingerprint(
    tmp_path: Path,
) -> None:
    pyproject = write_project(tmp_path)
    before = fingerprint(load_settings(tmp_path))
    pyproject.write_text(pyproject.read_text() + "\n[tool.ruff]\nline-length = 90\n")
    assert fingerprint(load_settings(tmp_path)) == before
