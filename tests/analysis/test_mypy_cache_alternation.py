"""The user's `mypy` and `loomlint check` share one mypy cache, whatever plugins the project
configures: run alternately, neither finds the other's cache stale, so neither re-checks a
module (real runs of both, in subprocesses)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HELPERS = (
    "from loomlint.content import LlmMessage\n\n\n"
    "def body(message: LlmMessage) -> str:\n"
    '    return "x"\n'
)
APP = (
    "from loomlint.content import LlmMessage\n\n"
    "from helpers import body\n\n\n"
    "def show(message: LlmMessage) -> str:\n"
    "    return body(message) + str(message.content)\n"
)
BIN = Path(sys.executable).parent


def _environment() -> dict[str, str]:
    # Both use the project's own cache (.mypy_cache), as a user's runs do.
    environment = {k: v for k, v in os.environ.items() if k != "MYPY_CACHE_DIR"}
    environment["LOOMLINT_TIMINGS"] = "1"
    return environment


def _mypy(project: Path, *files: str) -> list[str]:
    """A plain `mypy -v` run; the modules it did not take from the cache, and why."""
    done = subprocess.run(
        [str(BIN / "mypy"), "-v", *(files or ("app.py", "helpers.py"))],
        cwd=project,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return re.findall(r"(Scheduling SCC .* as .*stale.*|Metadata abandoned .*)", done.stderr)


def _loomlint(project: Path, *files: str) -> subprocess.CompletedProcess[str]:
    """`loomlint check` (its result cache off, so mypy builds), which finds something."""
    done = subprocess.run(
        [str(BIN / "loomlint"), "check", "--no-cache", *files],
        cwd=project,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    return done


def _loomlint_rechecked(project: Path) -> str:
    """What the build of `loomlint check` re-checked."""
    done = _loomlint(project, "app.py", "helpers.py")
    assert "app.py:7:32: LML003" in done.stdout
    (line,) = re.findall(r"mypy re-checked .*", done.stderr)
    return line


@pytest.mark.parametrize(
    "plugins",
    [[], ["loomlint.mypy_plugin"], ["pydantic.mypy"], ["pydantic.mypy", "loomlint.mypy_plugin"]],
    ids=["none", "loomlint", "pydantic", "both"],
)
def test_mypy_and_loomlint_check_alternate_warm(tmp_path: Path, plugins: list[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.mypy]\nstrict = true\nplugins = {plugins!r}\n".replace("'", '"')
    )
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "app.py").write_text(APP)
    assert _mypy(tmp_path)  # cold: everything is checked
    nothing = "mypy re-checked 0 modules besides the checked files"
    assert _loomlint_rechecked(tmp_path) == nothing
    assert _mypy(tmp_path) == []
    assert _loomlint_rechecked(tmp_path) == nothing
    assert _mypy(tmp_path) == []


# One import cycle of three modules; only app.py reads content.
CYCLE = {
    "app.py": (
        "from loomlint.content import LlmMessage\n\n"
        "import models\n\n\n"
        "def show(message: LlmMessage) -> str:\n"
        "    return models.prefix() + str(message.content)\n"
    ),
    "models.py": ("import store\n\n\ndef prefix() -> str:\n    return store.name()\n"),
    "store.py": ("import app\n\n\ndef name() -> str:\n    return app.__name__\n"),
}


@pytest.mark.parametrize("plugins", [[], ["pydantic.mypy"]], ids=["none", "pydantic"])
def test_check_after_plain_mypy_checks_only_the_file_alone(
    tmp_path: Path, plugins: list[str]
) -> None:
    """After a plain `mypy`, the checked file is type-checked alone from mypy's cache: the rest
    of its import cycle is not checked again, and the finding is the one a cold check gives."""
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.mypy]\nstrict = true\nplugins = {plugins!r}\n".replace("'", '"')
    )
    for name, text in CYCLE.items():
        (tmp_path / name).write_text(text)
    assert _mypy(tmp_path, *CYCLE)  # cold: everything is checked
    done = _loomlint(tmp_path, "app.py")
    assert done.stdout.splitlines() == [
        "app.py:7:34: LML003 [*] content of `message` is coerced to str by str(); use text_of(...)",
        "Found 1 finding (1 fixable with `loomlint fix`).",
    ]
    assert re.findall(r"mypy re-checked .*", done.stderr) == [
        "mypy re-checked 0 modules besides the checked files"
    ]
    assert _mypy(tmp_path, *CYCLE) == []
