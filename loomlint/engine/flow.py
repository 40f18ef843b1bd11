"""Origins of content, and where each content value flows, without a type checker.

An *origin* is a read of a content field (``m.content``, ``m["content"]``, ``m.get("content")``,
``getattr(m, "content")``), a match-pattern capture of one, a tuple unpack of one, or (when the
annotation says so) a parameter typed as content. ``FlowAnalysis`` interprets each scope's
statements in order, tracking which local names may hold content (on any path: may-flow) and
which branch a name or a content read has been narrowed to by ``isinstance``, ``type() is``,
a narrowing helper, an early return, ``assert``, a walrus or a ``match`` pattern.

Its output is the ``Value`` of every expression that may be content at the point it is
evaluated: the candidates that ``sinks`` then classifies by position. With a type oracle the
engine replaces the *kind* by mypy's narrowed type and keeps these origins for its messages.
"""

from __future__ import annotations

import enum
import heapq
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import libcst as cst

from loomlint.catalog.rules import Unrelated, load_catalog
from loomlint.catalog.spi import QualifiedNames, SpiModel
from loomlint.engine.budget import Deadline
from loomlint.engine.callees import local_callee, parameter_for, private_call_sites
from loomlint.engine.constructors import own_constructor, stores_content_as_given
from loomlint.engine.evidence import (
    PART_COLLECTION_TYPES,
    TEXT_TYPES,
    Evidence,
)
from loomlint.engine.guards import (
    any_element_test,
    element_test,
    named_element_test,
    string_comparisons,
    zero_comparison,
)
from loomlint.engine.imported import ImportedClasses
from loomlint.engine.index import ModuleIndex
from loomlint.engine.syntax import (
    BINDS_ITS_TARGET,
    all_params,
    dotted_name,
    is_text_literal,
    single_index,
    string_value,
    suite_body,
    target_names,
    text_constants,
)
from loomlint.engine.tree import child_nodes, is_expression, names_no_variable, walk
from loomlint.engine.typefacts import ContentKind

OriginHow = Literal["read", "capture", "unpack", "typed"]

_MAX_LOOP_PASSES = 6


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a content value came from, for the message that reports its misuse."""

    node: cst.CSTNode
    line: int
    # Source text of the receiver (``m``, ``self.message``); for a typed parameter, its name.
    receiver: str
    how: OriginHow
    # For a read: whether syntax says the receiver is a chat message (``message_evidence``).
    # Where mypy types the receiver ``Any``, the read counts only with this evidence.
    message_evidence: bool = False
    # Whether the presets' data says what the read holds: the receiver's class is one of an
    # SPI's (``m: AIMessage``, ``isinstance(r, CallToolResult)``) or the read has one of their
    # shapes (``call_tool().content``). Where mypy's types say nothing of the read (the
    # receiver's module not found, the receiver typed ``Any``, the function unchecked), a read
    # without it is a guess (``engine.guesses``).
    grounded: bool = False
    # For a read: the calls whose answer the receiver is (``r = llm.invoke(...)``, ``for c in
    # llm.stream(...)``, ``llm.invoke(...).content``), all of them where it may be any of
    # several (``Env.answers``); empty when it is no call's known answer. With types, the
    # answer of a method whose content is text only (``CalleeFact.answers_text``) is text.
    answered_by: frozenset[cst.Call] = frozenset()

    @property
    def destructured(self) -> bool:
        return self.how in ("capture", "unpack")


class Basis(enum.IntEnum):
    """How the flow knows a narrowed kind, which decides whether it stands where mypy's types
    say otherwise. Joining two facts keeps the weaker basis (the larger)."""

    # A test or an assignment that mypy narrows alike: with types, mypy's type decides.
    TESTED = 0
    # Carried from a narrowed value to another by a relation mypy does not track: a copy made
    # while the narrowing held, a parameter whose every call site passes a narrowed value, a
    # container whose element a test told from a string's character (``isinstance(c[0],
    # dict)``), a value the code built, or a key read or tested through a call
    # (``m.get("content")``: mypy narrows no call). The flow's kind stands with types too.
    CARRIED = 1
    # What syntax alone suggests (an annotation's class, a response shape): mypy's declared
    # types supersede it.
    EVIDENCE = 2


@dataclass(frozen=True, slots=True)
class Value:
    kind: ContentKind
    origins: frozenset[Origin]
    # The local name the value was loaded from, if any (``c`` in ``c.strip()``).
    alias: str | None = None
    basis: Basis = Basis.TESTED
    # On its string branch the value can only be the empty string: the test that let a string
    # through required it to be falsy (``c if not c else ...``). Iterating or measuring it
    # then does what it does to an empty list.
    empty_text: bool = False
    # On its list branch the value can only be the empty list: the test that let a list through
    # required it to be falsy (``isinstance(c, list) and c`` false, ``len(c) > 0`` false). Its
    # ``str()`` is then ``"[]"``, with no part to show and no text to lose.
    empty_parts: bool = False

    @property
    def carried(self) -> bool:
        """Whether the kind stands with types: narrowed by a relation mypy does not track."""
        return self.basis is Basis.CARRIED and self.kind is not ContentKind.CONTENT


def join_values(a: Value | None, b: Value | None) -> Value | None:
    if a is None:
        return b
    if b is None or a == b:
        return a
    kind = a.kind if a.kind is b.kind else ContentKind.CONTENT
    return Value(
        kind,
        a.origins | b.origins,
        a.alias if a.alias == b.alias else None,
        max(a.basis, b.basis) if a.kind is b.kind else Basis.TESTED,
        _text_is_empty(a.kind, a.empty_text) and _text_is_empty(b.kind, b.empty_text),
        _parts_are_empty(a.kind, a.empty_parts) and _parts_are_empty(b.kind, b.empty_parts),
    )


def _text_is_empty(kind: ContentKind, empty_text: bool) -> bool:
    """Whether a value of ``kind`` can only be the empty string where it is a string (a list
    of parts has no string branch at all)."""
    return empty_text or kind is ContentKind.PARTS


def _parts_are_empty(kind: ContentKind, empty_parts: bool) -> bool:
    """Whether a value of ``kind`` can only be the empty list where it is a list (a string has
    no list branch at all)."""
    return empty_parts or kind is ContentKind.TEXT


@dataclass(frozen=True, slots=True)
class AliasedCondition:
    """A test a local name was bound to (``Env.conditions``), and the names it reads."""

    test: cst.BaseExpression
    reads: frozenset[str]


# The name a narrowing path starts from (``m`` of ``m.content``, ``messages`` of
# ``messages[i].content``).
_ROOT_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass(slots=True)
class Env:
    """What is known at one program point."""

    names: dict[str, Value] = field(default_factory=dict[str, Value])
    # Narrowed branch of content reads by their normalised source text (``m.content``), and
    # how it is known (absent: ``Basis.TESTED``).
    paths: dict[str, ContentKind] = field(default_factory=dict[str, ContentKind])
    bases: dict[str, Basis] = field(default_factory=dict[str, Basis])
    # Content reads whose string branch can only be the empty string (``Value.empty_text``).
    empty: frozenset[str] = frozenset()
    # Names known not to be messages (``r = httpx.get(...)``, ``with open(p) as f``).
    foreign: frozenset[str] = frozenset()
    # Names bound to a chat message by where they came from (``for m in state["messages"]``,
    # ``last = messages[-1]``): evidence that their ``content`` is a message's.
    messages: frozenset[str] = frozenset()
    # Content read paths whose content the presets' data (or a declared class) states, what
    # ever narrowed them since (``Origin.grounded``).
    known: frozenset[str] = frozenset()
    # Content reads whose list branch can only be the empty list (``Value.empty_parts``), and
    # lists this code built that are still empty (``kept = []``: ``FlowAnalysis._bind_built``),
    # whose items are whatever the code appends next (``FlowAnalysis._note_appended``).
    empty_parts: frozenset[str] = frozenset()
    # A test of a setting said it makes messages hold lists of parts here (``if
    # output_version == "v1":``, ``SpiModel.parts_when``): a message's content read is parts.
    parts_by_setting: bool = False
    # Names bound to a test (``is_list = isinstance(m.content, list)``), whose truth then
    # narrows as the test would (``if not is_list: return``): an aliased condition, as pyright
    # follows it. Dropped when the name, or a name the test reads, is bound again.
    conditions: dict[str, AliasedCondition] = field(default_factory=dict[str, AliasedCondition])
    # Names bound to what a call answered (a message, or an item of what it returns, for a
    # loop's target), by the calls it may be: ``r = llm.invoke(...)``, ``for c in
    # llm.stream(...)``, ``total = c`` then ``total += c``. An empty set: ``None``, no answer.
    # Only calls of a method the presets' ``text-only-answers`` name (``_answers_of``).
    answers: dict[str, frozenset[cst.Call]] = field(default_factory=dict[str, frozenset[cst.Call]])
    # Names bound to ``None`` (``last = None`` before a loop that makes a message): no content
    # is read below them, so a join keeps what the other side knows below such a name.
    nones: frozenset[str] = frozenset()
    # Names bound to a model made here of a class some of whose answers the presets say are
    # text (``llm = ChatOllama(...)``), with the class's imported name: what syntax alone says
    # of ``llm.invoke(...)``, where no types say the receiver's class
    # (``FlowAnalysis.answers_text_by_syntax``).
    text_models: dict[str, str] = field(default_factory=dict[str, str])

    def copy(self) -> Env:
        return Env(
            dict(self.names),
            dict(self.paths),
            dict(self.bases),
            self.empty,
            self.foreign,
            self.messages,
            self.known,
            self.empty_parts,
            self.parts_by_setting,
            dict(self.conditions),
            dict(self.answers),
            self.nones,
            dict(self.text_models),
        )

    def bind(
        self, name: str, value: Value | None, *, foreign: bool = False, message: bool = False
    ) -> None:
        if value is None:
            self.names.pop(name, None)
        else:
            self.names[name] = value
        self.foreign = self.foreign | {name} if foreign else self.foreign - {name}
        if message or name in self.messages:
            self.messages = self.messages | {name} if message else self.messages - {name}
        self.answers.pop(name, None)
        self.nones = self.nones - {name}
        self.text_models.pop(name, None)
        self.forget_paths_of(name)

    def narrow_path(self, path: str, kind: ContentKind, basis: Basis = Basis.TESTED) -> None:
        self.paths[path] = kind
        if basis is Basis.TESTED:
            self.bases.pop(path, None)
        else:
            self.bases[path] = basis

    def basis_of(self, path: str) -> Basis:
        return self.bases.get(path, Basis.TESTED)

    def know(self, path: str, kind: ContentKind, basis: Basis = Basis.EVIDENCE) -> None:
        """What a class or an SDK's read shape says ``path`` holds: the union (CONTENT, no
        narrowing), text, parts, or no content at all (OTHER)."""
        if kind is not ContentKind.CONTENT:
            self.narrow_path(path, kind, basis)
        self.known = self.known | {path}

    def forget_paths_of(self, root: str) -> None:
        """``root`` is bound anew: what was known below it, or below an item it indexed
        (``messages[idx].content`` when ``idx`` is), no longer holds."""
        below = (root + ".", root + "[")
        indexing = (f"[{root}]", f"[{root}.", f"[{root}[")
        stale = [
            p
            for p in (*self.paths, *self.empty, *self.empty_parts)
            if p == root or p.startswith(below) or ("[" in p and any(i in p for i in indexing))
        ]
        if self.conditions:
            name = _ROOT_NAME.match(root)
            if name is not None:
                self.conditions = {
                    alias: condition
                    for alias, condition in self.conditions.items()
                    if alias != name.group() and name.group() not in condition.reads
                }
        for path in stale:
            self.paths.pop(path, None)
            self.bases.pop(path, None)
        if stale:
            self.empty = self.empty - set(stale)
            self.empty_parts = self.empty_parts - set(stale)
        if self.known:
            self.known = frozenset(
                p
                for p in self.known
                if not (
                    p == root or p.startswith(below) or ("[" in p and any(i in p for i in indexing))
                )
            )


def _alias_condition(env: Env, name: str, node: cst.BaseExpression, value: Value | None) -> None:
    """``is_list = isinstance(m.content, list)`` (or ``not ...``, a comparison, ``... and
    ...``): ``name``'s truth is the test's (``Env.conditions``). Only for a value that is no
    content (``value`` None: a content value's truth narrows the value itself), and not for a
    test that reads the name itself (``ok = ok and ...``), which would narrow by itself."""
    if value is not None or not _is_test(node):
        return
    reads = _names_read(node)
    if name not in reads:
        env.conditions[name] = AliasedCondition(node, reads)


def _is_test(node: cst.BaseExpression) -> bool:
    """A call, a comparison, a ``not`` or an ``and``/``or``: what may narrow by its truth."""
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    return isinstance(node, (cst.Call, cst.Comparison, cst.BooleanOperation))


def _names_read(node: cst.CSTNode) -> frozenset[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.add(current.value)
        stack.extend(child_nodes(current))
    return frozenset(found)


def join_envs(a: Env | None, b: Env | None) -> Env | None:
    if a is None:
        return b.copy() if b is not None else None
    if b is None:
        return a.copy()
    names = dict(a.names)
    for name, value in b.names.items():
        names[name] = join_values(names.get(name), value) or value
    paths = {p: k for p, k in a.paths.items() if b.paths.get(p) is k}
    bases: dict[str, Basis] = {}
    for path in paths:
        basis = max(a.basis_of(path), b.basis_of(path))
        if basis is not Basis.TESTED:
            bases[path] = basis
    _join_below_none(a, b, paths, bases)
    empty = frozenset(
        p
        for p in a.empty | b.empty
        if _text_is_empty(a.paths.get(p, ContentKind.CONTENT), p in a.empty)
        and _text_is_empty(b.paths.get(p, ContentKind.CONTENT), p in b.empty)
    )
    empty_parts = frozenset(
        p
        for p in a.empty_parts | b.empty_parts
        if _parts_are_empty(a.paths.get(p, ContentKind.CONTENT), p in a.empty_parts)
        and _parts_are_empty(b.paths.get(p, ContentKind.CONTENT), p in b.empty_parts)
    )
    _join_vacuous_items(a, b, paths, bases)
    return Env(
        names,
        paths,
        bases,
        empty,
        a.foreign & b.foreign,
        a.messages & b.messages,
        a.known & b.known,
        empty_parts,
        a.parts_by_setting and b.parts_by_setting,
        {
            alias: condition
            for alias, condition in a.conditions.items()
            if b.conditions.get(alias) == condition
        },
        {name: calls | b.answers[name] for name, calls in a.answers.items() if name in b.answers},
        a.nones & b.nones,
        {name: cls for name, cls in a.text_models.items() if b.text_models.get(name) == cls},
    )


def _join_below_none(
    a: Env, b: Env, paths: dict[str, ContentKind], bases: dict[str, Basis]
) -> None:
    """A name bound to ``None`` on one side of a join (``new_msg = None``, then ``new_msg =
    Message("user", f"...")`` in a loop) holds no message there: what the other side knows
    below it holds after the join, for a read of its content on ``None`` fails anyway."""
    for none_side, other in ((a, b), (b, a)):
        if not none_side.nones:
            continue
        for path, kind in other.paths.items():
            root = _ROOT_NAME.match(path)
            if (
                path not in paths
                and root is not None
                and root.group() in none_side.nones
                and path != root.group()
                and path[root.end()] in ".["
            ):
                paths[path] = kind
                basis = other.basis_of(path)
                if basis is not Basis.TESTED:
                    bases[path] = basis


def _join_vacuous_items(
    a: Env, b: Env, paths: dict[str, ContentKind], bases: dict[str, Basis]
) -> None:
    """A list this code built that is still empty on one side of a join (``kept = []``
    before a loop that appends to it) has no item: what the other side knows of its items
    (``kept[*].content``) holds after the join."""
    for empty_side, other in ((a, b), (b, a)):
        if not empty_side.empty_parts:
            continue
        for path, kind in other.paths.items():
            root, star, _ = path.partition("[*]")
            if (
                star
                and path not in paths
                and root.isidentifier()
                and root in empty_side.empty_parts
                and empty_side.paths.get(root) is ContentKind.PARTS
                and other.paths.get(root) is ContentKind.PARTS
            ):
                paths[path] = kind
                basis = other.basis_of(path)
                if basis is not Basis.TESTED:
                    bases[path] = basis


def join_all(envs: Iterable[Env | None]) -> Env | None:
    result: Env | None = None
    for env in envs:
        if env is not None:
            result = join_envs(result, env) if result is not None else env.copy()
    return result


def _same(a: Env | None, b: Env | None) -> bool:
    if a is None or b is None:
        return a is b
    return (
        a.names == b.names
        and a.paths == b.paths
        and a.bases == b.bases
        and a.empty == b.empty
        and a.foreign == b.foreign
        and a.messages == b.messages
        and a.known == b.known
        and a.empty_parts == b.empty_parts
        and a.parts_by_setting == b.parts_by_setting
        and a.conditions == b.conditions
        and a.answers == b.answers
        and a.nones == b.nones
    )


@dataclass(frozen=True, slots=True)
class _Narrowing:
    """A narrowing fact: a key (a name or a content read's path) and the branch it takes."""

    key: str
    is_path: bool
    # None: the test says nothing of the branch (a truth test).
    kind: ContentKind | None
    # The test was false: the value is empty (the empty string, or the empty list).
    falsy: bool = False
    # Said by a class (``isinstance(r, CallToolResult)``), not by a test of the value itself.
    known: bool = False
    basis: Basis = Basis.TESTED


# What is known below one argument at one call site, by path suffix (``['content']`` below
# ``choice['delta']``): the branch, and how it is known.
_Below = dict[str, tuple[ContentKind, Basis]]


def _known_below_argument(env: Env, source: str) -> _Below:
    """What ``env`` knows below the path ``source``: a response shape's text (evidence), or
    a branch a test narrowed or a copy carried (``message.content`` inside ``if
    isinstance(message.content, list):``)."""
    prefixes = (source + ".", source + "[")
    return {
        path[len(source) :]: (kind, env.basis_of(path))
        for path, kind in env.paths.items()
        if path.startswith(prefixes)
        and (env.basis_of(path) is Basis.EVIDENCE or kind in (ContentKind.TEXT, ContentKind.PARTS))
    }


@dataclass(slots=True)
class _CallSites:
    """A private function's call sites (``callees.private_call_sites``), and what each knew
    below the arguments it passed, by parameter: what holds at every one holds at the body's
    entry. ``_convert_delta(choice["delta"])``: the parameter's ``content`` is a stream
    delta's text (evidence, which mypy's declared types still supersede). ``_copy(message)``
    called only inside ``if isinstance(message.content, list):``: the parameter's content is
    a list there (carried, as a copy carries a narrowing: mypy does not relate a call site to
    the body, and the branch stands with types). A private name is the module's own: the
    module calls it only where it has made sure of what it passes, and code elsewhere that
    imports it takes that contract with it."""

    calls: frozenset[cst.Call]
    seen: set[cst.Call] = field(default_factory=set[cst.Call])
    known: dict[str, _Below] | None = None

    def note(self, call: cst.Call, by_parameter: dict[str, _Below]) -> None:
        self.seen.add(call)
        if self.known is None:
            self.known = by_parameter
            return
        self.known = {
            name: {
                suffix: (kind, max(basis, other[1]))
                for suffix, (kind, basis) in below.items()
                if (other := by_parameter.get(name, {}).get(suffix)) is not None
                and other[0] is kind
            }
            for name, below in self.known.items()
        }

    def bind(self, env: Env, function: cst.FunctionDef) -> None:
        if self.known is None or not self.seen.issuperset(self.calls):
            return  # a call site the flow never reached: nothing is known of it
        for param in all_params(function.params):
            name = param.name.value
            for suffix, (kind, basis) in self.known.get(name, {}).items():
                if basis is Basis.EVIDENCE:
                    env.know(name + suffix, kind)
                else:
                    env.narrow_path(name + suffix, kind, Basis.CARRIED)


@dataclass(slots=True)
class _Loop:
    breaks: list[Env] = field(default_factory=list[Env])
    continues: list[Env] = field(default_factory=list[Env])


class FlowAnalysis:
    """Interprets every scope of one module and records candidate values."""

    def __init__(
        self,
        module: cst.Module,
        index: ModuleIndex,
        spi: SpiModel,
        unrelated: Unrelated,
        deadline: Deadline | None = None,
        imported: ImportedClasses | None = None,
    ) -> None:
        self._module = module
        self._deadline = deadline if deadline is not None else Deadline()
        self._index = index
        self._spi = spi
        catalog = load_catalog()
        self._evidence = Evidence(index, spi, unrelated, imported, sdk_modules=catalog.sdk_modules)
        self._sinks = catalog.sinks
        # Most calls are of none of them (``SpiModel.text_only_answer_methods``).
        self._answer_methods = spi.text_only_answer_methods
        # The classes named there, as a file may import them (a re-export): a model made of
        # one is kept in ``Env.text_models``.
        self._answering_classes = QualifiedNames.of(
            m.rpartition(".")[0] for m in spi.text_only_answers
        )
        # Calls of those methods on a model made here whose class answers text by that method
        # (``answers_text_by_syntax``), and calls seen once on anything else.
        self._text_answer_calls: set[cst.Call] = set()
        self._other_answer_calls: set[cst.Call] = set()
        self.values: dict[cst.BaseExpression, Value] = {}
        self._loops: list[_Loop] = []
        self._summaries: dict[cst.CSTNode, dict[str, Value]] = {}
        self._scope: cst.CSTNode = module
        self._function: cst.FunctionDef | None = None
        # Narrowings already computed, by (test, truth, id of the environment): a condition's
        # operands are narrowed once each, however ``and``/``or``/``not`` nest. Without it
        # ``(a and b) or c`` narrows ``a and b`` twice, and each level doubles the work.
        # Cleared whenever an environment may be mutated (a statement, a walrus), so every
        # entry describes environments as they still are. Each entry keeps its environment
        # alive, so its id cannot be reused while the entry exists.
        self._narrowed: dict[tuple[cst.BaseExpression, bool, int], tuple[Env, Env | None]] = {}
        # (scope, receiver path) of every ``role`` read, found on the first need.
        self._role_receivers: set[tuple[cst.CSTNode, str]] | None = None
        self._block_keyed: set[tuple[cst.CSTNode, str]] | None = None
        # Where a parameter of a function of this module flows when it is content, by
        # (function, parameter name); shared with the analyses that compute them.
        self._parameter_flows: dict[tuple[cst.FunctionDef, str], dict[cst.BaseExpression, Value]]
        self._parameter_flows = {}
        # The private functions whose every call site is in this module (``run`` fills it).
        self._call_sites: dict[cst.FunctionDef, _CallSites] = {}
        # ``part = content[0]`` tested next (``guards.named_element_test``): the test, and the
        # content whose element it tests.
        self._named_element_tests: dict[cst.BaseExpression, cst.BaseExpression] = {}
        # What each function of this module hands back below the value it returns
        # (``returned_below``); shared with the analyses that compute them.
        self._returned_paths: dict[cst.FunctionDef, _Returned] = {}
        # The module's names bound once to a string literal (``_text_constants``).
        self._constants: frozenset[str] | None = None
        # In a run of one function for what it returns (``_run_for_returns``): what each of
        # its ``return`` statements knows below its value. None in every other run.
        self._returns: list[_Returned] | None = None

    # --- answers -------------------------------------------------------------------------------

    def _answers_of(self, env: Env, node: cst.BaseExpression) -> frozenset[cst.Call] | None:
        """The calls whose answer ``node`` is (``Env.answers``): a call of a method named in
        the presets' ``text-only-answers``, awaited or not, or a name bound to answers; an
        empty set for ``None``; None when nothing says (always, where no preset names one)."""
        if not self._answer_methods:
            return None
        while isinstance(node, cst.Await):
            node = node.expression
        if isinstance(node, cst.Call):
            if not self._answers_by_name(node):
                return None
            self._note_answering_model(env, node)
            return frozenset({node})
        if isinstance(node, cst.Name):
            return frozenset() if node.value == "None" else env.answers.get(node.value)
        return None

    def _answers_by_name(self, call: cst.Call) -> bool:
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value in self._answer_methods

    def _note_answering_model(self, env: Env, call: cst.Call) -> None:
        """Whether the receiver of ``call`` (``llm.invoke(...)``) is, by syntax, a model made
        here whose class answers text by that method: a name bound to one
        (``Env.text_models``) or the construction itself (``ChatOllama(...).invoke(...)``)."""
        assert isinstance(call.func, cst.Attribute)
        receiver = call.func.value
        made = (
            env.text_models.get(receiver.value)
            if isinstance(receiver, cst.Name)
            else self._index.names.qualified(receiver.func)
            if isinstance(receiver, cst.Call)
            else None
        )
        answers_text = made is not None and self._spi.answers_text_by_name(
            made, call.func.attr.value
        )
        (self._text_answer_calls if answers_text else self._other_answer_calls).add(call)

    def answers_text_by_syntax(self, call: cst.Call) -> bool:
        """Whether every time the flow reached ``call`` its receiver was a model made here
        whose class the presets say answers text: what syntax says where no types say the
        receiver's class."""
        return call in self._text_answer_calls and call not in self._other_answer_calls

    def _bind_answer(self, env: Env, name: str, node: cst.BaseExpression) -> None:
        answers = self._answers_of(env, node)
        if answers is not None:
            env.answers[name] = answers
        made = (
            self._index.names.qualified(node.func)
            if self._answer_methods and isinstance(node, cst.Call)
            else None
        )
        if made is not None and made in self._answering_classes:
            env.text_models[name] = made

    def _bind_item_answer(
        self, env: Env, target: cst.BaseExpression, iterated: cst.BaseExpression
    ) -> None:
        """``for chunk in llm.stream(...)``: each item is an answer of the call it iterates."""
        if (
            isinstance(target, cst.Name)
            and isinstance(iterated, cst.Call)
            and self._answers_by_name(iterated)
        ):
            self._note_answering_model(env, iterated)
            env.answers[target.value] = frozenset({iterated})

    def records_say_no_message(self, read: cst.BaseExpression) -> bool:
        """Whether the module's records say a content read nothing identifies is no message's
        (``Evidence.records_hold_other``), by the kind of read: a key's or an attribute's."""
        return self._evidence.records_hold_other(_is_item_read(read))

    def constructs_no_text(self, call: cst.Call) -> bool:
        """Whether a call makes an instance of a class no string is an instance of, by the
        evidence the flow took (``Evidence.constructs_no_text``)."""
        return self._evidence.constructs_no_text(call)

    @property
    def consulted(self) -> tuple[str, ...]:
        """The project's files read for the classes this module imports, so far."""
        imported = self._evidence.imported
        return tuple(sorted(imported.consulted)) if imported is not None else ()

    # --- driver -------------------------------------------------------------------------------

    def run(self) -> dict[cst.BaseExpression, Value]:
        self._call_sites = {
            function: _CallSites(frozenset(calls))
            for function, calls in private_call_sites(self._index).items()
        }
        self._run_scope(self._module, Env(), self._module.body)
        for function in self._callers_first():
            self._run_function(function)
        return self.values

    def _callers_first(self) -> list[cst.FunctionDef]:
        """The module's functions in the order their flow runs: each after the function that
        contains it (its closure's names) and a private one (``_CallSites``) after the
        functions that call it, so that what every call site knows of its arguments is known
        when its body runs. A function in a cycle of calls runs without its call sites'."""
        functions = self._index.functions
        position = {function: number for number, function in enumerate(functions)}
        after: dict[cst.FunctionDef, set[cst.FunctionDef]] = {f: set() for f in functions}
        for function in functions:
            enclosing = _scope_of(self._index, function)
            if isinstance(enclosing, cst.FunctionDef):
                after[function].add(enclosing)
            sites = self._call_sites.get(function)
            for call in sites.calls if sites is not None else ():
                caller = _scope_of(self._index, call)
                if isinstance(caller, cst.FunctionDef):
                    after[function].add(caller)
        waiting = {f: len(before) for f, before in after.items()}
        unblocks: dict[cst.FunctionDef, list[cst.FunctionDef]] = {}
        for function, before in after.items():
            for prior in before:
                unblocks.setdefault(prior, []).append(function)
        ready = [position[f] for f, count in waiting.items() if count == 0]
        heapq.heapify(ready)
        order: list[cst.FunctionDef] = []
        while len(order) < len(functions):
            if not ready:
                # A cycle: the first function left whose enclosing one has run goes without
                # its call sites' knowledge.
                stuck = min(
                    (
                        f
                        for f, count in waiting.items()
                        if count > 0 and self._encloser_ran(f, waiting)
                    ),
                    key=position.__getitem__,
                )
                self._call_sites.pop(stuck, None)
                waiting[stuck] = 0
                ready.append(position[stuck])
            function = functions[heapq.heappop(ready)]
            if waiting[function] < 0:
                continue
            waiting[function] = -1
            order.append(function)
            for blocked in unblocks.get(function, ()):
                if waiting[blocked] > 0:
                    waiting[blocked] -= 1
                    if waiting[blocked] == 0:
                        heapq.heappush(ready, position[blocked])
        return order

    def _encloser_ran(self, function: cst.FunctionDef, waiting: dict[cst.FunctionDef, int]) -> bool:
        enclosing = _scope_of(self._index, function)
        return not isinstance(enclosing, cst.FunctionDef) or waiting[enclosing] < 0

    def _run_scope(
        self,
        scope: cst.CSTNode,
        env: Env,
        body: Sequence[cst.BaseStatement | cst.BaseSmallStatement],
    ) -> None:
        saved = (self._scope, self._loops)
        self._scope, self._loops = scope, []
        self._summaries.setdefault(scope, {})
        self._exec_block(body, env)
        self._scope, self._loops = saved

    def _run_function(self, function: cst.FunctionDef) -> None:
        env = Env()
        for name, value in self._enclosing_summary(function).items():
            env.names[name] = value
        for param in all_params(function.params):
            self._bind_param(env, param)
        self._bind_self(env, function)
        sites = self._call_sites.get(function)
        if sites is not None:
            sites.bind(env, function)
        saved = self._function
        self._function = function
        self._run_scope(function, env, suite_body(function.body))
        self._function = saved

    def parameter_values(
        self, function: cst.FunctionDef, param: cst.Param
    ) -> dict[cst.BaseExpression, Value]:
        """Where ``param`` flows in ``function``'s body when it holds content: the candidate
        values of a run of that body alone, with only ``param`` bound as content (its origin
        is the parameter). Computed once per parameter; a recursive call sees nothing."""
        key = (function, param.name.value)
        known = self._parameter_flows.get(key)
        if known is None:
            self._parameter_flows[key] = {}
            known = self._inner()._run_parameter(function, param)
            self._parameter_flows[key] = known
        return known

    def _run_parameter(
        self, function: cst.FunctionDef, param: cst.Param
    ) -> dict[cst.BaseExpression, Value]:
        env = Env()
        for other in all_params(function.params):
            if other is param:
                origin = Origin(param, self._line(param), param.name.value, "typed")
                env.bind(param.name.value, Value(ContentKind.CONTENT, frozenset({origin})))
            else:
                self._bind_param(env, other)
        self._function = function
        self._run_scope(function, env, suite_body(function.body))
        # The body's other content (a message it reads itself) is not this parameter's.
        return {
            node: value
            for node, value in self.values.items()
            if any(origin.node is param for origin in value.origins)
        }

    def _note_call_site(self, call: cst.Call, env: Env) -> None:
        """At a call of a private function, what is known below each argument passed."""
        callee = local_callee(self._index, call) if self._call_sites else None
        sites = self._call_sites.get(callee[0]) if callee is not None else None
        if callee is None or sites is None or call not in sites.calls:
            return
        function, bound = callee
        by_parameter: dict[str, _Below] = {}
        for arg in call.args:
            param = parameter_for(function, call, arg, bound)
            source = path_key(arg.value) if param is not None else None
            if param is not None and source is not None:
                by_parameter[param.name.value] = _known_below_argument(env, source)
        sites.note(call, by_parameter)

    def _returned(self, call: cst.Call) -> Value | None:
        """The content a call of a function of this module hands back: an argument whose
        parameter the function returns (``def _echo(value: Any) -> Any: return value``)."""
        callee = local_callee(self._index, call)
        if callee is None:
            return None
        function, bound = callee
        returned: Value | None = None
        for arg in call.args:
            value = self.values.get(arg.value)
            if value is None or value.kind is ContentKind.TEXT:
                continue
            param = parameter_for(function, call, arg, bound)
            if param is None:
                continue
            for node, inner in self.parameter_values(function, param).items():
                if isinstance(self._index.parent(node), cst.Return):
                    kind = inner.kind if inner.kind is not ContentKind.CONTENT else value.kind
                    if kind is not ContentKind.TEXT:
                        returned = join_values(returned, Value(kind, value.origins))
        return returned

    def returned_below(self, function: cst.FunctionDef) -> _Returned:
        """What ``function`` hands back below the value it returns, by path suffix
        (``.content``, ``[-1].content``, ``[*]['content']``): the branch of each content field
        that every ``return`` of a value agrees on, from a run of its body alone. A function
        that makes a message's content one branch (``m.content = text; return m``, ``return
        Note(content=[...])``) tells its callers which. ``return None`` and the end of the body
        give no value to read content of; a generator's returns are not what a call gives,
        nor, for a decorated function (``@tool``, ``@lru_cache``), are they what its wrapper
        gives. Computed once per function; a recursive call sees nothing."""
        known = self._returned_paths.get(function)
        if known is not None:
            return known
        self._returned_paths[function] = {}
        if _is_generator(function) or any(
            dotted_name(d.decorator) not in _PLAIN_DECORATORS for d in function.decorators
        ):
            return {}
        known = self._inner()._run_for_returns(function)
        self._returned_paths[function] = known
        return known

    def _inner(self) -> FlowAnalysis:
        """An analysis of one function of this module alone, sharing what this one computed
        of the module: its parameters' flows, its functions' returns, its classes."""
        inner = FlowAnalysis(
            self._module,
            self._index,
            self._spi,
            self._evidence.unrelated,
            self._deadline,
            self._evidence.imported,
        )
        inner._parameter_flows = self._parameter_flows
        inner._returned_paths = self._returned_paths
        inner._constants = self._constants
        inner._evidence = self._evidence  # what it learnt of this module's classes holds
        return inner

    def _run_for_returns(self, function: cst.FunctionDef) -> _Returned:
        env = Env()
        for param in all_params(function.params):
            self._bind_param(env, param)
        self._bind_self(env, function)
        self._function = function
        self._returns = []
        self._run_scope(function, env, suite_body(function.body))
        returns, self._returns = self._returns, None
        return _agreed(returns)

    def _note_returned(self, node: cst.Return, env: Env) -> None:
        """What one ``return`` knows below the value it gives, as an assignment of that value
        to a name would (``_describe_below``)."""
        assert self._returns is not None
        value = node.value
        if value is None or _is_none(value):
            return
        scratch = env.copy()
        scratch.bind(_RETURNED, None)
        self._describe_below(scratch, _RETURNED, value)
        self._returns.append(_known_below(scratch, _RETURNED))

    def _returned_by(self, node: cst.BaseExpression) -> _Returned:
        """What a call (awaited or not) of a function of this module returns below its value
        (``returned_below``); nothing for any other call."""
        while isinstance(node, cst.Await):
            node = node.expression
        if not isinstance(node, cst.Call):
            return {}
        callee = local_callee(self._index, node)
        return self.returned_below(callee[0]) if callee is not None else {}

    def _call_returns_content(self, env: Env, name: str, value_node: cst.BaseExpression) -> None:
        """``m = normalised(message)`` where that function of this module makes the content it
        returns one branch: ``m.content`` is that branch, as it was at the function's returns;
        ``ms = [normalised(m) for m in messages]``, each item's. mypy types the call by its
        declared return type, the union (``Basis.CARRIED``)."""
        items = ""
        if isinstance(value_node, cst.ListComp):
            value_node, items = value_node.elt, "[*]"
        for suffix, (kind, basis) in self._returned_by(value_node).items():
            _carry(env, f"{name}{items}{suffix}", kind, basis)

    def _items_returned(self, iterated: cst.BaseExpression) -> _Returned:
        """What each item holds below it where a loop iterates what a function of this
        module returns (``for m in normalised(messages)``) or calls of one collected (``for m
        in [as_text(t) for t in turns]``)."""
        if isinstance(iterated, (cst.ListComp, cst.GeneratorExp)):
            return self._returned_by(iterated.elt)
        return {
            suffix[3:]: known
            for suffix, known in self._returned_by(iterated).items()
            if suffix.startswith("[*]")
        }

    def _bind_self(self, env: Env, function: cst.FunctionDef) -> None:
        name = self._evidence.self_is_foreign(function)
        if name is not None:
            env.bind(name, None, foreign=True)
        # ``self._contents: list[MemoryContent]``: what the class's own fields hold.
        found = self._evidence.self_fields(function)
        if found is not None:
            owner, fields = found
            for attribute, annotation in fields:
                self._narrow_fields_of(env, f"{owner}.{attribute}", annotation)

    def _enclosing_summary(self, node: cst.CSTNode) -> dict[str, Value]:
        parent = self._index.parent(node)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Module)):
            parent = self._index.parent(parent)
        return self._summaries.get(parent, {}) if parent is not None else {}

    def _bind_param(self, env: Env, param: cst.Param) -> None:
        name = param.name.value
        if param.annotation is None:
            env.bind(name, None)
            return
        evidence = self._evidence.annotation(param.annotation.annotation)
        if evidence == "content":
            origin = Origin(param, self._line(param), name, "typed")
            env.bind(name, Value(ContentKind.CONTENT, frozenset({origin})))
        else:
            env.bind(name, None, foreign=evidence == "foreign")
            self._narrow_fields_of(env, name, param.annotation.annotation)

    # --- statements ---------------------------------------------------------------------------

    def _exec_block(
        self, body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], env: Env | None
    ) -> Env | None:
        for statement in body:
            if env is None:
                return None
            env = self._exec(statement, env)
        return env

    def _exec(self, node: cst.BaseStatement | cst.BaseSmallStatement, env: Env) -> Env | None:
        self._deadline.step()
        self._narrowed.clear()  # statements mutate environments, narrowed ones included
        if isinstance(node, cst.SimpleStatementLine):
            return self._exec_block(node.body, env)
        if isinstance(node, cst.Expr):
            self._eval(node.value, env)
            return env
        if isinstance(node, cst.Assign):
            value = self._eval(node.value, env)
            if isinstance(node.value, cst.Subscript):
                self._note_named_element(node.value, value, env)
            for target in node.targets:
                self._assign(target.target, node.value, value, env)
            return env
        if isinstance(node, cst.AnnAssign):
            value = self._eval(node.value, env) if node.value is not None else None
            if isinstance(node.target, cst.Name):
                evidence = self._evidence.annotation(node.annotation.annotation)
                env.bind(node.target.value, value, foreign=evidence == "foreign")
                if node.value is not None and _is_none(node.value):
                    env.nones = env.nones | {node.target.value}
                self._summarise(node.target.value, value)
                self._narrow_fields_of(env, node.target.value, node.annotation.annotation)
                if node.value is not None:
                    self._bind_built(env, node.target.value, node.value, value)
                    self._bind_answer(env, node.target.value, node.value)
                    self._construction_sets_content(env, node.target.value, node.value)
                    self._call_returns_content(env, node.target.value, node.value)
            elif node.value is not None:
                self._assign(node.target, node.value, value, env)
            return env
        if isinstance(node, cst.AugAssign):
            self._eval(node.target, env)
            self._eval(node.value, env)
            if isinstance(node.target, cst.Name):
                added = self._answers_of(env, node.value)
                answers = env.answers.get(node.target.value)
                built = _built_kind_of_name(env, node.target.value)
                env.bind(node.target.value, None)
                if built is not None and isinstance(node.operator, cst.AddAssign):
                    env.narrow_path(node.target.value, built)  # text += ... is text
                if (
                    answers is not None
                    and added is not None
                    and isinstance(node.operator, cst.AddAssign)
                ):
                    env.answers[node.target.value] = answers | added  # chunks added up
            else:
                self._forget_extended_target(node, env)
            return env
        if isinstance(node, (cst.Return, cst.Raise)):
            for child in _expression_children(node):
                self._eval(child, env)
            if self._returns is not None and isinstance(node, cst.Return):
                self._note_returned(node, env)
            return None
        if isinstance(node, cst.Assert):
            self._eval(node.test, env)
            if node.msg is not None:
                self._eval(node.msg, env)
            return self._narrow(node.test, env, True)
        if isinstance(node, cst.Del):
            for name in target_names(node.target):
                env.bind(name, None)
            return env
        if isinstance(node, cst.Break):
            if self._loops:
                self._loops[-1].breaks.append(env)
            return None
        if isinstance(node, cst.Continue):
            if self._loops:
                self._loops[-1].continues.append(env)
            return None
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            for name in _imported_names(node):
                env.bind(name, None)
            return env
        if isinstance(node, cst.If):
            return self._exec_if(node, env)
        if isinstance(node, cst.While):
            return self._exec_while(node, env)
        if isinstance(node, cst.For):
            return self._exec_for(node, env)
        if isinstance(node, (cst.Try, cst.TryStar)):
            return self._exec_try(node, env)
        if isinstance(node, cst.With):
            return self._exec_with(node, env)
        if isinstance(node, cst.Match):
            return self._exec_match(node, env)
        if isinstance(node, cst.FunctionDef):
            for decorator in node.decorators:
                self._eval(decorator.decorator, env)
            for param in all_params(node.params):
                if param.default is not None:
                    self._eval(param.default, env)
            env.bind(node.name.value, None)
            return env
        if isinstance(node, cst.ClassDef):
            for decorator in node.decorators:
                self._eval(decorator.decorator, env)
            for arg in [*node.bases, *node.keywords]:
                self._eval(arg.value, env)
            self._exec_block(suite_body(node.body), env.copy())
            env.bind(node.name.value, None)
            return env
        # Pass, Global, Nonlocal, TypeAlias and the like: nothing flows.
        return env

    def _exec_if(self, node: cst.If, env: Env) -> Env | None:
        self._eval(node.test, env)
        then_env = self._exec_block(suite_body(node.body), self._narrow(node.test, env, True))
        else_env: Env | None = self._narrow(node.test, env, False)
        if isinstance(node.orelse, cst.If):
            else_env = self._exec_if(node.orelse, else_env) if else_env is not None else None
        elif isinstance(node.orelse, cst.Else):
            else_env = self._exec_block(suite_body(node.orelse.body), else_env)
        return join_envs(then_env, else_env)

    def _exec_while(self, node: cst.While, env: Env) -> Env | None:
        entry: Env = env
        loop = _Loop()
        for _ in range(_MAX_LOOP_PASSES):
            loop = _Loop()
            self._loops.append(loop)
            self._eval(node.test, entry)
            body_env = self._exec_block(suite_body(node.body), self._narrow(node.test, entry, True))
            self._loops.pop()
            merged = join_all([entry, body_env, *loop.continues]) or entry
            if _same(merged, entry):
                break
            entry = merged
        after = self._narrow(node.test, entry, False)
        if node.orelse is not None:
            after = self._exec_block(suite_body(node.orelse.body), after)
        return join_all([after, *loop.breaks])

    def _exec_for(self, node: cst.For, env: Env) -> Env | None:
        iterated = self._eval(node.iter, env)
        entry: Env = env
        loop = _Loop()
        body_env: Env | None = None
        for _ in range(_MAX_LOOP_PASSES):
            loop = _Loop()
            self._loops.append(loop)
            body_entry = entry.copy()
            self._assign(node.target, None, _element_of(iterated), body_entry)
            self._bind_elements(node.target, node.iter, body_entry)
            self._bind_item_answer(body_entry, node.target, node.iter)
            body_env = self._exec_block(suite_body(node.body), body_entry)
            self._loops.pop()
            merged = join_all([entry, body_env, *loop.continues]) or entry
            if _same(merged, entry):
                break
            entry = merged
        if not loop.breaks:
            self._note_items_made(node, [body_env, *loop.continues], entry)
        after: Env | None = entry
        if node.orelse is not None:
            after = self._exec_block(suite_body(node.orelse.body), entry.copy())
        return join_all([after, *loop.breaks])

    def _note_items_made(self, node: cst.For, ends: list[Env | None], after: Env) -> None:
        """``for m in messages: if isinstance(m.content, list): m.content = m.text``: where
        every pass of a loop that never breaks ends with the item's content one branch (at
        the end of its body and at each ``continue``), every item of the list holds that
        branch after the loop (``messages[*].content``), as if the code had built it so. mypy
        types no item apart (``Basis.CARRIED``). Not where the body binds the loop's name
        again: the content narrowed would be another value's."""
        target: cst.BaseExpression = node.target
        iterated = node.iter
        if (
            isinstance(iterated, cst.Call)
            and self._index.names.qualified(iterated.func) == "builtins.enumerate"
            and iterated.args
            and isinstance(target, cst.Tuple)
            and len(target.elements) == 2
        ):
            target, iterated = target.elements[1].value, iterated.args[0].value
        source = path_key(iterated)
        reached = [end for end in ends if end is not None]
        if not isinstance(target, cst.Name) or source is None or not reached:
            return
        name = target.value
        if source == name or _binds(node.body, name):
            return
        for suffix in self._field_paths("", keyed=True):
            kinds = {end.paths.get(name + suffix) for end in reached}
            kind = kinds.pop() if len(kinds) == 1 else None
            if kind in (ContentKind.TEXT, ContentKind.PARTS):
                after.narrow_path(f"{source}[*]{suffix}", kind, Basis.CARRIED)

    def _exec_try(self, node: cst.Try | cst.TryStar, env: Env) -> Env | None:
        body_env = self._exec_block(suite_body(node.body), env.copy())
        # A handler may start anywhere in the body: from before it, or after it.
        handler_entry = join_envs(env, body_env) or env
        outcomes: list[Env | None] = []
        for handler in node.handlers:
            start = handler_entry.copy()
            if handler.type is not None:
                self._eval(handler.type, start)
            if handler.name is not None:
                for name in target_names(handler.name.name):
                    start.bind(name, None)
            outcomes.append(self._exec_block(suite_body(handler.body), start))
        if node.orelse is not None:
            body_env = self._exec_block(suite_body(node.orelse.body), body_env)
        outcomes.append(body_env)
        result = join_all(outcomes)
        if node.finalbody is not None:
            final_entry = join_envs(result, handler_entry) or handler_entry
            finished = self._exec_block(suite_body(node.finalbody.body), final_entry.copy())
            return None if finished is None or result is None else join_envs(result, finished)
        return result

    def _exec_with(self, node: cst.With, env: Env) -> Env | None:
        for item in node.items:
            value = self._eval(item.item, env)
            if item.asname is not None:
                foreign = self._evidence.is_foreign_call(item.item, env.foreign)
                if isinstance(item.asname.name, cst.Name):
                    env.bind(item.asname.name.value, value, foreign=foreign)
                    classes = self._evidence.instance_classes(item.item)
                    self._bind_instance(env, item.asname.name.value, classes)
                else:
                    self._assign(item.asname.name, None, None, env)
        return self._exec_block(suite_body(node.body), env)

    def _exec_match(self, node: cst.Match, env: Env) -> Env | None:
        subject = self._eval(node.subject, env)
        subject_key = self._key_of(node.subject, env)
        outcomes: list[Env | None] = []
        exhaustive = False
        for case in node.cases:
            case_env = env.copy()
            self._bind_pattern(case.pattern, node.subject, subject, subject_key, case_env)
            if case.guard is not None:
                self._eval(case.guard, case_env)
                guarded = self._narrow(case.guard, case_env, True)
                case_env = guarded if guarded is not None else case_env
            outcomes.append(self._exec_block(suite_body(case.body), case_env))
            if case.guard is None and _is_irrefutable(case.pattern):
                exhaustive = True
        if not exhaustive:
            outcomes.append(env)
        return join_all(outcomes)

    # --- assignment -----------------------------------------------------------------------------

    def _assign(
        self,
        target: cst.BaseExpression,
        value_node: cst.BaseExpression | None,
        value: Value | None,
        env: Env,
    ) -> None:
        if isinstance(target, cst.Name):
            foreign = value_node is not None and self._evidence.is_foreign_call(
                value_node, env.foreign
            )
            message = value_node is not None and self._names_message(value_node, env)
            env.bind(target.value, value, foreign=foreign, message=message)
            if value_node is not None and _is_none(value_node):
                env.nones = env.nones | {target.value}
            if value_node is not None:
                self._bind_built(env, target.value, value_node, value)
                self._bind_answer(env, target.value, value_node)
                _alias_condition(env, target.value, value_node, value)
                self._describe_below(env, target.value, value_node)
            self._summarise(target.value, value)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            sources = (
                [e.value for e in value_node.elements]
                if isinstance(value_node, (cst.Tuple, cst.List))
                and len(value_node.elements) == len(elements)
                and not any(isinstance(e, cst.StarredElement) for e in value_node.elements)
                else None
            )
            for position, element in enumerate(elements):
                if isinstance(element, cst.StarredElement):
                    element = element.value
                source = sources[position] if sources is not None else None
                element_value = self.values.get(source) if source is not None else None
                if element_value is not None:
                    element_value = _as_unpacked(element_value)
                self._assign(element, source, element_value, env)
            return
        if isinstance(target, cst.StarredElement):
            self._assign(target.value, None, None, env)
            return
        self._forget_target(target, env)
        read = self.content_read(target) if value_node is not None else None
        if read is not None and read[1] is not None and value_node is not None:
            self._narrow_assigned(env, read[1], value_node, value)

    def _describe_below(self, env: Env, name: str, value_node: cst.BaseExpression) -> None:
        """What the value bound to ``name`` says of the content below it: its class, the
        path it aliases or copies, the content a copy, a construction or a display sets, what
        the function called returns, a read shape's rest."""
        self._bind_instance(env, name, self._evidence.instance_classes(value_node))
        self._alias_paths(env, name, value_node)
        self._copy_paths(env, name, value_node)
        self._copy_sets_content(env, name, value_node)
        self._construction_sets_content(env, name, value_node)
        self._call_returns_content(env, name, value_node)
        self._bind_read_shapes(env, name, value_node, element=False)

    def _forget_extended_target(self, node: cst.AugAssign, env: Env) -> None:
        """``m.content += "!"`` where ``m.content`` is known text: a string extended is a
        string, as a list extended is a list (or the statement raises). The field keeps its
        branch, as mypy's narrowing keeps it; what was known of its emptiness or its items is
        forgotten. Other operators forget the branch too."""
        path = self._path_of(node.target)
        kind = env.paths.get(path) if path is not None else None
        basis = env.basis_of(path) if path is not None and kind is not None else None
        self._forget_target(node.target, env)
        if (
            path is not None
            and basis is not None
            and isinstance(node.operator, cst.AddAssign)
            and kind in (ContentKind.TEXT, ContentKind.PARTS)
        ):
            env.narrow_path(path, kind, basis)

    def _forget_target(self, target: cst.BaseExpression, env: Env) -> None:
        path = self._path_of(target)
        if path is not None:
            env.forget_paths_of(path)

    def _narrow_assigned(
        self, env: Env, path: str, value_node: cst.BaseExpression, value: Value | None
    ) -> None:
        """``m.content = list(parts)``: the field holds the branch assigned to it, as mypy
        narrows a declared union on assignment (``copy.content = copy.content[:-1]`` keeps
        what was known of the value assigned). A value the code built (``_built_kind``: a
        display, ``str()``, a local holding a string it joined) is that branch whatever mypy
        narrows: mypy narrows no key of a union of ``TypedDict``s (``ret["content"] = text``
        where ``ret: ChatCompletionMessageParam``), so it stands with types
        (``Basis.CARRIED``)."""
        if value is not None and value.kind in (ContentKind.TEXT, ContentKind.PARTS):
            env.narrow_path(path, value.kind, value.basis)
            if value.empty_text:
                env.empty = env.empty | {path}
            return
        kind = self._built_kind(env, value_node)
        if kind is not None:
            env.narrow_path(path, kind, Basis.CARRIED)
            if string_value(value_node) == "":
                env.empty = env.empty | {path}

    def _copy_paths(self, env: Env, name: str, value_node: cst.BaseExpression) -> None:
        """``c = m.model_copy()`` while ``isinstance(m.content, list)`` holds: ``c.content``
        is that list too, however ``m`` changes later. What a test established below the
        original is carried to the copy (``Basis.CARRIED``: mypy does not relate the two)."""
        original = self._copied(value_node)
        source = path_key(original) if original is not None else None
        if source is None or source == name:
            return
        below = (source + ".", source + "[")
        for path, kind in list(env.paths.items()):
            if path.startswith(below):
                basis = env.basis_of(path)
                carried = Basis.EVIDENCE if basis is Basis.EVIDENCE else Basis.CARRIED
                env.narrow_path(name + path[len(source) :], kind, carried)
        env.empty = env.empty | {name + p[len(source) :] for p in env.empty if p.startswith(below)}

    def _copy_sets_content(self, env: Env, name: str, value_node: cst.BaseExpression) -> None:
        """``c = m.model_copy(update={"content": [block]})``, ``dataclasses.replace(m,
        content=text)``: the copy's content is the value set, so it holds that value's branch
        where the flow knows it (a display, ``str()``/``list()``, a narrowed value). mypy
        types neither ``update`` nor the copy's fields by it (``Basis.CARRIED``)."""
        for field_name, value in self._set_by_copy(value_node):
            kind = self._branch_given(env, value)
            if kind is not None:
                env.narrow_path(f"{name}.{field_name}", kind, Basis.CARRIED)

    def _construction_sets_content(
        self, env: Env, name: str, value_node: cst.BaseExpression
    ) -> None:
        """``m = AIMessage(content=f"...")``: a message made here holds the branch of the
        content it was given (a display, ``str()``/``list()``, a narrowed value) until the field
        is assigned again. mypy types the field by its declaration, the union
        (``Basis.CARRIED``). Only a class known to store what it is given counts
        (``_stores_content_given``); content given by position counts where the class's own
        ``__init__`` names its parameter. A message dict made by a display holds its branch
        alike (``_display_sets_content``)."""
        if isinstance(value_node, cst.Dict):
            self._display_sets_content(env, name, value_node)
            return
        if not isinstance(value_node, cst.Call):
            return
        classes = self._evidence.instance_classes(value_node)
        if not classes or not all(self._stores_content_given(c) for c in classes):
            return
        for field_name, value in self._given_content(value_node):
            kind = self._branch_given(env, value)
            if kind is not None:
                env.narrow_path(f"{name}.{field_name}", kind, Basis.CARRIED)

    def _display_sets_content(self, env: Env, name: str, value_node: cst.Dict) -> None:
        """``m = {"role": "user", "content": f"..."}``: a message dict made here holds the
        branch of the content it was given, as a message class constructed here does
        (``_construction_sets_content``), until the key is assigned again. mypy types the key
        by the dict's declared type where there is one (``ChatCompletionMessageParam``: the
        union), and the display says which branch it holds (``Basis.CARRIED``). A ``**``
        element may replace the keys given before it."""
        for key, kind in self._display_content_kinds(env, value_node).items():
            env.narrow_path(f"{name}[{key!r}]", kind, Basis.CARRIED)

    def _display_content_kinds(self, env: Env, display: cst.Dict) -> dict[str, ContentKind]:
        """The branch of each content key a dict display gives (``{"content": f"..."}``),
        where the flow knows it (``_branch_given``); a ``**`` element may replace the keys
        given before it."""
        fields = self._spi.content_fields
        given: dict[str, cst.BaseExpression] = {}
        for element in display.elements:
            if not isinstance(element, cst.DictElement):  # ``**other``
                given.clear()
                continue
            key = string_value(element.key)
            if key is not None and key in fields:
                given[key] = element.value
        return {
            key: kind
            for key, value in given.items()
            if (kind := self._branch_given(env, value)) is not None
        }

    def _branch_given(self, env: Env, value: cst.BaseExpression) -> ContentKind | None:
        """The branch of content given to a message as it is made or copied: what the flow
        knows of the value (a narrowed local), or how the code built it (``_built_kind``)."""
        known = self.values.get(value)
        if known is not None and known.kind in (ContentKind.TEXT, ContentKind.PARTS):
            return known.kind
        return self._built_kind(env, value)

    def _built_kind(self, env: Env, value: cst.BaseExpression) -> ContentKind | None:
        """The branch a value is by how this code built it: its syntax (``_display_kind``),
        or a local bound to such a value (``text = ""`` then ``text += part``; ``blocks = []``
        then ``blocks.append(...)``: ``_bind_built``), or a sum with such a value (``[part] +
        blocks``: adding to a list gives a list, or raises)."""
        if isinstance(value, cst.Name):
            return _built_kind_of_name(env, value.value)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
            return self._built_kind(env, value.left) or self._built_kind(env, value.right)
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _TEXT_LITERAL_METHODS
            and isinstance(value.func.value, cst.Name)
            and value.func.value.value in self._text_constants()
        ):
            return ContentKind.TEXT  # PROMPT.format(...), where the module's PROMPT = """..."""
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _TEXT_RESULT_METHODS
            and value.func.value in self.values
        ):
            # c.replace("<b>", ""), c.strip() of content: a string's method gives a string,
            # and on a list of parts it raises (the call is a finding of its own).
            return ContentKind.TEXT
        return _display_kind(value, self._index)

    def _text_constants(self) -> frozenset[str]:
        """The module's names bound once, at its top level, to a string literal, and nowhere
        else (not in a function, an import, a loop): ``PROMPT = \"\"\"...\"\"\"``."""
        if self._constants is None:
            self._constants = text_constants(self._module)
        return self._constants

    def _bind_built(
        self, env: Env, name: str, value_node: cst.BaseExpression, value: Value | None
    ) -> None:
        """``text = "\\n".join(lines)``, ``blocks = []``: a local that holds no content
        value but a string or a list this code built keeps its branch (as ``Env.paths[name]``)
        until it is bound again, so that ``m.content = text`` narrows as ``m.content = "..."``
        does. mypy types the local alike (``Basis.TESTED``)."""
        if value is not None:
            return
        kind = self._built_kind(env, value_node)
        if kind is not None:
            env.narrow_path(name, kind)
            if _is_empty_list(value_node) or (
                isinstance(value_node, cst.Name) and value_node.value in env.empty_parts
            ):
                env.empty_parts = env.empty_parts | {name}

    def _note_appended(self, call: cst.Call, env: Env) -> None:
        """``kept.append(msg)`` on a list this code built (``kept = []``): the content of
        every item appended is known of ``kept[*]`` while the items agree (``msg.content``
        narrowed, a message dict displayed with its content), so that ``kept[-1].content``
        reads it after a loop that built the list. mypy types no item apart
        (``Basis.CARRIED``). ``extend`` and ``insert`` add items nothing is known of. Where
        the list's annotation declares an items' class whose content is one branch (or none),
        that class says what they hold."""
        func = call.func
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return
        name = func.value.value
        method = func.attr.value
        if method not in _ITEM_ADDING or _built_kind_of_name(env, name) is not ContentKind.PARTS:
            return
        args = call.args
        one_item = len(args) == 1 and not args[0].star and args[0].keyword is None
        appended = args[0].value if method == "append" and one_item else None
        added = self._content_of_item(env, appended) if appended is not None else {}
        first = name in env.empty_parts
        env.empty_parts = env.empty_parts - {name}
        for suffix in self._field_paths("", keyed=True):
            path = f"{name}[*]{suffix}"
            if path in env.paths and env.basis_of(path) is Basis.EVIDENCE:
                continue  # ``kept: list[Note] = []``: what the items' declared class says
            kind = added.get(suffix)
            if kind is not None and (first or env.paths.get(path) is kind):
                env.narrow_path(path, kind, Basis.CARRIED)
            else:
                env.paths.pop(path, None)
                env.bases.pop(path, None)

    def _content_of_item(self, env: Env, item: cst.BaseExpression) -> dict[str, ContentKind]:
        """The branch of each content field of an item appended to a list (by the field's
        path suffix, ``.content`` or ``['content']``): a message whose content is narrowed,
        or a message dict displayed with its content given."""
        if isinstance(item, cst.Dict):
            return {
                f"[{key!r}]": kind for key, kind in self._display_content_kinds(env, item).items()
            }
        source = path_key(item)
        if source is None:
            return {}
        return {
            suffix: kind
            for suffix in self._field_paths("", keyed=True)
            if (kind := env.paths.get(source + suffix)) in (ContentKind.TEXT, ContentKind.PARTS)
        }

    def _stores_content_given(self, cls: cst.BaseExpression) -> bool:
        """Whether constructing ``cls`` stores the content it is given, as it is: an SPI's
        message class, or a class of the project declaring a content-like field whose
        constructor, if it has one of its own, hands the content on unchanged, and with no
        validator (``constructors.stores_content_as_given``)."""
        kind = self._evidence.class_kind(cls)
        if kind is ContentKind.CONTENT:
            return True
        defined = self._evidence.defined_class(cls) if kind is None else None
        return defined is not None and stores_content_as_given(defined, self._spi.content_fields)

    def _given_content(self, call: cst.Call) -> list[tuple[str, cst.BaseExpression]]:
        """The content fields a construction gives, and their values: by keyword, or by
        position where the class's own ``__init__`` names the parameter
        (``Message("user", f"...")``)."""
        init = self._evidence.defined_class(call.func)
        constructor = own_constructor(init) if init is not None else None
        fields = self._spi.content_fields
        given: list[tuple[str, cst.BaseExpression]] = []
        for arg in call.args:
            if arg.star:
                continue
            if arg.keyword is not None:
                name: str | None = arg.keyword.value
            else:
                param = parameter_for(constructor, call, arg, 1) if constructor else None
                name = param.name.value if param is not None else None
            if name in fields:
                given.append((name, arg.value))
        return given

    def _set_by_copy(self, node: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]]:
        """The content fields a copy sets, and their values: ``m.model_copy(update={"content":
        v})`` (a dict display, every key a string), ``replace(m, content=v)``; none where the
        copy may set others it does not name (``update=changes``, ``**changes``)."""
        if not isinstance(node, cst.Call):
            return []
        fields = self._spi.content_fields
        func = node.func
        qualified = self._index.names.qualified(func)
        if qualified in _COPY_FUNCTIONS and qualified != "builtins.dict":
            if not node.args or any(arg.star for arg in node.args[1:]):
                return []
            return [
                (arg.keyword.value, arg.value)
                for arg in node.args[1:]
                if arg.keyword is not None and arg.keyword.value in fields
            ]
        if not (isinstance(func, cst.Attribute) and func.attr.value in _COPY_METHODS):
            return []
        found: list[tuple[str, cst.BaseExpression]] = []
        for arg in node.args:
            if arg.keyword is None or arg.keyword.value != "update":
                continue
            if not isinstance(arg.value, cst.Dict):
                return []
            for element in arg.value.elements:
                key = string_value(element.key) if isinstance(element, cst.DictElement) else None
                if key is None:
                    return []  # **changes: any field may be set again after
                if key in fields and isinstance(element, cst.DictElement):
                    found.append((key, element.value))
        return found

    def _copied(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The value ``node`` is a copy of, with every content field as it was: ``m.copy()``,
        ``m.model_copy(deep=True)``, ``copy.copy(m)``, ``copy.deepcopy(m)``,
        ``dataclasses.replace(m, other=...)``, ``dict(m)``. None for anything else, and for a
        copy that sets a content field (``update={"content": ...}``, ``replace(m, content=...)``)
        or may (``update=changes``, ``**changes``, ``exclude=...``)."""
        if not isinstance(node, cst.Call):
            return None
        func = node.func
        qualified = self._index.names.qualified(func)
        if qualified not in _COPY_FUNCTIONS:
            if not (isinstance(func, cst.Attribute) and func.attr.value in _COPY_METHODS):
                return None
            keywords_only = all(arg.keyword is not None for arg in node.args)
            if keywords_only and all(self._keeps_content(arg) for arg in node.args):
                return func.value
            return None
        if not node.args:
            return None
        first, rest = node.args[0], node.args[1:]
        if first.keyword is not None or first.star:
            return None
        if qualified == "copy.deepcopy":
            return first.value if len(rest) <= 1 else None  # deepcopy(x, memo)
        if qualified == "copy.copy":
            return first.value if not rest else None
        # replace(m, **changes), dict(m, **changes): every change named, none a content field
        return first.value if all(self._names_other_field(arg) for arg in rest) else None

    def _keeps_content(self, arg: cst.Arg) -> bool:
        """An argument of ``model_copy``/``copy`` that leaves the content fields as they are:
        ``deep=``, or ``update=`` a dict display whose keys are other fields."""
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "deep":
            return True
        if keyword != "update" or not isinstance(arg.value, cst.Dict):
            return False
        keys = [
            string_value(element.key) if isinstance(element, cst.DictElement) else None
            for element in arg.value.elements
        ]
        return all(key is not None and key not in self._spi.content_fields for key in keys)

    def _names_other_field(self, arg: cst.Arg) -> bool:
        return (
            arg.keyword is not None
            and not arg.star
            and arg.keyword.value not in self._spi.content_fields
        )

    def _summarise(self, name: str, value: Value | None) -> None:
        if value is not None:
            summary = self._summaries.setdefault(self._scope, {})
            summary[name] = join_values(summary.get(name), value) or value

    def _bind_pattern(
        self,
        pattern: cst.MatchPattern,
        subject_node: cst.BaseExpression,
        subject: Value | None,
        subject_key: _Narrowing | None,
        env: Env,
    ) -> None:
        """Bind a case's captures and narrow its subject, like mypy does for the case body."""
        if isinstance(pattern, cst.MatchAs):
            inner = pattern.pattern
            narrowed = subject
            if inner is not None:
                kind = self._pattern_kind(inner)
                if kind is not None and subject_key is not None:
                    self._apply(_Narrowing(subject_key.key, subject_key.is_path, kind), env)
                if kind is not None and subject is not None:
                    narrowed = Value(kind, subject.origins)
                self._bind_pattern(inner, subject_node, subject, subject_key, env)
            if pattern.name is not None:
                captured = _as_captured(narrowed, pattern) if narrowed is not None else None
                env.bind(pattern.name.value, captured)
            return
        kind = self._pattern_kind(pattern)
        if kind is not None and subject_key is not None:
            self._apply(_Narrowing(subject_key.key, subject_key.is_path, kind), env)
        if isinstance(pattern, cst.MatchClass):
            field_kind = self._evidence.kind_of_classes([pattern.cls])
            for keyword in pattern.kwds:
                if keyword.key.value in self._spi.content_fields and field_kind is not (
                    ContentKind.TEXT
                ):
                    self._bind_field_pattern(
                        keyword.pattern, subject_node, keyword.key.value, env, field_kind
                    )
                else:
                    self._bind_pattern(keyword.pattern, subject_node, None, None, env)
            for positional in pattern.patterns:
                self._bind_pattern(positional.value, subject_node, None, None, env)
        elif isinstance(pattern, cst.MatchMapping):
            for element in pattern.elements:
                key = string_value(element.key)
                if key is not None and key in self._spi.content_fields:
                    self._bind_field_pattern(element.pattern, subject_node, key, env)
                else:
                    self._bind_pattern(element.pattern, subject_node, None, None, env)
            if pattern.rest is not None:
                env.bind(pattern.rest.value, None)
        elif isinstance(pattern, cst.MatchSequence):
            for item in pattern.patterns:
                if isinstance(item, cst.MatchSequenceElement):
                    self._bind_pattern(item.value, subject_node, None, None, env)
                elif item.name is not None:
                    env.bind(item.name.value, None)
        elif isinstance(pattern, cst.MatchOr):
            for alternative in pattern.patterns:
                self._bind_pattern(alternative.pattern, subject_node, None, None, env)

    def _bind_field_pattern(
        self,
        pattern: cst.MatchPattern,
        subject_node: cst.BaseExpression,
        field: str,
        env: Env,
        declared: ContentKind | None = None,
    ) -> None:
        """``case M(content=c)`` / ``case {"content": c}``: a destructuring origin.

        ``declared``: what the class says the field holds (PARTS for a parts-only type).
        """
        receiver = self._text(subject_node)
        origin = Origin(pattern, self._line(pattern), receiver, "capture")
        captured = Value(ContentKind.CONTENT, frozenset({origin}))
        subject_path = path_key(subject_node)
        path = f"{subject_path}.{field}" if subject_path is not None else None
        kind = (
            self._pattern_kind(pattern.pattern)
            if isinstance(pattern, cst.MatchAs) and pattern.pattern
            else self._pattern_kind(pattern)
        )
        if declared is not None:
            origin = replace(origin, grounded=True)
            captured = Value(ContentKind.CONTENT, frozenset({origin}))
            if path is not None:
                env.know(path, declared, Basis.TESTED)
        kind = kind if kind is not None else declared
        if kind is not None and kind is not ContentKind.CONTENT:
            captured = Value(kind, captured.origins)
            if path is not None:
                env.narrow_path(path, kind)
        if isinstance(pattern, cst.MatchAs):
            if pattern.name is not None:
                env.bind(pattern.name.value, captured)
            if pattern.pattern is not None:
                self._bind_pattern(pattern.pattern, subject_node, None, None, env)

    def _pattern_kind(self, pattern: cst.MatchPattern) -> ContentKind | None:
        if isinstance(pattern, cst.MatchClass):
            qualified = self._index.names.qualified(pattern.cls)
            if qualified in TEXT_TYPES:
                return ContentKind.TEXT
            if qualified in PART_COLLECTION_TYPES:
                return ContentKind.PARTS
            return None
        if isinstance(pattern, cst.MatchSequence):
            # Sequence patterns never match a str.
            return ContentKind.PARTS
        if isinstance(pattern, cst.MatchValue) and string_value(pattern.value) is not None:
            return ContentKind.TEXT
        if isinstance(pattern, cst.MatchAs) and pattern.pattern is not None:
            return self._pattern_kind(pattern.pattern)
        return None

    # --- expressions ----------------------------------------------------------------------------

    def _eval(self, node: cst.BaseExpression, env: Env) -> Value | None:
        """Evaluate for flow: record every candidate inside, return the node's own value."""
        self._deadline.step()
        origin_value = self._origin_value(node, env)
        if origin_value is not None:
            self._record(node, origin_value)
            return origin_value
        if isinstance(node, cst.Name):
            value = env.names.get(node.value)
            if value is not None:
                value = replace(value, alias=node.value)
                self._record(node, value)
            return value
        if isinstance(node, cst.BooleanOperation):
            left = self._eval(node.left, env)
            branch = self._narrow(node.left, env, isinstance(node.operator, cst.And))
            right = self._eval(node.right, branch) if branch is not None else None
            return join_values(left, right)
        if isinstance(node, cst.IfExp):
            self._eval(node.test, env)
            then_env = self._narrow(node.test, env, True)
            else_env = self._narrow(node.test, env, False)
            body = self._eval(node.body, then_env) if then_env is not None else None
            orelse = self._eval(node.orelse, else_env) if else_env is not None else None
            return join_values(body, orelse)
        if isinstance(node, cst.NamedExpr):
            value = self._eval(node.value, env)
            if isinstance(node.target, cst.Name):
                self._narrowed.clear()  # ``env`` may be a narrowed environment
                env.bind(node.target.value, value)
                _alias_condition(env, node.target.value, node.value, value)
                self._summarise(node.target.value, value)
            return value
        if isinstance(node, cst.Subscript):
            container = self._eval(node.value, env)
            for element in node.slice:
                self._eval_children(element, env)
            if container is None or container.kind not in (ContentKind.PARTS, ContentKind.TEXT):
                return None
            if any(isinstance(element.slice, cst.Slice) for element in node.slice):
                return replace(container, alias=None)  # a slice of a list is a list
            if container.kind is ContentKind.PARTS:
                return Value(ContentKind.PART, container.origins, basis=container.basis)
            return None
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            self._eval_comprehension(node, env)
            return None
        if isinstance(node, cst.Call):
            self._eval_children(node, env)
            self._note_appended(node, env)
            self._note_call_site(node, env)
            returned = self._returned(node)
            if returned is not None:
                self._record(node, returned)
            return returned
        if isinstance(node, cst.Lambda):
            for param in all_params(node.params):
                if param.default is not None:
                    self._eval(param.default, env)
            body_env = env.copy()
            for param in all_params(node.params):
                body_env.bind(param.name.value, None)
            self._eval(node.body, body_env)
            return None
        self._eval_children(node, env)
        return None

    def _eval_children(self, node: cst.CSTNode, env: Env) -> None:
        for child in child_nodes(node):
            if names_no_variable(node, child):
                continue  # ``f(agent_call=agent_call)``: the keyword holds no value
            if is_expression(child):
                self._eval(child, env)  # type: ignore[arg-type]
            elif not isinstance(child, cst.Annotation):
                self._eval_children(child, env)

    def _eval_comprehension(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp, env: Env
    ) -> None:
        scope: Env | None = env.copy()
        clause: cst.CompFor | None = node.for_in
        while clause is not None and scope is not None:
            iterated = self._eval(clause.iter, scope)
            self._assign(clause.target, None, _element_of(iterated), scope)
            self._bind_elements(clause.target, clause.iter, scope)
            self._bind_item_answer(scope, clause.target, clause.iter)
            for condition in clause.ifs:
                self._eval(condition.test, scope)
                scope = self._narrow(condition.test, scope, True)
                if scope is None:
                    break
            clause = clause.inner_for_in
        if scope is None:
            return
        if isinstance(node, cst.DictComp):
            self._eval(node.key, scope)
            self._eval(node.value, scope)
        else:
            self._eval(node.elt, scope)

    def _record(self, node: cst.BaseExpression, value: Value) -> None:
        self.values[node] = join_values(self.values.get(node), value) or value

    # --- origins --------------------------------------------------------------------------------

    def _origin_value(self, node: cst.BaseExpression, env: Env) -> Value | None:
        read = self.content_read(node)
        if read is None:
            return None
        receiver, path = read
        self._eval(receiver, env)
        if isinstance(node, cst.Call):
            for arg in node.args:
                self._eval(arg.value, env)
        if self._evidence.receiver_is_foreign(receiver, env.foreign):
            return None
        if self._evidence.used_as_neither_branch(node):
            return None
        if not self._spi.dict_messages and _is_item_read(node):
            return None  # no active SPI has dict messages: ``d["content"]`` is some dict's
        if self._evidence.falls_back_to_other(node):
            return None  # ``a.content or b""``: the code expects bytes there
        kind, basis = (
            _path_kind(env, path) if path is not None else (ContentKind.CONTENT, Basis.TESTED)
        )
        if isinstance(node, cst.Call) and basis is Basis.TESTED and kind is not ContentKind.CONTENT:
            # ``m.get("content")`` after ``isinstance(m["content"], str)``: mypy narrows the
            # key, not the call, whose type stays the union; the key's narrowing holds for both.
            basis = Basis.CARRIED
        grounded = path is not None and _path_known(env, path)
        if isinstance(receiver, (cst.Call, cst.Await)):
            # ``query_one("#id", Static).content``: the class of the call's result says.
            classes_kind = self._evidence.kind_of_classes(self._evidence.instance_classes(receiver))
            if classes_kind is not None:
                kind, basis, grounded = classes_kind, Basis.EVIDENCE, True
            # ``as_text(m).content``: what the function of this module returns says.
            returned = self._returned_by(receiver).get(_read_suffix(node))
            if returned is not None:
                kind, basis = returned
        shaped = self._shape_kind(node)
        if shaped is not None:
            grounded = True
            if kind is ContentKind.CONTENT:
                # response.choices[0].message.content: a response's text; a Bedrock
                # response's output.message.content: its blocks; an agent's
                # invoke()["messages"]: messages.
                kind, basis = shaped, Basis.EVIDENCE
        if (
            kind is ContentKind.CONTENT
            and _is_item_read(node)
            and self._items_keyed_as_blocks(node, path)
        ):
            # m["content"][0]["toolUse"]: a Bedrock Converse message dict's blocks, a list only.
            kind, basis, grounded = ContentKind.PARTS, Basis.EVIDENCE, True
        if kind is ContentKind.OTHER:
            return None
        if env.parts_by_setting and kind is ContentKind.CONTENT and isinstance(node, cst.Attribute):
            # The branch's test says the setting gives messages lists of parts: mypy's type of
            # the read is still the union (``Basis.CARRIED``).
            kind, basis = ContentKind.PARTS, Basis.CARRIED
        evidence = self._names_message(receiver, env) or self._has_role_read(receiver)
        origin = Origin(
            node,
            self._line(node),
            self._text(receiver),
            "read",
            evidence,
            grounded,
            self._answers_of(env, receiver) or frozenset(),
        )
        empty_text = path is not None and path in env.empty
        empty_parts = path is not None and path in env.empty_parts
        return Value(
            kind, frozenset({origin}), basis=basis, empty_text=empty_text, empty_parts=empty_parts
        )

    def _shape_kind(self, read: cst.BaseExpression) -> ContentKind | None:
        """What an SDK's read shape that ``read`` ends in says it holds."""
        for kind, shapes in self._read_shapes():
            if any(_matches_shape(read, shape) for shape in shapes):
                return kind
        return None

    def _read_shapes(self) -> tuple[tuple[ContentKind, tuple[tuple[str, ...], ...]], ...]:
        return (
            (ContentKind.TEXT, self._spi.text_only_reads),
            (ContentKind.PARTS, self._spi.parts_only_reads),
            (ContentKind.CONTENT, self._spi.content_reads),
        )

    def _names_message(self, node: cst.BaseExpression, env: Env) -> bool:
        """Whether syntax says ``node`` is one chat message: an item of a collection named
        ``messages`` (``state["messages"][-1]``), or a name bound to one (``for m in
        payload["messages"]``, ``last = messages[-1]``). A name alone (``msg``, a ``"message"``
        key) is no evidence: a Jupyter kernel's ``msg`` and a Bedrock response's
        ``output["message"]`` are no chat message of the SPI's."""
        if isinstance(node, cst.Name):
            return node.value in env.messages
        if isinstance(node, cst.Subscript):
            index = single_index(node)
            if index is not None and string_value(index) is None:
                return _names_messages(node.value)
        return False

    def _has_role_read(self, receiver: cst.BaseExpression) -> bool:
        """Whether the scope reads the receiver's ``role`` too (``m["role"]``, ``m.role``):
        a record with a role and a content is a chat message."""
        path = path_key(receiver)
        if path is None:
            return False
        if self._role_receivers is None:
            self._role_receivers = _role_receivers(self._index)
        return (self._scope, path) in self._role_receivers

    def _items_keyed_as_blocks(self, read: cst.BaseExpression, path: str | None) -> bool:
        """Whether the scope reads the items of this content, or of the local it is bound to
        (``blocks = m["content"]``), by a key only one SDK's blocks have (the presets'
        ``parts-only-block-keys``): ``content[0]["toolUse"]``, ``"cachePoint" in
        content[-1]``, ``for b in content: b.get("toolResult")``."""
        keys = self._spi.parts_only_block_keys
        if not keys:
            return False
        if self._block_keyed is None:
            self._block_keyed = _block_keyed_contents(self._index, keys)
        if path is not None and (self._scope, path) in self._block_keyed:
            return True
        assign = self._index.parent(read)
        return (
            isinstance(assign, cst.Assign)
            and assign.value is read
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
            and (self._scope, assign.targets[0].target.value) in self._block_keyed
        )

    def content_read(
        self, node: cst.BaseExpression
    ) -> tuple[cst.BaseExpression, str | None] | None:
        """The receiver and narrowing path of a content-field read, or None."""
        fields = self._spi.content_fields
        if isinstance(node, cst.Attribute) and node.attr.value in fields:
            if node.attr.value in self._spi.attribute_accessors:
                return None  # msg.text: an accessor of the message, not a read of its content
            return node.value, self._path_of(node)
        if isinstance(node, cst.Subscript):
            key = single_index(node)
            if key is not None and string_value(key) in fields:
                return node.value, self._path_of(node)
            return None
        if isinstance(node, cst.Call) and node.args:
            func = node.func
            first = node.args[0]
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value == "get"
                and first.keyword is None
                and not first.star
                and string_value(first.value) in fields
            ):
                if len(node.args) > 1 and _is_mapping_display(node.args[1].value):
                    # ``m.get("content", {})``: the code expects a mapping under the key (a
                    # kernel message, a tool-result block); message content never is one.
                    return None
                # The same value as ``m["content"]`` where present: one narrowing path for
                # both, so ``isinstance(m.get("content"), str)`` narrows ``m["content"]``.
                return func.value, _read_path(node)
            if (
                isinstance(func, cst.Name)
                and func.value == "getattr"
                and len(node.args) >= 2
                and string_value(node.args[1].value) in fields
            ):
                return first.value, None
        return None

    # --- narrowing ------------------------------------------------------------------------------

    def _narrow(self, test: cst.BaseExpression, env: Env | None, truth: bool) -> Env | None:
        """The environment in which ``test`` evaluated to ``truth``: a new one, never ``env``."""
        if env is None:
            return None
        key = (test, truth, id(env))
        known = self._narrowed.get(key)
        if known is not None:
            return known[1]
        narrowed = self._narrow_once(test, env, truth)
        self._narrowed[key] = (env, narrowed)
        return narrowed

    def _narrow_once(self, test: cst.BaseExpression, env: Env, truth: bool) -> Env | None:
        self._deadline.step()
        if isinstance(test, cst.Name) and test.value in env.conditions:
            return self._narrow_by_alias(env.conditions[test.value].test, env, truth)
        if isinstance(test, cst.NamedExpr) and _is_test(test.value):
            # ``if (is_list := isinstance(m.content, list)):`` narrows as its test does.
            return self._narrow(test.value, env, truth)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self._narrow(test.expression, env, not truth)
        if isinstance(test, cst.BooleanOperation):
            conjunction = isinstance(test.operator, cst.And)
            if conjunction == truth:
                # Both operands took this truth value, in order.
                return self._narrow(test.right, self._narrow(test.left, env, truth), truth)
            left_alone = self._narrow(test.left, env, truth)
            right_after = self._narrow(test.right, self._narrow(test.left, env, not truth), truth)
            return join_envs(left_alone, right_after)
        if env.nones and _not_none(test, truth) in env.nones:
            return None  # bound to ``None`` on every path here: the branch is not taken
        narrowed = env.copy()
        for fact in self._facts_of(test, env, truth):
            self._apply(fact, narrowed)
        if self._setting_says_parts(test, truth):
            narrowed.parts_by_setting = True
        return narrowed

    def _narrow_by_alias(self, test: cst.BaseExpression, env: Env, truth: bool) -> Env | None:
        """``if not is_list:`` where ``is_list = isinstance(m.content, list)``: what the test
        says, as if written here. mypy does not follow a condition through a name, so what it
        narrows stands against mypy's types (``Basis.CARRIED``)."""
        tested = self._narrow(test, env, truth)
        if tested is None:
            return None
        narrowed = tested.copy()
        for path, kind in narrowed.paths.items():
            if narrowed.basis_of(path) is Basis.TESTED and (
                env.paths.get(path) is not kind or env.basis_of(path) is not Basis.TESTED
            ):
                narrowed.bases[path] = Basis.CARRIED
        for name, value in narrowed.names.items():
            before = env.names.get(name)
            if value.basis is Basis.TESTED and (before is None or before.kind is not value.kind):
                narrowed.names[name] = replace(value, basis=Basis.CARRIED)
        return narrowed

    def _setting_says_parts(self, test: cst.BaseExpression, truth: bool) -> bool:
        """Whether ``test`` evaluating to ``truth`` says a setting makes messages hold lists of
        parts (``SpiModel.parts_when``): ``output_version == "v1"`` true, ``output_version ==
        "v0"`` false, ``metadata.get("output_version") in ("v1", ...)`` true."""
        if not self._spi.parts_when:
            return False
        for read, values, negated in string_comparisons(test):
            name = _setting_name(read)
            # Where the test holds, the setting is one of the values; else none of them.
            is_one_of = truth is not negated
            if any(
                name == setting.key
                and (values <= set(setting.parts) if is_one_of else set(setting.others) <= values)
                for setting in self._spi.parts_when
            ):
                return True
        return False

    def _apply(self, fact: _Narrowing, env: Env) -> None:
        if fact.is_path:
            if fact.kind is not None and fact.known:
                env.know(fact.key, fact.kind, Basis.TESTED)
            elif fact.kind is not None:
                env.narrow_path(fact.key, fact.kind, fact.basis)
            if fact.falsy:
                env.empty = env.empty | {fact.key}
                env.empty_parts = env.empty_parts | {fact.key}
            return
        value = env.names.get(fact.key)
        if value is None:
            return
        if fact.kind is ContentKind.OTHER:
            del env.names[fact.key]  # narrowed to neither branch: not content here
        elif fact.kind is not None:
            env.names[fact.key] = replace(value, kind=fact.kind, basis=fact.basis)
        if fact.falsy and fact.key in env.names:
            env.names[fact.key] = replace(env.names[fact.key], empty_text=True, empty_parts=True)

    def _facts_of(self, test: cst.BaseExpression, env: Env, truth: bool) -> list[_Narrowing]:
        emptiness = self._emptiness_facts(test, env, truth)
        if emptiness is not None:
            return emptiness
        if isinstance(test, cst.Call):
            return self._call_facts(test, env, truth)
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            return self._comparison_facts(test, env, truth)
        if not truth:
            # ``if not c:`` / ``c if c else ...``: a string that fails a truth test is "".
            subject = self._key_of(test, env)
            if subject is not None:
                return [_Narrowing(subject.key, subject.is_path, None, falsy=True)]
        return []

    def _call_facts(self, test: cst.Call, env: Env, truth: bool) -> list[_Narrowing]:
        if not test.args:
            return []
        # ``isinstance(p, TextPart)`` says what ``p.content`` is; ``isinstance(c, str)`` what
        # ``c`` is.
        receiver_facts = self._receiver_isinstance_facts(test, truth)
        subject = self._key_of(test.args[0].value, env)
        if subject is None:
            return [*receiver_facts, *self._element_facts(test, env, truth)]
        qualified = self._index.names.qualified(test.func)
        if qualified == "builtins.isinstance" and len(test.args) >= 2:
            # ``part = content[0]`` then ``isinstance(part, C)`` says what ``content`` is too.
            facts = [*receiver_facts, *self._element_facts(test, env, truth)]
            kind = self._isinstance_narrowing(test.args[1].value, truth)
            if kind is None:
                return facts
            # mypy narrows no call: ``isinstance(m.get("content"), list)`` says nothing to it
            # of ``m["content"]`` or of ``m.get("content")`` read again; the flow's kind stands.
            basis = Basis.CARRIED if isinstance(test.args[0].value, cst.Call) else Basis.TESTED
            return [*facts, _Narrowing(subject.key, subject.is_path, kind, basis=basis)]
        if receiver_facts:
            return receiver_facts
        narrowing = self._spi.narrowing
        short = dotted_name(test.func)
        if (qualified is not None and qualified in narrowing) or (
            qualified is None and short is not None and short in narrowing.short_names
        ):
            # A TypeIs helper of the SPI narrows both ways.
            kind = ContentKind.PARTS if truth else ContentKind.TEXT
            return [_Narrowing(subject.key, subject.is_path, kind)]
        return []

    def _emptiness_facts(
        self, test: cst.BaseExpression, env: Env, truth: bool
    ) -> list[_Narrowing] | None:
        """``len(c) > 0`` false, ``len(c) == 0`` true, ``if len(c)`` false: ``c`` is empty on
        both branches (the empty string, the empty list), as ``if not c`` says. None when
        ``test`` counts nothing (the calls that count are the sinks' data, ``counts``)."""
        zero = zero_comparison(test) if isinstance(test, cst.Comparison) else None
        count, empty = zero if zero is not None else (test, not truth)
        if zero is not None:
            empty = truth is zero[1]
        counted = self._counted(count)
        if counted is None:
            return None
        subject = self._key_of(counted, env)
        if subject is None or not empty:
            return []
        return [_Narrowing(subject.key, subject.is_path, None, falsy=True)]

    def _counted(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """What ``len(x)`` counts (``x``), for a callable the sinks say counts items."""
        if not (isinstance(node, cst.Call) and len(node.args) == 1):
            return None
        arg = node.args[0]
        qualified = self._index.names.qualified(node.func)
        sink = self._sinks.lookup([qualified]) if qualified is not None else None
        if sink is None or not sink.counts or arg.keyword is not None or arg.star:
            return None
        return arg.value

    def _element_facts(self, test: cst.Call, env: Env, truth: bool) -> list[_Narrowing]:
        """``assert isinstance(content[0], dict)``: a string's item is a character, which no
        dict is, so ``content`` is a list past it (``guards.element_test``); ``isinstance(c[0],
        str)`` false says the same. mypy narrows no container by a test of its element: the
        branch stands with types too (``Basis.CARRIED``)."""
        found = element_test(self._index, test) or any_element_test(self._index, test)
        if found is None:
            container = self._named_element_tests.get(test)
            # A test the guards took for one that no character passes (its classes exclude
            # strings): it narrows where it holds.
            return self._list_branch(container, env) if container is not None and truth else []
        container, characters = found
        if not (characters.excluded if truth else characters.admitted):
            return []
        return self._list_branch(container, env)

    def _list_branch(self, container: cst.BaseExpression, env: Env) -> list[_Narrowing]:
        """``container`` is a list where an element test says so (``Basis.CARRIED``)."""
        subject = self._key_of(container, env)
        if subject is None:
            return []
        return [_Narrowing(subject.key, subject.is_path, ContentKind.PARTS, basis=Basis.CARRIED)]

    def _note_named_element(self, element: cst.Subscript, value: Value | None, env: Env) -> None:
        """``part = content[0]`` of content the flow knows, tested next as an element is
        (``guards.named_element_test``): the test narrows ``content`` as
        ``isinstance(content[0], C)`` does. An item that is content itself (``contents[0]`` of
        a list of contents) says nothing of the list's kind."""
        if value is not None and value.kind is not ContentKind.PART:
            return
        subject = self._key_of(element.value, env)
        if subject is None or not (subject.is_path or subject.key in env.names):
            return
        test = named_element_test(self._index, element)
        if test is not None:
            self._named_element_tests[test] = element.value

    def _comparison_facts(self, test: cst.Comparison, env: Env, truth: bool) -> list[_Narrowing]:
        target = test.comparisons[0]
        operator = target.operator
        left, right = test.left, target.comparator
        if isinstance(operator, (cst.In, cst.NotIn)):
            found = truth if isinstance(operator, cst.In) else not truth
            return self._search_facts(left, right, env) if found else []
        identity = isinstance(operator, (cst.Is, cst.Equal))
        negated = isinstance(operator, (cst.IsNot, cst.NotEqual))
        if not identity and not negated:
            return []
        holds = truth if identity else not truth
        container = self._named_element_tests.get(test)
        if container is not None:
            # part = content[0]; assert type(part) is ToolCallPart
            return self._list_branch(container, env) if holds else []
        # type(x) is str / type(x) == list
        for typed, other in ((left, right), (right, left)):
            if (
                isinstance(typed, cst.Call)
                and self._index.names.qualified(typed.func) == "builtins.type"
                and len(typed.args) == 1
            ):
                subject = self._key_of(typed.args[0].value, env)
                kind = self._type_name_kind(other)
                if subject is not None and kind is not None and holds:
                    return [_Narrowing(subject.key, subject.is_path, kind)]
                return []
        # x == "literal": equal to a string, so a string.
        if isinstance(operator, (cst.Equal, cst.NotEqual)) and holds:
            for value, literal in ((left, right), (right, left)):
                if string_value(literal) is not None:
                    subject = self._key_of(value, env)
                    if subject is not None:
                        return [_Narrowing(subject.key, subject.is_path, ContentKind.TEXT)]
        return []

    def _search_facts(
        self, needle: cst.BaseExpression, haystack: cst.BaseExpression, env: Env
    ) -> list[_Narrowing]:
        """``"Call:" in c`` true: ``c`` holds that text, which a list of parts does not (a
        part is no string equal to it), so ``c`` is a string there. The search itself is still
        a finding; what the branch does with the text is not reported again. mypy narrows no
        container by a search: the branch stands with types too (``Basis.CARRIED``)."""
        if string_value(needle) is None or self._in_assert(needle):
            return []
        subject = self._key_of(haystack, env)
        if subject is None:
            return []
        if subject.is_path:
            known = env.paths.get(subject.key)
        else:
            value = env.names.get(subject.key)
            known = value.kind if value is not None else None
        if known not in (None, ContentKind.CONTENT):
            return []  # what a class or an earlier test says stands (no message, a branch)
        return [_Narrowing(subject.key, subject.is_path, ContentKind.TEXT, basis=Basis.CARRIED)]

    def _in_assert(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is in an ``assert``'s test. A list fails ``assert "x" in c`` at
        once, so what follows is not the branch's alone: its uses are reported as they would be
        past any line that fails on a list."""
        parent = self._index.parent(node)
        while parent is not None and not isinstance(
            parent, (cst.BaseStatement, cst.BaseSmallStatement)
        ):
            parent = self._index.parent(parent)
        return isinstance(parent, cst.Assert)

    def _receiver_isinstance_facts(self, test: cst.Call, truth: bool) -> list[_Narrowing]:
        """``isinstance(p, TextPart)`` true: ``p.content`` is only text there (a type of the
        SPI whose content field is plain text, or only a list of parts)."""
        if (
            not truth
            or len(test.args) < 2
            or self._index.names.qualified(test.func) != "builtins.isinstance"
        ):
            return []
        receiver = self._path_of(test.args[0].value)
        classes = test.args[1].value
        members = (
            [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        )
        kind = self._evidence.kind_of_classes(members)
        if receiver is None or kind is None:
            return []
        return [
            _Narrowing(f"{receiver}.{field}", True, kind, known=True)
            for field in sorted(self._spi.content_fields)
        ]

    def _narrow_fields_of(self, env: Env, name: str, annotation: cst.BaseExpression) -> None:
        """``response: Message``: what the annotated class says ``response.content`` holds."""
        kind = self._evidence.grounding_kind(annotation)
        if kind is not None:
            keyed = not self._evidence.holds_any_key(annotation)
            for path in self._field_paths(name, keyed=keyed):
                env.know(path, kind)
        # ``notes: list[Note]``: what the items' class says, under ``notes[*]``; for a class
        # of the project (``state: State``), what its fields' classes say.
        for suffix, member_kind, keyed in self._evidence.member_kinds(annotation):
            for path in self._field_paths(f"{name}{suffix}", keyed=keyed):
                env.know(path, member_kind)

    def _field_paths(self, receiver: str, *, keyed: bool) -> list[str]:
        """The paths of ``receiver``'s content fields, read as an attribute (a model's
        ``m.content``) and, where ``keyed``, as a key (a ``TypedDict``'s ``m["content"]``; not
        a ``dict``'s, whose keys its class says nothing of)."""
        fields = sorted(self._spi.content_fields)
        attributes = [f"{receiver}.{field}" for field in fields]
        return attributes + [f"{receiver}[{field!r}]" for field in fields] if keyed else attributes

    def _bind_elements(
        self, target: cst.BaseExpression, iterated: cst.BaseExpression, env: Env
    ) -> None:
        """``for w in app.query(Static)``: the loop variable is an instance of the class;
        ``for n in notes`` (or ``enumerate(notes)``), an item of ``notes[*]``; ``for m in
        state["messages"]``, a chat message."""
        if isinstance(target, cst.Name):
            self._bind_instance(env, target.value, self._evidence.lookup_classes(iterated))
        if (
            isinstance(iterated, cst.Call)
            and self._index.names.qualified(iterated.func) in _ORDER_PRESERVING
            and iterated.args
        ):
            if self._index.names.qualified(iterated.func) == "builtins.enumerate":
                if not isinstance(target, cst.Tuple) or len(target.elements) != 2:
                    return
                target = target.elements[1].value
            iterated = iterated.args[0].value
        if not isinstance(target, cst.Name):
            return
        if _names_messages(iterated):
            env.messages = env.messages | {target.value}
        self._bind_read_shapes(env, target.value, iterated, element=True)
        for suffix, (branch, basis) in self._items_returned(iterated).items():
            _carry(env, target.value + suffix, branch, basis)
        source = path_key(iterated)
        if source is None:
            return
        for items, element in zip(
            self._field_paths(f"{source}[*]", keyed=True),
            self._field_paths(target.value, keyed=True),
            strict=True,
        ):
            kind = env.paths.get(items)
            if items in env.known:
                env.know(element, kind or ContentKind.CONTENT, env.basis_of(items))
            elif kind is not None:
                env.narrow_path(element, kind, env.basis_of(items))

    def _bind_read_shapes(
        self, env: Env, name: str, node: cst.BaseExpression, *, element: bool
    ) -> None:
        """``message = response.choices[0].message`` (or ``for choice in response.choices``):
        the rest of a read shape below ``name`` holds what the shape says (``message.content``
        is text)."""
        for kind, shapes in self._read_shapes():
            for path in self._read_shape_paths(name, node, shapes, element=element):
                env.know(path, kind)

    def _read_shape_paths(
        self,
        name: str,
        node: cst.BaseExpression,
        shapes: Sequence[tuple[str, ...]],
        *,
        element: bool,
    ) -> set[str]:
        """The read paths of ``shapes`` below ``name`` bound to ``node``: of a read shape's
        start (``response.choices``), or of every operand of ``a or b``
        (``chunk.get("choices", []) or chunk.get("chunk", {}).get("choices", [])``)."""
        if isinstance(node, cst.BooleanOperation):
            left = self._read_shape_paths(name, node.left, shapes, element=element)
            return left & self._read_shape_paths(name, node.right, shapes, element=element)
        found: set[str] = set()
        for shape in shapes:
            for split in range(len(shape) - 1, 0, -1):
                rest = shape[split:]
                if element:
                    if rest[0] != "[]":
                        continue
                    rest = rest[1:]
                if rest and not _has_call(rest) and _matches_shape(node, shape[:split]):
                    found.update(_shape_paths(name, rest))
                    break
        return found

    def _alias_paths(self, env: Env, name: str, value_node: cst.BaseExpression) -> None:
        """``notes = state["notes"]``: what is known below ``state['notes']`` is known below
        ``notes``; ``choice = choices[0]``, what is known of every item (``choices[*]``)."""
        source = path_key(value_node)
        if source is None or source == name:
            return
        sources = [source]
        items = _INTEGER_INDEX.sub("[*]", source) if "[" in source else source
        if items != source:
            sources.append(items)
        for known in reversed(sources):  # the item itself last: what it knows wins
            for path, kind in list(env.paths.items()):
                if path.startswith((known + ".", known + "[")):
                    env.narrow_path(name + path[len(known) :], kind, env.basis_of(path))
            for path in env.known:
                if path.startswith((known + ".", known + "[")):
                    env.known = env.known | {name + path[len(known) :]}

    def _bind_instance(self, env: Env, name: str, classes: Sequence[cst.BaseExpression]) -> None:
        """``w = app.query_one("#id", Static)``: what ``w``'s class says ``w.content`` holds."""
        kind = self._evidence.kind_of_classes(classes) if classes else None
        if kind is not None:
            keyed = not any(self._evidence.is_any_key_class(c) for c in classes)
            for path in self._field_paths(name, keyed=keyed):
                env.know(path, kind)

    def _isinstance_narrowing(self, classes: cst.BaseExpression, truth: bool) -> ContentKind | None:
        """What ``isinstance(content, classes)`` being ``truth`` says: content is str or list.

        OTHER means the content cannot have reached this branch as content at all.
        """
        members = (
            [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        )
        kinds = {self._type_name_kind(member) for member in members}
        text, parts = ContentKind.TEXT in kinds, ContentKind.PARTS in kinds
        if text and parts:
            return None if truth else ContentKind.OTHER
        if text:
            return ContentKind.TEXT if truth else ContentKind.PARTS
        if parts:
            return ContentKind.PARTS if truth else ContentKind.TEXT
        if None in kinds:
            return None  # an unknown class might be a subclass of either branch
        # Only classes content never is (dict, int, ...).
        return ContentKind.OTHER if truth else None

    def _type_name_kind(self, node: cst.BaseExpression) -> ContentKind | None:
        """TEXT or PARTS for the branches' classes, OTHER for other builtins and classes known
        to be no message (``isinstance(x.content, Content)`` of Textual), None if unknown."""
        qualified = self._index.names.qualified(node)
        if qualified in TEXT_TYPES:
            return ContentKind.TEXT
        if qualified in PART_COLLECTION_TYPES:
            return ContentKind.PARTS
        if qualified is not None and qualified.startswith("builtins."):
            return ContentKind.OTHER
        if self._evidence.class_kind(node) is ContentKind.OTHER:
            return ContentKind.OTHER
        return None

    def _key_of(self, node: cst.BaseExpression, env: Env) -> _Narrowing | None:
        """The narrowing key of a tested expression: a name, or a content read's path."""
        if isinstance(node, cst.NamedExpr):
            node = node.target
        if isinstance(node, cst.Name):
            return _Narrowing(node.value, False, ContentKind.CONTENT)
        read = self.content_read(node)
        if read is not None and read[1] is not None:
            return _Narrowing(read[1], True, ContentKind.CONTENT)
        return None

    # --- helpers --------------------------------------------------------------------------------

    def _path_of(self, node: cst.BaseExpression) -> str | None:
        return path_key(node)

    def _code(self, node: cst.CSTNode) -> str:
        return self._module.code_for_node(node).strip()

    def _text(self, node: cst.BaseExpression) -> str:
        """How a message names an expression: its path when it has one (cheap), else its code."""
        return path_key(node) or self._code(node)

    def _line(self, node: cst.CSTNode) -> int:
        # Positions are computed only for files with something to report: the engine
        # resolves origin lines then (see engine._resolve_lines).
        del node
        return 0


_ORDER_PRESERVING = frozenset(
    {
        "builtins.enumerate",
        "builtins.reversed",
        "builtins.sorted",
        "builtins.list",
        "builtins.tuple",
    }
)
_INTEGER_INDEX = re.compile(r"\[-?\d+\]")
# What copies a message, a dataclass or a dict, content included (``FlowAnalysis._copied``).
_COPY_METHODS = frozenset({"copy", "model_copy"})
_COPY_FUNCTIONS = frozenset(
    {"copy.copy", "copy.deepcopy", "copy.replace", "dataclasses.replace", "builtins.dict"}
)
# Displays and constructors of one branch: assigned to a content field, they narrow it.
_TEXT_CONSTRUCTORS = frozenset({"builtins.str"})
# Methods of a list that add items to it.
_ITEM_ADDING = frozenset({"append", "extend", "insert"})
# Methods of a string literal that give a string whatever they are given (or raise).
_TEXT_LITERAL_METHODS = frozenset({"join", "format", "format_map"})
_PARTS_CONSTRUCTORS = frozenset({"builtins.list", "builtins.tuple"})
# Methods that a string has and a list lacks, and that give a string.
_TEXT_RESULT_METHODS = _TEXT_LITERAL_METHODS | frozenset(
    {
        "capitalize",
        "casefold",
        "center",
        "expandtabs",
        "ljust",
        "lower",
        "lstrip",
        "removeprefix",
        "removesuffix",
        "replace",
        "rjust",
        "rstrip",
        "strip",
        "swapcase",
        "title",
        "translate",
        "upper",
        "zfill",
    }
)


def _display_kind(node: cst.BaseExpression, index: ModuleIndex) -> ContentKind | None:
    """The branch a value is by its syntax: a string or f-string, ``str(...)``; a list or
    tuple display or comprehension, ``list(...)``."""
    if is_text_literal(node):
        return ContentKind.TEXT
    if isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
        return ContentKind.PARTS
    if isinstance(node, cst.Call):
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in _TEXT_LITERAL_METHODS
            and is_text_literal(func.value)
        ):
            return ContentKind.TEXT  # "\n".join(lines), "{}: {}".format(role, text)
        qualified = index.names.qualified(func)
        if qualified in _TEXT_CONSTRUCTORS:
            return ContentKind.TEXT
        if qualified in _PARTS_CONSTRUCTORS:
            return ContentKind.PARTS
    return None


# What a function hands back below the value it returns (``FlowAnalysis.returned_below``):
# the branch of each content field by path suffix, and how it is known.
_Returned = dict[str, tuple[ContentKind, Basis]]
# The root of the paths below a value returned (a keyword: never a local's name).
_RETURNED = "return"
# Decorators whose function, called, gives what its body returns.
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod"})


def _known_below(env: Env, root: str) -> _Returned:
    """The branches ``env`` knows below ``root``, each carried (``Basis.CARRIED``) but what
    evidence alone says, which stays evidence."""
    prefixes = (root + ".", root + "[")
    return {
        path[len(root) :]: (
            kind,
            Basis.EVIDENCE if env.basis_of(path) is Basis.EVIDENCE else Basis.CARRIED,
        )
        for path, kind in env.paths.items()
        if path.startswith(prefixes) and kind in (ContentKind.TEXT, ContentKind.PARTS)
    }


def _agreed(returns: Sequence[_Returned]) -> _Returned:
    """What every return knows alike: the suffixes all of them know, of one branch (the
    weaker basis)."""
    if not returns:
        return {}
    agreed = dict(returns[0])
    for known in returns[1:]:
        agreed = {
            suffix: (kind, max(basis, known[suffix][1]))
            for suffix, (kind, basis) in agreed.items()
            if suffix in known and known[suffix][0] is kind
        }
    return agreed


def _is_generator(function: cst.FunctionDef) -> bool:
    """Whether the function has a ``yield`` of its own (not of a function, a lambda or a class
    inside it)."""
    found = False

    def enter(node: cst.CSTNode) -> bool:
        nonlocal found
        found = found or isinstance(node, cst.Yield)
        return not found and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    walk(function.body, enter)
    return found


def _carry(env: Env, path: str, kind: ContentKind, basis: Basis) -> None:
    """Narrow ``path`` to what a function's returns said of it (``FlowAnalysis._returned_by``):
    evidence stays evidence (what a class or a read shape says)."""
    if basis is Basis.EVIDENCE:
        env.know(path, kind)
    else:
        env.narrow_path(path, kind, basis)


def _read_suffix(read: cst.BaseExpression) -> str:
    """The path of a content read below its receiver: ``.content`` of ``f().content`` or of
    ``getattr(f(), "content")``, ``['content']`` of ``f()["content"]`` or of
    ``f().get("content")``."""
    if isinstance(read, cst.Attribute):
        return f".{read.attr.value}"
    if isinstance(read, cst.Subscript):
        return f"[{string_value(single_index(read) or read)!r}]"
    if isinstance(read, cst.Call) and isinstance(read.func, cst.Attribute):
        return f"[{string_value(read.args[0].value)!r}]"  # ``.get("content")``
    if isinstance(read, cst.Call):
        return f".{string_value(read.args[1].value)}"  # ``getattr(r, "content")``
    return ""


def _is_empty_list(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.List) and not node.elements


def _built_kind_of_name(env: Env, name: str) -> ContentKind | None:
    """The branch of a local the code built (``FlowAnalysis._bind_built``); None for a
    content value, whose own ``Value`` says what is known of it."""
    if name in env.names:
        return None
    kind = env.paths.get(name)
    return kind if kind in (ContentKind.TEXT, ContentKind.PARTS) else None


def _path_known(env: Env, path: str) -> bool:
    """Whether a class or an SDK's read shape says what a content read's path holds."""
    return path in env.known or ("[" in path and _INTEGER_INDEX.sub("[*]", path) in env.known)


def _path_kind(env: Env, path: str) -> tuple[ContentKind, Basis]:
    """What is known of a content read's path, and how: narrowed itself, or
    (``notes[0].content``) as an item of a sequence whose items' class is known
    (``notes[*].content``)."""
    kind = env.paths.get(path)
    if kind is None and "[" in path:
        items = _INTEGER_INDEX.sub("[*]", path)
        kind = env.paths.get(items)
        if kind is not None:
            return kind, env.basis_of(items)
    if kind is None:
        return ContentKind.CONTENT, Basis.TESTED
    return kind, env.basis_of(path)


def path_key(node: cst.BaseExpression) -> str | None:
    """A narrowable expression's identity, ``m.content`` or ``m["content"]``, from its
    structure (no code generation); None for anything else (calls, operations...)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = path_key(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    if isinstance(node, cst.Subscript):
        base = path_key(node.value)
        index = single_index(node)
        if base is None or index is None:
            return None
        literal = string_value(index)
        if literal is not None:
            return f"{base}[{literal!r}]"
        if isinstance(index, cst.Integer):
            return f"{base}[{index.value}]"
        if (
            isinstance(index, cst.UnaryOperation)
            and isinstance(index.operator, cst.Minus)
            and isinstance(index.expression, cst.Integer)
        ):
            return f"{base}[-{index.expression.value}]"  # messages[-1]: the last one
        key = path_key(index)
        return f"{base}[{key}]" if key is not None else None
    return None


def _setting_name(node: cst.BaseExpression) -> str | None:
    """The name a setting is read by: ``output_version``, ``self.output_version``,
    ``metadata["output_version"]``, ``metadata.get("output_version")``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    read = _key_read(node)
    return read[1] if read is not None else None


def _element_of(value: Value | None) -> Value | None:
    # Iterating a narrowed parts list yields parts; iterating the union is itself the misuse
    # (reported there), so its elements are not tracked further.
    if value is not None and value.kind is ContentKind.PARTS:
        return Value(ContentKind.PART, value.origins, basis=value.basis)
    return None


def _as_unpacked(value: Value) -> Value:
    origins = frozenset(replace(o, how="unpack") if o.how == "read" else o for o in value.origins)
    return replace(value, origins=origins, alias=None)


def _as_captured(value: Value, pattern: cst.MatchAs) -> Value:
    del pattern
    origins = frozenset(replace(o, how="capture") if o.how == "read" else o for o in value.origins)
    return replace(value, origins=origins, alias=None)


# The last word of a name that holds a collection of chat messages.
_MESSAGES_WORDS = frozenset({"messages", "msgs", "history"})


def _last_word(node: cst.BaseExpression) -> str | None:
    """``messages`` for ``chat_messages``, ``self.messages``, ``state["messages"]``."""
    if isinstance(node, cst.Name):
        name = node.value
    elif isinstance(node, cst.Attribute):
        name = node.attr.value
    elif isinstance(node, cst.Subscript):
        index = single_index(node)
        key = string_value(index) if index is not None else None
        if key is None:
            return None
        name = key
    else:
        return None
    return name.rsplit("_", 1)[-1].lower()


def _names_messages(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is named as a collection of chat messages (``payload["messages"]``,
    ``self.state.messages``, ``chat_history``)."""
    return _last_word(node) in _MESSAGES_WORDS


def _matches_shape(node: cst.BaseExpression, segments: Sequence[str]) -> bool:
    """Whether ``node`` ends in ``segments`` (``choices``, ``[]``, ``message``, ``content``):
    a name is an attribute, a string key or a ``.get()`` of it; ``[]`` any other index;
    ``name()`` a call of a method of that name, awaited or not."""
    for segment in reversed(segments):
        while isinstance(node, cst.Await):
            node = node.expression
        if segment.endswith("()"):
            called = _call_receiver(node, segment[:-2])
            if called is None:
                return False
            node = called
            continue
        if segment == "[]":
            if not isinstance(node, cst.Subscript):
                return False
            index = single_index(node)
            if index is None or string_value(index) is not None:
                return False
            node = node.value
            continue
        receiver = _member_receiver(node, segment)
        if receiver is None:
            return False
        node = receiver
    return True


def _member_receiver(node: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    """``x`` of ``x.name``, ``x["name"]`` or ``x.get("name")``; None for anything else."""
    if isinstance(node, cst.Attribute):
        return node.value if node.attr.value == name else None
    if isinstance(node, cst.Subscript):
        index = single_index(node)
        return node.value if index is not None and string_value(index) == name else None
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and node.args
        and string_value(node.args[0].value) == name
    ):
        return node.func.value
    return None


def _has_call(segments: Sequence[str]) -> bool:
    return any(segment.endswith("()") for segment in segments)


def _call_receiver(node: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    """``x`` of ``x.name(...)``, the call itself for ``name(...)`` (a shape's first segment
    needs no receiver); None for anything else."""
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == name:
        return func.value
    if isinstance(func, cst.Name) and func.value == name:
        return node
    return None


def _shape_paths(name: str, rest: Sequence[str]) -> list[str]:
    """The narrowing paths (``path_key``'s spelling) of ``name`` followed by ``rest``, each
    name an attribute or a key: ``message.content``, ``message['content']``, and for
    ``messages[].content`` ``result['messages'][*].content`` too."""
    paths = [name]
    for segment in rest:
        if segment == "[]":
            paths = [path + "[*]" for path in paths]
        else:
            paths = [p + s for p in paths for s in (f".{segment}", f"[{segment!r}]")]
    return paths


def _role_receivers(index: ModuleIndex) -> set[tuple[cst.CSTNode, str]]:
    found: set[tuple[cst.CSTNode, str]] = set()
    for node, family in index.family_nodes:
        receiver: cst.BaseExpression | None = None
        if family == "attr:role" and isinstance(node, cst.Attribute):
            receiver = node.value
        elif isinstance(node, cst.Subscript):
            key = single_index(node)
            if key is not None and string_value(key) == "role":
                receiver = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "get"
            and node.args
            and string_value(node.args[0].value) == "role"
        ):
            receiver = node.func.value
        path = path_key(receiver) if receiver is not None else None
        if path is not None:
            found.add((_scope_of(index, node), path))
    return found


def _block_keyed_contents(index: ModuleIndex, keys: frozenset[str]) -> set[tuple[cst.CSTNode, str]]:
    """Per scope, the paths of the values whose items are read by one of ``keys``: ``P`` of
    ``P[0]["toolUse"]``, ``P[-1].get("cachePoint")``, ``"toolResult" in P[i]``, and of a loop
    over it whose item is read so (``for b in P: b["toolUse"]``)."""
    found: set[tuple[cst.CSTNode, str]] = set()
    for node, _family in index.family_nodes:
        item = _item_read_by_key(index, node, keys)
        if item is None:
            continue
        container = _container_of_item(index, item)
        path = _read_path(container) if container is not None else None
        if path is not None:
            found.add((_scope_of(index, node), path))
    return found


def _item_read_by_key(
    index: ModuleIndex, node: cst.BaseExpression, keys: frozenset[str]
) -> cst.BaseExpression | None:
    """The value ``node`` reads by one of ``keys``: ``X`` of ``X["k"]``, ``X.get("k")``, or
    of ``"k" in X`` (``node`` being ``X`` there)."""
    read = _key_read(node)
    if read is not None and read[1] in keys:
        return read[0]
    target = index.parent(node)
    comparison = index.parent(target) if isinstance(target, cst.ComparisonTarget) else None
    if (
        isinstance(target, cst.ComparisonTarget)
        and isinstance(target.operator, (cst.In, cst.NotIn))
        and isinstance(comparison, cst.Comparison)
        and len(comparison.comparisons) == 1
        and string_value(comparison.left) in keys
    ):
        return node
    return None


def _key_read(node: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """The receiver and the string key of ``X["k"]`` or ``X.get("k", ...)``."""
    if isinstance(node, cst.Subscript):
        index = single_index(node)
        key = string_value(index) if index is not None else None
        return (node.value, key) if key is not None else None
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and node.args
        and node.args[0].keyword is None
    ):
        key = string_value(node.args[0].value)
        return (node.func.value, key) if key is not None else None
    return None


def _container_of_item(index: ModuleIndex, item: cst.BaseExpression) -> cst.BaseExpression | None:
    """What ``item`` is an item of: ``P`` of ``P[0]`` (an index that is no string key), or of
    a loop ``for item in P`` (a statement or a comprehension) that binds the name."""
    if isinstance(item, cst.Subscript):
        index_node = single_index(item)
        if index_node is None or string_value(index_node) is not None:
            return None
        return item.value
    if not isinstance(item, cst.Name):
        return None
    node: cst.CSTNode | None = index.parent(item)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
        loops: list[cst.For | cst.CompFor] = []
        if isinstance(node, cst.For):
            loops = [node]
        elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            loop: cst.CompFor | None = node.for_in
            while loop is not None:
                loops.append(loop)
                loop = loop.inner_for_in
        for found in loops:
            if isinstance(found.target, cst.Name) and found.target.value == item.value:
                return found.iter
        node = index.parent(node)
    return None


def _read_path(node: cst.BaseExpression) -> str | None:
    """The narrowing path of a value as ``content_read`` names it: ``m.get("content")`` is
    ``m['content']``, one path with ``m["content"]``."""
    if isinstance(node, cst.Call):
        read = _key_read(node)
        base = path_key(read[0]) if read is not None else None
        return f"{base}[{read[1]!r}]" if read is not None and base is not None else None
    return path_key(node)


def _scope_of(index: ModuleIndex, node: cst.CSTNode) -> cst.CSTNode:
    """The function (or module) whose flow evaluates ``node``."""
    parent = index.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Module)):
        parent = index.parent(parent)
    return parent if parent is not None else node


def _is_irrefutable(pattern: cst.MatchPattern) -> bool:
    return isinstance(pattern, cst.MatchAs) and pattern.pattern is None


def _expression_children(node: cst.CSTNode) -> list[cst.BaseExpression]:
    return [c for c in child_nodes(node) if is_expression(c)]  # type: ignore[misc]


# What has names of its own (``_binds``): a comprehension's ``for`` binds only in it.
_OWN_SCOPES = (
    cst.FunctionDef,
    cst.ClassDef,
    cst.Lambda,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
)


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _not_none(test: cst.BaseExpression, truth: bool) -> str | None:
    """The name a test taking ``truth`` says is not ``None``: ``x`` true, ``x is not None``
    true, ``x is None`` false."""
    if isinstance(test, cst.Name):
        return test.value if truth else None
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and len(test.comparisons) == 1
        and _is_none(test.comparisons[0].comparator)
    ):
        operator = test.comparisons[0].operator
        if isinstance(operator, cst.IsNot) and truth:
            return test.left.value
        if isinstance(operator, cst.Is) and not truth:
            return test.left.value
    return None


def _binds(block: cst.BaseSuite, name: str) -> bool:
    """Whether a statement of ``block`` binds ``name`` again (not in a function, a class or a
    comprehension inside it, which have names of their own)."""
    found = False

    def enter(node: cst.CSTNode) -> bool:
        nonlocal found
        if isinstance(node, _OWN_SCOPES):
            return False
        target: cst.BaseExpression | None = None
        if isinstance(node, cst.AsName):
            target = node.name
        elif isinstance(node, BINDS_ITS_TARGET):
            target = node.target
        found = found or (target is not None and name in target_names(target))
        return not found

    walk(block, enter)
    return found


def _imported_names(node: cst.Import | cst.ImportFrom) -> list[str]:
    if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
        return []
    names: list[str] = []
    for alias in node.names if not isinstance(node.names, cst.ImportStar) else ():
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            names.append(alias.asname.name.value)
        else:
            dotted = dotted_name(alias.name)
            if dotted is not None:
                names.append(dotted.split(".", 1)[0])
    return names


def _is_mapping_display(node: cst.BaseExpression) -> bool:
    """``{...}``, a dict comprehension or ``dict(...)``."""
    if isinstance(node, (cst.Dict, cst.DictComp)):
        return True
    return (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict"
    )


def _is_item_read(node: cst.BaseExpression) -> bool:
    """``m["content"]`` or ``m.get("content")``: a read of a dict key, not of an attribute."""
    if isinstance(node, cst.Subscript):
        return True
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
    )
