"""`loomlint fix` end to end: exact rewritten text, --diff, idempotence, exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

BEFORE = textwrap.dedent(
    """\
    import logging

    from loomlint.content import LlmMessage

    def report(m: LlmMessage) -> str:
        logging.info("said %s", m.content)  # the log line
        return "said: " + m.content
    """
)

AFTER = textwrap.dedent(
    """\
    import logging

    from loomlint.content import LlmMessage, text_of

    def report(m: LlmMessage) -> str:
        logging.info("said %s", text_of(m.content))  # the log line
        return "said: " + text_of(m.content)
    """
)

CLEAN = (
    "from loomlint.content import LlmMessage\n\n\ndef role(m: LlmMessage) -> str:\n"
    "    return m.role\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BEFORE)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def _fix(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["fix", "--no-types", *args])
    return result.exit_code, result.stdout, result.stderr


def test_fix_rewrites_and_a_second_run_changes_nothing(project: Path) -> None:
    clean_stat = os.stat(project / "clean.py")
    assert _fix(".") == (
        0,
        "",
        "note: checking without types (--no-types): precision is reduced\n"
        "Fixed 2 findings in 1 file; 0 findings remaining.\n",
    )
    assert (project / "bad.py").read_text() == AFTER
    assert os.stat(project / "clean.py").st_mtime_ns == clean_stat.st_mtime_ns
    code, out, err = _fix(".", "--quiet")
    assert (code, out, err) == (0, "", "")
    assert (project / "bad.py").read_text() == AFTER


def test_diff_shows_the_patch_and_writes_nothing(project: Path) -> None:
    code, out, _ = _fix("--diff", "bad.py")
    assert code == 1
    assert out == (
        "--- a/bad.py\n"
        "+++ b/bad.py\n"
        "@@ -1,7 +1,7 @@\n"
        " import logging\n"
        " \n"
        "-from loomlint.content import LlmMessage\n"
        "+from loomlint.content import LlmMessage, text_of\n"
        " \n"
        " def report(m: LlmMessage) -> str:\n"
        '-    logging.info("said %s", m.content)  # the log line\n'
        '-    return "said: " + m.content\n'
        '+    logging.info("said %s", text_of(m.content))  # the log line\n'
        '+    return "said: " + text_of(m.content)\n'
    )
    assert (project / "bad.py").read_text() == BEFORE


def test_unfixable_findings_remain_and_exit_1(project: Path) -> None:
    (project / "bad.py").write_text(
        BEFORE + "\n\ndef g(m: LlmMessage) -> str:\n    return repr(m.content)\n"
    )
    code, out, err = _fix("bad.py")
    assert code == 1
    assert out == (
        "bad.py:11:17: LML003 content of `m` is coerced to str by repr(); use text_of(...)\n"
    )
    assert err.endswith("Fixed 2 findings in 1 file; 1 finding remaining.\n")


# Characters str.splitlines() breaks at but Python (and LibCST) do not: legal in comments.
NOT_LINE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@pytest.mark.parametrize(
    ("odd", "newline"),
    [("\x0c", "\n"), (NOT_LINE_BREAKS, "\n"), (NOT_LINE_BREAKS, "\r\n"), (NOT_LINE_BREAKS, "\r")],
)
def test_edits_land_on_the_finding_after_characters_splitlines_breaks_at(
    project: Path, odd: str, newline: str
) -> None:
    lines = [
        "from loomlint.content import LlmMessage",
        "",
        "",
        "def f(m: LlmMessage) -> str:",
        f"    # odd characters: {odd} end",
        "    size = len(m.content)",
        "    return str(m.content) * size",
        "",
    ]
    source = newline.join(lines)
    (project / "odd.py").write_bytes(source.encode())
    assert _fix("odd.py", "--quiet") == (
        1,
        "odd.py:6:16: LML001 content of `m` is used as one branch by len(), but it may be a "
        "list of parts; narrow it with isinstance() first, or use text_of(...)\n",
        "",
    )
    expected = source.replace("import LlmMessage", "import LlmMessage, text_of").replace(
        "return str(m.content)", "return text_of(m.content)"
    )
    assert (project / "odd.py").read_bytes() == expected.encode()


def _fix_in_subprocess(cwd: Path, *args: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [str(Path(sys.executable).with_name("loomlint")), "fix", "--no-types", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def test_show_fixes_lists_each_fix_made_after_the_findings_that_remain(project: Path) -> None:
    (project / "bad.py").write_text(
        BEFORE + "\n\ndef g(m: LlmMessage) -> str:\n    return repr(m.content)\n"
    )
    (project / "also.py").write_text(
        "from loomlint.content import LlmMessage, text_of\n\n\n"
        "def h(m: LlmMessage) -> str:\n    return str(m.content)\n"
    )
    assert _fix_in_subprocess(project, "--show-fixes", "--no-cache", ".") == (
        1,
        "bad.py:11:17: LML003 content of `m` is coerced to str by repr(); use text_of(...)\n"
        "\n"
        "Fixed 3 findings:\n"
        "also.py:5:16: LML003 [*] content of `m` is coerced to str by str(); use text_of(...)\n"
        "    fix: Wrap in `text_of(...)`\n"
        "      5:12-5:26 -> text_of(m.content)\n"
        "      + import loomlint.content.text_of\n"
        "bad.py:6:29: LML003 [*] content of `m` is coerced to str by logging.info(); "
        "use text_of(...)\n"
        "    fix: Wrap in `text_of(...)`\n"
        "      6:29-6:38 -> text_of(m.content)\n"
        "      + import loomlint.content.text_of\n"
        "bad.py:7:23: LML003 [*] content of `m` is coerced to str by `+` with a str; "
        "use text_of(...)\n"
        "    fix: Wrap in `text_of(...)`\n"
        "      7:23-7:32 -> text_of(m.content)\n"
        "      + import loomlint.content.text_of\n",
        "note: checking without types (--no-types): precision is reduced\n"
        "Fixed 3 findings in 2 files; 1 finding remaining.\n",
    )
    # Nothing left to fix: nothing listed.
    assert _fix_in_subprocess(project, "--show-fixes", "--quiet", "also.py") == (0, "", "")


def test_show_fixes_is_not_taken_with_diff(project: Path) -> None:
    assert _fix_in_subprocess(project, "--show-fixes", "--diff", "bad.py") == (
        2,
        "",
        "error: --show-fixes lists the fixes made; --diff shows them as a patch\n",
    )
    assert (project / "bad.py").read_text() == BEFORE
