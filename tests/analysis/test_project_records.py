"""Without types, a read of `content` that nothing identifies is no message's when the records
the file defines or imports from the project declare what their content holds, of the kind the
read reaches, and none may hold content, and the file imports nothing of an SDK
(``Evidence.records_hold_other``). strands-agents' TypedDicts and gptme's `Message` are such
records."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

MODELS = textwrap.dedent(
    """\
    from typing import Any, TypedDict


    class Entry(TypedDict):
        role: str
        content: str


    class Page:
        content: bytes


    class Open:
        content: Any


    class Reply(TypedDict):
        content: str | list[dict[str, str]]
    """
)
# After a one-line header and a blank line: an item read at 4:15, an attribute read at 4:35.
READS = 'def read(m):\n    return f"{m[\'content\']}" + f"{m.content}"\n'
ITEM = (4, 15, "LML003")
ATTRIBUTE = (4, 35, "LML003")


def _check(path: str, *, cache: bool = False) -> list[tuple[int, int, str]]:
    # Guesses included: without types, a read no preset's data grounds is one, and the records
    # decide which of those reads are content reads at all.
    args = ["check", "--no-types", "--report-guesses", "--format", "json", path]
    if not cache:
        args.insert(1, "--no-cache")
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 1), result.output + result.stderr
    return [(d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)]


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "models.py").write_text(MODELS)
    monkeypatch.chdir(tmp_path)
    return root


def _module(package: Path, header: str) -> str:
    (package / "uses.py").write_text(f"{header}\n\n{READS}")
    return "app/uses.py"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        # Nothing says what a record holds: both reads may be a message's.
        ("import json", [ITEM, ATTRIBUTE]),
        # A TypedDict of text: its "content" key is no message's; `.content` is some other
        # object's, which no record here declares.
        ("from .models import Entry", [ATTRIBUTE]),
        # A class of bytes: `.content` is no message's, the key may be.
        ("from app.models import Page", [ITEM]),
        ("from .models import Entry, Page", []),
        # The module's own class counts as an imported one does.
        ("class Log:\n    content: str", [ITEM]),
        # A record that may hold content keeps every read.
        ("from .models import Entry, Page, Reply", [ITEM, ATTRIBUTE]),
        ("from .models import Entry, Page, Open", [ITEM, ATTRIBUTE]),
        # So does an SDK's module: the file reads its messages.
        ("import openai; from .models import Entry, Page", [ITEM, ATTRIBUTE]),
        # `import loomlint.content` binds `loomlint`: still the reference SPI's module.
        ("import loomlint.content; from .models import Entry, Page", [ITEM, ATTRIBUTE]),
        # (LangChain's messages are objects: its preset reads no `m["content"]` as one's.)
        (
            "from langchain_core.messages import AIMessage; from .models import Entry, Page",
            [ATTRIBUTE],
        ),
    ],
)
def test_the_records_a_module_holds_decide_its_unidentified_reads(
    package: Path, header: str, expected: list[tuple[int, int, str]]
) -> None:
    shift = header.count("\n")
    assert _check(_module(package, header)) == [
        (line + shift, column, code) for line, column, code in expected
    ]


def test_a_record_that_comes_to_hold_content_brings_the_reads_back(package: Path) -> None:
    path = _module(package, "from .models import Entry, Page")
    assert _check(path, cache=True) == []
    (package / "models.py").write_text(MODELS.replace("content: bytes", "content: str | list[Any]"))
    assert _check(path, cache=True) == [ITEM, ATTRIBUTE]


def test_a_package_under_src_is_the_projects_for_its_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tests/ beside src/: the tests import the package as installed, its records are the
    # project's own.
    package = tmp_path / "src" / "app"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(MODELS)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_uses.py").write_text(
        f"from app.models import Entry, Page\n\n{READS}"
    )
    monkeypatch.chdir(tmp_path)
    assert _check("tests/test_uses.py") == []


def test_an_installed_packages_records_do_not_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the project's own modules are read for their records: reading every installed
    # module a file imports would cost more than the file's analysis.
    site = tmp_path / "site"
    (site / "extrecords").mkdir(parents=True)
    (site / "extrecords" / "__init__.py").write_text(MODELS)
    project = tmp_path / "project"
    project.mkdir()
    (project / "uses.py").write_text(f"from extrecords import Entry, Page\n\n{READS}")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(project)
    assert _check("uses.py") == [ITEM, ATTRIBUTE]
