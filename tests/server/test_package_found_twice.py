"""A package mypy finds under two module names (a folder above it has no ``__init__.py``:
"Source file found twice under different module names") stops mypy's build at each of its
files in turn. Its files are left out of the build together, each with one LML904 that says
why and what to change (mypy's own advice), and the rest of the project keeps its types:
``loomlint check`` in its own process, answered by the daemon, and the language server alike.
Before, the package's first file took the blame, the build was tried again four times, and
every file ended "mypy kept crashing on other files of this run"; where the file mypy named was
not one loomlint checks, every file was checked without types."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from daemon_harness import ANSWERED, Daemon, loomlint
from daemon_harness import runtime as runtime  # a fixture
from lsp_harness import typed_messages
from mypy.modulefinder import BuildSource

from loomlint.run.oracle import FoundTwice, counted_from, found_twice

PACKAGE_INIT = os.path.join("ns", "sub", "pkg", "__init__.py")
MESSAGES = [
    'app.py:3: error: Cannot find implementation or library stub for module named "x"',
    f"{PACKAGE_INIT}: error: Source file found twice under different module names: "
    '"pkg" and "ns.sub.pkg"',
    f"{PACKAGE_INIT}: note: See https://mypy.readthedocs.io/en/stable/running_mypy.html"
    "#mapping-file-paths-to-modules for more info",
]
USE = """\
from loomlint.content import LlmMessage
{imports}

def show(m: LlmMessage) -> str:
    return f"{{m.content}}"
"""
REASON = (
    'mypy finds this file\'s package under two names ("pkg" and "ns.sub.pkg", ns/sub/pkg), '
    "because a folder above it has no __init__.py. Add the missing __init__.py files, or set "
    "explicit_package_bases = true (with mypy_path naming the folder the package starts in) in "
    "mypy's configuration"
)


def test_the_package_and_the_folder_its_names_are_counted_from_are_read_from_mypys_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    assert found_twice(MESSAGES) == FoundTwice(
        path=os.path.abspath(PACKAGE_INIT),
        crawled="pkg",
        imported="ns.sub.pkg",
        base_dir=os.path.abspath(os.path.join("ns", "sub")),
    )
    module = "opentelemetry/instrumentation/openai/utils.py"
    found = found_twice(
        [
            f"{module}: error: Source file found twice under different module names: "
            '"opentelemetry.instrumentation.openai.utils" and "openai.utils"'
        ]
    )
    assert found is not None
    assert (found.crawled, found.imported, found.base_dir) == (
        "openai.utils",
        "opentelemetry.instrumentation.openai.utils",
        os.path.abspath("opentelemetry/instrumentation"),
    )
    # The same words whichever module of the package mypy stopped on.
    assert found.reason.startswith(
        'mypy finds this file\'s package under two names ("openai" and '
        '"opentelemetry.instrumentation.openai", opentelemetry/instrumentation/openai), '
    )
    assert (found_twice(MESSAGES) or _never()).reason == REASON
    # Two names of which neither extends the other say nothing of a folder: not this error.
    unrelated = 'a.py: error: Source file found twice under different module names: "a" and "b"'
    assert found_twice([unrelated]) is None
    assert found_twice(MESSAGES[:1]) is None
    sources = [
        BuildSource("ns/sub/pkg/a.py", "pkg.a", None, "ns/sub"),
        BuildSource("app.py", "app", None, "."),
        BuildSource(None, "typing", None, None),
    ]
    assert counted_from(found_twice(MESSAGES) or _never(), sources) == [
        os.path.abspath("ns/sub/pkg/a.py")
    ]


def _never() -> FoundTwice:
    raise AssertionError("found_twice found nothing")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    package = root / "ns" / "sub" / "pkg"  # ns/ and ns/sub/ have no __init__.py
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.mypy]\n\n[tool.loomlint]\npreset = ["loom"]\n', encoding="utf-8"
    )
    (root / "app.py").write_text(USE.format(imports=""), encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text(USE.format(imports="import ns.sub.pkg.b\n"), encoding="utf-8")
    (package / "b.py").write_text('NAME = "b"\n', encoding="utf-8")
    return root


def _findings(stdout: str) -> list[tuple[str, int, int, str, str]]:
    return [
        (d["path"], d["line"], d["column"], d["code"], d["message"]) for d in json.loads(stdout)
    ]


COERCED = "content of `m` is coerced to str by an f-string; use text_of(...)"
EXPECTED = [
    ("app.py", 5, 15, "LML003", COERCED),
    (
        "ns/sub/pkg/a.py",
        1,
        1,
        "LML904",
        f"types unavailable: {REASON}; checked without types, so precision is reduced",
    ),
    ("ns/sub/pkg/a.py", 6, 15, "LML003", COERCED),
]


def test_check_leaves_the_package_out_of_mypys_build_and_says_why(
    project: Path, runtime: Path
) -> None:
    result = loomlint(project, runtime, "check", "--no-daemon", "--format", "json")
    assert result.returncode == 1, result.stderr
    assert _findings(result.stdout) == EXPECTED
    # app.py kept its types: the note is about some files, not every one.
    assert "they were checked without types, so precision is reduced there" in result.stderr
    assert "every file was checked without types" not in result.stderr


def test_the_daemon_says_the_same(project: Path, runtime: Path) -> None:
    daemon = Daemon(project, runtime)
    try:
        result = loomlint(project, runtime, "check", "-v", "--format", "json")
        assert ANSWERED in result.stderr, result.stderr
        assert result.returncode == 1, result.stderr
        assert _findings(result.stdout) == EXPECTED
        # What the reason advises ends the conflict: the daemon builds again, with the package.
        for folder in ("ns", "ns/sub"):
            (project / folder / "__init__.py").write_text("", encoding="utf-8")
        result = loomlint(project, runtime, "check", "-v", "--format", "json")
        assert ANSWERED in result.stderr, result.stderr
        assert _findings(result.stdout) == [EXPECTED[0], EXPECTED[2]]
    finally:
        daemon.stop()


def test_the_language_server_shows_the_same(project: Path) -> None:
    # After the quick result (without types: no LML904), the typed one.
    typed = [("LML904", 0, 0, 0, 1), ("LML003", 5, 14, 5, 23)]
    assert typed_messages(project, "ns/sub/pkg/a.py", typed) == [EXPECTED[1][4], COERCED]
