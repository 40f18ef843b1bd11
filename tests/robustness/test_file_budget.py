"""One file's budget: past its size or time, the file is LML903 and every other file is still
reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from loomlint.analysis import budget
from robustness.cli_json import check_json

BAD_USE = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage

    def f(m: LlmMessage) -> str:
        return f"{m.content}"
    """
)


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_a_file_over_the_size_budget_is_refused_and_the_rest_reported(
    tmp_path: Path, types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    filler = "# " + "x" * 98 + "\n"
    (tmp_path / "huge.py").write_text(BAD_USE + filler * (budget.FILE_BYTES // len(filler) + 1))
    (tmp_path / "good.py").write_text(BAD_USE)
    code, found = check_json(*([] if types else ["--no-types"]), ".")
    assert [(name, line, column, rule) for name, line, column, rule, _ in found] == [
        ("good.py", 4, 15, "LML003"),
        ("huge.py", 1, 1, "LML903"),
    ]
    assert found[1][4] == (
        "the file is larger than 10 MiB, the most one file may take to analyse; it was not checked"
    )
    assert code == 2


def test_a_file_over_the_time_budget_is_refused_and_the_rest_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No time at all: a file whose analysis takes more than a thousand steps is over it at
    # the first look at the clock; a small one finishes before the first look.
    monkeypatch.setattr(budget, "FILE_SECONDS", 0.0)
    monkeypatch.chdir(tmp_path)
    chain = " + ".join(["m.role"] * 900)
    (tmp_path / "long.py").write_text(
        BAD_USE + f"\n\ndef g(m: LlmMessage) -> str:\n    return {chain} + m.content\n"
    )
    (tmp_path / "good.py").write_text(BAD_USE)
    code, found = check_json("--no-types", ".")
    assert found == [
        ("good.py", 4, 15, "LML003", found[0][4]),
        (
            "long.py",
            1,
            1,
            "LML903",
            "the analysis of this file took more than its 0 s budget; it was not checked",
        ),
    ]
    assert code == 2
