"""select / ignore / per-file-ignores: Ruff's prefix and specificity semantics."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from loomlint.project.config import Settings

WriteConfig = Callable[..., Path]
Load = Callable[..., Settings]

ANALYSIS = {"LML901", "LML902", "LML903", "LML904", "LML905"}


RULES = {"LML001", "LML002", "LML003"}  # on by default; LML004 and LML005 are opt-in


@pytest.mark.parametrize(
    ("body", "enabled"),
    [
        ("", RULES | ANALYSIS),
        ('select = ["LML003"]', {"LML003"} | ANALYSIS),
        ('select = ["LML00"]\nignore = ["LML002"]', {"LML001", "LML003"} | ANALYSIS),
        # The more specific selector wins, whichever list it is in.
        ('select = ["LML003"]\nignore = ["LML0"]', {"LML003"} | ANALYSIS),
        ('select = ["LML0"]\nignore = ["LML003"]', {"LML001", "LML002"} | ANALYSIS),
        # At equal specificity ignore wins.
        ('select = ["LML003"]\nignore = ["LML003"]', ANALYSIS),
        ('select = ["ALL"]\nignore = ["LML9"]', RULES),
        # select never hides analysis failures; ignore can.
        ("select = []", ANALYSIS),
        ('ignore = ["LML904"]', RULES | (ANALYSIS - {"LML904"})),
        ('ignore = ["LML"]', set()),
        # LML100 only on request, and then subject to ignore.
        ("report-unused-suppressions = true", RULES | {"LML100"} | ANALYSIS),
        ('report-unused-suppressions = true\nignore = ["LML1"]', RULES | ANALYSIS),
        ('report-unused-suppressions = true\nselect = ["LML003"]', {"LML003", "LML100"} | ANALYSIS),
        # Selecting LML100 by its full code asks for it; a prefix does not.
        ('select = ["LML003", "lml100"]', {"LML003", "LML100"} | ANALYSIS),
        ('select = ["LML1"]', ANALYSIS),
        # The opt-in LML004 and LML005 only by their full codes, in select or extend-select;
        # then the more specific selector wins, as for any rule.
        ('select = ["LML"]', RULES | ANALYSIS),
        ('select = ["LML00"]', RULES | ANALYSIS),
        ('select = ["LML005"]', {"LML005"} | ANALYSIS),
        ('select = ["LML004"]', {"LML004"} | ANALYSIS),
        ('extend-select = ["lml005"]', RULES | {"LML005"} | ANALYSIS),
        ('extend-select = ["LML004", "LML005"]', RULES | {"LML004", "LML005"} | ANALYSIS),
        ('extend-select = ["LML005"]\nignore = ["LML005"]', RULES | ANALYSIS),
        ('extend-select = ["LML005"]\nignore = ["LML0"]', {"LML005"} | ANALYSIS),
        ('extend-select = ["LML004"]\nignore = ["LML00"]', {"LML004"} | ANALYSIS),
    ],
)
def test_enabled_codes(
    write_pyproject: WriteConfig, load: Load, body: str, enabled: set[str]
) -> None:
    write_pyproject(body + "\n")
    assert load().enabled_codes == enabled


def test_command_line_select_replaces_and_ignore_refines(
    write_pyproject: WriteConfig, load: Load
) -> None:
    write_pyproject('select = ["LML001"]\nignore = ["LML003"]\n')
    # --select starts a new layer: the file's ignore of LML003 no longer applies to rules.
    assert load(select=("LML003",)).enabled_codes == {"LML003"} | ANALYSIS
    assert load(ignore=("LML001",)).enabled_codes == ANALYSIS
    assert load(select=("LML0",), ignore=("LML002",)).enabled_codes == (
        {"LML001", "LML003"} | ANALYSIS
    )


def test_the_opt_in_rule_follows_the_command_line_layer(
    write_pyproject: WriteConfig, load: Load
) -> None:
    write_pyproject('extend-select = ["LML005"]\n')
    assert load().enabled_codes == RULES | {"LML005"} | ANALYSIS
    # --select starts again from nothing: naming only LML001, it drops the file's LML005.
    assert load(select=("LML001",)).enabled_codes == {"LML001"} | ANALYSIS
    assert load(ignore=("LML005",)).enabled_codes == RULES | ANALYSIS
    write_pyproject("")
    assert load(extend_select=("LML005",)).enabled_codes == RULES | {"LML005"} | ANALYSIS
    assert load(extend_select=("LML004",)).enabled_codes == RULES | {"LML004"} | ANALYSIS
    assert load(select=("ALL",)).enabled_codes == RULES | ANALYSIS


def test_is_code_enabled_with_per_file_ignores(
    write_pyproject: WriteConfig, load: Load, tmp_path: Path
) -> None:
    write_pyproject(
        """
extend-select = ["LML004"]
ignore = ["LML004"]
[tool.loomlint.per-file-ignores]
"tests/**" = ["LML001"]
"__init__.py" = ["LML0"]
"!src/**" = ["LML002"]
"templates/*.py" = ["LML901"]
"""
    )
    settings = load()
    assert settings.is_code_enabled("LML001", "src/app.py")
    assert not settings.is_code_enabled("LML004", "src/app.py")
    assert not settings.is_code_enabled("lml001", "tests/unit/test_app.py")
    assert settings.is_code_enabled("LML003", "tests/unit/test_app.py")
    assert not settings.is_code_enabled("LML003", "src/pkg/__init__.py")
    assert settings.is_code_enabled("LML901", "src/pkg/__init__.py")
    # Negated: LML002 is ignored everywhere except under src/.
    assert settings.is_code_enabled("LML002", "src/app.py")
    assert not settings.is_code_enabled("LML002", "scripts/run.py")
    assert not settings.is_code_enabled("LML901", "templates/page.py")
    # Unknown codes are never reported.
    assert not settings.is_code_enabled("LML999", "src/app.py")
    # Paths are cwd-relative or absolute; per-file-ignores are relative to the project root.
    assert not settings.is_code_enabled("LML001", str(tmp_path / "tests" / "a.py"))
    (tmp_path / "tests").mkdir()
    from_tests = load(cwd=tmp_path / "tests")
    assert not from_tests.is_code_enabled("LML001", "a.py")
    assert from_tests.is_code_enabled("LML001", "../src/a.py")


def test_per_file_ignores_outside_the_project_match_by_name(
    write_pyproject: WriteConfig, load: Load, tmp_path: Path
) -> None:
    write_pyproject(
        '[tool.loomlint.per-file-ignores]\n"__init__.py" = ["LML001"]\n"tests/**" = ["LML003"]\n',
        folder="proj",
    )
    settings = load(cwd=tmp_path / "proj")
    assert not settings.is_code_enabled("LML001", "/elsewhere/pkg/__init__.py")
    assert settings.is_code_enabled("LML003", "/elsewhere/tests/x.py")
