"""A type-aware run where mypy cannot find the module that defines the messages read (the SPI
package is not installed where loomlint runs) judges those files as --no-types would, and
says which imports were unresolved and what to do: it never passes silently."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_sample import APP, UNRESOLVED_WARNING, findings
from mypy_caches import MypyCaches

LOOMLINT = str(Path(sys.executable).with_name("loomlint"))
# requests' `.content` is bytes: its absence is no reason to warn.
UNRELATED = (
    "import requests\n\n\ndef body(url: str) -> bytes:\n    return requests.get(url).content\n"
)
CHECKED = ("app.py", "fetch.py")
FINDINGS = findings("app.py")


def _loomlint(root: Path, *args: str, timings: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LOOMLINT, *args],
        cwd=root,
        env={**os.environ, "LOOMLINT_TIMINGS": "1"} if timings else None,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def _check(root: Path, *args: str, timings: bool = False) -> subprocess.CompletedProcess[str]:
    return _loomlint(root, "check", "--preset", "langchain", *args, timings=timings)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "fetch.py").write_text(UNRELATED, encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_unresolved_spi_types_fall_back_and_warn(project: Path) -> None:
    # mypy told to ignore the installed packages: langchain_core cannot be found.
    (project / "mypy.ini").write_text("[mypy]\nno_site_packages = True\n", encoding="utf-8")
    result = _check(project, "-q")
    assert (result.returncode, result.stdout, result.stderr) == (1, FINDINGS, UNRESOLVED_WARNING)
    # Not cached as if typed: the second run (cache warm) says it again.
    again = _check(project, "-q")
    assert (again.returncode, again.stdout, again.stderr) == (1, FINDINGS, UNRESOLVED_WARNING)
    github = _check(project, "--format", "github", "-q")
    assert github.stdout.splitlines()[0].startswith(
        "::warning title=loomlint::mypy could not find langchain_core.messages, "
    )


@pytest.mark.slow
def test_resolved_spi_types_say_nothing(project: Path) -> None:
    result = _check(project, "-q")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == FINDINGS.replace("LML003 content", "LML003 [*] content")


@pytest.mark.slow
def test_an_unresolved_result_is_cached_until_the_package_is_found(project: Path) -> None:
    (project / "mypy.ini").write_text(
        "[mypy]\nno_site_packages = True\nmypy_path = stubs\n", encoding="utf-8"
    )
    (project / "stubs").mkdir()
    # The files named: the stubs added below are not checked, so the same files are built.
    first = _check(project, "-q", *CHECKED)
    assert (first.returncode, first.stdout, first.stderr) == (1, FINDINGS, UNRESOLVED_WARNING)
    warm = _check(project, "-q", *CHECKED, timings=True)
    assert "nothing the last build read has changed: no mypy build" in warm.stderr
    assert (warm.returncode, warm.stdout) == (1, FINDINGS)
    assert warm.stderr.endswith(UNRESOLVED_WARNING)
    # An entry no import can name (a tool's cache) where mypy looks for packages: still no
    # build.
    (project / "stubs" / ".ruff_cache").mkdir()
    again = _check(project, "-q", *CHECKED, timings=True)
    assert "nothing the last build read has changed: no mypy build" in again.stderr
    assert (again.returncode, again.stdout) == (1, FINDINGS)
    # The package appears where mypy looks for it: the files are judged with its types.
    package = project / "stubs" / "langchain_core"
    package.mkdir()
    (package / "__init__.pyi").write_text("", encoding="utf-8")
    (package / "messages.pyi").write_text(
        "from typing import Any\n\n\nclass AIMessage:\n"
        "    content: str | list[str | dict[str, Any]]\n    @property\n"
        "    def text(self) -> str: ...\n",
        encoding="utf-8",
    )
    found = _check(project, "-q", *CHECKED)
    assert (found.returncode, found.stderr) == (1, "")
    assert found.stdout == FINDINGS.replace("LML003 content", "LML003 [*] content")


@pytest.mark.slow
def test_only_the_reads_of_unresolved_types_are_judged_without_types(project: Path) -> None:
    # open_deep_research's shape: one file reads a message of a package mypy cannot find, and
    # a field of a class of its own project that holds a str; types still judge the second.
    (project / "mypy.ini").write_text("[mypy]\nno_site_packages = True\n", encoding="utf-8")
    (project / "notes.py").write_text(
        "class Note:\n    content: str = ''\n\n\ndef load() -> Note:\n    return Note()\n",
        encoding="utf-8",
    )
    (project / "app.py").write_text(
        "from notes import load\n"
        + APP
        + "\n\ndef tidy() -> str:\n    return load().content.strip()\n\n\n"
        + "def echo(reply: AIMessage) -> str:\n    text = reply.content\n    return text.strip()\n",
        encoding="utf-8",
    )
    result = _check(project, "-q")
    assert (result.returncode, result.stderr) == (1, UNRESOLVED_WARNING)
    assert result.stdout == (
        "app.py:6:31: LML003 content of `reply` is coerced to str by an f-string; use .text\n"
        "app.py:10:12: LML001 content of `reply` is used as one branch by `.split()`, but it "
        "may be a list of parts; narrow it with isinstance() first, or use .text\n"
        "app.py:19:12: LML001 content of `reply` (read at line 18, held in `text`) is used as "
        "one branch by `.strip()`, but it may be a list of parts; narrow it with isinstance() "
        "first, or use .text\n"
    )


# camel-ai's shape: a module decorates a method with a name imported from a module mypy cannot
# find (a tracing SDK), so the method's result is `Any` wherever it is called, and mypy names
# that `Any` after the decorating module (`app.agent.observe`), not after the missing module.
TRACED_AGENT = (
    "from missing_tracing_sdk import observe\n\n\n"
    "class Agent:\n    @observe()\n    def step(self) -> object:\n        return None\n"
)
AGENT_CALLER = (
    "from app.agent import Agent\n\n\n"
    "def reply_text() -> str:\n    reply = Agent().step()\n    return reply.content.strip()\n"
)
TRACED_WARNING = (
    "warning: mypy could not find missing_tracing_sdk, which defines the messages read in 1 "
    "file: their reads there are judged by the presets' data where it knows them; 1 finding "
    "there that rests on neither types nor preset data was not reported (--report-guesses, or "
    "`report-guesses = true`, reports them). Install the package where loomlint runs: in "
    "pre-commit, list it in the hook's additional_dependencies or use a `language: system` "
    "hook; otherwise install loomlint into the project's environment\n"
)


# As the plugin's tests configure it (``mypy_runs.PLUGIN_STRICT``): the same cache template.
PLUGIN_STRICT = 'plugins = ["loomlint.mypy_plugin"]\nstrict = true\n'


def _traced_project(root: Path, mypy: str) -> None:
    (root / "pyproject.toml").write_text(
        f"[tool.mypy]\n{mypy}\n"
        '[[tool.mypy.overrides]]\nmodule = ["missing_tracing_sdk"]\n'
        "ignore_missing_imports = true\n\n"
        '[[tool.mypy.overrides]]\nmodule = ["app.*"]\n'
        "disallow_untyped_decorators = false\nwarn_return_any = false\n\n"
        '[tool.loomlint]\npreset = ["langchain"]\n',
        encoding="utf-8",
    )


@pytest.mark.slow
def test_a_missing_module_is_named_where_its_any_is_read_in_another_module(
    tmp_path: Path, mypy_caches: MypyCaches
) -> None:
    """The warning names the module mypy could not find, found through the imports of the
    module that bound the name: read from its tree when mypy checked it in the same build,
    and from its file when mypy loaded it from its cache (which keeps no imports)."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "app" / "agent.py").write_text(TRACED_AGENT, encoding="utf-8")
    caller = tmp_path / "app" / "use.py"
    caller.write_text(AGENT_CALLER, encoding="utf-8")
    strict = "strict = true\n"
    _traced_project(tmp_path, strict)
    cache = str(mypy_caches.copy(tmp_path / "check-cache", mypy=strict))
    environment = {**os.environ, "MYPY_CACHE_DIR": cache}
    check = [LOOMLINT, "check", "-q", "--no-daemon", "app"]
    for _ in range(2):  # cold; then with only the caller edited, the agent from mypy's cache
        checked = subprocess.run(
            check, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600
        )
        assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", TRACED_WARNING)
        caller.write_text(caller.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    # mypy with the plugin, cold, then with only the caller edited (the agent from its
    # cache); the check after it takes the results the plugin recorded.
    _traced_project(tmp_path, PLUGIN_STRICT)
    mypy_cache = str(mypy_caches.copy(tmp_path / "mypy-cache", mypy=PLUGIN_STRICT))
    mypy = [str(Path(sys.executable).with_name("mypy")), "--cache-dir", mypy_cache, "app"]
    for edit in (True, False):
        ran = subprocess.run(mypy, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert (ran.returncode, ran.stdout, ran.stderr) == (
            0,
            "Success: no issues found in 3 source files\n",
            "",
        )
        if edit:
            text = caller.read_text(encoding="utf-8")
            caller.write_text(text + "\n# edited\n", encoding="utf-8")
    environment["MYPY_CACHE_DIR"] = mypy_cache
    checked = subprocess.run(
        check, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600
    )
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", TRACED_WARNING)


def test_a_cached_modules_imports_are_read_from_its_file_once_while_it_stays_the_same(
    tmp_path: Path,
) -> None:
    """Every file analysed after an edit may read the same cached module's ``Any``: its file
    is parsed for its imports once, and again once it changed."""
    import mypy.build  # noqa: F401  # mypy's modules in the order its own start imports them

    from loomlint.engine import facts

    agent = tmp_path / "agent.py"
    agent.write_text("from missing_tracing_sdk import observe\n", encoding="utf-8")
    facts._imports_in_text.cache_clear()
    for _ in range(2):
        assert facts._imported_modules_in_file(str(agent)) == {
            "observe": facts.Imported("missing_tracing_sdk", "observe")
        }
    assert facts._imports_in_text.cache_info().misses == 1
    agent.write_text("import langfuse.decorators as observe\n", encoding="utf-8")
    assert facts._imported_modules_in_file(str(agent)) == {
        "observe": facts.Imported("langfuse.decorators", None)
    }
    assert facts._imports_in_text.cache_info().misses == 2
    assert facts._imported_modules_in_file(str(tmp_path / "gone.py")) == {}


# A name the module mypy found does not define: installing the package is not the remedy.
MISSPELT = (
    "from loomlint.content import Message as Msg\n\n\n"
    "def show(m: Msg) -> None:\n    print(m.content)\n"
)
MISSPELT_WARNING = (
    "warning: mypy found no `Message` in loomlint.content, which the messages read in 1 file "
    "are typed by: their reads there are judged by the presets' data where it knows them; 1 "
    "finding there that rests on neither types nor preset data was not reported "
    "(--report-guesses, or `report-guesses = true`, reports them). mypy reports the import "
    "(attr-defined): correct the name, or install the version of the package that defines it\n"
)


@pytest.mark.slow
def test_a_name_missing_from_a_found_module_is_not_called_a_missing_package(
    tmp_path: Path,
) -> None:
    (tmp_path / "app.py").write_text(MISSPELT, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.loomlint]\n", encoding="utf-8")
    result = _loomlint(tmp_path, "check", "-q", "--no-cache", "app.py")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", MISSPELT_WARNING)
    reported = _loomlint(tmp_path, "check", "-q", "--no-cache", "--report-guesses", "app.py")
    assert (reported.returncode, reported.stdout) == (
        1,
        "app.py:5:11: LML003 [*] content of `m` is coerced to str by print(); use text_of(...) "
        "(a guess: mypy could not read this message's type, and no preset knows this read)\n",
    )
    assert reported.stderr == MISSPELT_WARNING.replace(
        "finding there that rests on neither types nor preset data was not reported "
        "(--report-guesses, or `report-guesses = true`, reports them)",
        "finding there rests on neither types nor preset data, reported as guesses",
    )
