"""Applying suppressions: what each form covers, and LML100 for the unused ones."""

from __future__ import annotations

from collections.abc import Callable

from loomlint.engine.diagnostics import Diagnostic
from loomlint.engine.suppress import apply_suppressions, parse_suppressions

PATH = "pkg/mod.py"


def finding(line: int, code: str = "LML003", column: int = 5) -> Diagnostic:
    return Diagnostic(PATH, line, column, line, column + 9, code, "content-coercion", "msg")


def statements(*ranges: tuple[int, int]) -> Callable[[int], tuple[int, int] | None]:
    by_first = {first: (first, last) for first, last in ranges}
    return by_first.get


def apply(
    source: str,
    diagnostics: list[Diagnostic],
    *ranges: tuple[int, int],
    report_unused: bool = False,
    is_enabled: Callable[[str], bool] | None = None,
) -> list[tuple[int, int, str, str]]:
    kept = apply_suppressions(
        diagnostics,
        parse_suppressions(source),
        statements(*ranges),
        report_unused=report_unused,
        path=PATH,
        is_enabled=is_enabled,
    )
    return [(d.line, d.column, d.code, d.message) for d in kept]


def test_trailing_comment_covers_its_line_only() -> None:
    source = "x = str(m.content)  # loomlint: ignore[LML003]\ny = str(m.content)\n"
    assert apply(source, [finding(1), finding(2)], (1, 1), (2, 2)) == [(2, 5, "LML003", "msg")]


def test_codes_must_match_and_are_case_insensitive() -> None:
    source = "x = 1  # loomlint: ignore[lml003]\ny = 1  # loomlint: ignore[LML001]\n"
    kept = apply(source, [finding(1), finding(2)])
    assert kept == [(2, 5, "LML003", "msg")]


def test_own_line_comment_covers_the_whole_next_statement() -> None:
    source = (
        "# loomlint: ignore[LML003]\n"
        "log(\n"
        "    str(m.content),\n"
        "    f'{m.content}')\n"
        "after = str(m.content)\n"
    )
    diagnostics = [finding(3), finding(4), finding(5)]
    assert apply(source, diagnostics, (2, 4), (5, 5)) == [(5, 5, "LML003", "msg")]


def test_own_line_comment_without_a_statement_range_covers_the_line() -> None:
    source = "call(\n    # loomlint: ignore\n    str(m.content),\n    str(m.content))\n"
    assert apply(source, [finding(3), finding(4)], (1, 4)) == [(4, 5, "LML003", "msg")]


def test_noqa_on_its_own_line_covers_nothing_below() -> None:
    source = "# noqa: LML003\nx = str(m.content)\n"
    assert apply(source, [finding(2)], (2, 2)) == [(2, 5, "LML003", "msg")]


def test_bare_noqa_is_a_blanket_and_never_unused() -> None:
    source = "x = str(m.content)  # noqa\ny = 1  # noqa\n"
    assert apply(source, [finding(1, "LML001")], report_unused=True) == []


def test_noqa_with_other_tools_codes_leaves_lml_findings() -> None:
    source = "x = str(m.content)  # noqa: E501\n"
    assert apply(source, [finding(1)], report_unused=True) == [(1, 5, "LML003", "msg")]


def test_unused_suppressions_are_reported_per_code_at_the_code() -> None:
    source = (
        "x = str(m.content)  # loomlint: ignore[LML003, LML001]\n"
        "y = 1  # loomlint: ignore\n"
        "# loomlint: ignore[LML002]\n"
        "z = 1\n"
        "w = 1  # noqa: E501, LML004\n"
        "# loomlint: ignore[LML001]\n"
        "\n"
        "v = 1  # loomlint: ignore[LML999, E501]\n"
    )
    kept = apply(source, [finding(1)], (4, 4), report_unused=True)
    assert kept == [
        (1, 48, "LML100", "unused suppression: no LML001 finding on this line"),
        (2, 8, "LML100", "unused suppression: no finding on this line"),
        (3, 20, "LML100", "unused suppression: no LML002 finding in the next statement"),
        (5, 22, "LML100", "unused suppression: no LML004 finding on this line"),
        (
            6,
            20,
            "LML100",
            "unused suppression of LML001: no statement starts on the line after this comment",
        ),
        (8, 27, "LML100", "unused suppression: 'LML999' is not a loomlint rule code or name"),
        (8, 35, "LML100", "unused suppression: 'E501' is not a loomlint rule code or name"),
    ]


def test_unused_diagnostic_fields() -> None:
    [unused] = apply_suppressions(
        [],
        parse_suppressions("y = 1  # loomlint: ignore[LML003]\n"),
        statements(),
        report_unused=True,
        path=PATH,
    )
    assert unused == Diagnostic(
        path=PATH,
        line=1,
        column=27,
        end_line=1,
        end_column=33,
        code="LML100",
        name="unused-suppression",
        message="unused suppression: no LML003 finding on this line",
    )


def test_suppressions_of_disabled_codes_are_not_unused() -> None:
    source = "x = 1  # loomlint: ignore[LML003, LML001]\n"
    kept = apply(source, [], report_unused=True, is_enabled=lambda code: code != "LML001")
    assert kept == [(1, 27, "LML100", "unused suppression: no LML003 finding on this line")]


def test_naming_lml100_keeps_the_comment_quiet() -> None:
    assert apply("x = 1  # loomlint: ignore[LML003, LML100]\n", [], report_unused=True) == []


def test_unused_not_reported_without_the_flag() -> None:
    assert apply("x = 1  # loomlint: ignore[LML003]\n", []) == []


def test_overlapping_suppressions_are_both_used() -> None:
    source = "# loomlint: ignore[LML003]\nx = str(m.content)  # noqa: LML003\n"
    assert apply(source, [finding(2)], (2, 2), report_unused=True) == []


def test_result_is_sorted() -> None:
    kept = apply("", [finding(3), finding(1, "LML001"), finding(1)])
    assert [(line, code) for line, _, code, _ in kept] == [
        (1, "LML001"),
        (1, "LML003"),
        (3, "LML003"),
    ]


def test_rule_names_are_accepted_in_loomlint_directives() -> None:
    source = (
        "x = str(m.content)  # loomlint: ignore[content-coercion]\n"
        "# loomlint: ignore[Content-Coercion, unsafe-content-use]\n"
        "y = str(m.content)\n"
    )
    assert apply(source, [finding(1), finding(3)], (3, 3), report_unused=True) == [
        (2, 38, "LML100", "unused suppression: no LML001 finding in the next statement"),
    ]


def test_a_directive_naming_no_known_code_or_rule_is_reported() -> None:
    """A typo never widens into a blanket suppression, and never goes unsaid either."""
    source = (
        "a = str(m.content)  # noqa: LML\n"
        "b = str(m.content)  # noqa: E501, LML03\n"
        "c = str(m.content)  # loomlint: ignore[contnet-coercion]\n"
        "d = str(m.content)  # loomlint: ignore[LML]\n"
    )
    findings = [finding(line) for line in (1, 2, 3, 4)]
    assert apply(source, findings, report_unused=True) == [
        (1, 5, "LML003", "msg"),
        (1, 29, "LML100", "unused suppression: 'LML' is not a loomlint rule code or name"),
        (2, 5, "LML003", "msg"),
        (2, 35, "LML100", "unused suppression: 'LML03' is not a loomlint rule code or name"),
        (3, 5, "LML003", "msg"),
        (
            3,
            40,
            "LML100",
            "unused suppression: 'contnet-coercion' is not a loomlint rule code or name",
        ),
        (4, 5, "LML003", "msg"),
        (4, 40, "LML100", "unused suppression: 'LML' is not a loomlint rule code or name"),
    ]
