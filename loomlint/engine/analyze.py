"""One file: bytes -> parse -> one metadata wrapper -> flow -> positions -> rules -> diagnostics.

``analyze_source`` never raises for bad input: a file it cannot decode, parse or walk becomes an
LML9xx diagnostic. It does no I/O. Run it on a thread with a deep stack (``deep_stack``):
LibCST's parser and visitors recurse once per nesting level.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import cast

import libcst as cst
from libcst.metadata import CodeRange

from loomlint.catalog.rules import Catalog, load_catalog
from loomlint.engine.budget import Deadline, OverBudget
from loomlint.engine.callees import CalleeJudge, Outcome, Use, UsesOf
from loomlint.engine.checks import ALL_RULES, ContentFinding
from loomlint.engine.compilecheck import Verdict, judge, over_size, python_version
from loomlint.engine.diagnostics import Diagnostic, Edit, FileResult, Fix, Guess, Span
from loomlint.engine.flow import Basis, FlowAnalysis, Origin, Value
from loomlint.engine.guesses import GUESS_NOTES, guess_of
from loomlint.engine.imported import ImportedClasses
from loomlint.engine.index import ModuleIndex, assign_keys, build_index
from loomlint.engine.positions import compute_positions
from loomlint.engine.prescreen import names_content, tree_names_content
from loomlint.engine.sinks import Category, FixPlan, Misses, Position, PositionClassifier
from loomlint.engine.suppress import (
    Suppression,
    apply_suppressions,
    may_hold_suppression,
    parse_suppressions,
)
from loomlint.engine.typefacts import ContentKind, ExprFact, FileTypes, has_typed_content
from loomlint.engine.typeview import TypeView
from loomlint.project.config import Settings


class _Unanalysable(Exception):
    """The file cannot be analysed; carries the LML9xx diagnostic to report instead."""

    def __init__(self, code: str, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.column = column


def analyze_source(
    path: str,
    source: bytes,
    settings: Settings,
    types: FileTypes | None = None,
    *,
    types_failure: str | None = None,
) -> FileResult:
    """Analyse one file. ``types_failure`` says why types were requested but are missing.

    Where mypy could not find the module defining a content read's receiver (the file's
    ``unresolved`` imports), that read and what flows from it are typed ``Any``: they are
    judged as ``--no-types`` would judge them (``TypeView.covered``), the rest by types.

    It is ``prepare_analysis`` (what needs no types: parse, flow, positions) then
    ``finish_analysis`` (judging with the types), which the mypy plugin runs apart, the first
    while mypy is still checking other modules.
    """
    screen = screen_source(path, source, settings)
    if not screen.needs_analysis(types, types_failure):
        return nothing_to_analyse(path, types)
    prepared = prepare_analysis(screen, settings, imported=needs_imported_classes(types))
    return finish_analysis(prepared, settings, types, types_failure=types_failure)


def judge_prepared(
    prepared: PreparedAnalysis,
    settings: Settings,
    types: FileTypes | None,
    *,
    types_failure: str | None = None,
) -> FileResult:
    """``analyze_source``'s result for a file prepared before mypy had checked it (by
    ``loomlint check``'s first worker while mypy builds): its budget counts from now, as
    judging follows the flow further."""
    if not prepared.screen.needs_analysis(types, types_failure):
        return nothing_to_analyse(prepared.screen.path, types)
    prepared.deadline.restart()
    return finish_analysis(prepared, settings, types, types_failure=types_failure)


def nothing_to_analyse(path: str, types: FileTypes | None) -> FileResult:
    """The result of a file its screen finds nothing to analyse in (with its types' word on
    the imports mypy could not read, for the run's warning)."""
    return FileResult(
        path=path,
        unresolved_imports=types.unresolved if types else (),
        unresolved_untyped=types.unresolved_untyped if types else (),
    )


@dataclass(frozen=True, slots=True)
class Screen:
    """A file as CPython's parser sees it, and whether it may report without types naming one
    of its values content."""

    path: str
    source: bytes
    verdict: Verdict
    may_report: bool

    def needs_analysis(self, types: FileTypes | None, types_failure: str | None) -> bool:
        """Whether LibCST must analyse the file, once its types are known."""
        return self.may_report or types_failure is not None or has_typed_content(types)

    def without_tree(self) -> Screen:
        """The screen without CPython's syntax tree, which served it: preparing the file needs
        only the verdict, and a file held prepared should not hold the tree too."""
        return replace(self, verdict=replace(self.verdict, tree=None))


def screen_source(path: str, source: bytes, settings: Settings) -> Screen:
    verdict = over_size(source) or judge(source)
    may = (
        verdict.refusal is not None
        or (settings.report_unused_suppressions and may_hold_suppression(source))
        or (
            tree_names_content(verdict.tree, settings.spi.screening_words)
            if verdict.tree is not None
            else names_content(source, settings.spi.screening_words)
        )
    )
    return Screen(path, source, verdict, may)


def needs_imported_classes(types: FileTypes | None) -> bool:
    """Without types (or for the reads mypy could not type, an import being unresolved), the
    classes the file imports from the project's other modules are evidence too; elsewhere
    mypy has read those modules."""
    return types is None or bool(types.unresolved)


def _no_statements(line: int) -> tuple[int, int] | None:
    del line
    return None


@dataclass(slots=True)
class PreparedAnalysis:
    """What analysing a file does before it needs types."""

    screen: Screen
    # Whether the flow took the project's imported classes as evidence.
    imported: bool
    phase_seconds: dict[str, float]
    consulted: tuple[str, ...] = ()
    text: str = ""
    statement_range: Callable[[int], tuple[int, int] | None] = _no_statements
    # None when the file could not be parsed or walked (then ``problem`` says why).
    module: cst.Module | None = None
    index: ModuleIndex | None = None
    flow: Mapping[cst.BaseExpression, Value] = field(
        default_factory=dict[cst.BaseExpression, Value]
    )
    # Judging follows content into the module's callees with it (``FlowAnalysis.parameter_values``).
    analysis: FlowAnalysis | None = None
    positions: _LazyPositions | None = None
    problem: _Unanalysable | None = None
    deadline: Deadline = field(default_factory=Deadline)
    # The file's suppression directives, when read ahead of judging (``read_suppressions``).
    suppressions: list[Suppression] | None = None


def prepare_analysis(screen: Screen, settings: Settings, *, imported: bool) -> PreparedAnalysis:
    """Parse, index and follow the flow of a file, and compute its positions when the flow
    found anything (what judging needs besides types)."""
    prepared = PreparedAnalysis(screen, imported, {})
    clock = _PhaseClock(prepared.phase_seconds)

    def parse_and_follow() -> None:
        module = _parse(screen.source, screen.verdict)
        # The source as decoded, not module.code: regenerating the code costs a full pass.
        prepared.text = screen.source.decode(module.encoding, errors="replace")
        clock.lap("parse")
        index = build_index(module)
        positions = _LazyPositions(module, index)
        prepared.statement_range = positions.statement_range
        prepared.module, prepared.index, prepared.positions = module, index, positions
        _follow(prepared, settings, module, index, clock)
        if prepared.flow:
            positions.get()
            clock.lap("positions")

    _within_limits(prepared, parse_and_follow)
    return prepared


def read_suppressions(prepared: PreparedAnalysis) -> None:
    """Read the file's suppression directives now, for a file the mypy plugin's worker
    prepares ahead of its types: judging needs them only if it finds something, but tokenising
    a long file for its comments can cost more than the rest of its judging, and that
    judgement is what mypy's process waits for. (``loomlint check``'s pool does not: nothing
    waits on its judgements but the run's end, and most files never need them.) A file that
    names no directive is not tokenised."""
    if prepared.suppressions is None and may_hold_suppression(prepared.screen.source):
        prepared.suppressions = parse_suppressions(prepared.text)


def _within_limits(prepared: PreparedAnalysis, step: Callable[[], None]) -> None:
    """Runs a step of preparing ``prepared``; a file it cannot analyse (unparsable, nested too
    deeply, over its budget) gets the problem as its finding instead."""
    try:
        step()
    except _Unanalysable as problem:
        prepared.problem = problem
    except RecursionError:
        prepared.problem = _Unanalysable("LML903", "the file is nested too deeply to analyse")
    except OverBudget:
        prepared.problem = _over_budget(prepared.deadline)


def _follow(
    prepared: PreparedAnalysis,
    settings: Settings,
    module: cst.Module,
    index: ModuleIndex,
    clock: _PhaseClock,
) -> None:
    """Follow the flow of a parsed file, taking the project's imported classes as evidence
    if ``prepared.imported`` says so."""
    classes = ImportedClasses.of(prepared.screen.path) if prepared.imported else None
    analysis = FlowAnalysis(
        module, index, settings.spi, load_catalog().unrelated, prepared.deadline, classes
    )
    prepared.flow = analysis.run()
    prepared.analysis = analysis
    prepared.consulted = analysis.consulted
    clock.lap("flow")


def followed_again(
    prepared: PreparedAnalysis, settings: Settings, *, imported: bool
) -> PreparedAnalysis:
    """``prepared`` with its flow followed again, taking the project's imported classes as
    evidence or not (``imported``): the flow is all that depends on it, so the parse, the
    index and the positions stand (they cost more than the flow)."""
    module, index, positions = prepared.module, prepared.index, prepared.positions
    if module is None or index is None or positions is None:
        return prepare_analysis(prepared.screen, settings, imported=imported)
    again = PreparedAnalysis(
        prepared.screen,
        imported,
        {phase: s for phase, s in prepared.phase_seconds.items() if phase != "flow"},
        text=prepared.text,
        statement_range=prepared.statement_range,
        module=module,
        index=index,
        positions=positions,
        suppressions=prepared.suppressions,
    )
    clock = _PhaseClock(again.phase_seconds)
    _within_limits(again, lambda: _follow(again, settings, module, index, clock))
    return again


def _over_budget(deadline: Deadline) -> _Unanalysable:
    return _Unanalysable(
        "LML903",
        f"the analysis of this file took more than its {deadline.seconds:g} s budget; "
        "it was not checked",
    )


def finish_analysis(
    prepared: PreparedAnalysis,
    settings: Settings,
    types: FileTypes | None,
    *,
    types_failure: str | None = None,
) -> FileResult:
    """Judge a prepared file with its types (``analyze_source``'s result)."""
    if prepared.imported != needs_imported_classes(types):
        # Prepared for types without unresolved imports, which these have: the flow must
        # take the project's imported classes as evidence after all.
        prepared = followed_again(prepared, settings, imported=needs_imported_classes(types))
    path = prepared.screen.path
    source = prepared.screen.source
    unresolved = types.unresolved if types is not None else ()
    catalog = load_catalog()
    result = FileResult(
        path=path,
        unresolved_imports=unresolved,
        unresolved_untyped=types.unresolved_untyped if types is not None else (),
        phase_seconds=dict(prepared.phase_seconds),
        consulted=prepared.consulted,
    )
    diagnostics: list[Diagnostic] = []
    clock = _PhaseClock(result.phase_seconds)
    module, index, positions = prepared.module, prepared.index, prepared.positions
    analysis = prepared.analysis
    if prepared.problem is not None:
        diagnostics.append(_analysis_diagnostic(catalog, path, prepared.problem))
        types_failure = None  # not analysed at all: whether mypy could type it is moot
    elif (
        module is not None and index is not None and analysis is not None and positions is not None
    ):
        try:
            if prepared.flow or has_typed_content(types):
                found = positions.get()
                clock.lap("positions")
                diagnostics.extend(
                    _check(path, module, index, found, analysis, settings, catalog, types)
                )
                # Judging may read more of the project's classes (a class a comparison calls).
                result.consulted = analysis.consulted
                clock.lap("judging")
        except RecursionError:
            diagnostics.append(
                _analysis_diagnostic(
                    catalog,
                    path,
                    _Unanalysable("LML903", "the file is nested too deeply to analyse"),
                )
            )
            types_failure = None
        except OverBudget:
            diagnostics.append(_analysis_diagnostic(catalog, path, _over_budget(prepared.deadline)))
            types_failure = None
    result.degraded = types_failure is not None
    if types_failure is not None:
        diagnostics.append(
            _analysis_diagnostic(
                catalog,
                path,
                _Unanalysable(
                    "LML904",
                    f"types unavailable: {types_failure}; checked without types, "
                    "so precision is reduced",
                ),
            )
        )
    enabled = [d for d in diagnostics if settings.is_code_enabled(d.code, path)]
    if prepared.suppressions is not None:
        suppressions = prepared.suppressions
    elif may_hold_suppression(source) and (enabled or settings.report_unused_suppressions):
        # Tokenising for comments is dear: with nothing to suppress, only unused ones matter.
        suppressions = parse_suppressions(prepared.text)
    else:
        suppressions = []
    result.diagnostics = apply_suppressions(
        enabled,
        suppressions,
        prepared.statement_range,
        report_unused=settings.report_unused_suppressions,
        path=path,
        is_enabled=lambda code: settings.is_code_enabled(code, path),
    )
    # The guesses no suppression covers count for the run's note; they are reported only on
    # request.
    result.guesses = dict(Counter(d.guess for d in result.diagnostics if d.guess is not None))
    if not settings.report_guesses:
        result.diagnostics = [d for d in result.diagnostics if d.guess is None]
    result.diagnostics.sort(key=lambda d: d.sort_key)
    result.diagnostics = _told_apart(result.diagnostics)
    return result


def _told_apart(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Each finding's message is its own on its line: a later one that would repeat an earlier
    one's says where it is. mypy keeps one error per message and line (``str(m.content) +
    str(m.content)`` would lose its second finding in the plugin), and a report without
    columns would show the same line twice."""
    said: set[tuple[int, str]] = set()
    told: list[Diagnostic] = []
    for diagnostic in diagnostics:
        key = (diagnostic.line, diagnostic.message)
        if key in said:
            again = f"{diagnostic.message} (again on this line, at column {diagnostic.column})"
            diagnostic = replace(diagnostic, message=again)
        said.add(key)
        told.append(diagnostic)
    return told


def _parse(source: bytes, verdict: Verdict) -> cst.Module:
    """Parse with LibCST, unless CPython's verdict refuses the file (see ``compilecheck``).

    Syntax errors CPython cannot parse past are LibCST's to judge (it accepts syntax newer
    than the running Python); CPython then words the message, since it says where and why
    more precisely. A file CPython compiles and LibCST cannot parse is too complex for LibCST.
    """
    if verdict.refusal is not None:
        refusal = verdict.refusal
        raise _Unanalysable(refusal.code, refusal.message, refusal.line, refusal.column)
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        message = exc.message.removeprefix("parser error: ")
        if verdict.compiles:
            raise _Unanalysable(
                "LML903",
                f"{python_version()} compiles the file but LibCST's parser cannot parse it "
                f"({message}); it was not checked",
                exc.editor_line,
                exc.editor_column,
            ) from None
        cpython_error = verdict.syntax_error
        if cpython_error is not None:
            raise _Unanalysable(
                "LML901",
                f"syntax error: {cpython_error.msg}; the file was not checked",
                cpython_error.lineno or 1,
                cpython_error.offset or 1,
            ) from None
        raise _Unanalysable(
            "LML901",
            f"syntax error: {message}; the file was not checked",
            exc.editor_line,
            exc.editor_column,
        ) from None
    except (UnicodeDecodeError, LookupError) as exc:
        raise _Unanalysable(
            "LML902", f"the file cannot be decoded ({exc}); it was not checked"
        ) from None
    except SyntaxError as exc:  # LibCST raises it for a bad or missing encoding declaration
        raise _Unanalysable(
            "LML902", f"the file cannot be decoded ({exc.msg}); it was not checked"
        ) from None


class _PhaseClock:
    """Adds the time since its last lap to a phase's total (``FileResult.phase_seconds``)."""

    def __init__(self, totals: dict[str, float]) -> None:
        self._totals = totals
        self._last = time.perf_counter()

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self._totals[phase] = self._totals.get(phase, 0.0) + now - self._last
        self._last = now


class _LazyPositions:
    """Positions cost more than parsing: they are computed only for a file with candidates,
    or when an own-line suppression needs the range of the statement below it."""

    def __init__(self, module: cst.Module, index: ModuleIndex) -> None:
        self._module = module
        self._index = index
        self._positions: Mapping[cst.CSTNode, CodeRange] | None = None
        self._ranges: Callable[[int], tuple[int, int] | None] | None = None

    def get(self) -> Mapping[cst.CSTNode, CodeRange]:
        if self._positions is None:
            self._positions = compute_positions(self._module)
            assign_keys(self._index, self._positions)
        return self._positions

    def statement_range(self, line: int) -> tuple[int, int] | None:
        if self._ranges is None:
            self._ranges = _statement_ranges(self._index, self.get())
        return self._ranges(line)


def _check(
    path: str,
    module: cst.Module,
    index: ModuleIndex,
    positions: Mapping[cst.CSTNode, CodeRange],
    analysis: FlowAnalysis,
    settings: Settings,
    catalog: Catalog,
    types: FileTypes | None,
) -> list[Diagnostic]:
    spi = settings.spi
    view = TypeView(types, index)
    classifier = PositionClassifier(index, view, catalog.sinks, spi, analysis.constructs_no_text)
    judging = _Judging(module, positions, view, classifier)
    callees = CalleeJudge(index, judging.uses_of(analysis), judging.line)
    uses_accessor_spi = classifier.uses_accessor_spi()
    candidates: dict[cst.BaseExpression, Value | None] = {
        node: _answered_as_text(
            _verified(_with_lines(value, positions), view, analysis), view, analysis
        )
        for node, value in analysis.values.items()
    }
    for node in view.typed_content_nodes():
        candidates.setdefault(node, None)
    diagnostics: list[Diagnostic] = []
    for node, syntactic in candidates.items():
        judged = judging.position(node, syntactic)
        if judged is None:
            continue
        value, kind, position = judged
        if position.category == "erased":
            followed = _followed(node, position, callees, classifier)
            if followed is None:
                continue
            position = followed
        finding = ContentFinding(
            node,
            _code(module, node),
            value,
            kind,
            position,
            spi.fix_for(
                _owner(node, view),
                uses_accessor_spi=uses_accessor_spi,
                imports=classifier.imported_modules(),
            ),
            positions[node].start.line,
        )
        rule = next((r for r in ALL_RULES if r.applies(finding)), None)
        if rule is None:
            continue
        guess = _guess(node, value, view)
        message = rule.message(finding) + (GUESS_NOTES[guess] if guess is not None else "")
        diagnostic = _diagnostic(
            path, node, positions, rule.code, catalog, message, finding, module
        )
        diagnostics.append(replace(diagnostic, guess=guess) if guess is not None else diagnostic)
    return diagnostics


def _guess(node: cst.BaseExpression, value: Value, view: TypeView) -> Guess | None:
    """Why a finding is a guess (``engine.guesses.guess_of``), if it is one."""
    return guess_of(
        view.footing(node),
        (
            (origin, view.footing(origin.node if origin.how != "capture" else node))
            for origin in value.origins
        ),
    )


class _Judging:
    """Judges one candidate: its kind at that point, and the position that receives it."""

    def __init__(
        self,
        module: cst.Module,
        positions: Mapping[cst.CSTNode, CodeRange],
        view: TypeView,
        classifier: PositionClassifier,
    ) -> None:
        self._module = module
        self._positions = positions
        self._view = view
        self._classifier = classifier

    def position(
        self, node: cst.BaseExpression, syntactic: Value | None
    ) -> tuple[Value, ContentKind, Position] | None:
        judged = _judge(node, syntactic, self._view, self._module, self._positions)
        if judged is None:
            return None
        value, kind = judged
        position = self._classifier.classify(node, kind)
        if position is None:
            return None
        if kind in (ContentKind.PARTS, ContentKind.PART) and position.category != "coercion":
            return None
        if kind is ContentKind.PART and self._classifier.in_diagnostic(node):
            return None  # raise UnsupportedPart(f"... {part}"): the part's repr is the diagnostic
        if kind is ContentKind.PART and self._classifier.in_kind_fallback(node):
            # if isinstance(part, TextPart): ... else: out.append(str(part)): the catch-all for
            # kinds the code does not know, where a part's own string is the code's choice
            return None
        if position.explicit_repr and (
            self._classifier.in_diagnostic(node) or self._classifier.in_repr_method(node)
        ):
            # raise TypeError(f"bad content: {c!r}"), def __repr__(self): ...{self.content!r}:
            # the representation asked for, where a problem is reported or an object shown.
            return None
        if position.category == "coercion" and self._classifier.in_assert_message(node):
            # assert c == "hi", f"got {c!r}": built only when the assertion failed, to show
            # what was there; a list's repr is what the failure should show.
            return None
        if position.items_only and value.empty_text:
            return None  # for item in ("" or parts): the empty string has no items either
        if position.category == "coercion" and value.empty_parts:
            return None  # str(text or []): "[]" shows no part and loses no text
        return value, kind, position

    def uses_of(self, analysis: FlowAnalysis) -> UsesOf:
        """How a callee's body uses one parameter followed as content (``CalleeJudge``)."""

        def uses(function: cst.FunctionDef, param: cst.Param) -> list[Use]:
            found: list[Use] = []
            for node, value in analysis.parameter_values(function, param).items():
                judged = self.position(node, _with_lines(value, self._positions))
                if judged is None:
                    continue
                position = judged[2]
                returned = isinstance(self._parent_of_use(node), cst.Return)
                found.append(
                    Use(node, position.category, position.description, returned, position.misses)
                )
            return found

        return uses

    def _parent_of_use(self, node: cst.BaseExpression) -> cst.CSTNode | None:
        used = self._classifier.used_at(node)
        return self._classifier.parent(used) if used is not None else None

    def line(self, node: cst.CSTNode) -> int:
        return self._positions[node].start.line


def _followed(
    node: cst.BaseExpression,
    position: Position,
    callees: CalleeJudge,
    classifier: PositionClassifier,
) -> Position | None:
    """Content passed where its type is lost: the callee's body decides where it can be
    followed (None: safe there), else LML005 reports the erasure (opt-in)."""
    used = classifier.used_at(node)
    target = callees.passed_to(used) if used is not None else None
    if target is None:
        return position
    verdict = callees.verdict(*target)
    if verdict.outcome in (Outcome.SAFE, Outcome.RETURNS):
        return None
    if verdict.outcome is Outcome.ERASED:
        return position
    return Position(
        cast("Category", verdict.category),
        f"{position.description}, where it {verdict.description}",
        misses=cast("Misses", verdict.misses),
    )


def _owner(node: cst.BaseExpression, view: TypeView) -> str | None:
    """The SPI the value belongs to, as mypy's types say (None without types)."""
    fact = view.expr(node) if view.covered(node) else None
    return fact.owner if fact is not None else None


def _judge(
    node: cst.BaseExpression,
    syntactic: Value | None,
    view: TypeView,
    module: cst.Module,
    positions: Mapping[cst.CSTNode, CodeRange],
) -> tuple[Value, ContentKind] | None:
    """The value's kind at this point: mypy's where it covers the node, else the flow's."""
    if view.covered(node):
        fact = view.expr(node)
        if fact is None:
            return None  # mypy knows this node, and it is not content here (narrowed, or other)
        kind = _typed_kind(fact, syntactic)
        if kind is None:
            return None
        if syntactic is None:
            if fact.kind is not kind:
                return None  # judged by shape, which needs a content origin the flow lacks
            # Typed as content, a list of the SPI's parts or one part, wherever it came from
            # (a parameter, to_parts(...), an element, a loop variable).
            origin = Origin(node, positions[node].start.line, _code(module, node), "typed")
            return Value(kind, frozenset({origin})), kind
        return syntactic, kind
    if syntactic is None or syntactic.kind is ContentKind.TEXT:
        return None
    return syntactic, syntactic.kind


def _with_lines(value: Value, positions: Mapping[cst.CSTNode, CodeRange]) -> Value:
    """The flow records origins before positions exist; give them their lines now."""
    origins = frozenset(
        replace(origin, line=positions[origin.node].start.line) for origin in value.origins
    )
    return replace(value, origins=origins)


def _verified(value: Value, view: TypeView, analysis: FlowAnalysis) -> Value | None:
    """Drop the flow's read origins that are not content reads."""
    origins = frozenset(
        origin for origin in value.origins if not _is_no_content_read(origin, view, analysis)
    )
    if origins == value.origins:
        return value
    return replace(value, origins=origins) if origins else None


def _is_no_content_read(origin: Origin, view: TypeView, analysis: FlowAnalysis) -> bool:
    """Whether a read the flow found is no content read, by mypy's types or, where they say
    nothing of it, the module's records.

    Where types cover a read, its receiver's declared field type decides: ``values["content"]``
    of a typed record is not a content read, and nothing loaded from it is content either.
    Where mypy says nothing of the receiver (``Any``, or a function it does not check), the
    read counts only with syntactic evidence that the receiver is a message (an item of
    ``state["messages"]``, a ``role`` read beside it), or in code mypy skips, the presets' data
    (its declared class is an SPI's: ``m: AIMessage``). Without types, a read the project's
    records say is no message's (``FlowAnalysis.records_say_no_message``) is none, unless the
    presets' data grounds it; with types, a read mypy types nothing of is a guess
    (``engine.guesses``), left out by default already.
    """
    if origin.how not in ("read", "unpack") or not isinstance(origin.node, cst.BaseExpression):
        return False
    if not view.available:
        return not origin.grounded and analysis.records_say_no_message(origin.node)
    if view.covered(origin.node) and not _is_field_origin(view.expr(origin.node)):
        return True
    return (
        view.needs_evidence(origin.node)
        and not origin.message_evidence
        # Where mypy skips the code, nothing declares the receiver `Any`: its declared class
        # counts, as without types (``m: AIMessage``).
        and not (origin.grounded and view.skipped(origin.node))
    )


def _answered_as_text(value: Value | None, view: TypeView, analysis: FlowAnalysis) -> Value | None:
    """A value read from the answers of methods whose content is text only is text, whatever
    the message's declared type says (ChatOllama's ``invoke`` answers a string): every origin
    a read of such an answer (``Origin.answered_by``), each call's method one of the presets'
    ``text-only-answers`` for its receiver's class: by mypy's type of the receiver
    (``CalleeFact.answers_text``), or, where no types say it, by the model the code made
    (``llm = ChatOllama(...)``: ``FlowAnalysis.answers_text_by_syntax``)."""
    if value is None or value.kind is not ContentKind.CONTENT or not value.origins:
        return value
    for origin in value.origins:
        if origin.how != "read" or not origin.answered_by:
            return value
        for call in origin.answered_by:
            callee = view.callee(call)
            answers_text = (
                callee.answers_text if callee is not None else analysis.answers_text_by_syntax(call)
            )
            if not answers_text:
                return value
    return replace(value, kind=ContentKind.TEXT, basis=Basis.CARRIED)


def _is_field_origin(fact: ExprFact | None) -> bool:
    return fact is not None and fact.field_origin


def _typed_kind(fact: ExprFact, syntactic: Value | None) -> ContentKind | None:
    """The kind mypy's type gives a node, or None when it is not content there.

    A value known to come from content (a field read, or a local the flow tracked from one) is
    judged by its shape: ``str | list[dict]`` is the union, whatever its items. Anything else
    must carry the SPI's part types to count. A branch the flow carried from a narrowed value
    to a copy of it, or from call sites to a parameter, stands: mypy relates neither.
    """
    if syntactic is not None and syntactic.carried:
        return None if syntactic.kind is ContentKind.TEXT else syntactic.kind
    if fact.kind in (ContentKind.CONTENT, ContentKind.PARTS, ContentKind.PART):
        return fact.kind
    known_content = fact.field_origin or syntactic is not None
    if fact.kind is ContentKind.ANY and known_content:
        # getattr(m, "content"), a cast to Any, a parameter declared Any: mypy lost the type,
        # the read did not. What the flow knows of it (narrowed by isinstance, say) stands.
        kind = syntactic.kind if syntactic is not None else ContentKind.CONTENT
        return None if kind is ContentKind.TEXT else kind
    if known_content and fact.shape in (ContentKind.CONTENT, ContentKind.PARTS):
        return fact.shape
    return None


def _diagnostic(
    path: str,
    node: cst.BaseExpression,
    positions: Mapping[cst.CSTNode, CodeRange],
    code: str,
    catalog: Catalog,
    message: str,
    finding: ContentFinding,
    module: cst.Module,
) -> Diagnostic:
    where = positions[node]
    plan = finding.position.fix
    return Diagnostic(
        path=path,
        line=where.start.line,
        column=where.start.column + 1,
        end_line=where.end.line,
        end_column=where.end.column + 1,
        code=code,
        name=catalog.rule(code).name,
        message=message,
        fix=_fix(plan, positions, module) if plan is not None else None,
        origins=_origin_spans(finding, positions, where),
    )


def _origin_spans(
    finding: ContentFinding, positions: Mapping[cst.CSTNode, CodeRange], flagged: CodeRange
) -> tuple[Span, ...]:
    """Where the flagged value was read, in source order (not the flagged expression itself)."""
    spans: set[Span] = set()
    for origin in finding.value.origins:
        where = positions.get(origin.node)
        if where is None or where == flagged:
            continue
        spans.add(
            Span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        )
    return tuple(sorted(spans, key=lambda s: (s.line, s.column)))


def _fix(plan: FixPlan, positions: Mapping[cst.CSTNode, CodeRange], module: cst.Module) -> Fix:
    target = positions[plan.target]
    rewrite = plan.rewrite(lambda node: _code(module, node))
    return Fix(
        description=rewrite.description,
        edits=(
            Edit(
                line=target.start.line,
                column=target.start.column + 1,
                end_line=target.end.line,
                end_column=target.end.column + 1,
                replacement=rewrite.replacement,
            ),
        ),
        imports=rewrite.imports,
    )


def _code(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node).strip()


def _statement_ranges(
    index: ModuleIndex, positions: Mapping[cst.CSTNode, CodeRange]
) -> Callable[[int], tuple[int, int] | None]:
    """For own-line suppressions: the lines of the statement that starts on a line.

    A compound statement (``if``, ``def``, ...) covers its header, not its body.
    """
    ranges: dict[int, tuple[int, int]] = {}
    for statement in index.statements:
        where = positions.get(statement)
        if where is None:
            continue
        first = where.start.line
        if isinstance(statement, cst.BaseCompoundStatement):
            body = getattr(statement, "body", None)
            if isinstance(body, cst.IndentedBlock) and body.body:
                last = max(first, positions[body.body[0]].start.line - 1)
            else:
                last = first
        else:
            last = where.end.line
        ranges.setdefault(first, (first, last))
    return ranges.get


def _analysis_diagnostic(catalog: Catalog, path: str, problem: _Unanalysable) -> Diagnostic:
    return Diagnostic(
        path=path,
        line=problem.line,
        column=problem.column,
        end_line=problem.line,
        end_column=problem.column + 1,
        code=problem.code,
        name=catalog.rule(problem.code).name,
        message=problem.message,
    )
