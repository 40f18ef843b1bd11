"""Calls that receive content: coercing and using callables of the catalog, and any other callee.

A call is judged from the callee's qualified names (a function, or ``Class.method`` for each
class of the receiver's MRO, so a ``Logger`` subclass's ``.info`` is still
``logging.Logger.info``), looked up in the catalog (``rules/sinks.toml``) and the SPI's
accessors:

- an accessor (``text_of``), a narrowing function (``TypeIs``/``TypeGuard``) or a sanctioned
  callable (``isinstance``, ``type``, ...) is never flagged;
- a coercion (``str``, ``print``, ``str.format`` and the f-strings mypy lowers to it, logging,
  ``json.dumps``, ``.write``, ...) flags the union, a narrowed parts list or a single part;
- a use (``len``, ``list``, ``sorted``, ...) flags the union;
- any other callee flags the union passed to a parameter that does not preserve it
  (``content_types.accepts_content``): ``Any``, ``object``, unannotated.

Where mypy itself rejects the argument (a parameter declared ``str``, ``str.join`` of parts,
``TextIO.write``), it reports the expression already; the plugin adds nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from mypy.argmap import map_actuals_to_formals
from mypy.checker import TypeChecker
from mypy.expandtype import expand_type
from mypy.maptype import map_instance_to_supertype
from mypy.messages import format_type_bare
from mypy.nodes import (
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    CallExpr,
    Expression,
    GeneratorExpr,
    ListExpr,
    MemberExpr,
    SetExpr,
    StarExpr,
    StrExpr,
    TupleExpr,
)
from mypy.subtypes import is_subtype
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    Overloaded,
    Type,
    TypeOfAny,
    TypeVarId,
    TypeVarType,
    get_proper_type,
)

from loomlint.analysis import content_types
from loomlint.catalog import Sink
from loomlint.mypy_checks.config import PluginConfig
from loomlint.mypy_checks.findings import coercion_message, emit, serialiser_message, use_message
from loomlint.mypy_checks.values import (
    COERCIBLE,
    may_be_content,
    source_text,
    union_value_of,
    value_of,
)

# mypy lowers f"{x!r:>4}" to "{!r:{}}".format(x, ">4"): the value, then the format spec.
_FSTRING_FORMAT: Final = re.compile(r"\{(![rsa])?:\{\}\}")
_UNANNOTATED: Final = (TypeOfAny.unannotated, TypeOfAny.implementation_artifact)


@dataclass(frozen=True, slots=True)
class CallSite:
    checker: TypeChecker
    call: CallExpr
    # The argument types mypy hands the hook, grouped by parameter.
    arg_types: Sequence[Sequence[Type]]
    # A function's qualified name; for a method call, None (see ``receiver``).
    function: str | None = None
    # For a method call: the receiver's type and the method's name.
    receiver: Type | None = None
    method: str | None = None

    def names(self) -> tuple[str, ...]:
        """The callee's qualified names: the function, or ``Class.method`` along the MRO."""
        if self.function is not None:
            return (self.function,)
        if self.method is None:
            return ()
        return content_types.method_fullnames(self.receiver, self.method)


def check_call(site: CallSite, config: PluginConfig) -> None:
    """Check the arguments of one call (a function or method hook fired for it)."""
    sink = _sink(site, config)
    if sink is None and not any(may_be_content(t) for group in site.arg_types for t in group):
        return  # the common case, decided cheaply: no argument can be the content union
    if sink is not None and sink.role == "sanctioned":
        return
    if _is_accessor(site, config):
        return
    callee_type = site.checker.lookup_type_or_none(site.call.callee)
    if content_types.callable_narrows(callee_type):
        return
    if sink is None:
        _check_parameters(site, callee_type, config)
    elif sink.role == "coercion":
        _check_coercion(site, sink, callee_type, config)
    elif sink.role == "use":
        _check_use(site, sink, callee_type, config)
    # typing.cast never reaches a hook: mypy makes it a CastExpr (see casts.py).


def _sink(site: CallSite, config: PluginConfig) -> Sink | None:
    sinks = config.sinks
    if site.function is not None:
        return sinks.by_callee.get(site.function)
    if site.method is None:
        return None
    found = None
    if site.method in sinks.methods_by_name:
        found = sinks.lookup(site.names())
    return found or sinks.by_method.get(site.method)


def _is_accessor(site: CallSite, config: PluginConfig) -> bool:
    spi = config.spi
    if site.function is not None:
        return spi.is_accessor(site.function)
    if site.method is None or site.method not in config.accessor_methods:
        return False
    return any(spi.is_accessor(name) for name in site.names())


def _check_coercion(
    site: CallSite, sink: Sink, callee_type: Type | None, config: PluginConfig
) -> None:
    label = _fstring_label(site.call) or sink.label
    elements = sink.args == "elements-first"
    for index, node in _selected(site.call, sink):
        value = value_of(site.checker, node, config)
        if value is None or value.kind not in COERCIBLE:
            continue
        element = value.type if elements else None
        if not accepts_argument(site.checker, site.call, index, callee_type, element=element):
            continue  # mypy reports this argument itself
        if sink.serialises == "json":
            json_content = content_types.is_json_content(value.type)
            if json_content if json_content is not None else config.spi.json_parts:
                continue  # parts that are JSON already: serialised, not coerced
            message = serialiser_message(value, label, config.spi)
            emit(site.checker, config, node, "coercion", message)
            continue
        message = coercion_message(value, label, config.spi)
        emit(site.checker, config, node, "coercion", message)


def _check_use(site: CallSite, sink: Sink, callee_type: Type | None, config: PluginConfig) -> None:
    for index, node in _selected(site.call, sink):
        value = union_value_of(site.checker, node, config)
        if value is None:
            continue
        if not accepts_argument(site.checker, site.call, index, callee_type):
            continue
        message = use_message(value, f"is used as one branch by {sink.label}", config.spi)
        emit(site.checker, config, node, "use", message)


def _check_parameters(site: CallSite, callee_type: Type | None, config: PluginConfig) -> None:
    """The union passed where the declared parameter type does not preserve it."""
    call, checker = site.call, site.checker
    signature = get_proper_type(callee_type)
    if not isinstance(signature, CallableType):
        return  # overloaded or unknown callees are judged only through the catalog
    for index, node in enumerate(call.args):
        if call.arg_kinds[index] in (ARG_STAR, ARG_STAR2):
            continue
        value = union_value_of(checker, node, config)
        if value is None:
            continue
        formal_index = _formal_index(call, index, signature, checker)
        if formal_index is None:
            continue
        formal = signature.arg_types[formal_index]
        if content_types.accepts_content(formal, value.type):
            continue
        if config.spi.preserves(site.names(), signature.arg_names[formal_index]):
            continue  # declared content-preserving in [tool.loomlint]
        if not is_subtype(value.type, _widened(formal, signature)):
            continue  # mypy reports an incompatible argument itself
        description = _parameter_description(site, signature, formal_index, formal)
        emit(checker, config, node, "use", use_message(value, description, config.spi))


def _parameter_description(
    site: CallSite, signature: CallableType, formal_index: int, formal: Type
) -> str:
    name = signature.arg_names[formal_index]
    where = f'parameter "{name}"' if name else f"argument {formal_index + 1}"
    callee = source_text(site.call.callee)
    proper = get_proper_type(formal)
    if isinstance(proper, AnyType) and proper.type_of_any in _UNANNOTATED:
        declared = "which is not annotated"
    else:
        declared = f'declared "{format_type_bare(formal, site.checker.options)}"'
    return f'is passed to {where} of "{callee}", {declared}'


# --- arguments ---------------------------------------------------------------------------------


def _selected(call: CallExpr, sink: Sink) -> Iterator[tuple[int, Expression]]:
    """(actual index, expression) of the arguments ``sink.args`` selects.

    ``elements-first`` yields the elements of a literal display or generator given as the
    first argument (``", ".join([a, m.content])``), each with the first argument's index.
    """
    positional = [i for i, kind in enumerate(call.arg_kinds) if kind == ARG_POS]
    if sink.args == "first":
        chosen = positional[:1]
    elif sink.args == "after-first":
        chosen = positional[1:]
    elif sink.args == "all":
        chosen = positional
    else:
        for index in positional[:1]:
            for element in _elements(call.args[index]):
                yield index, element
        return
    for index in chosen:
        yield index, call.args[index]


def _elements(iterable: Expression) -> Sequence[Expression]:
    if isinstance(iterable, (ListExpr, TupleExpr, SetExpr)):
        return [item for item in iterable.items if not isinstance(item, StarExpr)]
    if isinstance(iterable, GeneratorExpr):
        return [iterable.left_expr]
    return []


def _fstring_label(call: CallExpr) -> str | None:
    """The label "an f-string" when ``call`` is mypy's lowering of one (with its conversion)."""
    callee = call.callee
    if not (
        isinstance(callee, MemberExpr)
        and callee.name == "format"
        and isinstance(callee.expr, StrExpr)
        and len(call.args) == 2
    ):
        return None
    match = _FSTRING_FORMAT.fullmatch(callee.expr.value)
    if match is None:
        return None
    conversion = match.group(1)
    return "an f-string" if conversion in (None, "!s") else f"an f-string ({conversion})"


def accepts_arguments(checker: TypeChecker, call: CallExpr, callee_type: Type | None) -> bool:
    """Whether mypy accepts every argument of ``call`` for ``callee_type`` (see below)."""
    return all(
        accepts_argument(checker, call, index, callee_type) for index in range(len(call.args))
    )


def accepts_argument(
    checker: TypeChecker,
    call: CallExpr,
    index: int,
    callee_type: Type | None,
    *,
    element: Type | None = None,
) -> bool:
    """Whether a signature of the callee that fits the call accepts argument ``index``.

    When none does, mypy reports the argument itself (arg-type, call-overload, type-var) and
    the plugin stays silent. With ``element``, the argument is an iterable (``str.join``'s)
    and its element of that type must fit the parameter's item type. Type variables are
    widened to their bounds, as mypy would solve them.
    """
    proper = get_proper_type(callee_type)
    if isinstance(proper, CallableType):
        signatures = [proper]
    elif isinstance(proper, Overloaded):
        signatures = list(proper.items)
    else:
        return True  # an untyped or unknown callee accepts anything
    actual = element or checker.lookup_type_or_none(call.args[index])
    if actual is None:
        return True
    for signature in signatures:
        mapping = _formal_mapping(call, signature, checker)
        if not _fits(mapping, signature, len(call.args)):
            continue
        formal_index = next((f for f, actuals in enumerate(mapping) if index in actuals), None)
        if formal_index is None:
            continue
        formal = _widened(signature.arg_types[formal_index], signature)
        expected = formal if element is None else _item_type(checker, formal)
        if expected is None or is_subtype(actual, expected):
            return True
    return False


def _fits(mapping: list[list[int]], signature: CallableType, actual_count: int) -> bool:
    """Whether every argument has a parameter and every required parameter an argument
    (mypy's first filter of overload candidates)."""
    mapped = {actual for actuals in mapping for actual in actuals}
    if len(mapped) != actual_count:
        return False
    return all(
        actuals or not kind.is_required()
        for kind, actuals in zip(signature.arg_kinds, mapping, strict=True)
    )


def _item_type(checker: TypeChecker, iterable: Type) -> Type | None:
    """The item type of an iterable parameter type (``Iterable[str]`` -> ``str``)."""
    proper = get_proper_type(iterable)
    if not isinstance(proper, Instance):
        return None
    info = checker.lookup_typeinfo("typing.Iterable")
    if not proper.type.has_base(info.fullname):
        return None
    mapped = map_instance_to_supertype(proper, info)
    return mapped.args[0] if mapped.args else None


def _formal_index(
    call: CallExpr, index: int, signature: CallableType, checker: TypeChecker
) -> int | None:
    for formal_index, actuals in enumerate(_formal_mapping(call, signature, checker)):
        if index in actuals:
            return formal_index
    return None


def _formal_mapping(
    call: CallExpr, signature: CallableType, checker: TypeChecker
) -> list[list[int]]:
    def actual_type(i: int) -> Type:
        return checker.lookup_type_or_none(call.args[i]) or AnyType(TypeOfAny.special_form)

    return map_actuals_to_formals(
        call.arg_kinds, call.arg_names, signature.arg_kinds, signature.arg_names, actual_type
    )


def _widened(formal: Type, signature: CallableType) -> Type:
    """``formal`` with the signature's type variables replaced by their upper bounds."""
    if not signature.variables:
        return formal
    bounds: dict[TypeVarId, Type] = {}
    for variable in signature.variables:
        if isinstance(variable, TypeVarType) and not variable.values:
            bounds[variable.id] = variable.upper_bound
        else:
            bounds[variable.id] = AnyType(TypeOfAny.special_form)
    return expand_type(formal, bounds)
