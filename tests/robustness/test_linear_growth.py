"""No input makes the analysis explode: on every pathological shape the work grows linearly.

Work is counted, not timed: the lines of loomlint's own code executed (``sys.settrace``) while
one file is analysed. That count is exact and the same on an idle or a loaded machine. Linear
growth multiplies it by about 4 when the input grows 4 times; quadratic growth by 16.
"""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import loomlint
from loomlint.engine.analyze import analyze_source
from loomlint.engine.compilecheck import MAX_DEPTH
from loomlint.engine.diagnostics import FileResult
from loomlint.project.settings import load_settings
from loomlint.run.deepstack import deep_stack

_LOOMLINT = str(Path(loomlint.__file__).parent)

HEADER = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage

    def f(m: LlmMessage) -> object:
    """
)


def _alternating(n: int) -> str:
    test = "isinstance(m.content, str)"
    for level in range(n):
        operator = "and" if level % 2 else "or"
        test = f"({test} {operator} isinstance(m.content, list))"
    return test


def _condition(test: str) -> str:
    return HEADER + f"    if {test}:\n        return m.content.strip()\n    return None\n"


ANALYSIS_SHAPES: dict[str, Callable[[int], str]] = {
    # Exponential before: each level narrowed both operands twice.
    "alternating and/or": lambda n: _condition(_alternating(n)),
    "or chain": lambda n: _condition(" or ".join(["isinstance(m.content, str)"] * n)),
    "and chain": lambda n: _condition(" and ".join(["m.content"] * n)),
    "not chain": lambda n: _condition("not " * n + "isinstance(m.content, str)"),
    "right-nested and/or": lambda n: _condition(
        "".join(f"(m.content {'and' if i % 2 else 'or'} " for i in range(n)) + "m.content" + ")" * n
    ),
    # Quadratic before: each operand of the chain scanned the whole chain.
    "comparison chain": lambda n: HEADER + "    return " + " < ".join(["m.content"] * n) + "\n",
}


def _lines_executed(source: str) -> tuple[int, FileResult]:
    settings = load_settings(Path.cwd())
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if not frame.f_code.co_filename.startswith(_LOOMLINT):
            return None
        if event == "line":
            count += 1
        return trace

    def work() -> FileResult:
        sys.settrace(trace)
        try:
            return analyze_source("shape.py", source.encode(), settings)
        finally:
            sys.settrace(None)

    result = deep_stack(work)
    return count, result


@pytest.mark.parametrize("shape", ANALYSIS_SHAPES)
def test_analysis_grows_linearly(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    make = ANALYSIS_SHAPES[shape]
    small, _ = _lines_executed(make(40))
    large, large_result = _lines_executed(make(160))
    assert not any(d.code.startswith("LML9") for d in large_result.diagnostics)
    print(f"{shape}: {small} -> {large} lines executed for 4 times the input")
    assert large / small < 5.5, f"{shape}: {small} -> {large} lines for 4 times the input"


PARSER_SHAPES: dict[str, Callable[[int], str]] = {
    "subscripts": lambda n: "m.content" + "[0]" * n,
    "attributes": lambda n: "m" + ".a" * n + ".content",
    "calls": lambda n: "m.content" + "()" * n,
    "additions": lambda n: " + ".join(["m.content"] * n),
    "nots": lambda n: "not " * n + "m.content",
    "ternaries": lambda n: "m.content if m else " * n + "m.content",
    "lambdas": lambda n: "lambda: " * n + "m.content",
    "unary minus": lambda n: "-" * n + "m.content",
}


@pytest.mark.parametrize("shape", PARSER_SHAPES)
def test_chains_too_long_for_libcst_are_refused_cheaply(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LibCST's parser takes seconds to minutes and up to gigabytes on these at a few thousand
    # levels; CPython's parser screens them first, in time linear in their length.
    monkeypatch.chdir(tmp_path)
    make = PARSER_SHAPES[shape]
    costs: list[int] = []
    for n in (1100, 2750):  # 2.5 times: CPython's own parser stops lambdas not far beyond
        started = time.perf_counter()
        lines, result = _lines_executed(HEADER + f"    return {make(n)}\n")
        elapsed = time.perf_counter() - started
        assert [(d.line, d.column, d.code, d.message) for d in result.diagnostics] == [
            (
                4,
                1,
                "LML903",
                f"the file nests more than {MAX_DEPTH} levels deep, more than LibCST's parser "
                "takes in reasonable time and memory; it was not checked",
            )
        ]
        assert elapsed < 20  # LibCST alone took minutes on the larger ones
        costs.append(lines)
    print(f"{shape}: {costs[0]} -> {costs[1]} lines executed for 2.5 times the input")
    assert costs[1] / costs[0] < 3.5, f"{shape}: {costs[0]} -> {costs[1]} lines"


def test_nesting_beyond_cpythons_parser_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _, result = _lines_executed(HEADER + "    return " + "not " * 20_000 + "m.content\n")
    assert [(d.line, d.column, d.code, d.message) for d in result.diagnostics] == [
        (1, 1, "LML903", "the file is nested too deeply to parse; it was not checked")
    ]


def test_a_chain_just_within_the_limit_is_analysed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    chain = " + ".join(["m.role"] * (MAX_DEPTH - 20))
    source = HEADER + f"    return {chain} + m.content\n"
    settings = load_settings(Path.cwd())
    result = deep_stack(lambda: analyze_source("shape.py", source.encode(), settings))
    assert [(d.line, d.code) for d in result.diagnostics] == [(4, "LML001")]
