"""`loomlint check --diff` with the real analysis, in a real repository."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from loomlint.cli import main

Git = Callable[..., str]
Files = Callable[..., None]

HEADER = "from loomlint.content import LlmMessage\n\n\ndef f(m: LlmMessage) -> str:\n"
OLD_BAD = '    x = f"{m.content}"\n'
NEW_BAD = "    print(str(m.content))\n"
RETURN = "    return x\n"


def check(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.stdout, result.stderr


def test_only_findings_on_changed_lines(repo: Path, git: Git, files: Files) -> None:
    files("app.py=" + HEADER + OLD_BAD + RETURN, "old.py=" + HEADER + OLD_BAD + RETURN)
    git("add", "-A")
    git("commit", "-qm", "base")
    assert check("--diff", "HEAD") == (
        0,
        "All checks passed.\n",
        "note: 2 findings outside the lines changed since HEAD are not shown\n",
    )

    files("app.py=" + HEADER + NEW_BAD + OLD_BAD + RETURN, "new.py=" + HEADER + OLD_BAD + RETURN)
    assert check("--diff", "HEAD") == (
        1,
        "app.py:5:15: LML003 [*] content of `m` is coerced to str by str(); use text_of(...)\n"
        "new.py:5:12: LML003 [*] content of `m` is coerced to str by an f-string; "
        "use text_of(...)\n"
        "Found 2 findings (2 fixable with `loomlint fix`).\n",
        "note: 2 findings outside the lines changed since HEAD are not shown\n",
    )
    # The same run on its own: every finding.
    assert check("-q")[1].count("LML003") == 4


def test_a_syntax_error_in_a_changed_file_still_fails(repo: Path, git: Git, files: Files) -> None:
    files("app.py=" + HEADER + "    return ''\n", "broken_before.py=def (:\n")
    git("add", "-A")
    git("commit", "-qm", "base")
    # broken_before.py did not change: its failure is not this change's.
    assert check("--diff", "HEAD", "-q")[0] == 0
    files("app.py=" + HEADER + "    return ''\n\n\ndef g(:\n")
    exit_code, stdout, stderr = check("--diff", "HEAD")
    assert (exit_code, stderr) == (
        2,
        "note: 1 finding outside the lines changed since HEAD is not shown\n",
    )
    failure, summary = stdout.splitlines()
    # Where on line 8, and the parser's words, are the analysis's business, not --diff's.
    assert re.fullmatch(r"app\.py:8:\d+: LML901 syntax error: .+", failure)
    assert summary == "Found 1 finding."
