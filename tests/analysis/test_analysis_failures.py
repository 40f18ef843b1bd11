"""Bad input never crashes the run: each becomes an LML9xx diagnostic, other files are checked."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from loomlint.cli import main

if TYPE_CHECKING:
    from mypy.nodes import MypyFile

    from loomlint.engine.typefacts import FileTypes

BAD_USE = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage

    def f(m: LlmMessage) -> str:
        return f"{m.content}"
    """
)


def _check(tmp_path: Path, *extra: str) -> tuple[int, list[tuple[str, int, int, str]], str]:
    result = CliRunner().invoke(main, ["check", "--format", "json", *extra, str(tmp_path)])
    found = sorted(
        (Path(d["path"]).name, d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)
    )
    return result.exit_code, found, result.stderr


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_syntax_error_is_reported_and_other_files_still_checked(
    tmp_path: Path, types: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text("def broken(:\n    pass\n")
    (tmp_path / "good.py").write_text(BAD_USE)
    code, found, _ = _check(tmp_path, *([] if types else ["--no-types"]))
    assert found == [("broken.py", 1, 12, "LML901"), ("good.py", 4, 15, "LML003")]
    assert code == 2


def test_undecodable_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "latin.py").write_bytes(b"x = '\xe9t\xe9'\n")
    (tmp_path / "declared.py").write_bytes(b"# -*- coding: latin-1 -*-\nx = '\xe9t\xe9'\n")
    code, found, _ = _check(tmp_path, "--no-types")
    assert found == [("latin.py", 1, 1, "LML902")]
    assert code == 2


def test_nesting_beyond_any_parser_is_lml903(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deep.py").write_text("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    (tmp_path / "good.py").write_text(BAD_USE)
    code, found, _ = _check(tmp_path, "--no-types")
    assert found == [("deep.py", 1, 1, "LML903"), ("good.py", 4, 15, "LML003")]
    assert code == 2


def test_deep_but_valid_code_is_analysed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 190 nested lists (CPython accepts up to 200) and a 900-term chain: both far beyond
    # LibCST's recursion at the default stack; the analysis thread's deep stack takes them.
    # (Deeper than compilecheck.MAX_DEPTH is refused: LibCST's parser would take too long.)
    monkeypatch.chdir(tmp_path)
    nested = "[" * 190 + "]" * 190
    chain = " + ".join(["m.role"] * 900)
    (tmp_path / "deep_valid.py").write_text(
        BAD_USE + f"\nNESTED = {nested}\n\ndef g(m: LlmMessage) -> str:\n"
        f"    return {chain} + m.content\n"
    )
    code, found, _ = _check(tmp_path, "--no-types")
    column = len("    return ") + len(chain) + len(" + ") + 1
    assert found == [("deep_valid.py", 4, 15, "LML003"), ("deep_valid.py", 9, column, "LML001")]
    assert code == 1


CRASH_PLUGIN = textwrap.dedent(
    """\
    from mypy.plugin import Plugin


    class CrashOnBoom(Plugin):
        def get_function_hook(self, fullname):
            if fullname.endswith(".boom"):
                return _crash
            return None


    def _crash(ctx):
        raise RuntimeError("this plugin crashes mypy on boom()")


    def plugin(version):
        return CrashOnBoom
    """
)


def test_file_mypy_crashes_on_is_lml904_and_checked_without_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crashplugin.py").write_text(CRASH_PLUGIN)
    (tmp_path / "mypy.ini").write_text("[mypy]\nplugins = crashplugin.py\n")
    src = tmp_path / "src"
    src.mkdir()
    (src / "crashes.py").write_text(BAD_USE + "\n\ndef boom() -> None: ...\n\n\nboom()\n")
    (src / "typed.py").write_text(
        BAD_USE + "\n\nclass Blob:\n    content: bytes = b''\n\n\n"
        "def g(b: Blob) -> str:\n    return f'{b.content!r}'\n"
    )
    code, found, stderr = _check(src)
    # crashes.py: checked without types, so its finding is still there, plus LML904.
    # typed.py: checked with types, so the bytes field is not content.
    assert found == [
        ("crashes.py", 1, 1, "LML904"),
        ("crashes.py", 4, 15, "LML003"),
        ("typed.py", 4, 15, "LML003"),
    ]
    assert code == 1
    assert stderr.count("precision is reduced") == 1


def test_a_file_whose_types_cannot_be_read_is_lml904_and_checked_without_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from loomlint.engine import facts

    original = facts.FactCollector.collect

    def collect(self: facts.FactCollector, tree: MypyFile) -> FileTypes:
        if tree.fullname == "unreadable":
            raise ValueError("a made-up bug")
        return original(self, tree)

    monkeypatch.setattr(facts.FactCollector, "collect", collect)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "unreadable.py").write_text(BAD_USE)
    (tmp_path / "typed.py").write_text(BAD_USE)
    result = CliRunner().invoke(main, ["check", "--format", "json", "."])
    found = sorted(
        (d["path"], d["line"], d["column"], d["code"], d["message"])
        for d in json.loads(result.stdout)
    )
    lml003 = "content of `m` is coerced to str by an f-string; use text_of(...)"
    assert found == [
        ("typed.py", 4, 15, "LML003", lml003),
        (
            "unreadable.py",
            1,
            1,
            "LML904",
            "types unavailable: internal error while reading mypy's types (ValueError: a "
            "made-up bug); checked without types, so precision is reduced",
        ),
        ("unreadable.py", 4, 15, "LML003", lml003),
    ]
    assert result.exit_code == 1
