"""The pre-commit hooks in `.pre-commit-hooks.yaml`, run by pre-commit itself.

Most runs use a `repo: local` copy of each hook that keeps every field of the manifest but runs
this environment's `loomlint` (fast). One run is the real thing: `pre-commit try-repo` on a
snapshot of this source tree, which makes pre-commit build its own virtualenv and pip-install
loomlint into it, as it does for a user.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from filelock import FileLock
from langchain_sample import APP, UNRESOLVED_WARNING, findings
from pre_commit.all_languages import languages
from pre_commit.clientlib import load_manifest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MANIFEST = PROJECT_ROOT / ".pre-commit-hooks.yaml"

BAD = (
    "from loomlint.content import LlmMessage\n"
    "def f(m: LlmMessage) -> str:\n"
    '    return f"{m.content}"\n'
)
CLEAN = (
    "from loomlint.content import LlmMessage, text_of\n"
    "def f(m: LlmMessage) -> str:\n"
    '    return f"{text_of(m.content)}"\n'
)
# What `loomlint check` says about BAD, with types and without.
BAD_FINDING = (
    "bad.py:3:15: LML003 [*] content of `m` is coerced to str by an f-string; use text_of(...)\n"
    "Found 1 finding (1 fixable with `loomlint fix`).\n"
)
NO_TYPES_NOTE = "note: checking without types (--no-types): precision is reduced\n"


def test_the_manifest_is_valid_and_as_documented() -> None:
    hooks = load_manifest(str(MANIFEST))  # pre-commit's own schema check
    by_id = {hook["id"]: hook for hook in hooks}
    assert sorted(by_id) == ["loomlint", "loomlint-no-types"]
    for hook_id, entry in (
        ("loomlint", "loomlint check"),
        ("loomlint-no-types", "loomlint check --no-types"),
    ):
        hook = by_id[hook_id]
        assert hook["entry"] == entry
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi"]
        assert hook["types"] == ["file"]
        assert hook["pass_filenames"] is True
        assert hook["require_serial"] is True
        assert hook["args"] == []


# --- helpers -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def pre_commit_home(run_folder: Path) -> Path:
    """One pre-commit store for the whole run, pytest-xdist's workers included, so that
    nothing is set up twice (pre-commit locks its store while it clones or installs)."""
    home = run_folder / "pre-commit-home"
    home.mkdir(exist_ok=True)
    return home


@pytest.fixture
def workdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pre_commit_home: Path
) -> Iterator[Path]:
    """A git repository holding a bad file, a clean file and a text file."""
    config = tmp_path / "gitconfig"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.invalid")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "SKIP", "PRE_COMMIT_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PRE_COMMIT_HOME", str(pre_commit_home))
    root = tmp_path / "work"
    root.mkdir()
    for name, text in (("bad.py", BAD), ("clean.py", CLEAN), ("notes.txt", "str(m.content)\n")):
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    yield root


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    # git says why it failed on stderr only: a bare CalledProcessError would hide it.
    assert result.returncode == 0, f"git {' '.join(args)} in {cwd}: {result.stderr}"
    return result.stdout


def pre_commit(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--color", "never"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def local_config(root: Path) -> Path:
    """The manifest's hooks as `repo: local` hooks that run this environment's loomlint."""
    script = shutil.which("loomlint", path=str(Path(sys.executable).parent))
    assert script is not None, "loomlint is not installed next to the test interpreter"
    language = "unsupported" if "unsupported" in languages else "system"
    hooks: list[dict[str, Any]] = []
    for hook in yaml.safe_load(MANIFEST.read_text(encoding="utf-8")):
        program, _, rest = hook["entry"].partition(" ")
        assert program == "loomlint"
        hooks.append({**hook, "language": language, "entry": f"{shlex.quote(script)} {rest}"})
    config = root / ".pre-commit-config.yaml"
    # JSON is YAML.
    config.write_text(json.dumps({"repos": [{"repo": "local", "hooks": hooks}]}), encoding="utf-8")
    git(root, "add", config.name)
    return config


# --- the hooks' fields, fast -------------------------------------------------------------------


def test_bad_file_fails_and_the_finding_is_shown(workdir: Path) -> None:
    local_config(workdir)
    result = pre_commit(workdir, "run", "--files", "bad.py", "clean.py", "notes.txt")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == (
        f"loomlint{'.' * 65}Failed\n"
        "- hook id: loomlint\n"
        "- exit code: 1\n"
        "\n"
        f"{BAD_FINDING}"
        "\n"
        f"loomlint (no types){'.' * 54}Failed\n"
        "- hook id: loomlint-no-types\n"
        "- exit code: 1\n"
        "\n"
        f"{NO_TYPES_NOTE}{BAD_FINDING}"
        "\n"
    )


def test_clean_file_passes(workdir: Path) -> None:
    local_config(workdir)
    result = pre_commit(workdir, "run", "--files", "clean.py")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (f"loomlint{'.' * 65}Passed\nloomlint (no types){'.' * 54}Passed\n")


def test_non_python_files_are_not_passed(workdir: Path) -> None:
    local_config(workdir)
    result = pre_commit(workdir, "run", "--files", "notes.txt")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        f"loomlint{'.' * 45}(no files to check)Skipped\n"
        f"loomlint (no types){'.' * 34}(no files to check)Skipped\n"
    )


# --- the real installed hook, once -------------------------------------------------------------


@pytest.fixture(scope="session")
def hook_repository(run_folder: Path) -> Path:
    """A committed snapshot of this source tree (tracked and new, not ignored, files).

    `try-repo` on the working tree itself would leave out new files that are not staged.
    One snapshot serves the whole run (the first worker to need it makes it, under a lock): the
    same repository at the same commit, whose hook environment pre-commit installs once in the
    run's store (``pre_commit_home``).
    """
    snapshot = run_folder / "loomlint-src"
    with FileLock(run_folder / "loomlint-src.lock"):
        if not (snapshot / ".git").is_dir():
            _snapshot(run_folder / "loomlint-src.partial", snapshot)
    return snapshot


def _snapshot(partial: Path, snapshot: Path) -> None:
    try:
        listing = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=PROJECT_ROOT,
            check=True,
            capture_output=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("the source tree is not a git checkout")
    shutil.rmtree(partial, ignore_errors=True)
    for name in filter(None, listing.decode("utf-8", "surrogateescape").split("\0")):
        source = PROJECT_ROOT / name
        if not source.is_file():
            continue  # deleted in the working tree
        target = partial / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    # Made before any test's own git settings (``workdir``): none of the user's.
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for role in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{role}_NAME"] = "Test"
        env[f"GIT_{role}_EMAIL"] = "test@example.invalid"
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)
    git(partial, "init", "-q", env=env)
    git(partial, "add", "-A", env=env)
    git(partial, "commit", "-qm", "snapshot", env=env)
    partial.rename(snapshot)


@pytest.mark.slow
def test_try_repo_installs_and_runs_the_real_hook(workdir: Path, hook_repository: Path) -> None:
    result = pre_commit(
        workdir, "try-repo", str(hook_repository), "loomlint", "--files", "bad.py", "clean.py"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    # After the "Using config" preamble (which names temporary paths), the hook's report.
    assert result.stdout.endswith(
        f"loomlint{'.' * 65}Failed\n- hook id: loomlint\n- exit code: 1\n\n{BAD_FINDING}\n"
    ), result.stdout


# LangChain code committed where the hook's own environment has no langchain-core: mypy cannot
# find the messages' types, so the typed hook judges those reads as --no-types would, and says so.
@pytest.mark.slow
def test_typed_hook_without_the_spi_package_finds_the_bugs_and_says_why(
    workdir: Path, hook_repository: Path
) -> None:
    (workdir / "chat.py").write_text(APP, encoding="utf-8")
    git(workdir, "add", "chat.py")
    result = pre_commit(workdir, "try-repo", str(hook_repository), "loomlint", "--files", "chat.py")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.endswith(
        f"loomlint{'.' * 65}Failed\n- hook id: loomlint\n- exit code: 1\n\n"
        "note: no preset configured; using langchain "
        "(from the imports of the checked files)\n"
        f"{UNRESOLVED_WARNING}"
        f"{findings('chat.py')}"
        "Found 2 findings.\n\n"
    ), result.stdout


# --- adopting with a baseline, as docs/pre-commit.md shows -------------------------------------


def documented_baseline_args() -> list[str]:
    doc = (PROJECT_ROOT / "docs" / "pre-commit.md").read_text(encoding="utf-8")
    for block in re.findall(r"^```yaml\n(.*?)^```", doc, flags=re.M | re.S):
        for repo in (yaml.safe_load(block) or {}).get("repos", []):
            for hook in repo.get("hooks", []):
                if "--baseline" in hook.get("args", []):
                    return list(hook["args"])
    raise AssertionError("docs/pre-commit.md shows no hook with --baseline in its args")


def test_the_documented_baseline_args_stop_only_new_findings(workdir: Path) -> None:
    args = documented_baseline_args()
    assert args == ["--baseline", "loomlint-baseline.json"]
    config = local_config(workdir)
    hooks = json.loads(config.read_text(encoding="utf-8"))["repos"][0]["hooks"]
    typed = [{**hook, "args": args} for hook in hooks if hook["id"] == "loomlint"]
    config.write_text(json.dumps({"repos": [{"repo": "local", "hooks": typed}]}), encoding="utf-8")
    script = shutil.which("loomlint", path=str(Path(sys.executable).parent))
    assert script is not None
    recorded = subprocess.run(
        [script, "check", "--write-baseline", "loomlint-baseline.json"],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (recorded.returncode, recorded.stderr) == (
        0,
        "Wrote 1 finding in 1 file to the baseline 'loomlint-baseline.json'.\n",
    )
    git(workdir, "add", "-A")
    result = pre_commit(workdir, "run", "--files", "bad.py", "clean.py")
    assert (result.returncode, result.stdout) == (0, f"loomlint{'.' * 65}Passed\n")
    # A new finding in the same file fails the commit; the recorded one stays hidden.
    (workdir / "bad.py").write_text(
        BAD + "\ndef g(m: LlmMessage) -> str:\n    return str(m.content)\n", encoding="utf-8"
    )
    result = pre_commit(workdir, "run", "--files", "bad.py")
    assert result.returncode == 1, result.stdout
    assert result.stdout == (
        f"loomlint{'.' * 65}Failed\n"
        "- hook id: loomlint\n"
        "- exit code: 1\n"
        "\n"
        "note: 1 finding recorded in the baseline is not shown\n"
        "bad.py:6:16: LML003 [*] content of `m` is coerced to str by str(); use text_of(...)\n"
        "Found 1 finding (1 fixable with `loomlint fix`).\n"
        "\n"
    )
