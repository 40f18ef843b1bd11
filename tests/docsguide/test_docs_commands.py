"""Every command in docs/ runs as written.

The commands are taken from the shell blocks (```sh, ```console, ```bash) of every page, and
from the `run:` steps and `script:` lines of the CI examples (```yaml) that call loomlint, with
the CI system's variables given the values a pull request would give them. Each block runs,
command after command, with bash, in a fresh project that looks like the one the docs talk
about: a git repository with `src/` and `tests/`, an `origin` remote whose `main` the branch
has moved on from, and `.venv` pointing at the environment under test.

A command ending in `# exits N` must exit N; any other must exit 0 or 1 (1: findings), never 2,
and a run that reports findings must show them. Commands that need the network are listed
below with the reason, and the test fails if the docs gain or lose one, so none is skipped
silently.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from mypy_caches import MypyCaches, only_its_configuration

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "example" / "chat.py"

# Commands that cannot run offline, and why. Matched after the CI variables are substituted.
NEEDS_NETWORK = {
    'pip install "git+https://github.com/<org>/loomlint"': "installs from GitHub",
    'pip install "git+https://github.com/<org>/loomlint@v0.1.0"': "installs from GitHub",
    'pip install "git+https://github.com/<org>/loomlint" -e .': "installs from GitHub",
    "git ls-remote https://github.com/<org>/loomlint HEAD": "asks GitHub",
}

# What a CI system puts in its variables on a pull request / merge request.
CI_VALUES = {
    "${{ github.base_ref }}": "main",
    "${{ matrix.shard }}": "1",
    "$CI_MERGE_REQUEST_DIFF_BASE_SHA": "origin/main",
}

_SHELL_BLOCK = re.compile(r"^ *```(?:sh|console|bash)\n(.*?)^ *```", re.M | re.S)
_YAML_BLOCK = re.compile(r"^ *```yaml\n(.*?)^ *```", re.M | re.S)
_YAML_COMMAND = re.compile(r"^\s*(?:-\s+)?(?:run:\s*)?(?P<command>(?:loomlint|pip) .*)$")
_EXITS = re.compile(r"#\s*exits (?P<code>\d+)")


@dataclass(frozen=True)
class Command:
    page: str
    text: str
    expected_exit: int | None

    def __str__(self) -> str:
        return f"{self.page}: {self.text}"


def _command(page: str, line: str) -> Command | None:
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    line = line.removeprefix("$ ")
    exits = _EXITS.search(line)
    # A trailing comment explains the command; it is not part of it.
    text = re.sub(r"\s+#\s.*$", "", line).strip()
    for variable, value in CI_VALUES.items():
        text = text.replace(variable, value)
    return Command(page, text, int(exits["code"]) if exits else None)


def blocks() -> list[tuple[str, list[Command]]]:
    found: list[tuple[str, list[Command]]] = []
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for block in _SHELL_BLOCK.findall(text):
            commands = [_command(page.name, line) for line in textwrap.dedent(block).splitlines()]
            found.append((page.name, [c for c in commands if c is not None]))
        for block in _YAML_BLOCK.findall(text):
            commands = []
            for line in block.splitlines():
                match = _YAML_COMMAND.match(line)
                if match is not None:
                    command = _command(page.name, match["command"].strip().strip("'"))
                    if command is not None:
                        commands.append(command)
            if commands:
                found.append((page.name, commands))
    return found


BLOCKS = blocks()


def test_only_the_commands_that_need_the_network_are_left_out() -> None:
    left_out = {c.text for _, commands in BLOCKS for c in commands if c.text in NEEDS_NETWORK}
    assert left_out == set(NEEDS_NETWORK)
    runnable = [c for _, commands in BLOCKS for c in commands if c.text not in NEEDS_NETWORK]
    assert len(runnable) >= 20  # a change that stops finding the docs' commands fails here
    assert all("<" not in c.text.replace("< src", "") for c in runnable), runnable


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "docs",
            "GIT_AUTHOR_EMAIL": "docs@example.com",
            "GIT_COMMITTER_NAME": "docs",
            "GIT_COMMITTER_EMAIL": "docs@example.com",
        },
    )


# The docs project's [tool.mypy]: mypy with the plugin, as docs/mypy-plugin.md configures it.
DOCS_MYPY = 'plugins = ["loomlint.mypy_plugin"]\n'


def docs_project(root: Path) -> Path:
    """The project the docs' commands assume, on a branch ahead of origin/main."""
    project = root / "project"
    (project / "src").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "chat"\nversion = "1.0"\n\n[tool.mypy]\n{DOCS_MYPY}\n[tool.loomlint]\n',
        encoding="utf-8",
    )
    (project / "src" / "app.py").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    (project / "tests" / "test_app.py").write_text(
        "from loomlint.content import LlmMessage, text_of\n\n\n"
        "def check(m: LlmMessage) -> None:\n    assert text_of(m.content)\n",
        encoding="utf-8",
    )
    # The docs run tools from the project's environment, `.venv`.
    (project / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    (project / ".gitignore").write_text(".venv\n.mypy_cache/\n.loomlint_cache/\n", encoding="utf-8")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "chat")
    git(root, "clone", "-q", "--bare", str(project), "origin.git")
    git(project, "remote", "add", "origin", str(root / "origin.git"))
    git(project, "fetch", "-q", "origin")
    git(project, "checkout", "-q", "-b", "feature")
    with (project / "src" / "app.py").open("a", encoding="utf-8") as handle:
        handle.write("\n\ndef shout(m: LlmMessage) -> str:\n    return m.content.upper()\n")
    git(project, "commit", "-q", "-am", "shout")
    return project


@pytest.mark.parametrize(
    ("page", "commands"),
    [b for b in BLOCKS if any(c.text not in NEEDS_NETWORK for c in b[1])],
    ids=[
        f"{page}:{commands[0].text[:40]}"
        for page, commands in BLOCKS
        if any(c.text not in NEEDS_NETWORK for c in commands)
    ],
)
def test_each_block_runs_as_written(
    tmp_path: Path, page: str, commands: list[Command], mypy_caches: MypyCaches
) -> None:
    project = docs_project(tmp_path)
    # The commands' mypy builds (loomlint check, mypy) start from typeshed built as the docs
    # project's configuration builds it, in a cache of that configuration's own.
    cache = mypy_caches.copy(tmp_path / "mypy-cache", mypy=DOCS_MYPY)
    with only_its_configuration(cache):
        _run_block(project, commands)


def _run_block(project: Path, commands: list[Command]) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    try:
        for command in commands:
            if command.text in NEEDS_NETWORK:
                continue
            run = subprocess.run(
                ["bash", "-c", command.text],
                cwd=project,
                capture_output=True,
                text=True,
                env=env,
                timeout=600,
                check=False,
            )
            output = f"{command}\nexit {run.returncode}\n{run.stdout}\n{run.stderr}"
            if command.expected_exit is not None:
                assert run.returncode == command.expected_exit, output
            else:
                assert run.returncode in (0, 1), output
            assert not re.search(r"^error:", run.stderr, re.M), output
            if run.returncode == 1 and command.text.startswith("loomlint check"):
                report = run.stdout or "".join(
                    p.read_text(encoding="utf-8") for p in project.glob("loomlint*.*")
                )
                report += "".join(
                    p.read_text(encoding="utf-8") for p in project.glob("gl-code-quality.json")
                )
                assert "LML0" in report, output
    finally:
        if (
            shutil.which("dmypy", path=str(Path(sys.executable).parent))
            and (project / ".dmypy.json").exists()
        ):
            subprocess.run(
                [str(project / ".venv" / "bin" / "dmypy"), "stop"],
                cwd=project,
                capture_output=True,
                check=False,
                timeout=60,
            )
        if any("loomlint daemon start" in command.text for command in commands):
            # A block that failed before its `loomlint daemon stop` must not leave it running.
            subprocess.run(
                ["bash", "-c", "loomlint daemon stop"],
                cwd=project,
                capture_output=True,
                env=env,
                check=False,
                timeout=60,
            )
