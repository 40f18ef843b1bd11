"""A plugin that cannot run says why as a normal mypy error, exit status 2: a bad
``[tool.loomlint]`` (naming the key) or an unsupported mypy (naming the version). Never mypy's
"INTERNAL ERROR", a traceback, or a crashed daemon."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mypy_runs import write_project

CODE = """\
from loomlint.content import LlmMessage


def f(m: LlmMessage) -> None:
    print(m.content)
"""
BAD_CONFIGS = [
    (
        "bogus-key = 1\n",
        "pyproject.toml:6: error: loomlint: [tool.loomlint] unknown key 'bogus-key' (",
    ),
    (
        'preset = ["nope"]\n',
        "pyproject.toml:6: error: loomlint: [tool.loomlint] key 'preset': unknown preset 'nope' "
        "(available: anthropic, bedrock, cohere, langchain, loom, mcp, openai, pydantic-ai, "
        "semantic-kernel)",
    ),
    (
        'select = ["LML999"]\n',
        "pyproject.toml:6: error: loomlint: [tool.loomlint] key 'select': ",
    ),
]
# mypy with its version patched, as an unsupported mypy would load the plugin.
_OLD_MYPY = (
    "import sys, mypy.build\n"
    "mypy.build.__version__ = '1.11.2'\n"
    "from mypy.main import main\n"
    "main(args=sys.argv[1:])\n"
)


def _run(root: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(command), cwd=root, capture_output=True, text=True, timeout=180, check=False
    )


def _assert_clean(result: subprocess.CompletedProcess[str], expected: str) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert expected in output, output
    for crash in ("INTERNAL ERROR", "Traceback", "Daemon crashed", "please report a bug"):
        assert crash not in output, output


@pytest.mark.slow
@pytest.mark.parametrize(("loomlint", "expected"), BAD_CONFIGS)
def test_a_bad_loomlint_table_is_a_mypy_error_naming_the_key(
    tmp_path: Path, loomlint: str, expected: str
) -> None:
    write_project(tmp_path, loomlint=loomlint, files={"app.py": CODE})
    cache = str(tmp_path / ".cache")
    for _ in range(2):  # cold, then with whatever the first run cached
        result = _run(tmp_path, sys.executable, "-m", "mypy", "--cache-dir", cache, "app.py")
        _assert_clean(result, expected)


@pytest.mark.slow
def test_an_unsupported_mypy_is_a_mypy_error_naming_the_version(tmp_path: Path) -> None:
    write_project(tmp_path, files={"app.py": CODE})
    result = _run(tmp_path, sys.executable, "-c", _OLD_MYPY, "--no-incremental", "app.py")
    _assert_clean(
        result,
        "pyproject.toml:2: error: loomlint's mypy plugin supports mypy>=2.4,<3, but this is "
        "mypy 1.11.2. Install a supported mypy",
    )


@pytest.mark.slow
def test_dmypy_reports_a_bad_table_and_keeps_running(tmp_path: Path) -> None:
    write_project(tmp_path, loomlint='preset = ["nope"]\n', files={"app.py": CODE})
    dmypy = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(tmp_path / ".dmypy.json")]
    run = [*dmypy, "run", "--timeout", "120", "--", "--cache-dir", str(tmp_path / ".c"), "app.py"]
    expected = "pyproject.toml:6: error: loomlint: [tool.loomlint] key 'preset': unknown preset"
    try:
        _assert_clean(_run(tmp_path, *run), expected)
        _assert_clean(_run(tmp_path, *run), expected)  # the same daemon, asked again
        assert _run(tmp_path, *dmypy, "status").returncode == 0
        # Fixed and restarted, as docs/mypy-plugin.md says: the findings come back.
        write_project(tmp_path, files={"app.py": CODE})
        _run(tmp_path, *dmypy, "stop")
        fixed = _run(tmp_path, *run)
        assert fixed.returncode == 1, fixed.stdout + fixed.stderr
        assert "app.py:5: error: " in fixed.stdout
        assert "[loom-content-coercion]" in fixed.stdout
    finally:
        _run(tmp_path, *dmypy, "stop")
