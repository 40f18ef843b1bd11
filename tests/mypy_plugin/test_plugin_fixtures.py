"""mypy with the plugin over ``fixtures/mypy_plugin/``: exactly the marked errors, and no others."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy_runs import FIXTURES, MypyRun, expected_errors

FIXTURE_NAMES = sorted(path.name for path in FIXTURES.glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_reports_exactly_the_marked_errors(fixture_run: MypyRun, name: str) -> None:
    assert fixture_run.keys(in_file=name) == expected_errors([FIXTURES / name])


@pytest.mark.slow
def test_reports_nothing_outside_the_checked_files(
    fixture_run: MypyRun, fixture_files: list[Path]
) -> None:
    checked = {path.name for path in fixture_files}
    assert {e.path.name for e in fixture_run.errors} <= checked
    assert "INTERNAL ERROR" not in fixture_run.stdout + fixture_run.stderr


@pytest.mark.slow
def test_messages_are_the_engines(fixture_run: MypyRun) -> None:
    assert fixture_run.messages("plugin_coercions.py", 28) == [
        "content of `m` is coerced to str by an f-string; use text_of(...)"
    ]
    assert fixture_run.messages("plugin_coercions.py", 30) == [
        "content of `m` is coerced to str by an f-string (`!r`); use text_of(...)"
    ]
    assert fixture_run.messages("plugin_coercions.py", 59) == [
        "content of `d` is coerced to str by print(); use text_of(...)"
    ]
    assert fixture_run.messages("plugin_coercions.py", 65) == [
        "`part` (typed as a content part) is coerced to str by an f-string; "
        "read the part's fields instead"
    ]
    assert fixture_run.messages("plugin_uses.py", 32) == [
        "content of `m` is used as one branch by len(), but it may be a list of parts; "
        "narrow it with isinstance() first, or use text_of(...)"
    ]
    assert fixture_run.messages("plugin_uses.py", 62) == [
        "content of `m` is passed to parameter `value` of `shout()`, declared `Any`, where it is "
        "used as one branch by `.upper()` (line 93), but it may be a list of parts; narrow it "
        "with isinstance() first, or use text_of(...)"
    ]
    assert fixture_run.messages("plugin_casts.py", 11) == [
        "content of `m` is cast to `str` instead of being narrowed; use text_of(...), or "
        "narrow it with isinstance()"
    ]


@pytest.mark.slow
def test_findings_on_overloaded_callees_are_reported(fixture_run: MypyRun) -> None:
    # str(), print(), list(), str.format() (and the f-strings lowered to it) and sorted() are
    # overloaded: mypy drops an error a plugin's call hook reports for them (mypy issue 7367).
    # The plugin reports once mypy has checked the module, outside any such hook.
    coercion, use = "loom-content-coercion", "loom-content-use"
    assert {
        ("plugin_coercions.py", 18, coercion),  # str(m.content)
        ("plugin_coercions.py", 22, coercion),  # print(m.content)
        ("plugin_coercions.py", 28, coercion),  # f"{m.content}"
        ("plugin_coercions.py", 37, coercion),  # "{}".format(m.content)
        ("plugin_coercions.py", 70, coercion),  # sorted(..., key=lambda m: str(m.content))
        ("plugin_coercions.py", 74, coercion),  # print(str(m.content))
        ("plugin_uses.py", 33, use),  # list(m.content)
        ("plugin_uses.py", 51, use),  # m.content[0]: str.__getitem__ and list.__getitem__
    } <= fixture_run.keys()


@pytest.mark.slow
def test_mypys_own_errors_are_the_same_with_and_without_the_plugin(
    fixture_run: MypyRun, plain_run: MypyRun
) -> None:
    # The plugin reports after mypy's check of each module: nothing it does can change what
    # mypy infers and reports.
    def own(run: MypyRun) -> set[tuple[str, int, str, str]]:
        return {
            (e.path.name, e.line, e.code, e.message)
            for e in run.errors
            if not e.code.startswith("loom-") and e.code != "unused-ignore"
        }

    assert own(fixture_run) == own(plain_run)
    assert plain_run.keys(loomlint_only=True) == set()
