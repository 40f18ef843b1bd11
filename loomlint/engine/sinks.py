"""Classifies the position a content value is used in: sanctioned, a coercion, a use, a cast.

``PositionClassifier.classify(node, kind)`` answers for one candidate expression. It climbs
through positions the value merely passes through (``x or ""``, ``a if t else b``, a walrus)
to the position that receives it, and decides there, from the catalog (``rules/sinks.toml``),
the SPI's accessors, and, where the type oracle covers the node, mypy's declared types.
Returning ``None`` means the position is sanctioned (or harmless).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

import libcst as cst

from loomlint.catalog.rules import Sink, SinkCatalog
from loomlint.catalog.spi import SpiModel, imports_any
from loomlint.engine.callees import local_callee, parameter_for
from loomlint.engine.evidence import BRANCH_ATTRIBUTES, looks_like_content_annotation
from loomlint.engine.guards import (
    ElementGuards,
    LoopVerdict,
    displays_no_text,
    element_comparand,
    in_kind_fallback,
    named_element_test,
    tells_element_from_character,
    tests_emptiness,
)
from loomlint.engine.index import ModuleIndex
from loomlint.engine.syntax import (
    arg_position,
    dotted_name,
    is_text_literal,
    single_index,
    string_value,
)
from loomlint.engine.typefacts import ContentKind
from loomlint.engine.typeview import TypeView

# "erased": passed or stored where the type is lost (``Any``, ``object``, unannotated); the
# engine follows a callee of the module (``analysis.callees``) before it reports LML005.
# "list-only": a use only a list allows (a list's own method, ``+=`` of a list), which on the
# string branch fails at once (LML006, opt-in).
Category = Literal["coercion", "use", "cast", "erased", "list-only"]
Misses = Literal["parts", "text"]

_SANCTIONED_COMPARISONS = (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)
# What a list has and a string lacks: code that calls one on content takes it for a list it
# built or converted, and on a string fails at once with AttributeError (which mypy reports
# too, where it checks the body). ``index`` and ``count`` are on both: a use of one branch.
_LIST_ONLY_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear", "copy"}
)
_FIXABLE_KINDS = frozenset({ContentKind.CONTENT, ContentKind.PARTS})
# The calls that ask for a value's representation, not its text.
_REPRESENTATIONS = frozenset({"builtins.repr", "builtins.ascii"})
# A %-format whose every conversion is %s: wrapping its arguments in the accessor is safe.
_PERCENT_CONVERSION = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?([a-zA-Z%])")
# Annotations that certainly do not preserve the union (syntactic fallback): one branch, or
# no type at all.
_ONE_BRANCH = frozenset({"builtins.str", "builtins.list", "typing.List"})
_ERASING = frozenset({"builtins.object", "typing.Any", "typing_extensions.Any"})
# Calls a loop iterates through to the content's own items (see ``ElementGuards``).
_ITERATING_WRAPPERS = frozenset({"builtins.enumerate"})
_OPERATOR_TEXT: Mapping[type[cst.CSTNode], str] = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.MatrixMultiply: "@",
    cst.BitAnd: "&",
    cst.BitOr: "|",
    cst.BitXor: "^",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Minus: "-",
    cst.Plus: "+",
    cst.BitInvert: "~",
}


@dataclass(frozen=True, slots=True)
class FixRewrite:
    """A fix as text: what replaces the target's range, how it is described, what it imports."""

    replacement: str
    description: str
    imports: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FixPlan:
    """A safe rewrite of ``target``.

    With ``accessor`` (a qualified function name), ``target`` becomes ``accessor(wrapped)``
    (``str(m.content)`` -> ``text_of(m.content)``). With ``attribute``, ``wrapped`` is a
    ``<receiver>.<field>`` read and ``target`` becomes ``<receiver>.<attribute>``
    (``str(msg.content)`` -> ``msg.text``).
    """

    target: cst.CSTNode
    wrapped: cst.BaseExpression
    accessor: str | None = None
    attribute: str | None = None

    def rewrite(self, code: Callable[[cst.CSTNode], str]) -> FixRewrite:
        """The replacement text, ``code`` giving a node's source text as the module spells it."""
        if self.attribute is not None and isinstance(self.wrapped, cst.Attribute):
            receiver = self.wrapped.value
            text = code(receiver)
            if not _binds_tighter_than_attribute(receiver):
                text = f"({text})"
            return FixRewrite(f"{text}.{self.attribute}", f"Read `.{self.attribute}`", ())
        accessor = self.accessor or ""
        name = accessor.rsplit(".", 1)[-1]
        # The wrapped expression's own parentheses stay where they are, outside the edit's range.
        wrapped = self.wrapped
        bare = wrapped.with_changes(lpar=[], rpar=[]) if wrapped.lpar else wrapped
        return FixRewrite(f"{name}({code(bare)})", f"Wrap in `{name}(...)`", (accessor,))


@dataclass(frozen=True, slots=True)
class Position:
    category: Category
    # Completes "<origin> ...": "is coerced to str by an f-string".
    description: str
    fix: FixPlan | None = None
    # The use only iterates the value or counts its items (a loop, ``len()``): a value whose
    # string branch can only be "" is safe there.
    items_only: bool = False
    # The branch the use gets wrong: a list of parts (the code reads a string), or text (a loop
    # that picks text parts gets none from a string's characters).
    misses: Misses = "parts"
    # The coercion asks for the value's representation itself (``repr()``, ``ascii()``, ``!r``,
    # ``!a``): a list's repr is what it shows, on purpose, where a problem is reported.
    explicit_repr: bool = False


class PositionClassifier:
    def __init__(
        self,
        index: ModuleIndex,
        types: TypeView,
        sinks: SinkCatalog,
        spi: SpiModel,
        constructs_no_text: Callable[[cst.Call], bool],
    ) -> None:
        self._index = index
        self._types = types
        self._sinks = sinks
        self._spi = spi
        # Whether a call makes an instance of a class no string is an instance of (the flow's
        # evidence: the module's classes, and the project's where types are wanting).
        self._constructs_no_text = constructs_no_text
        self._accessor_short_names = spi.accessor_short_names
        self._guards = ElementGuards(index, spi.text_parts)
        self._comparison_targets: dict[cst.Comparison, dict[cst.ComparisonTarget, int]] = {}
        self._used_at: dict[
            cst.BaseExpression, tuple[cst.BaseExpression, cst.CSTNode | None] | None
        ] = {}

        # The candidate being classified (a container holding it is classified on its behalf).
        self._candidate: cst.BaseExpression | None = None
        self._containers = 0

    def classify(self, node: cst.BaseExpression, kind: ContentKind) -> Position | None:
        self._candidate = node
        self._containers = 0
        return self._classify_from(node, kind)

    def _classify_from(self, node: cst.BaseExpression, kind: ContentKind) -> Position | None:
        where = self._where_used(node)
        return self._at(*where, kind) if where is not None else None

    def _where_used(
        self, node: cst.BaseExpression
    ) -> tuple[cst.BaseExpression, cst.CSTNode | None] | None:
        """The expression whose parent uses ``node``'s value, and that parent: ``node``'s
        value passes on through ``and``/``or``, a ternary's branches and a walrus. None for
        a ternary's test (a truth test).

        Remembered for every expression passed through: each operand of a chain of 5,000
        ``or`` would otherwise climb the whole chain, which is quadratic.
        """
        climbed: list[cst.BaseExpression] = []
        position = node
        where: tuple[cst.BaseExpression, cst.CSTNode | None] | None
        while True:
            if position in self._used_at:
                where = self._used_at[position]
                break
            parent = self._index.parent(position)
            if isinstance(parent, cst.IfExp) and parent.test is position:
                where = None  # a truth test
                break
            if not isinstance(parent, (cst.BooleanOperation, cst.IfExp, cst.NamedExpr)):
                # (the walrus binds it, tracked by flow, and passes it on)
                where = (position, parent)
                break
            climbed.append(position)
            position = parent
        for expression in climbed:
            self._used_at[expression] = where
        return where

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._index.parent(node)

    def used_at(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The expression whose parent receives ``node``'s value (``_where_used``)."""
        where = self._where_used(node)
        return where[0] if where is not None else None

    def in_diagnostic(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is shown in a report of a problem: the exception a ``raise``
        builds, an ``assert``'s message, or the arguments of a warning or an error log
        (``diagnostic`` sinks). A part named there is a diagnostic about that part."""
        for child, parent in self._within_statement(node):
            if isinstance(parent, cst.Raise):
                return child is parent.exc or child is parent.cause
            if isinstance(parent, cst.Assert):
                return child is parent.msg
            if isinstance(parent, cst.Call) and child is not parent.func:
                sink = self._sink_for(parent)
                if sink is not None and sink.diagnostic:
                    return True
        return False

    def in_kind_fallback(self, node: cst.BaseExpression) -> bool:
        """Whether ``node``, a part held in a name, is in the branch where a test of its kind
        failed: a dispatch's catch-all (``guards.in_kind_fallback``)."""
        return in_kind_fallback(self._index, node)

    def in_repr_method(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is in a ``__repr__`` method, which shows its object's fields as
        Python spells them."""
        parent = self._index.parent(node)
        while parent is not None:
            if isinstance(parent, cst.FunctionDef):
                return parent.name.value == "__repr__"
            if isinstance(parent, (cst.ClassDef, cst.Lambda)):
                return False
            parent = self._index.parent(parent)
        return False

    def in_assert_message(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is in an ``assert``'s message (``assert ok, f"got {c}"``), which is
        built only when the assertion failed, to show what the value was."""
        return any(
            isinstance(parent, cst.Assert) and child is parent.msg
            for child, parent in self._within_statement(node)
        )

    def _within_statement(self, node: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.CSTNode]]:
        """Each (child, parent) pair from ``node`` up to the statement (or lambda) holding it,
        that one included."""
        child = node
        parent = self._index.parent(child)
        while parent is not None:
            yield child, parent
            if isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement, cst.Lambda)):
                return
            child, parent = parent, self._index.parent(parent)

    # --- positions ------------------------------------------------------------------------------

    def _at(
        self, position: cst.BaseExpression, parent: cst.CSTNode | None, kind: ContentKind
    ) -> Position | None:
        if parent is None:
            return None
        if isinstance(parent, (cst.If, cst.While, cst.Assert)):
            return None  # a truth test
        if isinstance(parent, cst.UnaryOperation):
            if isinstance(parent.operator, cst.Not):
                return None
            return _use(f"is used with unary `{_OPERATOR_TEXT.get(type(parent.operator), '?')}`")
        if isinstance(parent, cst.Comparison):
            return self._comparison(parent, -1) if parent.left is position else None
        if isinstance(parent, cst.ComparisonTarget):
            comparison = self._index.parent(parent)
            if isinstance(comparison, cst.Comparison) and parent.comparator is position:
                return self._comparison(comparison, self._target_index(comparison, parent))
            return None
        if isinstance(parent, cst.Attribute):
            if parent.value is not position:
                return None
            if parent.attr.value not in BRANCH_ATTRIBUTES:
                # content.target, content.get(...): neither a string nor a list has it, so the
                # code knows the value to be something else here (a tool's result object, a
                # protocol's dict, a stream delta's single block), not message content.
                return None
            call = self._index.parent(parent)
            called = isinstance(call, cst.Call) and call.func is parent
            method = f"`.{parent.attr.value}()`" if called else f"`.{parent.attr.value}`"
            if parent.attr.value in _LIST_ONLY_METHODS:
                return Position("list-only", f"is used as a list by {method}")
            return _use(f"is used as one branch by {method}")
        if isinstance(parent, cst.Subscript):
            if parent.value is position:
                key = single_index(parent)
                if key is not None and string_value(key) is not None:
                    # content["path"]: neither a string nor a list takes a string key, so the
                    # code knows the value to be a mapping here (a file dict, a tool result's
                    # payload), not message content.
                    return None
                if tells_element_from_character(self._index, parent):
                    return None  # isinstance(content[0], dict): a character rightly fails it
                if named_element_test(self._index, parent) is not None:
                    return None  # part = content[0]; assert isinstance(part, ToolCallPart)
                if self._compared_with_no_text(parent):
                    return None  # content[0] == TextPart(...): a character is just unequal
                sliced = any(isinstance(e.slice, cst.Slice) for e in parent.slice)
                return _use("is sliced" if sliced else "is indexed")
            return None
        if isinstance(parent, (cst.Index, cst.Slice, cst.SubscriptElement)):
            return _use("is used as a subscript")
        if isinstance(parent, cst.Call):
            # content(...): neither a string nor a list can be called, so the code knows the
            # value to be something else here (a method named content, as a browser page's
            # `page.content()` or a file API's `files.content(file_id)`, or a callable it
            # holds), not message content.
            return None
        if isinstance(parent, cst.Arg):
            call = self._index.parent(parent)
            if isinstance(call, cst.Call):
                return self._argument(position, parent, call, kind)
            return None  # a class base or keyword
        if isinstance(parent, cst.FormattedStringExpression):
            return self._fstring(position, parent, kind)
        if isinstance(parent, cst.BinaryOperation):
            return self._binary(position, parent, kind)
        if isinstance(parent, cst.AugAssign):
            return self._augmented(position, parent, kind)
        if isinstance(parent, cst.Element):
            return self._element(position, parent, kind)
        if isinstance(parent, cst.DictElement):
            if parent.key is position:
                return _use("is used as a dict key")
            return self._dict_value(position, parent, kind)
        if isinstance(parent, cst.StarredDictElement):
            return _use("is unpacked with `**`")
        if isinstance(parent, (cst.For, cst.CompFor)):
            if parent.iter is not position or parent.asynchronous is not None:
                return None  # `async for`: neither a string nor a list is an async iterable
            return _iterated(self._guards.verdict(parent))
        if isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            if parent.elt is position:
                return self._comprehension_result(parent, kind)
            return None
        if isinstance(parent, cst.DictComp):
            return _use("is used as a dict key") if parent.key is position else None
        if isinstance(parent, cst.Return):
            return self._declared_destination(position, self._return_annotation(parent))
        if isinstance(parent, cst.Assign):
            return self._declared_destination(position, None)
        if isinstance(parent, cst.AnnAssign):
            annotation = (
                parent.annotation.annotation if isinstance(parent.target, cst.Name) else None
            )
            return self._declared_destination(position, annotation)
        if isinstance(parent, cst.WithItem):
            return _use("is used as a context manager") if parent.item is position else None
        if isinstance(parent, cst.From) and isinstance(self._index.parent(parent), cst.Yield):
            return Position("use", "is iterated by `yield from`", items_only=True)
        return None

    def _compared_with_no_text(self, element: cst.Subscript) -> bool:
        """``content[0] == TextPart(...)`` (or ``!=``) with a value that cannot be a string
        (``guards.element_comparand``): a display or comprehension of a container, or a number;
        with types, a value whose type holds no ``str`` (``ExprFact.comparand_may_be_text``);
        else a call of a class no string is an instance of (``Evidence.constructs_no_text``).
        A name or a call that says nothing of its value may be a string: still a use."""
        other = element_comparand(self._index, element)
        if other is None:
            return False
        if displays_no_text(other):
            return True
        typed = self._types.comparand_may_be_text(element)
        if typed is not None:
            return not typed
        return isinstance(other, cst.Call) and self._constructs_no_text(other)

    def _target_index(self, comparison: cst.Comparison, target: cst.ComparisonTarget) -> int:
        """Where ``target`` is in its chain, indexed once per chain: asking each operand of
        ``a < b < ... < z`` by a scan would be quadratic in the chain's length."""
        indexes = self._comparison_targets.get(comparison)
        if indexes is None:
            indexes = {t: i for i, t in enumerate(comparison.comparisons)}
            self._comparison_targets[comparison] = indexes
        return indexes[target]

    def _comparison(self, comparison: cst.Comparison, index: int) -> Position | None:
        """The operand at ``index`` of the chain (-1: its left end) by its operators."""
        targets = comparison.comparisons
        operators = [targets[i].operator for i in (index, index + 1) if 0 <= i < len(targets)]
        is_left = index == -1
        for operator in operators:
            if isinstance(operator, _SANCTIONED_COMPARISONS):
                continue
            if isinstance(operator, (cst.In, cst.NotIn)):
                if is_left:
                    continue  # compared to the container's items by equality
                return _use("is searched with `in`")
            text = _OPERATOR_TEXT.get(type(operator), "an ordering operator")
            return _use(f"is compared with `{text}`")
        return None

    def _fstring(
        self, position: cst.BaseExpression, part: cst.FormattedStringExpression, kind: ContentKind
    ) -> Position | None:
        if part.expression is not position:
            return None
        conversion = part.conversion
        if conversion in ("r", "a"):
            return _coercion(f"an f-string (`!{conversion}`)", explicit_repr=True)
        return _coercion("an f-string", self._wrap(position, kind))

    def _binary(
        self, position: cst.BaseExpression, operation: cst.BinaryOperation, kind: ContentKind
    ) -> Position | None:
        operator = operation.operator
        if isinstance(operator, cst.Modulo):
            if operation.right is position:
                return self._percent_format(position, operation, kind)
            return _use("is used as a `%` format string")
        if isinstance(operator, cst.Add):
            other = operation.right if operation.left is position else operation.left
            if self._partner_is_text(position, other):
                return _coercion("`+` with a str", self._wrap(position, kind))
            return _use("is used with `+`")
        return _use(f"is used with `{_OPERATOR_TEXT.get(type(operator), '?')}`")

    def _percent_format(
        self, operand: cst.BaseExpression, operation: cst.BinaryOperation, kind: ContentKind
    ) -> Position | None:
        covered = self._types.covered(operand)
        fact = self._types.expr(operand) if covered else None
        if covered and fact is not None and fact.partner_is_text is False:
            return _use("is used with `%`")
        return _coercion("`%` formatting", self._percent_fix(operand, operation, kind))

    def _percent_fix(
        self, operand: cst.BaseExpression, operation: cst.BinaryOperation, kind: ContentKind
    ) -> FixPlan | None:
        template = string_value(operation.left)
        if template is None:
            return None
        conversions = [c for c in _PERCENT_CONVERSION.findall(template) if c != "%"]
        if not conversions or any(c != "s" for c in conversions):
            return None
        return self._wrap(operand, kind)

    def _augmented(
        self, position: cst.BaseExpression, statement: cst.AugAssign, kind: ContentKind
    ) -> Position | None:
        if not isinstance(statement.operator, cst.AddAssign):
            return _use("is used with an augmented assignment")
        if statement.target is position:
            if self._is_list(statement.value) or self._extended_by_a_list(position):
                return Position("list-only", "is extended with a list by `+=`")
            return _use("is extended with `+=`")
        if self._is_list(position):
            return None  # x += [...]: a list's concatenation, which no string takes
        if self._partner_is_text(position, statement.target, assume_text=True):
            return _coercion("`+=` onto a str", self._wrap(position, kind))
        return _use("is added with `+=`")

    def _element(
        self, position: cst.BaseExpression, element: cst.Element, kind: ContentKind
    ) -> Position | None:
        container = self._index.parent(element)
        if isinstance(container, cst.Set):
            return _use("is put in a set")
        if isinstance(container, (cst.Tuple, cst.List)):
            holder = self._index.parent(container)
            if (
                isinstance(holder, cst.BinaryOperation)
                and isinstance(holder.operator, cst.Modulo)
                and holder.right is container
            ):
                return self._percent_format(position, holder, kind)
            if self._is_joined(container):
                return _coercion("str.join()")
            return self._contained(container, kind)
        return None

    def _dict_value(
        self, position: cst.BaseExpression, element: cst.DictElement, kind: ContentKind
    ) -> Position | None:
        container = self._index.parent(element)
        holder = self._index.parent(container) if container is not None else None
        if (
            isinstance(holder, cst.BinaryOperation)
            and isinstance(holder.operator, cst.Modulo)
            and holder.right is container
        ):
            return self._percent_format(position, holder, kind)
        if isinstance(container, cst.Dict):
            return self._contained(container, kind)
        return None

    # --- containers -----------------------------------------------------------------------------

    def _contained(self, container: cst.BaseExpression, kind: ContentKind) -> Position | None:
        """Content stored in a list, tuple or dict display keeps the union, unless the display
        (or a local bound to it) is turned into a string: ``json.dumps({"content": m.content})``,
        ``str([m.content])``, ``f"{payload}"``. Only such coercions count: a container passed on
        or measured is not a use of the content in it.
        """
        if self._containers >= _MAX_CONTAINER_DEPTH:
            return None
        self._containers += 1
        try:
            found = self._coerced_container(container, kind)
            if found is None or self._containers > 1:
                return found  # an outer container: the innermost one names where the value is
            noun = _CONTAINER_NOUNS.get(type(container), "container")
            return Position("coercion", f"is put in a {noun} that {found.description}")
        finally:
            self._containers -= 1

    def _coerced_container(
        self, container: cst.BaseExpression, kind: ContentKind
    ) -> Position | None:
        direct = self._classify_from(container, kind)
        if direct is not None:
            return direct if direct.category == "coercion" else None
        for use in self._later_uses(container):
            found = self._classify_from(use, kind)
            if found is not None and found.category == "coercion":
                return found
        return None

    def _later_uses(self, container: cst.BaseExpression) -> list[cst.Name]:
        """Loads of the local a container display is bound to (``payload = {...}``), after the
        binding and before the name is bound again or has an item assigned, in the same scope.
        """
        statement = self._index.parent(container)
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            target = statement.targets[0].target
        elif isinstance(statement, cst.AnnAssign) and statement.value is container:
            target = statement.target
        else:
            return []
        if not isinstance(target, cst.Name):
            return []
        scope = self._scope_of(statement)
        family = f"name:{target.value}"
        uses: list[cst.Name] = []
        seen_target = False
        for node, node_family in self._index.family_nodes:
            if node_family != family or not isinstance(node, cst.Name):
                continue
            if node is target:
                seen_target = True
                continue
            if not seen_target or self._scope_of(node) is not scope:
                continue
            if self._rebinds(node):
                break
            uses.append(node)
        return uses

    def _rebinds(self, name: cst.Name) -> bool:
        parent = self._index.parent(name)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign)):
            return True
        if isinstance(parent, cst.AnnAssign) and parent.target is name:
            return True
        if isinstance(parent, cst.Subscript) and parent.value is name:
            return isinstance(self._index.parent(parent), cst.AssignTarget)
        return False

    def _scope_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        scope = self._index.parent(node)
        while scope is not None and not isinstance(scope, (cst.FunctionDef, cst.Lambda)):
            scope = self._index.parent(scope)
        return scope

    def _comprehension_result(
        self, comprehension: cst.ListComp | cst.SetComp | cst.GeneratorExp, kind: ContentKind
    ) -> Position | None:
        del kind
        if isinstance(comprehension, cst.SetComp):
            return _use("is put in a set")
        if self._is_joined(comprehension):
            return _coercion("str.join()")
        return None

    def _is_joined(self, iterable: cst.BaseExpression) -> bool:
        """Whether ``iterable`` is the iterable argument of ``str.join``, alone or
        concatenated with other lists (``"\n".join([m["content"] for m in ms] + ["END"])``)."""
        arg = self._index.parent(iterable)
        while (
            isinstance(arg, cst.BinaryOperation)
            and isinstance(arg.operator, cst.Add)
            and all(_is_list_display(operand) for operand in (arg.left, arg.right))
        ):
            iterable = arg
            arg = self._index.parent(iterable)
        call = self._index.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or not isinstance(arg, cst.Arg):
            return False
        sink = self._sink_for(call)
        return sink is not None and sink.args == "elements-first" and arg_position(call, arg) == 0

    # --- calls ----------------------------------------------------------------------------------

    def _argument(
        self, position: cst.BaseExpression, arg: cst.Arg, call: cst.Call, kind: ContentKind
    ) -> Position | None:
        if arg.star:
            return _use(f"is unpacked with `{arg.star}`")
        if self._is_accessor_call(call):
            return None
        loop = self._index.parent(call)
        if (
            isinstance(loop, (cst.For, cst.CompFor))
            and loop.iter is call
            and self._index.names.qualified(call.func) in _ITERATING_WRAPPERS
        ):
            verdict = self._guards.verdict(loop)
            if verdict is not LoopVerdict.CHARACTERS:  # for i, part in enumerate(m.content)
                return _iterated(verdict)
        sink = self._sink_for(call)
        index = arg_position(call, arg)
        if sink is not None and _selected(sink, index):
            return self._sink_position(sink, position, arg, call, kind)
        if sink is not None and sink.role == "sanctioned":
            return None
        return self._ordinary_argument(position, arg, call)

    def _sink_position(
        self,
        sink: Sink,
        position: cst.BaseExpression,
        arg: cst.Arg,
        call: cst.Call,
        kind: ContentKind,
    ) -> Position | None:
        if sink.role == "sanctioned":
            return None
        if sink.role == "use":
            if sink.counts and tests_emptiness(self._index, call):
                return None  # len(m.content) > 0: "" and [] both count none
            return Position(
                "use", f"is used as one branch by {sink.label}", items_only=sink.items_only
            )
        if sink.role == "cast":
            if kind is not ContentKind.CONTENT:
                return None
            target = call.args[0].value if call.args else None
            if target is None or self._names_content_type(target):
                return None
            if self._types.covered(position):
                # mypy resolved the target: a content union spelt out keeps the value whole.
                fact = self._types.expr(position)
                if fact is not None and fact.cast_keeps_content:
                    return None
            return Position("cast", f"is cast to `{_code(target)}` instead of being narrowed")
        if sink.args == "elements-first":
            return _coercion(sink.label)
        if sink.serialises == "json":
            return self._json_serialised(sink)
        fix: FixPlan | None = None
        if sink.fix:
            whole_call = (
                sink.callee == "builtins.str" and len(call.args) == 1 and call.args[0] is arg
            )
            fix = self._plan(call if whole_call else position, position, kind)
        return _coercion(sink.label, fix, explicit_repr=sink.callee in _REPRESENTATIONS)

    def _json_serialised(self, sink: Sink) -> Position | None:
        """``json.dumps`` of content: serialisation where the parts are JSON already, else a
        TypeError on parts. The value's type decides (dict or TypedDict parts are JSON), or
        where it says nothing, the active presets' ``json-parts``."""
        json_content: bool | None = None
        candidate = self._candidate
        if candidate is not None and self._types.covered(candidate):
            fact = self._types.expr(candidate)
            json_content = fact.json_content if fact is not None else None
        if json_content is None:
            json_content = self._spi.json_parts
        if json_content:
            return None
        return Position(
            "coercion", f"makes {sink.label} raise TypeError when it holds parts (not JSON)"
        )

    def _ordinary_argument(
        self, position: cst.BaseExpression, arg: cst.Arg, call: cst.Call
    ) -> Position | None:
        if self._types.covered(position) and not self._typed_unknown(position):
            return self._typed_destination(position)
        if arg.keyword is not None and arg.keyword.value in self._spi.content_fields:
            return None  # building a message: content=...
        callee = local_callee(self._index, call)
        if callee is None:
            return None
        function, bound = callee
        parameter = parameter_for(function, call, arg, bound)
        if parameter is None:
            return None
        label = dotted_name(call.func) if bound else function.name.value  # self._format
        name = f"`{parameter.name.value}` of `{label}()`"
        if parameter.annotation is None:
            return _erased(f"is passed to parameter {name}, which is not annotated")
        annotation = parameter.annotation.annotation
        verdict = self._annotation_verdict(annotation)
        if verdict is not None:
            declared = _code(annotation)
            return Position(verdict, f"is passed to parameter {name}, declared `{declared}`")
        return None

    def _sink_for(self, call: cst.Call) -> Sink | None:
        func = call.func
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if method is not None:
            by_method = self._sinks.by_method.get(method)
            if by_method is not None:
                return by_method
        if self._types.covered(call):
            callee = self._types.callee(call)
            return self._sinks.lookup(callee.names) if callee is not None else None
        qualified = self._index.names.qualified(func)
        if qualified is not None:
            found = self._sinks.lookup([qualified])
            if found is not None:
                return found
        if method is None or not isinstance(func, cst.Attribute):
            return None
        if method in ("format", "join"):
            # Without types, str's own methods are recognised by name: lists have neither.
            return self._sinks.lookup([f"builtins.str.{method}"])
        receiver = dotted_name(func.value)
        last = receiver.rsplit(".", 1)[-1] if receiver is not None else None
        for sink in self._sinks.methods_by_name.get(method, ()):
            if sink.receiver is not None and last is not None and sink.receiver.search(last):
                return sink
        return None

    def _is_accessor_call(self, call: cst.Call) -> bool:
        if self._types.covered(call):
            callee = self._types.callee(call)
            if callee is None:
                return False
            return callee.narrows or any(
                name in self._spi.accessors or name in self._spi.narrowing for name in callee.names
            )
        qualified = self._index.names.qualified(call.func)
        if qualified is not None:
            # Without types, a callable declared content-preserving as a whole counts too.
            return (
                qualified in self._spi.accessors
                or qualified in self._spi.narrowing
                or qualified in self._spi.preserving
            )
        short = dotted_name(call.func)
        return short is not None and short.rsplit(".", 1)[-1] in self._accessor_short_names

    # --- helpers --------------------------------------------------------------------------------

    def _declared_destination(
        self, position: cst.BaseExpression, annotation: cst.BaseExpression | None
    ) -> Position | None:
        """A return or assignment: judged by its declared type."""
        if self._types.covered(position) and not self._typed_unknown(position):
            return self._typed_destination(position)
        verdict = self._annotation_verdict(annotation) if annotation is not None else None
        if verdict is not None and annotation is not None:
            return Position(
                verdict, f"is stored or returned where `{_code(annotation)}` is declared"
            )
        return None

    def _typed_destination(self, position: cst.BaseExpression) -> Position | None:
        """What mypy's declared type of the receiving position says (``facts``)."""
        fact = self._types.expr(position)
        if fact is None or fact.receiver_accepts is not False:
            return None
        if fact.receiver_erases:
            return _erased(f"is {fact.receiver_desc}")
        return _use(f"is {fact.receiver_desc}")

    def _typed_unknown(self, position: cst.BaseExpression) -> bool:
        """Whether mypy types the value ``Any`` and judged nothing about where it goes: the
        flow knows it to be content (read from a message mypy could not type), so the
        declared destination is judged by syntax, as without types."""
        fact = self._types.expr(position)
        return fact is not None and fact.kind is ContentKind.ANY and fact.receiver_accepts is None

    def _return_annotation(self, statement: cst.Return) -> cst.BaseExpression | None:
        node: cst.CSTNode | None = statement
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            node = self._index.parent(node)
        if isinstance(node, cst.FunctionDef) and node.returns is not None:
            return node.returns.annotation
        return None

    def _partner_is_text(
        self, position: cst.BaseExpression, other: cst.BaseExpression, *, assume_text: bool = False
    ) -> bool:
        if self._types.covered(position):
            fact = self._types.expr(position)
            if fact is not None and fact.partner_is_text is not None:
                return fact.partner_is_text
        return self._is_text(other) or assume_text

    def _extended_by_a_list(self, target: cst.BaseExpression) -> bool:
        """``m.content += parts`` where the types say ``parts`` is a list."""
        if not self._types.covered(target):
            return False
        fact = self._types.expr(target)
        return fact is not None and fact.partner_is_list

    def _is_list(self, node: cst.BaseExpression) -> bool:
        """A list by its syntax (``_is_list_display``), or ``list(...)``."""
        if isinstance(node, cst.Call):
            return self._index.names.qualified(node.func) == "builtins.list"
        return _is_list_display(node)

    def _is_text(self, node: cst.BaseExpression) -> bool:
        """A string by its syntax: a literal, ``str(...)``, or a ``+`` with one (``"a" + x``
        is a str, or raises)."""
        if is_text_literal(node):
            return True
        if isinstance(node, cst.Call):
            return self._index.names.qualified(node.func) == "builtins.str"
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            return self._is_text(node.left) or self._is_text(node.right)
        return False

    def _annotation_verdict(self, annotation: cst.BaseExpression) -> Category | None:
        """Without types: ``str`` or ``list`` takes one branch ("use"), ``Any`` or ``object``
        erases the type ("erased"); None for anything else (it may preserve the union)."""
        base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
        qualified = self._index.names.qualified(base)
        if qualified in _ONE_BRANCH:
            return "use"
        if qualified in _ERASING:
            return "erased"
        return None

    def _names_content_type(self, node: cst.BaseExpression) -> bool:
        """Whether a cast's target spells a content union: an alias, or ``str | list[...]``."""
        if looks_like_content_annotation(node, self._index, self._spi):
            return True
        qualified = self._index.names.qualified(node)
        if qualified is not None:
            return qualified in self._spi.content_types
        short = dotted_name(node)
        return short is not None and short.rsplit(".", 1)[-1] in self._spi.content_types.short_names

    def _wrap(self, position: cst.BaseExpression, kind: ContentKind) -> FixPlan | None:
        return self._plan(position, position, kind)

    def _plan(
        self, target: cst.CSTNode, position: cst.BaseExpression, kind: ContentKind
    ) -> FixPlan | None:
        """The fix of the value's own SPI for a coerced value, where it is safe."""
        fact = self._types.expr(position) if self._types.covered(position) else None
        fix = self._spi.fix_for(
            fact.owner if fact is not None else None, imports=self.imported_modules()
        )
        if fix.accessor is not None and self.uses_accessor_spi():
            if kind not in _FIXABLE_KINDS:
                return None
            return FixPlan(target, position, accessor=fix.accessor)
        if fix.attribute is not None and self._reads_attribute_receiver(
            position, kind, fix.attribute
        ):
            return FixPlan(target, position, attribute=fix.attribute)
        return None

    def uses_accessor_spi(self) -> bool:
        """Whether the file imports the SPI whose accessor the fix would insert: ``text_of``
        wrapped around another SPI's content would not type-check, and would drop its text."""
        modules = self._spi.fix_accessor_modules
        if not modules:
            return True
        return imports_any(self.imported_modules(), modules)

    def imported_modules(self) -> tuple[str, ...]:
        """What the file's imports name, qualified (``langchain_core.messages.AIMessage``)."""
        return tuple(self._index.names.imports.values())

    def _reads_attribute_receiver(
        self, position: cst.BaseExpression, kind: ContentKind, attribute: str
    ) -> bool:
        """Whether ``position`` is ``<receiver>.<content field>`` on a receiver that mypy says
        has the fix's property (``msg.content`` of a LangChain message has ``msg.text``).

        Only with types: without them the receiver could be anything with a ``content``.
        """
        if kind is not ContentKind.CONTENT or not isinstance(position, cst.Attribute):
            return False
        if position.attr.value not in self._spi.content_fields or position.lpar:
            return False
        if not self._types.covered(position):
            return False
        fact = self._types.expr(position)
        return fact is not None and attribute in fact.receiver_attributes


def _binds_tighter_than_attribute(node: cst.BaseExpression) -> bool:
    """Whether ``node.attr`` parses with ``node`` whole (no parentheses needed)."""
    return bool(node.lpar) or isinstance(
        node,
        (
            cst.Name,
            cst.Attribute,
            cst.Subscript,
            cst.Call,
            cst.List,
            cst.Dict,
            cst.Tuple,
            cst.Set,
            cst.SimpleString,
            cst.ConcatenatedString,
            cst.FormattedString,
        ),
    )


_MAX_CONTAINER_DEPTH = 4
_CONTAINER_NOUNS: Mapping[type[cst.CSTNode], str] = {
    cst.List: "list",
    cst.Tuple: "tuple",
    cst.Dict: "dict",
    cst.Set: "set",
}


def _is_list_display(node: cst.BaseExpression) -> bool:
    """A list by its syntax: a display, a comprehension, or a concatenation of them."""
    if isinstance(node, (cst.List, cst.ListComp)):
        return True
    return (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Add)
        and _is_list_display(node.left)
        and _is_list_display(node.right)
    )


def _use(description: str) -> Position:
    return Position("use", description)


def _iterated(verdict: LoopVerdict) -> Position | None:
    """Content a loop iterates, as what its elements do decides (``engine.guards``). Either
    way only its items are used: an empty string yields none, and holds no text to lose."""
    if verdict is LoopVerdict.SAFE:
        return None
    if verdict is LoopVerdict.TEXT_LOST:
        return Position("use", "is iterated for its text parts", items_only=True, misses="text")
    return Position("use", "is iterated", items_only=True)


def _erased(description: str) -> Position:
    return Position("erased", description)


def _coercion(label: str, fix: FixPlan | None = None, *, explicit_repr: bool = False) -> Position:
    return Position("coercion", f"is coerced to str by {label}", fix, explicit_repr=explicit_repr)


def _selected(sink: Sink, index: int | None) -> bool:
    if index is None:
        return False
    if sink.args in ("first", "elements-first"):
        return index == 0
    if sink.args == "after-first":
        return index >= 1
    return True


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node).strip()
