"""Without types, the classes a file imports from the project's other modules are evidence, as
its own classes are: found on disk beside it (relative imports) or above it (absolute ones)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

MODELS = textwrap.dedent(
    """\
    from email.message import EmailMessage
    from typing import TypedDict

    type Alias = list[int]  # Python 3.12 syntax: the stub reader skips it


    class Note:
        content: str


    class Letter(EmailMessage):
        pass


    class Board(TypedDict):
        notes: list[Note]
    """
)

USES = textwrap.dedent(
    """\
    from app.models import Board, Note
    from .models import Letter
    from loomlint.content import LlmMessage


    def notes(note: Note, board: Board, letter: Letter, m: LlmMessage) -> str:
        joined = "".join(n.content for n in board["notes"])
        return note.content.strip() + joined + str(letter.content) + str(m.content)
    """
)


def _check(root: Path, *paths: str) -> list[tuple[str, int, int, str]]:
    result = CliRunner().invoke(
        # Guesses included: without types, a read no preset's data grounds is one, and the
        # imported classes decide which of those reads are content reads at all.
        main,
        ["check", "--no-types", "--report-guesses", "--no-cache", "--format", "json", *paths],
    )
    assert result.exit_code in (0, 1), result.output + result.stderr
    return [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    package = tmp_path / "src" / "app"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(MODELS)
    (package / "uses.py").write_text(USES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_imported_project_classes_say_what_their_content_is(project: Path) -> None:
    # Only the message's content is reported: Note's is a str, Board's notes are Notes, and
    # Letter derives from an unrelated library's class.
    assert _check(project, "src/app/uses.py") == [("src/app/uses.py", 8, 70, "LML003")]


def test_a_module_that_is_not_found_is_no_evidence(project: Path) -> None:
    (project / "src" / "app" / "models.py").unlink()
    assert _check(project, "src/app/uses.py") == [
        ("src/app/uses.py", 7, 22, "LML003"),
        ("src/app/uses.py", 8, 12, "LML001"),
        ("src/app/uses.py", 8, 48, "LML003"),
        ("src/app/uses.py", 8, 70, "LML003"),
    ]


RECORDS = textwrap.dedent(
    """\
    class Reply:
        content: list[str]

        def __init__(self, content: list[str]) -> None:
            self.content = content


    class Memory:
        @property
        def content(self) -> list[bytes]:
            return []
    """
)

# The module imports an SDK's module too, so that its records alone do not say a read nothing
# identifies is no message's (``Evidence.records_hold_other``, test_project_records.py).
CONSTRUCTED = textwrap.dedent(
    """\
    from app.records import Memory, Reply
    from loomlint.content import LlmMessage

    def built() -> int:
        reply = Reply(content=["a"])
        return len(reply.content)


    def tested(memory: object) -> int:
        assert isinstance(memory, Memory)
        return len(memory.content)


    def unknown(other) -> int:
        return len(other.content)
    """
)


def test_an_imported_class_constructed_or_with_a_content_property_says_so(
    project: Path,
) -> None:
    # `Reply(...)` declares `content: list[str]`, `Memory.content` is a property returning a
    # list of bytes: neither is message content. Only the unknown receiver is reported.
    (project / "src" / "app" / "records.py").write_text(RECORDS)
    (project / "src" / "app" / "constructed.py").write_text(CONSTRUCTED)
    assert _check(project, "src/app/constructed.py") == [
        ("src/app/constructed.py", 15, 16, "LML001")
    ]
