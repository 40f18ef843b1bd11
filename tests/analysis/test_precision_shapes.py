"""Issue 20's shapes beyond what the fixture comments say: the opt-in LML005 where content's type
is lost, the messages of a followed callee, the advice of the SPI a file imports, OpenAI-shaped
responses under LiteLLM, and the warning for an installed package that ships no types.

The fixtures (``fixtures/analysis/*.py``, ``fixtures/presets/*/*.py``) hold each shape's exact
findings with and without types; these tests run the same files for what comments cannot say.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from expectations import REPO

from loomlint.cli import main

ERASED = "fixtures/analysis/erased_content.py"
LOOMLINT = str(Path(sys.executable).with_name("loomlint"))


def _check(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache", *args])
    assert result.exit_code in (0, 1), result.output + result.stderr
    findings: list[dict[str, object]] = json.loads(result.stdout)
    return findings


def _loomlint(
    *args: str, cwd: Path, python_path: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``loomlint check --no-cache`` as a user runs it, where ``python_path`` is installed."""
    env = {**os.environ, "PYTHONPATH": str(python_path)} if python_path is not None else None
    return subprocess.run(
        [LOOMLINT, "check", "--no-cache", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def _keys(findings: list[dict[str, object]], code: str | None = None) -> list[tuple[object, ...]]:
    return [(d["line"], d["column"], d["code"]) for d in findings if code in (None, d["code"])]


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_erased_content_is_the_opt_in_lml005(
    types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixtures' LML005 findings (their `# expect` comments, checked with the rule
    selected by test_analysis_fixtures) are not reported by default."""
    monkeypatch.chdir(REPO)
    mode = [] if types else ["--no-types"]
    assert _keys(_check(*mode, "fixtures/analysis"), "LML005") == []
    selected = _check(*mode, "--extend-select", "LML005", ERASED)
    assert [d["message"] for d in selected if d["code"] == "LML005" and d["line"] == 63] == [
        "content of `m` is stored in `kept`, declared `object`, where its type is lost; "
        "declare the content type there, narrow it first, or use text_of(...)"
        if types
        else "content of `m` is stored or returned where `object` is declared, where its type "
        "is lost; declare the content type there, narrow it first, or use text_of(...)"
    ]


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_a_followed_callee_names_the_use_it_makes(
    types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    findings = _check(*([] if types else ["--no-types"]), ERASED)
    messages = {d["line"]: d["message"] for d in findings}
    declared = "declared `Any`"
    assert messages[59] == (
        f"content of `m` is passed to parameter `value` of `_shout()`, {declared}, where it is "
        "used as one branch by `.upper()` (line 33), but it may be a list of parts; narrow it "
        "with isinstance() first, or use text_of(...)"
    )
    assert messages[62] == (
        f"content of `m` is passed to parameter `value` of `_outer()`, {declared}, where it is "
        f"passed to parameter `value` of `_shout()`, {declared} (line 45), where it is used as "
        "one branch by `.upper()` (line 33), but it may be a list of parts; narrow it with "
        "isinstance() first, or use text_of(...)"
    )
    assert messages[50] == (
        "content of `m` is passed to parameter `value` of `self._format()`, declared `Any`, "
        "where it is coerced to str by an f-string (line 53); use text_of(...)"
    )


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_a_file_is_advised_the_fix_of_the_spi_it_imports(
    types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    mode = [] if types else ["--no-types"]
    # With types, `message` (not annotated) is `Any` to mypy: line 21 is a guess, asked for here.
    plain = _check(
        *mode,
        "--report-guesses",
        "--preset",
        "langchain",
        "fixtures/presets/langchain/lc_plain_module.py",
    )
    guess = (
        " (a guess: mypy types this message `Any`, and no preset knows this read)"
        if types
        else " (a guess: checked without types, and no preset knows this read)"
    )
    assert [(d["line"], d["message"]) for d in plain] == [
        (
            17,
            "content of `turn` is used as one branch by `.upper()`, but it may be a list of "
            "parts; narrow it with isinstance() first",
        ),
        (
            21,
            "content of `message` is coerced to str by an f-string; narrow it with "
            f"isinstance(..., str) first{guess}",
        ),
    ]
    # A module that imports LangChain keeps LangChain's advice, with and without types.
    langchain = _check(*mode, "--preset", "langchain", "fixtures/presets/langchain/lc_messages.py")
    assert all(str(d["message"]).endswith("use .text") for d in langchain)


def test_litellm_responses_are_openai_shaped(tmp_path: Path) -> None:
    (tmp_path / "client.py").write_text(
        "import litellm\n"
        "\n"
        "\n"
        "def ask(messages: list) -> str:\n"
        "    response = litellm.completion(model='gpt-4o', messages=messages)\n"
        "    answer = response.choices[0].message.content.strip()\n"
        "    return answer + messages[-1]['content'].strip()\n",
        encoding="utf-8",
    )
    result = _loomlint("--no-types", "--report-guesses", "client.py", cwd=tmp_path)
    # The request message's content is the union (a guess: nothing grounds `messages`); the
    # response's message holds text.
    assert (result.returncode, result.stdout) == (
        1,
        "client.py:7:21: LML001 content of `messages[-1]` is used as one branch by "
        "`.strip()`, but it may be a list of parts; narrow it with isinstance() first (a "
        "guess: checked without types, and no preset knows this read)\n"
        "Found 1 finding.\n",
    )
    assert "using openai (from the imports of the checked files)" in result.stderr


UNTYPED_SDK = """\
class Message:
    def __init__(self, content):
        self.content = content
"""
APP = """\
from untyped_chat_sdk import Message


def show(reply: Message) -> str:
    return f"assistant said: {reply.content}"
"""


UNTYPED_SDK_WARNING = (
    "warning: mypy does not read untyped_chat_sdk, which defines the messages read in 1 "
    "file: it is installed, but ships no type information (no py.typed marker, no stubs); "
    "their reads there are judged by the presets' data where it knows them; 1 finding "
    "there that rests on neither types nor preset data was not reported (--report-guesses, "
    "or `report-guesses = true`, reports them). Let mypy read its code: "
    "set `follow_untyped_imports = true` for it in your mypy configuration "
    '(`[[tool.mypy.overrides]]` with `module = ["untyped_chat_sdk", "untyped_chat_sdk.*"]`)'
    ", or install stubs for it if there are any (`ignore_missing_imports` would only "
    "silence mypy)\n"
)


def _untyped_sdk_and_app(tmp_path: Path) -> tuple[Path, Path]:
    """A folder where an SDK without type information is installed, and a project reading its
    messages."""
    site = tmp_path / "site"
    (site / "untyped_chat_sdk").mkdir(parents=True)
    (site / "untyped_chat_sdk" / "__init__.py").write_text(UNTYPED_SDK, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text(APP, encoding="utf-8")
    return site, project


@pytest.mark.slow
def test_an_installed_package_without_types_is_named_with_its_remedy(tmp_path: Path) -> None:
    site, project = _untyped_sdk_and_app(tmp_path)
    result = _loomlint("-q", "app.py", cwd=project, python_path=site)
    # `reply.content` rests on no type and no preset data: a guess, counted, not reported.
    assert (result.returncode, result.stdout, result.stderr) == (0, "", UNTYPED_SDK_WARNING)
    guessed = _loomlint("-q", "--report-guesses", "app.py", cwd=project, python_path=site)
    assert (guessed.returncode, guessed.stdout) == (
        1,
        "app.py:5:31: LML003 content of `reply` is coerced to str by an f-string; narrow it "
        "with isinstance(..., str) first (a guess: mypy could not read this message's type, "
        "and no preset knows this read)\n",
    )
    # The remedy works: mypy reads the package, whose `content` declares nothing.
    (project / "pyproject.toml").write_text(
        "[[tool.mypy.overrides]]\n"
        'module = ["untyped_chat_sdk", "untyped_chat_sdk.*"]\n'
        "follow_untyped_imports = true\n",
        encoding="utf-8",
    )
    followed = _loomlint("-q", "app.py", cwd=project, python_path=site)
    assert (followed.returncode, followed.stdout, followed.stderr) == (0, "", "")


def _timed_run(command: list[str], cwd: Path, site: Path) -> tuple[int, str, str, list[str]]:
    """A real run with ``site`` installed, LOOMLINT_TIMINGS set and Python's import times
    shown: its exit status, its stdout, its stderr without the timing lines, and those lines
    (the imports' too)."""
    python_path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env = {
        **os.environ,
        "PYTHONPATH": python_path,
        "LOOMLINT_TIMINGS": "1",
        "PYTHONPROFILEIMPORTTIME": "1",
    }
    ran = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600
    )
    lines = ran.stderr.splitlines(keepends=True)
    timings = [line for line in lines if line.startswith(("loomlint timings", "import time:"))]
    other = "".join(line for line in lines if line not in timings)
    return ran.returncode, ran.stdout, other, timings


@pytest.mark.slow
def test_a_cached_result_names_the_package_without_types_as_its_run_did(tmp_path: Path) -> None:
    """Which unread modules are installed without types is asked of the build's module finder
    when the file is analysed, and kept with its result: a check answered from the result
    cache, or from what mypy with loomlint's plugin recorded, warns as the analysing run did,
    without starting mypy to ask again."""
    site, project = _untyped_sdk_and_app(tmp_path)
    check = [LOOMLINT, "check", "-q", "--no-daemon", "app.py"]
    for expected_hits in ("0 hits", "1 hits"):
        code, stdout, stderr, timings = _timed_run(check, project, site)
        assert (code, stdout, stderr) == (0, "", UNTYPED_SDK_WARNING)
        assert any(f"result cache: {expected_hits}" in line for line in timings), timings
    # mypy with the plugin judges the file and records its result; the check after it
    # analyses nothing, and warns as the plugin's analysis found.
    shutil.rmtree(project / ".loomlint_cache")
    (project / "pyproject.toml").write_text(
        '[tool.mypy]\nplugins = ["loomlint.mypy_plugin"]\n', encoding="utf-8"
    )
    fresh_cache = str(tmp_path / "mypy-cache")
    mypy = [str(Path(sys.executable).with_name("mypy")), "--cache-dir", fresh_cache, "app.py"]
    code, stdout, stderr, timings = _timed_run(mypy, project, site)
    assert (code, stdout, stderr) == (
        1,
        'app.py:1: error: Skipping analyzing "untyped_chat_sdk": module is installed, but '
        "missing library stubs or py.typed marker  [import-untyped]\n"
        "app.py:1: note: See https://mypy.readthedocs.io/en/stable/running_mypy.html"
        "#missing-imports\n"
        "Found 1 error in 1 file (checked 1 source file)\n",
        "",
    )
    code, stdout, stderr, timings = _timed_run(check, project, site)
    assert (code, stdout, stderr) == (0, "", UNTYPED_SDK_WARNING)
    assert any("planned: 0 files to analyse" in line for line in timings), timings
    # Nor did it start mypy to ask which modules are installed without types.
    imported = {line.rpartition("|")[2].strip() for line in timings if "import time:" in line}
    assert "loomlint.cli" in imported
    assert sorted(m for m in imported if m.partition(".")[0] == "mypy") == []
