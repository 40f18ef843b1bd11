"""A result cache a pull request cannot weaponise.

The tree under analysis is the attacker's: it may carry a ``.loomlint_cache`` with forged
entries, corrupt or deeply nested files, and links. Findings stay exact, ``fix`` writes only
what the analysis found, and nothing is written outside the cache folder.
"""

from __future__ import annotations

import json
import os
import stat
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

BEFORE = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage


    def report(m: LlmMessage) -> str:
        return "said: " + m.content
    """
)
AFTER = BEFORE.replace("import LlmMessage", "import LlmMessage, text_of").replace(
    '"said: " + m.content', '"said: " + text_of(m.content)'
)
FINDING = (
    "bad.py:5:23: LML003 [*] content of `m` is coerced to str by `+` with a str; use text_of(...)\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "loomlint.toml").write_text("")
    (root / "bad.py").write_text(BEFORE)
    monkeypatch.chdir(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    return root


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--no-types", "-q"])
    return result.exit_code, result.stdout


def _entries(project: Path) -> list[Path]:
    return sorted(
        path
        for path in (project / ".loomlint_cache").rglob("*.json")
        if path.parent != project / ".loomlint_cache"
    )


def test_a_forged_entry_changes_no_finding_and_injects_no_text(project: Path) -> None:
    assert _run("check") == (1, FINDING)
    [entry] = _entries(project)
    # The strongest forger: it copies a real entry (whatever precedes its JSON stays) and
    # changes only the findings, here to a "fix" that runs a command.
    raw = entry.read_text()
    prefix, body = raw[: raw.index("{")], json.loads(raw[raw.index("{") :])
    [finding] = body["diagnostics"]
    finding["fix"]["edits"][0]["replacement"] = "__import__('os').system('touch pwned')"
    entry.write_text(prefix + json.dumps(body))
    assert _run("fix") == (0, "")
    assert (project / "bad.py").read_text() == AFTER
    # A forged "nothing to report" is a miss too.
    (project / "bad.py").write_text(BEFORE)
    assert _run("check") == (1, FINDING)
    [entry] = _entries(project)
    raw = entry.read_text()
    prefix, body = raw[: raw.index("{")], json.loads(raw[raw.index("{") :])
    body["diagnostics"] = []
    entry.write_text(prefix + json.dumps(body))
    assert _run("check") == (1, FINDING)


@pytest.mark.parametrize(
    "content",
    ["[" * 200_000, '{"format": 1, "diagnostics": ' + "[" * 200_000, "\x00\xff garbage", ""],
    ids=["nested-list", "nested-entry", "garbage", "empty"],
)
def test_deep_corrupt_or_empty_cache_files_are_misses(project: Path, content: str) -> None:
    assert _run("check") == (1, FINDING)
    cache = project / ".loomlint_cache"
    for path in [*_entries(project), *cache.glob("*.json")]:
        path.write_text(content, encoding="latin-1")
    assert _run("check") == (1, FINDING)
    assert _run("check") == (1, FINDING)


def test_a_cache_folder_that_is_a_link_is_not_written_through(
    project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".loomlint_cache").symlink_to(elsewhere)
    assert _run("check") == (1, FINDING)
    assert _run("check") == (1, FINDING)
    assert os.listdir(elsewhere) == []


def test_a_link_inside_the_cache_folder_is_not_written_through(
    project: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    (project / ".loomlint_cache").mkdir()
    (project / ".loomlint_cache" / ".gitignore").symlink_to(victim)
    assert _run("check") == (1, FINDING)
    assert not victim.exists()
    [entry] = _entries(project)
    # An entry's name made a link to a file outside: the next write replaces the link.
    (project / "bad.py").write_text(BEFORE + "\n")
    entry.unlink()
    entry.symlink_to(victim)
    assert _run("check") == (1, FINDING)
    assert not victim.exists()


def test_the_key_lives_outside_the_tree_readable_only_by_its_owner(
    project: Path, tmp_path: Path
) -> None:
    assert _run("check") == (1, FINDING)
    key = tmp_path / "user-cache" / "loomlint" / "cache-key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert len(key.read_bytes()) == 32
    # Warm: the entry stands (the check still reports the finding, from the cache).
    assert _entries(project) != []


def test_a_key_folder_inside_the_project_is_refused(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A pull request could commit that key (and entries sealed with it): no cache then.
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / ".cache"))
    assert _run("check") == (1, FINDING)
    assert not (project / ".cache").exists()
    assert _entries(project) == []
