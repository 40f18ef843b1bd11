"""A file prepared before its types are known (the mypy plugin's worker prepares it while mypy
still checks) is judged as ``analyze_source`` judges it, whatever the types turn out to say:
when they carry unresolved imports, its flow is followed again with the project's imported
classes as evidence, on the parse, index and positions already made."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from loomlint.engine.analyze import (
    analyze_source,
    finish_analysis,
    prepare_analysis,
    read_suppressions,
    screen_source,
)
from loomlint.engine.diagnostics import FileResult
from loomlint.engine.typefacts import FileTypes
from loomlint.project.config import CliOverrides, Settings
from loomlint.project.settings import load_settings
from loomlint.run.deepstack import deep_stack

MODELS = textwrap.dedent(
    """\
    class Note:
        content: str


    class Board:
        notes: list[Note]
    """
)

USES = textwrap.dedent(
    """\
    from app.models import Board, Note
    from loomlint.content import LlmMessage


    def notes(note: Note, board: Board, m: LlmMessage) -> str:
        joined = "".join(n.content for n in board.notes)
        return note.content.strip() + joined + str(m.content)


    def first(note: Note) -> str:
        return _shout(note)


    def _shout(note: Note) -> str:
        return note.content.upper()
    """
)

# mypy could not find the module defining the messages: nothing is covered by types, so the
# reads are judged by syntax, and the project's classes are evidence.
UNRESOLVED = FileTypes(unresolved=("app.models",))
# With the project's classes as evidence, only the message's content is reported.
WITH_CLASSES = [(7, 48, "LML003")]
# Without them, Note's and Board's content looks like a message's too.
WITHOUT_CLASSES = [(6, 22, "LML003"), (7, 12, "LML001"), (7, 48, "LML003"), (15, 12, "LML001")]


@pytest.fixture
def uses(tmp_path: Path) -> Path:
    package = tmp_path / "src" / "app"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(MODELS)
    (package / "uses.py").write_text(USES)
    return package / "uses.py"


def _settings(root: Path) -> Settings:
    return load_settings(root, overrides=CliOverrides(presets=("loom",)))


def _found(result: FileResult) -> list[tuple[int, int, str]]:
    return [(d.line, d.column, d.code) for d in result.diagnostics]


def _prepared_then_judged(path: Path, settings: Settings, types: FileTypes | None) -> FileResult:
    screen = screen_source(str(path), path.read_bytes(), settings)
    prepared = prepare_analysis(screen, settings, imported=False)
    return finish_analysis(prepared, settings, types)


@pytest.mark.parametrize(
    ("types", "expected"),
    [(UNRESOLVED, WITH_CLASSES), (None, WITH_CLASSES), (FileTypes(), WITHOUT_CLASSES)],
    ids=["unresolved-imports", "no-types", "types"],
)
def test_a_file_prepared_ahead_is_judged_as_analyze_source_judges_it(
    uses: Path, types: FileTypes | None, expected: list[tuple[int, int, str]]
) -> None:
    settings = _settings(uses.parents[2])
    ahead = deep_stack(lambda: _prepared_then_judged(uses, settings, types))
    at_once = deep_stack(lambda: analyze_source(str(uses), uses.read_bytes(), settings, types))
    assert _found(ahead) == _found(at_once) == expected
    assert ahead.consulted == at_once.consulted
    # A result judged with the project's classes stands only while they are unchanged.
    models = str(uses.with_name("models.py"))
    assert ahead.consulted == ((models,) if expected == WITH_CLASSES else ())


SUPPRESSED = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage


    def show(m: LlmMessage) -> str:
        print(m.content)  # noqa: LML003
        return str(m.content)  # noqa: LML001
    """
)


@pytest.mark.parametrize("report_unused", [False, True], ids=["used-only", "report-unused"])
def test_suppressions_read_ahead_are_the_ones_judging_reads(
    tmp_path: Path, report_unused: bool
) -> None:
    # Read while the file waits for its types (the workers do, off mypy's path): judging
    # applies them as it applies those it reads itself.
    path = tmp_path / "show.py"
    path.write_text(SUPPRESSED)
    settings = load_settings(
        tmp_path,
        overrides=CliOverrides(report_unused_suppressions=report_unused),
    )

    def judged(ahead: bool) -> FileResult:
        screen = screen_source(str(path), path.read_bytes(), settings)
        prepared = prepare_analysis(screen, settings, imported=False)
        if ahead:
            read_suppressions(prepared)
            assert prepared.suppressions is not None
            assert [(s.line, s.column) for s in prepared.suppressions] == [(5, 23), (6, 28)]
        return finish_analysis(prepared, settings, None)

    ahead = deep_stack(lambda: judged(True))
    when_judged = deep_stack(lambda: judged(False))
    at_once = deep_stack(lambda: analyze_source(str(path), path.read_bytes(), settings))
    assert _found(ahead) == _found(when_judged) == _found(at_once)
    # Line 5's directive covers its finding; line 6's names another rule, LML100 if asked.
    assert _found(ahead) == [(6, 16, "LML003")] + ([(6, 36, "LML100")] if report_unused else [])


def test_a_file_naming_no_directive_is_not_tokenised_ahead(tmp_path: Path) -> None:
    path = tmp_path / "reply.py"
    path.write_bytes(b"def reply(m):\n    return m.content.strip()\n")
    settings = load_settings(tmp_path)
    screen = screen_source(str(path), path.read_bytes(), settings)
    prepared = deep_stack(lambda: prepare_analysis(screen, settings, imported=False))
    read_suppressions(prepared)
    assert prepared.suppressions is None
    path.write_bytes(path.read_bytes() + b"# noqa\n")
    screen = screen_source(str(path), path.read_bytes(), settings)
    prepared = deep_stack(lambda: prepare_analysis(screen, settings, imported=False))
    read_suppressions(prepared)
    assert prepared.suppressions is not None
    assert [(s.line, s.codes) for s in prepared.suppressions] == [(3, None)]
