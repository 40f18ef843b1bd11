"""The guess decision on its own (``engine.guesses.guess_of``), and what ``TypeView.footing``
tells it of a node: a typed run's finding rests on a type or on the presets' data, else it is
a guess, and the guess says why."""

from __future__ import annotations

import json
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner
from expectations import REPO, expected_findings
from mypy_caches import MypyCaches

from loomlint.cli import main
from loomlint.engine.diagnostics import FileResult, Guess
from loomlint.engine.flow import Origin, OriginHow
from loomlint.engine.guesses import GUESS_NOTES, guess_of
from loomlint.engine.index import assign_keys, build_index
from loomlint.engine.positions import compute_positions
from loomlint.engine.typefacts import ContentKind, ExprFact, FileTypes, Footing
from loomlint.engine.typeview import TypeView
from loomlint.run.runner import guesses_warnings

READ = cst.parse_expression('turn["content"]')


def _origin(how: OriginHow = "read", *, grounded: bool = False) -> Origin:
    return Origin(READ, 1, "turn", how, message_evidence=True, grounded=grounded)


@pytest.mark.parametrize(
    ("finding", "origins", "expected"),
    [
        # A read of a message mypy types `Any`, into a value mypy types `Any`.
        (Footing.TYPED_ANY, [(_origin(), Footing.TYPED_ANY)], Guess.TYPED_ANY),
        # The read flagged itself: not covered, for its receiver is `Any`.
        (Footing.TYPED_ANY, [(_origin("unpack"), Footing.TYPED_ANY)], Guess.TYPED_ANY),
        (Footing.UNKNOWN, [(_origin(), Footing.TYPED_ANY)], Guess.TYPED_ANY),
        (Footing.MISSING_MODULE, [(_origin(), Footing.MISSING_MODULE)], Guess.MISSING_MODULE),
        # Both: the missing module is the remedy the note names.
        (
            Footing.TYPED_ANY,
            [(_origin(), Footing.TYPED_ANY), (_origin(), Footing.MISSING_MODULE)],
            Guess.MISSING_MODULE,
        ),
        # Stored where mypy gives it a type of its own (`c: str | list[...] = turn["content"]`).
        (Footing.TYPED, [(_origin(), Footing.TYPED_ANY)], None),
        # The presets' data knows the read (`response["output"]["message"]["content"]`).
        (Footing.TYPED_ANY, [(_origin(grounded=True), Footing.TYPED_ANY)], None),
        # One origin rests on a type: so does the value.
        (
            Footing.TYPED_ANY,
            [(_origin(), Footing.TYPED_ANY), (_origin(), Footing.TYPED)],
            None,
        ),
        (Footing.TYPED_ANY, [(_origin("typed"), Footing.TYPED)], None),
        # A read in a function mypy does not check, judged by its syntax alone.
        (Footing.UNCHECKED, [(_origin(), Footing.UNCHECKED)], Guess.UNCHECKED),
        (Footing.TYPED_ANY, [(_origin(), Footing.UNCHECKED)], Guess.UNCHECKED),
        # ... unless the presets' data knows it (`isinstance(m, LlmMessage)`), or the value
        # took a typed origin too.
        (Footing.UNCHECKED, [(_origin(grounded=True), Footing.UNCHECKED)], None),
        (Footing.UNCHECKED, [(_origin(), Footing.UNCHECKED), (_origin(), Footing.TYPED)], None),
        # Each kind's remedy in turn: install the module, have mypy check the function, type
        # the message.
        (
            Footing.UNCHECKED,
            [(_origin(), Footing.UNCHECKED), (_origin(), Footing.MISSING_MODULE)],
            Guess.MISSING_MODULE,
        ),
        (
            Footing.TYPED_ANY,
            [(_origin(), Footing.TYPED_ANY), (_origin(), Footing.UNCHECKED)],
            Guess.UNCHECKED,
        ),
        # A read in code mypy skips (a file opening with `# type: ignore`, an unreachable
        # branch), unless the presets' data knows it; its remedy comes before the unchecked
        # function's (mypy checks no function of a file it skips).
        (Footing.SKIPPED, [(_origin(), Footing.SKIPPED)], Guess.SKIPPED),
        (Footing.SKIPPED, [(_origin(grounded=True), Footing.SKIPPED)], None),
        (
            Footing.TYPED_ANY,
            [(_origin(), Footing.UNCHECKED), (_origin(), Footing.SKIPPED)],
            Guess.SKIPPED,
        ),
        # mypy's parser and LibCST's disagree on the read's line: not a typed-Any guess.
        (Footing.TYPED_ANY, [(_origin(), Footing.UNKNOWN)], None),
        # No origin at all: nothing to call a guess.
        (Footing.TYPED_ANY, [], None),
    ],
)
def test_a_finding_is_a_guess_only_when_every_origin_rests_on_no_type_and_no_data(
    finding: Footing, origins: list[tuple[Origin, Footing]], expected: Guess | None
) -> None:
    assert guess_of(finding, origins) is expected


SOURCE = """\
def f(turn, message):
    said = turn["content"]
    return said + message.content
"""


def _view(types: FileTypes | None) -> tuple[TypeView, dict[tuple[int, str], cst.BaseExpression]]:
    """The view, and the module's nodes by line and source text."""
    module = cst.parse_module(SOURCE)
    index = build_index(module)
    assign_keys(index, compute_positions(module))
    nodes = {(key[0], module.code_for_node(node)): node for node, key in index.keys.items()}
    return TypeView(types, index), nodes


def _types(**given: object) -> FileTypes:
    # The families of lines 2 and 3 as mypy's parser counts them, one member each.
    counts = {
        (2, "name:said"): 1,
        (2, "name:turn"): 1,
        (2, "index"): 1,
        (3, "name:said"): 1,
        (3, "name:message"): 1,
        (3, "attr:content"): 1,
    }
    return FileTypes(family_counts=counts, **given)  # type: ignore[arg-type]


def test_footing_says_what_mypy_types_say_of_a_node() -> None:
    any_value = ExprFact(kind=ContentKind.ANY)
    view, nodes = _view(
        _types(
            any_reads=frozenset({(2, "index", 0)}),
            exprs={
                (3, "name:said", 0): any_value,
                (3, "name:message", 0): ExprFact(kind=ContentKind.OTHER),
            },
            untyped=frozenset({(3, "attr:content", 0)}),
        )
    )
    assert view.footing(nodes[2, 'turn["content"]']) is Footing.TYPED_ANY
    assert view.footing(nodes[3, "said"]) is Footing.TYPED_ANY
    assert view.footing(nodes[2, "said"]) is Footing.TYPED  # an assignment's target: no fact
    assert view.footing(nodes[3, "message.content"]) is Footing.MISSING_MODULE
    assert view.footing(nodes[3, "message"]) is Footing.TYPED


def test_footing_of_a_field_read_typed_any_is_its_receivers_declared_field() -> None:
    # getattr(m, "content") of a typed message is `Any` to mypy, but the field is declared.
    view, nodes = _view(
        _types(exprs={(3, "name:said", 0): ExprFact(kind=ContentKind.ANY, field_origin=True)})
    )
    assert view.footing(nodes[3, "said"]) is Footing.TYPED


def test_footing_in_a_function_mypy_did_not_check_or_without_types() -> None:
    view, nodes = _view(_types(unchecked=((1, 3),), any_reads=frozenset({(2, "index", 0)})))
    assert view.footing(nodes[2, 'turn["content"]']) is Footing.UNCHECKED
    # Without types every node's footing says so: a finding nothing grounds is then a guess of
    # its own kind (``Guess.NO_TYPES``, decided by ``guess_of`` as the typed run's are).
    untyped, nodes = _view(None)
    assert untyped.footing(nodes[2, 'turn["content"]']) is Footing.NO_TYPES


def test_footing_in_code_mypy_skips() -> None:
    # Skipped comes first: the file or branch mypy skips holds the unchecked function.
    view, nodes = _view(_types(unchecked=((1, 3),), skipped=((2, 2),)))
    assert view.footing(nodes[2, 'turn["content"]']) is Footing.SKIPPED
    assert not view.covered(nodes[2, 'turn["content"]'])
    assert view.needs_evidence(nodes[2, 'turn["content"]'])
    assert view.footing(nodes[3, "said"]) is Footing.UNCHECKED


def test_footing_where_the_parsers_disagree_on_a_line_is_unknown() -> None:
    view, nodes = _view(FileTypes(family_counts={(2, "index"): 2}))
    assert view.footing(nodes[2, 'turn["content"]']) is Footing.UNKNOWN


WHY = (
    "rest on messages mypy types `Any` (a `dict[str, Any]`, a parameter declared `Any` or not "
    "annotated, an untyped library's value), which only their syntax says are content, and no "
    "preset knows those reads"
)
REMEDY = (
    "Declare the messages' types (the SDK's class, a TypedDict such as OpenAI's "
    "`ChatCompletionMessageParam`) to have them judged by types"
)
UNCHECKED_WHY = (
    "are in functions mypy does not check (no annotations, and check_untyped_defs is off), "
    "judged by syntax alone, and no preset knows those reads"
)
UNCHECKED_REMEDY = (
    "Set `check_untyped_defs = true` in your mypy configuration to have them judged by types"
)
SKIPPED_WHY = (
    "are in code mypy skips (a file whose first line is `# type: ignore`, a function of a module "
    "whose errors it ignores, a branch it deems unreachable), judged by syntax alone, and no "
    "preset knows those reads"
)
SKIPPED_REMEDY = (
    "Silence mypy's errors there with `disable_error_code` (a `# mypy: disable-error-code=...` "
    "line, or the module's override) instead of a leading `# type: ignore` or `ignore_errors`, "
    "under which mypy types nothing, and check a branch for another Python or platform with "
    "mypy's `python_version` or `platform` set to it, to have them judged by types"
)
LEFT_OUT = "not reported (--report-guesses, or `report-guesses = true`, reports them)"


def test_the_run_counts_typed_any_guesses_apart_and_says_why() -> None:
    results = [
        FileResult("a.py", guesses={Guess.TYPED_ANY: 2, Guess.MISSING_MODULE: 1}),
        FileResult("b.py", guesses={Guess.TYPED_ANY: 1}),
        FileResult("c.py", guesses={Guess.MISSING_MODULE: 3}),
    ]
    assert guesses_warnings(results) == [
        f"3 findings in 2 files {WHY}: they were {LEFT_OUT}. {REMEDY}"
    ]
    assert guesses_warnings(results, report_guesses=True) == [
        f"3 findings in 2 files {WHY}: they are reported as guesses. {REMEDY}"
    ]
    one = guesses_warnings([FileResult("a.py", guesses={Guess.TYPED_ANY: 1})])
    assert one == [
        f"1 finding in 1 file {WHY.replace('rest on', 'rests on', 1)}: it was {LEFT_OUT}. {REMEDY}"
    ]
    assert guesses_warnings(
        [FileResult("a.py", guesses={Guess.TYPED_ANY: 1})], report_guesses=True
    ) == [
        f"1 finding in 1 file {WHY.replace('rest on', 'rests on', 1)}: it is reported as a "
        f"guess. {REMEDY}"
    ]
    # The missing modules' guesses are unresolved_imports_warning's to count, with the modules.
    assert guesses_warnings([FileResult("c.py", guesses={Guess.MISSING_MODULE: 3})]) == []


def test_the_run_counts_guesses_in_functions_mypy_does_not_check_apart_with_their_remedy() -> None:
    results = [
        FileResult("a.py", guesses={Guess.UNCHECKED: 2, Guess.TYPED_ANY: 1}),
        FileResult("b.py", guesses={Guess.UNCHECKED: 1, Guess.MISSING_MODULE: 4}),
        FileResult("c.py"),
    ]
    assert guesses_warnings(results) == [
        f"1 finding in 1 file {WHY.replace('rest on', 'rests on', 1)}: it was {LEFT_OUT}. {REMEDY}",
        f"3 findings in 2 files {UNCHECKED_WHY}: they were {LEFT_OUT}. {UNCHECKED_REMEDY}",
    ]
    one = [FileResult("a.py", guesses={Guess.UNCHECKED: 1})]
    assert guesses_warnings(one, report_guesses=True) == [
        "1 finding in 1 file is in a function mypy does not check (no annotations, and "
        "check_untyped_defs is off), judged by syntax alone, and no preset knows those reads: "
        f"it is reported as a guess. {UNCHECKED_REMEDY}"
    ]


UNCHECKED_FIXTURE = REPO / "fixtures" / "analysis" / "unchecked_guesses.py"


def _guess_noted(message: str) -> Guess | None:
    return next((kind for kind, note in GUESS_NOTES.items() if message.endswith(note)), None)


def test_with_check_untyped_defs_the_same_functions_are_judged_by_types(
    tmp_path: Path, mypy_caches: MypyCaches, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixture's unannotated functions, in a project whose mypy checks them: where the
    fixture's own inline configuration turns that off, their reads are guesses for want of a
    checked function; where it does not, mypy types them, and judges `replied()`'s read by its
    type (a list of `LlmMessage`) while the others' receivers are `Any` to it."""
    mypy = "check_untyped_defs = true\n"
    (tmp_path / "pyproject.toml").write_text(f"[tool.mypy]\n{mypy}\n[tool.loomlint]\n")
    source = UNCHECKED_FIXTURE.read_text(encoding="utf-8")
    (tmp_path / "unchecked.py").write_text(source, encoding="utf-8")
    # The same lines, but for the one that turned the option off for the file.
    checked = source.replace("# mypy: no-check-untyped-defs\n", "\n", 1)
    assert checked != source
    (tmp_path / "checked.py").write_text(checked, encoding="utf-8")
    cache = mypy_caches.copy(tmp_path / "mypy-cache", mypy=mypy)
    monkeypatch.setenv("MYPY_CACHE_DIR", str(cache))
    monkeypatch.chdir(tmp_path)
    args = ["check", "--format", "json", "--no-cache", "unchecked.py", "checked.py"]
    result = CliRunner().invoke(main, [*args, "--report-guesses"])
    assert result.exit_code == 1, result.output + result.stderr
    reported = [
        (d["path"], d["line"], d["column"], d["code"], _guess_noted(str(d["message"])))
        for d in json.loads(result.stdout)
    ]
    # The fixture's findings, as its `expect` comments say, and which of them are guesses.
    findings = [
        f[1:] for f in expected_findings([UNCHECKED_FIXTURE], REPO, types=True, guesses=True)
    ]
    guesses = set(findings) - {
        f[1:] for f in expected_findings([UNCHECKED_FIXTURE], REPO, types=True)
    }
    replied = next(f for f in findings if "messages[-1].content" in source.splitlines()[f[0] - 1])
    assert len(guesses) == 4 and replied in guesses
    assert reported == [
        *[
            ("checked.py", *f, None if f not in guesses or f == replied else Guess.TYPED_ANY)
            for f in findings
        ],
        *[("unchecked.py", *f, Guess.UNCHECKED if f in guesses else None) for f in findings],
    ]
    default = CliRunner().invoke(main, args)
    assert [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(default.stdout)] == [
        *[("checked.py", *f) for f in findings if f not in guesses or f == replied],
        *[("unchecked.py", *f) for f in findings if f not in guesses],
    ]
    assert f"warning: 3 findings in 1 file {WHY}: they were {LEFT_OUT}. {REMEDY}\n" in (
        default.stderr
    )
    assert (
        f"warning: 4 findings in 1 file {UNCHECKED_WHY}: they were {LEFT_OUT}. "
        f"{UNCHECKED_REMEDY}\n" in default.stderr
    )


def test_the_run_counts_guesses_in_code_mypy_skips_apart_with_their_remedy() -> None:
    results = [
        FileResult("a.py", guesses={Guess.SKIPPED: 2, Guess.UNCHECKED: 1}),
        FileResult("b.py", guesses={Guess.SKIPPED: 1}),
    ]
    assert guesses_warnings(results) == [
        "1 finding in 1 file is in a function mypy does not check (no annotations, and "
        "check_untyped_defs is off), judged by syntax alone, and no preset knows those reads: "
        f"it was {LEFT_OUT}. {UNCHECKED_REMEDY}",
        f"3 findings in 2 files {SKIPPED_WHY}: they were {LEFT_OUT}. {SKIPPED_REMEDY}",
    ]
    assert guesses_warnings([FileResult("a.py", guesses={Guess.SKIPPED: 1})]) == [
        f"1 finding in 1 file {SKIPPED_WHY.replace('are in', 'is in', 1)}: it was {LEFT_OUT}. "
        f"{SKIPPED_REMEDY}"
    ]


SKIPPED_FIXTURE = REPO / "fixtures" / "analysis" / "skipped_file_guesses.py"


def test_a_file_mypy_skips_is_typed_once_its_errors_are_silenced_by_code_instead(
    tmp_path: Path, mypy_caches: MypyCaches, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The remedy the warning names, tried: the fixture as it is, whose leading `# type: ignore`
    makes mypy skip it, and under `# mypy: ignore-errors`, which makes mypy drop its functions'
    bodies (their reads guesses, but the one an SPI class grounds); under
    `# mypy: disable-error-code=...` mypy types it, and the reads of the unannotated and the
    `dict` parameters are guesses for their `Any` receivers. (The configuration is the
    unchecked functions' test's, whose mypy cache is built already.)"""
    mypy = "check_untyped_defs = true\n"
    (tmp_path / "pyproject.toml").write_text(f"[tool.mypy]\n{mypy}\n[tool.loomlint]\n")
    source = SKIPPED_FIXTURE.read_text(encoding="utf-8")
    assert source.startswith("# type: ignore\n")
    variants = {
        "skipped.py": source,
        "ignored.py": source.replace("# type: ignore", "# mypy: ignore-errors", 1),
        "typed.py": source.replace("# type: ignore", '# mypy: disable-error-code="union-attr"', 1),
    }
    for name, text in variants.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    cache = mypy_caches.copy(tmp_path / "mypy-cache", mypy=mypy)
    monkeypatch.setenv("MYPY_CACHE_DIR", str(cache))
    monkeypatch.chdir(tmp_path)
    args = ["check", "--format", "json", "--no-cache", *variants]
    result = CliRunner().invoke(main, [*args, "--report-guesses"])
    assert result.exit_code == 1, result.output + result.stderr
    reported = [
        (d["path"], d["line"], d["column"], d["code"], _guess_noted(str(d["message"])))
        for d in json.loads(result.stdout)
    ]
    assert reported == [
        ("ignored.py", 16, 12, "LML001", Guess.SKIPPED),
        ("ignored.py", 20, 31, "LML003", Guess.SKIPPED),
        ("ignored.py", 24, 12, "LML001", None),
        ("skipped.py", 16, 12, "LML001", Guess.SKIPPED),
        ("skipped.py", 20, 31, "LML003", Guess.SKIPPED),
        ("skipped.py", 24, 12, "LML001", None),
        ("typed.py", 16, 12, "LML001", Guess.TYPED_ANY),
        ("typed.py", 20, 31, "LML003", Guess.TYPED_ANY),
        ("typed.py", 24, 12, "LML001", None),
    ]
    assert f"warning: 4 findings in 2 files {SKIPPED_WHY}: they are reported as guesses." in (
        result.stderr
    )
