"""The guess decision on its own (``engine.guesses.guess_of``), and what ``TypeView.footing``
tells it of a node: a typed run's finding rests on a type or on the presets' data, else it is
a guess, and the guess says why."""

from __future__ import annotations

import libcst as cst
import pytest

from loomlint.engine.diagnostics import FileResult, Guess
from loomlint.engine.flow import Origin, OriginHow
from loomlint.engine.guesses import guess_of
from loomlint.engine.index import assign_keys, build_index
from loomlint.engine.positions import compute_positions
from loomlint.engine.typefacts import ContentKind, ExprFact, FileTypes, Footing
from loomlint.engine.typeview import TypeView
from loomlint.run.runner import typed_any_guesses_warning

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
        # Code mypy did not check: judged as --no-types judges it, and reported.
        (Footing.UNCHECKED, [(_origin(), Footing.UNCHECKED)], None),
        (Footing.TYPED_ANY, [(_origin(), Footing.UNCHECKED)], None),
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
    untyped, nodes = _view(None)
    assert untyped.footing(nodes[2, 'turn["content"]']) is Footing.UNKNOWN


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


def test_the_run_counts_typed_any_guesses_apart_and_says_why() -> None:
    results = [
        FileResult("a.py", typed_any_guesses=2, guesses=1),
        FileResult("b.py", typed_any_guesses=1),
        FileResult("c.py", guesses=3),
    ]
    assert typed_any_guesses_warning(results) == [
        f"3 findings in 2 files {WHY}: they were not reported (--report-guesses, or "
        f"`report-guesses = true`, reports them). {REMEDY}"
    ]
    assert typed_any_guesses_warning(results, report_guesses=True) == [
        f"3 findings in 2 files {WHY}: they are reported as guesses. {REMEDY}"
    ]
    one = typed_any_guesses_warning([FileResult("a.py", typed_any_guesses=1)])
    assert one == [
        f"1 finding in 1 file {WHY.replace('rest on', 'rests on', 1)}: it was not reported "
        f"(--report-guesses, or `report-guesses = true`, reports them). {REMEDY}"
    ]
    assert typed_any_guesses_warning(
        [FileResult("a.py", typed_any_guesses=1)], report_guesses=True
    ) == [
        f"1 finding in 1 file {WHY.replace('rest on', 'rests on', 1)}: it is reported as a "
        f"guess. {REMEDY}"
    ]
    assert typed_any_guesses_warning([FileResult("c.py", guesses=3)]) == []
