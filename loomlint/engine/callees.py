"""Following content into a callee of the same module, where its declared type is lost.

Content passed to a parameter declared ``Any`` or ``object``, or left unannotated, keeps no
type there: whether that is a bug depends on what the callee does with it. Where the callee is
a function (or a method called through ``self``/``cls``) of the module being checked, its body
decides (``CalleeJudge``): the parameter is followed as content through the body, and each of
its uses is judged as the caller's own would be. A callee that narrows it, or passes it only to
safe places, is safe; one that uses it as one branch makes the call a finding (LML001/LML003,
at the call, naming the use); one that hands it on to where its type is lost again and no body
can be followed makes the call LML005 (``content-type-erased``, opt-in). A callee that returns
the parameter hands it back: the call's value is the content again (``FlowAnalysis``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from loomlint.engine.index import ModuleIndex
from loomlint.engine.syntax import arg_position, dotted_name

# How deep calls are followed from one call site.
MAX_DEPTH = 4


def local_callee(index: ModuleIndex, call: cst.Call) -> tuple[cst.FunctionDef, int] | None:
    """The function of this module a call names, and how many leading parameters the call
    binds implicitly (1 for ``self.method(...)``): a module-level function by its name, or a
    method of the enclosing class through ``self`` or ``cls``."""
    function = index.names.local_function(call.func)
    if function is not None:
        return function, 0
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return None
    method, cls = _enclosing_method(index, call)
    if method is None or cls is None:
        return None
    positional = [*method.params.posonly_params, *method.params.params]
    if not positional or positional[0].name.value != func.value.value:
        return None
    if func.value.value not in ("self", "cls"):
        return None
    found = [
        statement
        for statement in cls.body.body
        if isinstance(statement, cst.FunctionDef) and statement.name.value == func.attr.value
    ]
    if len(found) != 1 or _is_static(found[0]):
        return None
    return found[0], 1


def parameter_for(
    function: cst.FunctionDef, call: cst.Call, arg: cst.Arg, bound: int
) -> cst.Param | None:
    """The parameter of ``function`` that ``arg`` of ``call`` binds."""
    params = function.params
    if arg.star:
        return None
    if arg.keyword is not None:
        for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
            if param.name.value == arg.keyword.value:
                return param
        return None
    index = arg_position(call, arg)
    positional = [*params.posonly_params, *params.params]
    if index is None or index + bound >= len(positional):
        return None
    return positional[index + bound]


def private_call_sites(index: ModuleIndex) -> dict[cst.FunctionDef, list[cst.Call]]:
    """The module's private functions and methods (``_name``, not decorated) every use of
    which in the module is a call that names them, with those calls: all their call sites, as
    far as a private name lets the module know. A name used otherwise (passed on, stored,
    rebound) keeps its function out."""
    private = {
        function.name.value: function
        for function in index.functions
        if _is_private(function.name.value) and not function.decorators
    }
    if not private:
        return {}
    sites: dict[cst.FunctionDef, list[cst.Call]] = {}
    excluded: set[cst.FunctionDef] = set()
    for node, family in index.family_nodes:
        kind, _, name = family.partition(":")
        function = private.get(name) if kind in ("name", "attr") else None
        if function is None:
            continue
        call = index.parent(node)
        named = (
            local_callee(index, call) if isinstance(call, cst.Call) and call.func is node else None
        )
        if named is not None and named[0] is function:
            sites.setdefault(function, []).append(call)  # type: ignore[arg-type]
        else:
            excluded.add(function)
    return {function: calls for function, calls in sites.items() if function not in excluded}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _enclosing_method(
    index: ModuleIndex, node: cst.CSTNode
) -> tuple[cst.FunctionDef | None, cst.ClassDef | None]:
    function: cst.FunctionDef | None = None
    parent = index.parent(node)
    while parent is not None:
        if isinstance(parent, cst.FunctionDef) and function is None:
            function = parent
        elif isinstance(parent, cst.ClassDef):
            return function, parent
        parent = index.parent(parent)
    return function, None


def _is_static(function: cst.FunctionDef) -> bool:
    return any(dotted_name(d.decorator) == "staticmethod" for d in function.decorators)


class Outcome(enum.Enum):
    SAFE = "safe"  # narrowed, or passed only to safe places
    RETURNS = "returns"  # handed back to the caller (and safe otherwise)
    UNSAFE = "unsafe"  # used as one branch, or turned into a string
    ERASED = "erased"  # passed on to where its type is lost and nothing can be followed


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    # For UNSAFE: the category of the use found in the callee ("use", "coercion", "cast",
    # "list-only"), and what it does there ("is used as one branch by `.strip()` (line 12)").
    category: str = ""
    description: str = ""
    misses: str = "parts"  # the branch that use gets wrong (``sinks.Position.misses``)


@dataclass(frozen=True, slots=True)
class Use:
    """One use of the followed parameter inside the callee, as the caller's judge sees it."""

    node: cst.BaseExpression
    category: str  # "use", "coercion", "cast", "erased", "list-only"
    description: str
    returned: bool  # the use is a ``return`` of the value
    misses: str = "parts"  # the branch the use gets wrong (``sinks.Position.misses``)


# What a judge says of each use of a parameter followed as content (None: sanctioned).
UsesOf = Callable[[cst.FunctionDef, cst.Param], list[Use]]


class CalleeJudge:
    """Decides what a callee of this module does with content passed to one parameter."""

    def __init__(self, index: ModuleIndex, uses_of: UsesOf, line_of: Callable[[cst.CSTNode], int]):
        self._index = index
        self._uses_of = uses_of
        self._line_of = line_of
        self._verdicts: dict[tuple[cst.FunctionDef, str], Verdict] = {}

    def verdict(self, function: cst.FunctionDef, param: cst.Param, depth: int = 0) -> Verdict:
        key = (function, param.name.value)
        known = self._verdicts.get(key)
        if known is not None:
            return known
        if depth >= MAX_DEPTH:
            return Verdict(Outcome.ERASED)
        # A recursive call back into this parameter adds nothing to what the body shows.
        self._verdicts[key] = Verdict(Outcome.SAFE)
        found = self._judge(function, param, depth)
        self._verdicts[key] = found
        return found

    def _judge(self, function: cst.FunctionDef, param: cst.Param, depth: int) -> Verdict:
        outcome = Outcome.SAFE
        for use in sorted(self._uses_of(function, param), key=lambda u: self._line_of(u.node)):
            if use.category != "erased":
                line = self._line_of(use.node)
                return Verdict(
                    Outcome.UNSAFE, use.category, f"{use.description} (line {line})", use.misses
                )
            if use.returned:
                outcome = Outcome.RETURNS if outcome is Outcome.SAFE else outcome
                continue
            inner = self.passed_to(use.node)
            if inner is None:
                outcome = Outcome.ERASED
                continue
            found = self.verdict(*inner, depth + 1)
            if found.outcome is Outcome.UNSAFE:
                line = self._line_of(use.node)
                return Verdict(
                    Outcome.UNSAFE,
                    found.category,
                    f"{use.description} (line {line}), where it {found.description}",
                    found.misses,
                )
            if found.outcome is Outcome.ERASED:
                outcome = Outcome.ERASED
        return Verdict(outcome)

    def passed_to(self, node: cst.BaseExpression) -> tuple[cst.FunctionDef, cst.Param] | None:
        """The parameter of a function of this module that ``node`` is passed to, if any."""
        arg = self._index.parent(node)
        call = self._index.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(arg, cst.Arg) or not isinstance(call, cst.Call) or arg.value is not node:
            return None
        callee = local_callee(self._index, call)
        if callee is None:
            return None
        function, bound = callee
        param = parameter_for(function, call, arg, bound)
        return (function, param) if param is not None else None
