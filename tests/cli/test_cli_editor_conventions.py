"""--stdin-filename, --add-noqa and --show-fixes, through the real analysis (CliRunner)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_runner import FakeRunner, FakeRunResult

from loomlint.cli import main
from loomlint.engine.diagnostics import Diagnostic
from loomlint.project.config import Settings

Project = Callable[..., Path]


def check(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def findings(stdout: str) -> list[tuple[str, int, int, str]]:
    return [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(stdout)]


HELPERS = (
    "from loomlint.content import LlmMessage\n\n\n"
    "def get() -> LlmMessage:\n    raise NotImplementedError\n"
)
BUFFER = b"from helpers import get\n\nprint(str(get().content))\n"


# Without types, `get()`'s answer is a message only by its declared return type: a guess
# (``Guess.NO_TYPES``), asked for here.
@pytest.mark.parametrize(
    "types", [(), ("--no-types", "--report-guesses")], ids=["mypy", "no-types"]
)
def test_stdin_filename_checks_the_buffer_as_that_file(
    project: Project, types: tuple[str, ...]
) -> None:
    project(
        "pyproject.toml=[tool.loomlint]\n[tool.loomlint.per-file-ignores]\n"
        '"scripts/**" = ["LML003"]\n',
        "helpers.py=" + HELPERS,
        "app.py=print('the file on disk is not read')\n",
    )
    code, stdout, _ = check(*types, "--format", "json", "--stdin-filename", "app.py", stdin=BUFFER)
    assert (code, findings(stdout)) == (1, [("app.py", 3, 11, "LML003")])
    # A file that does not exist yet (an unsaved buffer) is checked the same way.
    code, stdout, _ = check(*types, "--format", "json", "--stdin-filename", "new.py", stdin=BUFFER)
    assert (code, findings(stdout)) == (1, [("new.py", 3, 11, "LML003")])
    # per-file-ignores apply as if the file were at that path.
    assert check(*types, "-q", "--stdin-filename", "scripts/tool.py", stdin=BUFFER) == (0, "", "")


def test_stdin_filename_usage_errors(project: Project, fake_runner: FakeRunner) -> None:
    project("app.py")
    assert check("--stdin-filename", "app.py", "app.py", stdin=b"") == (
        2,
        "",
        "error: --stdin-filename checks the source read from standard input; it cannot be "
        "combined with PATHS\n",
    )
    assert check("--stdin-filename", "app.py", "--add-noqa", stdin=b"") == (
        2,
        "",
        "error: --stdin-filename cannot be combined with --add-noqa\n",
    )
    assert fake_runner.calls == []
    assert check("--stdin-filename", "sub/../app.py", stdin=b"x = 1\n") == (
        0,
        "All checks passed.\n",
        "",
    )
    assert fake_runner.files == ["app.py"]
    assert fake_runner.sources == [{"app.py": b"x = 1\n"}]


SOURCE = textwrap.dedent(
    '''\
    import logging

    from loomlint.content import LlmMessage


    def f(m: LlmMessage) -> str:
        logging.info("%s", m.content)  # noqa: E501
        text = f"""header
    {m.content}
    footer"""
        total = len(m.content) + \\
            len(str(m.content))
        return text + str(m.content)  # a comment
    '''
)

WITH_NOQA = textwrap.dedent(
    '''\
    import logging

    from loomlint.content import LlmMessage


    def f(m: LlmMessage) -> str:
        logging.info("%s", m.content)  # noqa: E501, LML003
        # loomlint: ignore[LML003]
        text = f"""header
    {m.content}
    footer"""
        # loomlint: ignore[LML001]
        total = len(m.content) + \\
            len(str(m.content))  # noqa: LML003
        return text + str(m.content)  # a comment  # noqa: LML003
    '''
)


@pytest.mark.parametrize("types", [(), ("--no-types",)], ids=["mypy", "no-types"])
def test_add_noqa_suppresses_every_finding_and_a_second_run_is_clean(
    project: Project, types: tuple[str, ...]
) -> None:
    root = project("app.py=" + SOURCE)
    code, stdout, _ = check(*types, "--format", "json", "app.py")
    assert (code, findings(stdout)) == (
        1,
        [
            ("app.py", 7, 24, "LML003"),
            ("app.py", 9, 2, "LML003"),
            ("app.py", 11, 17, "LML001"),
            ("app.py", 12, 17, "LML003"),
            ("app.py", 13, 23, "LML003"),
        ],
    )
    assert check(*types, "--add-noqa", "app.py") == (
        0,
        "",
        ("note: checking without types (--no-types): precision is reduced\n" if types else "")
        + "Added suppressions of 5 findings in 1 file.\n",
    )
    assert (root / "app.py").read_text(encoding="utf-8") == WITH_NOQA
    assert check(*types, "--report-unused-suppressions", "-q", "app.py") == (0, "", "")
    # Nothing left to suppress: the file is written again unchanged.
    assert check(*types, "--add-noqa", "-q", "app.py") == (0, "", "")
    assert (root / "app.py").read_text(encoding="utf-8") == WITH_NOQA


class EditingRunner(FakeRunner):
    """A run during which someone saves the file."""

    def __call__(
        self,
        files: Sequence[Path | str],
        settings: Settings,
        *,
        progress: Callable[[int, int], None] | None = None,
        debug: bool = False,
        use_cache: bool = True,
        sources: Mapping[str, bytes] | None = None,
    ) -> FakeRunResult:
        Path("app.py").write_text("x = 2\n", encoding="utf-8")
        return super().__call__(files, settings, use_cache=use_cache, sources=sources)


def test_add_noqa_never_writes_a_file_that_changed_during_the_run(
    project: Project, fake_runner: FakeRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    root = project("app.py=x = 1\n")
    editing = EditingRunner(
        findings=[Diagnostic("app.py", 1, 1, 1, 2, "LML003", "content-coercion", "coerced")]
    )
    monkeypatch.setattr(sys.modules["loomlint.run.runner"], "run_check", editing)
    assert check("--add-noqa", "app.py") == (
        1,
        "",
        "warning: 'app.py' changed during the run; no suppression was added to it\n"
        "Added suppressions of 0 findings in 0 files.\n",
    )
    assert (root / "app.py").read_text(encoding="utf-8") == "x = 2\n"


def test_show_fixes(project: Project) -> None:
    project("app.py=" + SOURCE)
    code, stdout, _ = check("--show-fixes", "--select", "LML003", "--no-types", "app.py")
    assert code == 1
    assert stdout.splitlines()[-5:] == [
        "app.py:13:23: LML003 [*] content of `m` is coerced to str by str(); use text_of(...)",
        "    fix: Wrap in `text_of(...)`",
        "      13:19-13:33 -> text_of(m.content)",
        "      + import loomlint.content.text_of",
        "Found 4 findings (4 fixable with `loomlint fix`).",
    ]


def test_stdin_filename_needs_a_name_and_takes_dash_as_the_stdin_path(project: Project) -> None:
    project("helpers.py=" + HELPERS)
    assert check("--stdin-filename", "", stdin=BUFFER) == (
        2,
        "",
        "error: --stdin-filename needs the path the source is checked as, e.g. "
        "--stdin-filename src/app.py\n",
    )
    # Ruff's convention: `-` names standard input as the one path.
    code, stdout, _ = check(
        "--no-types",
        "--report-guesses",
        "--format",
        "json",
        "--stdin-filename",
        "app.py",
        "-",
        stdin=BUFFER,
    )
    assert (code, findings(stdout)) == (1, [("app.py", 3, 11, "LML003")])
    assert check("--stdin-filename", "app.py", "-", "helpers.py", stdin=BUFFER) == (
        2,
        "",
        "error: --stdin-filename checks the source read from standard input; it cannot be "
        "combined with PATHS\n",
    )


def test_check_fix_is_fix(project: Project) -> None:
    root = project("app.py=" + SOURCE)
    assert check("--fix", "--no-types", "--select", "LML001", "app.py") == (
        1,
        "app.py:11:17: LML001 content of `m` is used as one branch by len(), but it may be a "
        "list of parts; narrow it with isinstance() first, or use text_of(...)\n",
        "note: checking without types (--no-types): precision is reduced\n"
        "Fixed 0 findings in 0 files; 1 finding remaining.\n",
    )
    code, stdout, stderr = check("--fix", "--no-types", "app.py")
    fixed_by_check = (root / "app.py").read_text(encoding="utf-8")
    (root / "app.py").write_text(SOURCE, encoding="utf-8")
    by_fix = CliRunner().invoke(main, ["fix", "--no-types", "app.py"])
    assert (code, stdout, stderr) == (by_fix.exit_code, by_fix.stdout, by_fix.stderr)
    assert stderr == (
        "note: checking without types (--no-types): precision is reduced\n"
        "Fixed 4 findings in 1 file; 1 finding remaining.\n"
    )
    assert fixed_by_check == (root / "app.py").read_text(encoding="utf-8") != SOURCE
    for option in (["--format", "json"], ["--add-noqa"], ["--diff", "HEAD"]):
        assert check("--fix", *option, "app.py")[0::2] == (
            2,
            f"error: --fix (the same as `loomlint fix`) cannot be combined with {option[0]}\n",
        )


def test_check_help_says_the_preset_is_inferred() -> None:
    help_text = CliRunner().invoke(main, ["check", "--help"]).stdout
    assert " else loom)" not in help_text
    assert "inferred from the imports of the checked files" in " ".join(help_text.split())
