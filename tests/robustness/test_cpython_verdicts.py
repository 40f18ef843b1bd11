"""Each file gets the diagnostic that says what is wrong with it: CPython's compile-time errors
are syntax errors (LML901), what only LibCST cannot parse is LML903, and files CPython rejects
never reach mypy, where each would cost a rebuild and enough of them would strip every file of
its types."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main
from robustness.cli_json import check_json

BAD_USE = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage

    def f(m: LlmMessage) -> str:
        return f"{m.content}"
    """
)

# With types, the bytes field is not content; without, `b.content` is flagged (LML003).
TYPED = BAD_USE + textwrap.dedent(
    """\


    class Blob:
        content: bytes = b''


    def g(b: Blob) -> str:
        return f'{b.content!r}'
    """
)


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_compile_time_errors_are_syntax_errors(
    tmp_path: Path, types: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "returns.py").write_text(BAD_USE + "\nreturn m.content\n")
    (tmp_path / "nonlocal.py").write_text("import os\nnonlocal os\n")
    (tmp_path / "awaits.py").write_text(BAD_USE + "\nawait f(1)\n")
    code, found = check_json(*([] if types else ["--no-types"]), ".")
    assert [(name, line, column, rule) for name, line, column, rule, _ in found] == [
        ("awaits.py", 6, 1, "LML901"),
        ("nonlocal.py", 2, 1, "LML901"),
        ("returns.py", 6, 1, "LML901"),
    ]
    assert [message for *_, message in found] == [
        "syntax error: 'await' outside function; the file was not checked",
        "syntax error: nonlocal declaration not allowed at module level; the file was not checked",
        "syntax error: 'return' outside function; the file was not checked",
    ]
    assert code == 2


def test_what_only_libcst_cannot_parse_is_too_complex_not_a_syntax_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # Python compiles 3,001 adjacent string literals; LibCST's parser gives up on them.
    (tmp_path / "strings.py").write_text(BAD_USE + "x = " + " ".join(['"a"'] * 3001) + "\n")
    (tmp_path / "good.py").write_text(BAD_USE)
    code, found = check_json("--no-types", ".")
    assert [(name, line, rule) for name, line, _, rule, _ in found] == [
        ("good.py", 4, "LML003"),
        ("strings.py", 5, "LML903"),
    ]
    message = found[1][4]
    assert message.startswith("Python 3.") and "compiles the file but LibCST's parser" in message
    assert code == 2


def test_files_python_rejects_do_not_strip_types_from_good_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # More bad files than the oracle retries a build for. mypy takes a ``return`` outside a
    # function (an error of its own, CPython's LML901 here); a file it cannot parse stops its
    # build, which then leaves out every file CPython cannot compile, and builds once more.
    for number in range(5):
        (tmp_path / f"bad{number}.py").write_text(BAD_USE + "\nreturn m.content\n")
        (tmp_path / f"parse{number}.py").write_text(BAD_USE + "\ndef broken(:\n    pass\n")
    (tmp_path / "typed.py").write_text(TYPED)
    code, found = check_json(".")
    assert [(name, line, column, rule) for name, line, column, rule, _ in found] == [
        *[(f"bad{number}.py", 6, 1, "LML901") for number in range(5)],
        *[(f"parse{number}.py", 6, 12, "LML901") for number in range(5)],
        ("typed.py", 4, 15, "LML003"),  # and not b.content: typed.py kept its types
    ]
    assert code == 2


def test_newer_syntax_than_pythons_is_checked_with_mypys_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LibCST and mypy's parser take syntax newer than the running Python (a type parameter
    # list is Python 3.12's), which CPython 3.10 and 3.11 cannot compile: mypy is given the
    # file all the same, and it keeps its types on every Python.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "newer.py").write_text(
        BAD_USE + "\n\ndef h[T](x: T) -> T:\n    return x\n\n\n" + TYPED.split("\n\n\n", 1)[1]
    )
    (tmp_path / "typed.py").write_text(TYPED)
    code, found = check_json(".")
    # Not b.content in either file: both typed.
    assert [(name, line, col, rule) for name, line, col, rule, _ in found] == [
        ("newer.py", 4, 15, "LML003"),
        ("typed.py", 4, 15, "LML003"),
    ]
    assert code == 1


def test_a_file_named_like_an_option_is_only_a_file_to_mypy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--strict.py").write_text(BAD_USE)
    (tmp_path / "typed.py").write_text(TYPED)
    result = CliRunner().invoke(main, ["check", "--format", "json", "."])
    found = sorted((d["path"], d["line"], d["code"]) for d in json.loads(result.stdout))
    # Both typed: no LML904, no "mypy could not run" note, and b.content is not flagged.
    assert found == [("--strict.py", 4, "LML003"), ("typed.py", 4, "LML003")]
    assert "mypy" not in result.stderr
    assert result.exit_code == 1


@pytest.mark.parametrize("output_format", ["json", "sarif"])
def test_a_broken_mypy_cache_folder_costs_the_run_its_cache_never_its_types(
    tmp_path: Path, output_format: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # mypy cannot write a cache there (issue 21: such a folder used to turn types off for the
    # whole run, LML904 on every file): the run keeps mypy's cache in a private folder, says
    # so, and judges with types.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "not-a-folder").write_text("x\n")
    monkeypatch.setenv("MYPY_CACHE_DIR", str(tmp_path / "not-a-folder"))
    (tmp_path / "safe.py").write_text(
        "from loomlint.content import LlmMessage, text_of\n\n"
        "def f(m: LlmMessage) -> str:\n    return text_of(m.content)\n"
    )
    (tmp_path / "bad.py").write_text(
        "from loomlint.content import LlmMessage\n\n"
        "def f(m: LlmMessage) -> str:\n    return str(m.content)\n"
    )
    result = CliRunner().invoke(main, ["check", "--format", output_format, "."])
    report = json.loads(result.stdout)
    if output_format == "sarif":
        found = [
            (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for r in report["runs"][0]["results"]
        ]
    else:
        found = [(d["code"], d["line"]) for d in report]
    assert found == [("LML003", 4)]
    assert result.exit_code == 1
    assert (
        f"note: mypy's cache folder '{tmp_path / 'not-a-folder'}' cannot be written ("
        in result.stderr
    )
