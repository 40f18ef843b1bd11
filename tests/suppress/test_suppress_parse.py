"""Parsing suppression comments: forms, positions, strings, malformed lists, broken files."""

from __future__ import annotations

import pytest

from loomlint.engine.suppress import CodeSpan, Suppression, parse_suppressions, statement_ranges


def test_trailing_loomlint_ignore_with_codes() -> None:
    [s] = parse_suppressions("x = str(m.content)  # loomlint: ignore[LML003, lml001]\n")
    assert s == Suppression(
        kind="loomlint",
        line=1,
        column=21,
        end_column=55,
        codes=(CodeSpan("LML003", 40, 46), CodeSpan("LML001", 48, 54)),
        own_line=False,
        next_code_line=None,
    )


def test_bare_forms() -> None:
    source = "a = 1  # loomlint: ignore\nb = 2  #loomlint:ignore  # why\nc = 3  # NOQA\n"
    parsed = parse_suppressions(source)
    assert [(s.kind, s.line, s.column, s.end_column, s.codes) for s in parsed] == [
        ("loomlint", 1, 8, 26, None),
        ("loomlint", 2, 8, 24, None),
        ("noqa", 3, 8, 14, None),
    ]


def test_own_line_points_at_the_next_statement_across_comment_lines() -> None:
    source = (
        "def f(m):\n"
        "    # loomlint: ignore[LML003]\n"
        "    # the log line wants the repr\n"
        "    log(\n"
        "        str(m.content))\n"
        "# loomlint: ignore\n"
        "\n"
        "x = 1\n"
        "y = 2\n"
        "# loomlint: ignore[LML001]\n"
    )
    parsed = parse_suppressions(source)
    assert [(s.line, s.own_line, s.next_code_line) for s in parsed] == [
        (2, True, 4),
        (6, True, None),  # a blank line follows: it covers nothing
        (10, True, None),  # end of file
    ]


def test_noqa_keeps_only_lml_codes() -> None:
    source = "import os  # noqa: E501, LML003,F401 lml001 because\nimport re  # noqa:E501\n"
    [s] = parse_suppressions(source)
    assert (s.kind, s.column, s.end_column) == ("noqa", 12, 44)
    assert s.codes == (CodeSpan("LML003", 26, 32), CodeSpan("LML001", 38, 44))


def test_two_directives_in_one_comment() -> None:
    parsed = parse_suppressions("x = 1  # loomlint: ignore[LML001] # noqa: LML002\n")
    assert [(s.kind, s.code_names) for s in parsed] == [
        ("loomlint", frozenset({"LML001"})),
        ("noqa", frozenset({"LML002"})),
    ]


@pytest.mark.parametrize(
    "source",
    [
        's = "# noqa: LML001"\n',
        "s = '# loomlint: ignore'\n",
        's = """\n# loomlint: ignore\n"""\n',
        "x = 1  # loomlint: ignore[LML001\n",
        "x = 1  # loomlint: ignore[]\n",
        "x = 1  # loomlint: ignore[LML001;LML002]\n",
        "x = 1  # loomlint: ignore[LML-1]\n",
        "x = 1  # loomlint: ignored\n",
        "x = 1  # loomlint: ignore-next\n",
        "x = 1  # noqa:\n",
        "x = 1  # noqa: E501\n",
        "x = 1  # noqa123\n",
        "x = 1  # loomlint ignore\n",
    ],
)
def test_not_a_suppression(source: str) -> None:
    assert parse_suppressions(source) == []


def test_columns_count_characters_not_bytes() -> None:
    [s] = parse_suppressions('x = "é€😀"  # noqa: LML003\n')
    assert (s.column, s.codes) == (12, (CodeSpan("LML003", 20, 26),))


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings(newline: str) -> None:
    source = newline.join(["a = 1", "# loomlint: ignore[LML001]", "b = 2  # noqa: LML002", ""])
    parsed = parse_suppressions(source)
    assert [(s.line, s.column, s.next_code_line) for s in parsed] == [(2, 1, 3), (3, 8, None)]


def test_bom_is_not_a_column() -> None:
    [s] = parse_suppressions("\ufeffx = 1  # noqa: LML001\n")
    assert s.column == 8


def test_empty_and_comment_only_sources() -> None:
    assert parse_suppressions("") == []
    [s] = parse_suppressions("# loomlint: ignore")
    assert (s.line, s.own_line, s.next_code_line) == (1, True, None)


def test_after_a_tokenize_error_the_rest_is_scanned_by_lines() -> None:
    source = (
        "a = 1  # noqa: LML001\n"
        "s = '''never closed\n"
        "b = 2  # loomlint: ignore[LML002]\n"
        "c = '# noqa: LML003'  # noqa: LML004\n"
        "# loomlint: ignore\n"
        "d = 4\n"
    )
    parsed = parse_suppressions(source)
    assert [(s.line, s.column, s.code_names, s.next_code_line) for s in parsed] == [
        (1, 8, frozenset({"LML001"}), None),
        (3, 8, frozenset({"LML002"}), None),
        (4, 23, frozenset({"LML004"}), None),
        (5, 1, None, 6),
    ]


@pytest.mark.parametrize(
    "source",
    [
        "def f(:\n    x = 1  # noqa: LML001\n",
        "if x:\n        a = 1\n    b = 2  # noqa: LML001\n",
        "x = (\n  # loomlint: ignore\n",
        "\x00 # noqa: LML001\n",
        "x = 'abc\n  # noqa: LML001\n",
        "\\\n# noqa: LML001",
    ],
)
def test_broken_sources_never_raise(source: str) -> None:
    parsed = parse_suppressions(source)
    assert all(s.line >= 1 and s.column >= 1 for s in parsed)


def test_type_ignore_names_the_rules_of_the_plugins_codes() -> None:
    source = (
        "a = str(c)  # type: ignore[arg-type, loom-content-coercion]\n"
        "b = len(c)  # type: ignore[loom-content-use]  # noqa: LML002\n"
        "d = 1  # type: ignore\n"
        "e = 2  # type: ignore[arg-type]\n"
        "f = 3  # TYPE: IGNORE[loom-content-cast]\n"
    )
    parsed = parse_suppressions(source)
    assert [(s.kind, s.line, s.codes) for s in parsed] == [
        ("type-ignore", 1, (CodeSpan("loom-content-coercion", 38, 59, ("LML003",)),)),
        ("type-ignore", 2, (CodeSpan("loom-content-use", 28, 44, ("LML001", "LML002")),)),
        ("noqa", 2, (CodeSpan("LML002", 55, 61),)),
    ]
    assert parsed[1].code_names == frozenset({"LML001", "LML002"})


def test_statement_ranges_from_cpythons_parser_match_the_own_line_rule() -> None:
    source = "@decorator\ndef f(\n    a,\n):\n    x = (\n        1,\n    )\n    if a: y = 2\n"
    ranges = statement_ranges(source)
    assert [ranges(line) for line in range(1, 9)] == [
        (1, 4),
        None,
        None,
        None,
        (5, 7),
        None,
        None,
        (8, 8),
    ]
    assert statement_ranges("def broken(:\n")(1) is None
