"""One checked file's mypy tree, with the build's types, reduced to ``FileTypes`` facts.

The oracle (``oracle.py``) runs the build; this module reads it. ``FactCollector`` records,
for every expression the LibCST pass may ask about, what its type says (``content_types``),
whether it reads a content field, what the position receiving it declares, and which
callable a call names. ``types_content`` is the quick question asked of a file nobody
screened in: does mypy type anything in it as content at all?
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from mypy.argmap import map_actuals_to_formals
from mypy.maptype import map_instance_to_supertype
from mypy.messages import format_type_bare
from mypy.modulefinder import ModuleNotFoundReason
from mypy.nodes import (
    ARG_STAR,
    ARG_STAR2,
    AssignmentExpr,
    AssignmentStmt,
    AwaitExpr,
    Block,
    CallExpr,
    CastExpr,
    ClassDef,
    ComparisonExpr,
    ConditionalExpr,
    Decorator,
    DictExpr,
    Expression,
    ForStmt,
    FuncBase,
    FuncDef,
    IfStmt,
    Import,
    ImportFrom,
    IndexExpr,
    ListExpr,
    MatchStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    OperatorAssignmentStmt,
    OpExpr,
    OverloadedFuncDef,
    RefExpr,
    ReturnStmt,
    SliceExpr,
    Statement,
    StrExpr,
    TryStmt,
    TupleExpr,
    TypeInfo,
    Var,
    WhileStmt,
    WithStmt,
)
from mypy.options import Options
from mypy.server.subexpr import get_subexpressions
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    NoneType,
    Overloaded,
    Type,
    TypeOfAny,
    UnionType,
    get_proper_type,
)

from loomlint.catalog.rules import load_catalog
from loomlint.catalog.spi import SpiModel
from loomlint.engine import content_types
from loomlint.engine.ownership import owner_of_expression, type_names
from loomlint.engine.typefacts import (
    CalleeFact,
    ContentKind,
    ExprFact,
    FamilyKey,
    FileTypes,
    NodeKey,
)

if TYPE_CHECKING:
    from mypy.build import BuildManager

_INTERESTING = frozenset({ContentKind.CONTENT, ContentKind.PARTS, ContentKind.PART})
_TRACKED_OPS = frozenset({"+", "%", "and", "or"})
# mypy lowers f"{x!r:>4}" to "{!r:{}}".format(x, ">4"), and joins the pieces with "".join.
_FSTRING_FORMAT = re.compile(r"\{(![rsa])?:\{\}\}")
# The end of a range that covers a whole file, whatever its length.
_LAST_LINE = 2**31 - 1


def types_content(tree: MypyFile, types: dict[Expression, Type], spi: SpiModel) -> bool:
    """Whether mypy types any expression of the file as the content union (a quick scan)."""
    seen: set[object] = set()
    for expression in get_subexpressions(tree):
        typ = types.get(expression)
        if typ is None or not isinstance(get_proper_type(typ), UnionType):
            continue  # content is a union (text and a collection): no other type classifies so
        key = content_types.classification_key(typ)
        if key in seen:
            continue
        seen.add(key)
        if content_types.classify(typ, spi) is ContentKind.CONTENT:
            return True
    return False


@dataclass(slots=True)
class _Tracked:
    line: int
    column: int
    end_line: int
    end_column: int
    family: str
    node: Expression


class FactCollector:
    """Reduces one checked file's mypy tree (with the build's types) to ``FileTypes``.

    Expressions come from mypy's own compiled traversal (``get_subexpressions``); statements
    that give a value a declared destination (return, annotated assignment) are walked here.
    """

    def __init__(
        self,
        types: dict[Expression, Type],
        spi: SpiModel,
        options: Options,
        *,
        check_untyped_defs: bool,
        build: BuildManager | None = None,
    ) -> None:
        self._types = types
        self._spi = spi
        self._options = options
        # Its module finder says which of the modules mypy could not read are installed
        # without types; its modules, where a name another module imported comes from.
        self._build = build
        self._check_untyped_defs = check_untyped_defs
        self._tracked: list[_Tracked] = []
        self._excluded: set[int] = set()
        self._unchecked: list[tuple[int, int]] = []
        self._skipped: list[tuple[int, int]] = []
        self._kinds: dict[int, ContentKind] = {}
        self._shapes: dict[int, ContentKind] = {}
        # What is read of a type, by its classification key (``content_types``): many
        # expressions share a few shapes.
        self._kind_of_type: dict[object, ContentKind] = {}
        self._shape_of_type: dict[object, ContentKind] = {}
        self._json_of_type: dict[object, bool | None] = {}
        self._dict_parts_of_type: dict[object, bool] = {}
        self._names_of_type: dict[object, tuple[str, ...]] = {}
        self._type_keys: dict[int, object] = {}
        # Per classification key: whether a type leaves nothing to record (``_says_nothing``).
        self._plain_types: dict[object, bool] = {}
        self._field_origins: set[int] = set()
        self._any_reads: set[int] = set()
        self._receiver_attributes: dict[int, tuple[str, ...]] = {}
        # Per value: whether its declared destination preserves the union, how the message
        # words it, and whether the destination erases its type (``Any``, ``object``).
        self._verdicts: dict[int, tuple[bool, str, bool]] = {}
        self._partners: dict[int, bool] = {}
        # Targets of ``+=`` to which a list is added (by the added value's type).
        self._extended_by_lists: set[int] = set()
        self._comparands: dict[int, bool] = {}
        self._callees: dict[int, CalleeFact] = {}
        self._cast_targets: dict[int, bool] = {}
        self._interesting_callees = spi.accessors | spi.narrowing
        # Most calls are of none of them (``SpiModel.text_only_answer_methods``).
        self._answer_methods = spi.text_only_answer_methods
        # Modules mypy could not find whose types hide a content read's receiver.
        self._unresolved: dict[str, None] = {}
        self._imported_from: dict[str, Imported] = {}
        self._module_name = ""
        # Of other modules of the build (``_import_origin``).
        self._imports_of_module: dict[str, dict[str, Imported]] = {}

    def collect(self, tree: MypyFile) -> FileTypes:
        # A call mypy analyses into a special form (``cast(T, x)``, ``reveal_type(x)``) keeps
        # its arguments and its ``analyzed`` form, and mypy's traversal visits ``x`` through
        # both: one node, listed twice, would break the family counts of its line.
        expressions = list({id(e): e for e in get_subexpressions(tree)}.values())
        self._module_name = tree.fullname
        self._imported_from = _imported_modules(tree)
        for expression in expressions:
            if isinstance(expression, CallExpr) and _is_fstring_lowering(expression):
                # Not in the source: keep the synthesized call and callee out of the families.
                self._excluded.add(id(expression))
                self._excluded.add(id(expression.callee))
        for expression in expressions:
            if id(expression) not in self._excluded:
                self._visit_expression(expression)
        if not tree.defs:
            # A ``# type: ignore`` before the module's first statement makes mypy drop the
            # module's whole body: nothing in the file is checked, nothing typed.
            self._skipped.append((1, _LAST_LINE))
        self._visit_statements(tree.defs, None)
        return self._file_types()

    # --- result ---------------------------------------------------------------------------

    def _file_types(self) -> FileTypes:
        groups: dict[FamilyKey, list[_Tracked]] = {}
        for tracked in self._tracked:
            groups.setdefault((tracked.line, tracked.family), []).append(tracked)
        exprs: dict[NodeKey, ExprFact] = {}
        callees: dict[NodeKey, CalleeFact] = {}
        untyped: set[NodeKey] = set()
        any_reads: set[NodeKey] = set()
        # Most expressions have nothing to record (``_says_nothing``): a group of them needs
        # no ordinals, which only the recorded members' keys hold.
        noted = (
            self._field_origins.union(
                self._verdicts, self._partners, self._comparands, self._cast_targets
            )
            | self._any_reads
            | self._callees.keys()
        )
        for (line, family), members in groups.items():
            if all(
                id(tracked.node) not in noted and self._says_nothing(tracked.node)
                for tracked in members
            ):
                continue
            members.sort(key=lambda t: (t.column, t.end_line, t.end_column))
            for ordinal, tracked in enumerate(members):
                key = (line, family, ordinal)
                fact = self._fact(tracked.node)
                if fact is not None:
                    exprs[key] = fact
                elif self._unresolved_module(self._types.get(tracked.node)) is not None:
                    untyped.add(key)
                if id(tracked.node) in self._any_reads:
                    any_reads.add(key)
                callee = self._callees.get(id(tracked.node))
                if callee is not None:
                    callees[key] = callee
        return FileTypes(
            exprs=exprs,
            callees=callees,
            family_counts={key: len(members) for key, members in groups.items()},
            unchecked=tuple(self._unchecked),
            skipped=tuple(self._skipped),
            unresolved=tuple(self._unresolved),
            unresolved_untyped=tuple(m for m in self._unresolved if self._installed_untyped(m)),
            untyped=frozenset(untyped),
            any_reads=frozenset(any_reads),
        )

    def _says_nothing(self, node: Expression) -> bool:
        """Whether ``node``'s type alone leaves nothing to record of it: no fact (``_fact``
        would return None unless something was noted of the node), no missing module.
        Asked once per classification key; a type of content, parts, ``Any`` or ``object``
        is left to ``_fact``."""
        typ = self._types.get(node)
        if typ is None:
            return True
        key = self._classification_key(typ)
        plain = self._plain_types.get(key)
        if plain is None:
            kind = self._kind_by_key(typ, key)
            shape = self._shape_by_key(typ, key)
            plain = self._plain_types[key] = (
                kind not in _INTERESTING
                and kind is not ContentKind.ANY
                and shape is not ContentKind.CONTENT
                and shape is not ContentKind.PARTS
                and not _is_object(typ)
            )
        return plain

    def _fact(self, node: Expression) -> ExprFact | None:
        node_id = id(node)
        kind = self._kind(node)
        verdict = self._verdicts.get(node_id)
        partner = self._partners.get(node_id)
        comparand = self._comparands.get(node_id)
        cast_target = self._cast_targets.get(node_id)
        origin = node_id in self._field_origins
        shape = self._shape(node)
        # Names typed Any are kept: a value read from content through getattr(), a cast to
        # Any, a parameter declared Any or left unannotated, is still content where the
        # syntactic flow knows it to be, though mypy no longer does.
        if isinstance(node, NameExpr) and _is_object(self._types.get(node)):
            # A name declared ``object`` says no more about its value than ``Any`` does.
            kind = ContentKind.ANY
        keep_any = (
            kind is ContentKind.ANY
            and isinstance(node, (NameExpr, CallExpr))
            and (_is_unknown_value(self._types.get(node)) or _is_object(self._types.get(node)))
        )
        # A local holding a list of dicts is kept too: narrowed from content the flow tracked
        # (``c = m.content``, then ``isinstance(c, list)``), it is a parts list.
        keep_list = (
            shape is ContentKind.PARTS
            and isinstance(node, NameExpr)
            and self._may_hold_dict_parts(node)
        )
        if (
            kind not in _INTERESTING
            and shape is not ContentKind.CONTENT
            and not keep_any
            and not keep_list
            and not origin
            and verdict is None
            and partner is None
            and comparand is None
            and cast_target is None
        ):
            return None
        if kind is ContentKind.ANY and not (keep_any or origin):
            # An Any mypy made up (the items of ``list[Any]`` after isinstance), kept here for
            # another reason (a cast operand): not evidence that the value is still content.
            kind = ContentKind.OTHER
        typ = self._types.get(node)
        return ExprFact(
            kind=kind,
            shape=shape,
            field_origin=origin,
            receiver_accepts=verdict[0] if verdict is not None else None,
            receiver_desc=verdict[1] if verdict is not None else "",
            receiver_erases=verdict[2] if verdict is not None else False,
            partner_is_text=partner,
            partner_is_list=node_id in self._extended_by_lists,
            comparand_may_be_text=comparand,
            receiver_attributes=self._receiver_attributes.get(node_id, ()),
            cast_keeps_content=cast_target,
            json_content=self._json_content(typ),
            owner=owner_of_expression(node, self._type_names, self._spi)
            if kind in _INTERESTING or shape is ContentKind.CONTENT or origin
            else None,
        )

    def _kind(self, node: Expression) -> ContentKind:
        node_id = id(node)
        kind = self._kinds.get(node_id)
        if kind is None:
            typ = self._types.get(node)
            if typ is None:
                kind = ContentKind.OTHER
            else:
                kind = self._kind_by_key(typ, self._classification_key(typ))
            self._kinds[node_id] = kind
        return kind

    def _kind_by_key(self, typ: Type, key: object) -> ContentKind:
        kind = self._kind_of_type.get(key)
        if kind is None:
            kind = self._kind_of_type[key] = content_types.classify(typ, self._spi)
        return kind

    def _shape(self, node: Expression) -> ContentKind:
        node_id = id(node)
        shape = self._shapes.get(node_id)
        if shape is None:
            typ = self._types.get(node)
            key = id(None) if typ is None else self._classification_key(typ)
            shape = self._shapes[node_id] = self._shape_by_key(typ, key)
        return shape

    def _shape_by_key(self, typ: Type | None, key: object) -> ContentKind:
        shape = self._shape_of_type.get(key)
        if shape is None:
            shape = self._shape_of_type[key] = content_types.classify_shape(typ)
        return shape

    def _may_hold_dict_parts(self, node: Expression) -> bool:
        typ = self._types.get(node)
        if typ is None:
            return False
        key = self._classification_key(typ)
        found = self._dict_parts_of_type.get(key)
        if found is None:
            found = self._dict_parts_of_type[key] = content_types.may_hold_dict_parts(typ)
        return found

    def _json_content(self, typ: Type | None) -> bool | None:
        if typ is None:
            return None
        key = self._classification_key(typ)
        if key not in self._json_of_type:
            self._json_of_type[key] = content_types.is_json_content(typ)
        return self._json_of_type[key]

    def _type_names(self, node: Expression) -> tuple[str, ...]:
        typ = self._types.get(node)
        if typ is None:
            return ()
        key = self._classification_key(typ)
        names = self._names_of_type.get(key)
        if names is None:
            names = self._names_of_type[key] = tuple(type_names(typ))
        return names

    def _classification_key(self, typ: Type) -> object:
        # Both verdicts of a type (``_kind``, ``_shape``) are asked for: its key is made once.
        key = self._type_keys.get(id(typ))
        if key is None:
            key = self._type_keys[id(typ)] = content_types.classification_key(typ)
        return key

    def _is_union(self, node: Expression) -> bool:
        """The value is the content union by shape: str together with a collection."""
        return self._shape(node) is ContentKind.CONTENT or self._lost_type(node) is not None

    def _value_type(self, node: Expression) -> Type | None:
        """The value's type, as declared where mypy lost it (``_lost_type``)."""
        lost = self._lost_type(node)
        return lost if lost is not None else self._types.get(node)

    def _lost_type(self, node: Expression) -> Type | None:
        """For ``getattr(m, "content", "")``, which mypy types ``Any``: the content union the
        receiver declares. The read did not lose the type: a destination declared ``str`` is
        judged against what the field holds."""
        if not (
            isinstance(node, CallExpr)
            and isinstance(node.callee, NameExpr)
            and node.callee.fullname == "builtins.getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], StrExpr)
            and node.args[1].value in self._spi.content_fields
            and self._kind(node) is ContentKind.ANY
        ):
            return None
        declared = content_types.declared_field_type(
            self._types.get(node.args[0]), node.args[1].value
        )
        if content_types.classify_shape(declared) is not ContentKind.CONTENT:
            return None
        return declared

    def _track(self, node: Expression, family: str) -> None:
        end_line = node.end_line if node.end_line is not None else node.line
        end_column = node.end_column if node.end_column is not None else node.column
        self._tracked.append(_Tracked(node.line, node.column, end_line, end_column, family, node))

    # --- expressions --------------------------------------------------------------------------

    def _visit_expression(self, o: Expression) -> None:
        if isinstance(o, NameExpr):
            self._track(o, f"name:{o.name}")
        elif isinstance(o, MemberExpr):
            self._track(o, f"attr:{o.name}")
            if o.name in self._spi.content_fields:
                receiver = self._types.get(o.expr)
                declared = content_types.declared_field_type(receiver, o.name)
                if content_types.is_content_origin_type(declared, self._spi):
                    self._field_origins.add(id(o))
                    self._note_receiver_attributes(o, receiver)
                else:
                    self._note_unresolved(receiver)
                    self._note_any_read(o, receiver, item=False)
        elif isinstance(o, IndexExpr):
            self._track(o, "index")
            key = o.index
            if isinstance(key, StrExpr) and key.value in self._spi.content_fields:
                declared = content_types.declared_field_type(
                    self._types.get(o.base), key.value, item=True
                )
                if content_types.is_content_origin_type(declared, self._spi):
                    self._field_origins.add(id(o))
                else:
                    self._note_unresolved(self._types.get(o.base))
                    self._note_any_read(o, self._types.get(o.base), item=True)
        elif isinstance(o, CallExpr):
            self._track(o, "call")
            self._note_getter_origin(o)
            self._note_callee(o)
            self._note_argument_verdicts(o)
        elif isinstance(o, OpExpr):
            if o.op in _TRACKED_OPS:
                self._track(o, f"op:{o.op}")
            if o.op == "+":
                self._note_partners(o.left, o.right)
                self._note_partners(o.right, o.left)
            elif o.op == "%" and self._is_text(o.left):
                for operand in _format_operands(o.right):
                    self._partners[id(operand)] = True
        elif isinstance(o, ConditionalExpr):
            self._track(o, "cond")
        elif isinstance(o, AssignmentExpr):
            self._track(o, "walrus")
        elif isinstance(o, AwaitExpr):
            self._track(o, "await")
        elif isinstance(o, ComparisonExpr):
            self._note_element_comparison(o)
        elif isinstance(o, CastExpr):
            # Not tracked itself (LibCST sees a call, mypy's traversal lists the call too):
            # the verdict on the target is kept with the operand.
            self._cast_targets[id(o.expr)] = content_types.is_content_cast_target(o.type, self._spi)

    # --- statements and functions -------------------------------------------------------------

    def _visit_statements(self, statements: Iterable[Statement], function: FuncDef | None) -> None:
        for statement in statements:
            self._visit_statement(statement, function)

    def _visit_statement(self, o: Statement, function: FuncDef | None) -> None:
        if isinstance(o, FuncDef):
            self._visit_function(o)
        elif isinstance(o, Decorator):
            self._visit_function(o.func)
        elif isinstance(o, OverloadedFuncDef):
            for item in o.items:
                self._visit_statement(item, function)
            if o.impl is not None:
                self._visit_statement(o.impl, function)
        elif isinstance(o, ClassDef):
            self._visit_statements(o.defs.body, None)
        elif isinstance(o, ReturnStmt):
            self._note_return(o, function)
        elif isinstance(o, AssignmentStmt):
            self._note_assignment(o)
        elif isinstance(o, OperatorAssignmentStmt) and o.op == "+":
            self._note_partners(o.rvalue, o.lvalue)
            self._note_partners(o.lvalue, o.rvalue)
            if id(o.lvalue) in self._partners and content_types.is_list_type(
                self._types.get(o.rvalue)
            ):
                self._extended_by_lists.add(id(o.lvalue))
        for block in _blocks_of(o):
            if block.is_unreachable:
                # A branch mypy deems unreachable (``sys.version_info``, ``sys.platform``,
                # ``TYPE_CHECKING`` tests): it checks nothing in it.
                self._skipped.append(_lines_of(block))
            self._visit_statements(block.body, function)

    def _visit_function(self, o: FuncDef) -> None:
        if not o.body.body or self._options.ignore_errors:
            # A module whose errors mypy ignores (``# mypy: ignore-errors``, ``ignore_errors =
            # true``): mypy drops its functions' bodies unchecked (no function is empty in
            # source), unless it keeps every tree (``preserve_asts``, the oracle's fallback),
            # when it may check some: they are judged alike either way.
            self._skipped.append(_lines_of(o))
        elif o.is_dynamic() and not self._check_untyped_defs:
            self._unchecked.append(_lines_of(o))
        self._visit_statements(o.body.body, o)

    def _note_return(self, o: ReturnStmt, function: FuncDef | None) -> None:
        if o.expr is None or function is None or not self._is_union(o.expr):
            return
        declared = _declared_return_type(function)
        if declared is not None:
            self._verdicts[id(o.expr)] = (
                content_types.accepts_content(declared, self._value_type(o.expr)),
                f"returned from `{function.name}()`, {self._declared_as(declared)}",
                content_types.erases_content(declared),
            )

    def _note_assignment(self, o: AssignmentStmt) -> None:
        rvalue = o.rvalue
        if not self._is_union(rvalue):
            return
        value_type = self._value_type(rvalue)
        for lvalue in o.lvalues:
            target = self._declared_target(lvalue)
            if target is None:
                continue
            declared, label = target
            accepts = content_types.accepts_content(
                declared, value_type
            ) or self._declared_preserving(lvalue)
            self._verdicts[id(rvalue)] = (
                accepts,
                f"stored in `{label}`, {self._declared_as(declared)}",
                content_types.erases_content(declared),
            )
            if not accepts:
                return

    # --- helpers ----------------------------------------------------------------------------------

    def _declared_preserving(self, lvalue: Expression) -> bool:
        """A field the user declared content-preserving (``myapp.Record.payload``)."""
        if not isinstance(lvalue, MemberExpr):
            return False
        owners = list(content_types.type_names(self._types.get(lvalue.expr)))
        return self._spi.preserves(owners, lvalue.name)

    def _is_text(self, node: Expression) -> bool:
        return isinstance(node, StrExpr) or self._kind(node) is ContentKind.TEXT

    def _note_partners(self, operand: Expression, other: Expression) -> None:
        if self._kind(operand) in _INTERESTING or self._is_union(operand):
            self._partners[id(operand)] = self._is_text(other)

    def _note_element_comparison(self, o: ComparisonExpr) -> None:
        """``content[0] == TextPart(...)``: for the element read, whether the other operand may
        be a string by its type (``guards.element_comparand`` asks it of the same syntax)."""
        if o.operators not in (["=="], ["!="]):
            return
        for element, other in ((o.operands[0], o.operands[1]), (o.operands[1], o.operands[0])):
            if isinstance(element, IndexExpr) and not isinstance(
                element.index, (StrExpr, SliceExpr)
            ):
                verdict = content_types.may_be_text(self._types.get(other))
                if (
                    verdict is None
                    and isinstance(other, CallExpr)
                    and isinstance(other.callee, RefExpr)
                    and isinstance(other.callee.node, TypeInfo)
                ):
                    # A call of a class: in a function mypy does not check, the call has no
                    # type, but its callee is still resolved to the class it names.
                    verdict = content_types.class_may_be_text(other.callee.node)
                if verdict is not None:
                    self._comparands[id(element)] = verdict

    def _note_getter_origin(self, call: CallExpr) -> None:
        """``m.get("content")`` on a TypedDict, ``getattr(m, "content")`` on anything."""
        callee = call.callee
        receiver: Expression | None = None
        key: Expression | None = None
        item = False
        if isinstance(callee, MemberExpr) and callee.name == "get" and call.args:
            receiver, key, item = callee.expr, call.args[0], True
        elif (
            isinstance(callee, NameExpr)
            and callee.fullname == "builtins.getattr"
            and len(call.args) >= 2
        ):
            receiver, key = call.args[0], call.args[1]
        if receiver is None or not isinstance(key, StrExpr):
            return
        if key.value not in self._spi.content_fields:
            return
        declared = content_types.declared_field_type(
            self._types.get(receiver), key.value, item=item
        )
        if content_types.is_content_origin_type(declared, self._spi):
            self._field_origins.add(id(call))
        else:
            self._note_unresolved(self._types.get(receiver))
            self._note_any_read(call, self._types.get(receiver), item=item)

    def _note_any_read(self, read: Expression, receiver: Type | None, *, item: bool) -> None:
        """A content read of a receiver mypy types ``Any`` (or, for a key, a mapping whose
        values are ``Any``): mypy says nothing of it, so syntax judges it (``any_reads``)."""
        if _missing_import(receiver) is None and (
            isinstance(get_proper_type(receiver), AnyType)
            or (item and _has_unknown_values(receiver))
        ):
            self._any_reads.add(id(read))

    def _note_unresolved(self, receiver: Type | None) -> None:
        """A content read whose receiver mypy types ``Any`` because the module defining it
        could not be found: types say nothing about that read, and must not hide it."""
        module = self._unresolved_module(receiver)
        if module is not None:
            self._unresolved.setdefault(module, None)

    def _installed_untyped(self, module: str) -> bool:
        build = self._build
        return (
            build is not None
            and build.find_module_cache.find_module(module)
            is ModuleNotFoundReason.FOUND_WITHOUT_TYPE_HINTS
        )

    def _unresolved_module(self, typ: Type | None) -> str | None:
        """The module mypy could not find that ``typ`` (``Any``) stands in for a name of,
        unless it is one whose values are never messages (requests' ``.content`` is bytes)."""
        missing = _missing_import(typ)
        if missing is None:
            return None
        origin = self._import_origin(missing)
        if _UNRELATED.is_unrelated_module(origin.module):
            return None
        build = self._build
        if origin.name is None or build is None or origin.module not in build.modules:
            return origin.module
        submodule = f"{origin.module}.{origin.name}"
        if submodule in build.missing_modules:
            # ``from google.cloud import aiplatform``, the package not installed.
            return submodule
        # mypy found the module but not the name (``from pkg import Nme``: its error is
        # attr-defined): installing the package is not the remedy, the import is.
        return f"{origin.module}:{origin.name}"

    def _import_origin(self, missing: str) -> Imported:
        """Where a name mypy records as missing was imported from.

        mypy names it in the module that imported it (``pkg.agent.observe`` for ``from
        langfuse import observe`` in ``pkg.agent``), and a value typed by it reaches other
        modules: ``Agent().step()``, whose method that module decorated with it, is that
        ``Any`` wherever it is called."""
        importing, imports = self._module_name, self._imported_from
        if not missing.startswith(importing + "."):
            owner = self._defining_module(missing)
            if owner is not None:
                importing, imports = owner, self._imports_of(owner)
        head = missing.removeprefix(importing + ".").split(".", 1)[0]
        return imports.get(head, Imported(missing, None))

    def _defining_module(self, name: str) -> str | None:
        """The module of the build whose name ``name`` is qualified by (the longest)."""
        modules = self._build.modules if self._build is not None else {}
        parts = name.split(".")
        for end in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:end])
            if module in modules:
                return module
        return None

    def _imports_of(self, module: str) -> dict[str, Imported]:
        found = self._imports_of_module.get(module)
        if found is None:
            tree = self._build.modules.get(module) if self._build is not None else None
            if tree is None:
                found = {}
            elif tree.imports:
                found = _imported_modules(tree)
            else:
                # Loaded from mypy's cache, which keeps no imports: its file says them (mypy
                # would have checked it again had it changed).
                found = _imported_modules_in_file(tree.path)
            self._imports_of_module[module] = found
        return found

    def _note_receiver_attributes(self, read: MemberExpr, receiver: Type | None) -> None:
        """Which of the SPI's attribute accessors (``msg.text``) the read's receiver declares."""
        found = tuple(
            name
            for name in sorted(self._spi.attribute_accessors)
            if content_types.declared_field_type(receiver, name) is not None
        )
        if found:
            self._receiver_attributes[id(read)] = found

    def _note_callee(self, call: CallExpr) -> None:
        callee = call.callee
        names = self._callee_names(callee)
        narrows = content_types.callable_narrows(self._types.get(callee))
        answers_text = (
            isinstance(callee, MemberExpr)
            and callee.name in self._answer_methods
            and content_types.answers_with(
                self._types.get(callee.expr), callee.name, self._spi.text_only_answers
            )
        )
        if (
            narrows
            or answers_text
            or any(name in self._interesting_callees or name in _SINK_NAMES for name in names)
        ):
            self._callees[id(call)] = CalleeFact(
                names=names, narrows=narrows, answers_text=answers_text
            )

    def _callee_names(self, callee: Expression) -> tuple[str, ...]:
        if isinstance(callee, RefExpr) and isinstance(
            callee.node, (FuncBase, Decorator, TypeInfo, OverloadedFuncDef)
        ):
            return (callee.fullname,) if callee.fullname else ()
        if isinstance(callee, MemberExpr):
            return content_types.method_fullnames(self._types.get(callee.expr), callee.name)
        return ()

    def _note_argument_verdicts(self, call: CallExpr) -> None:
        candidates = [
            index
            for index, arg in enumerate(call.args)
            if call.arg_kinds[index] not in (ARG_STAR, ARG_STAR2) and self._is_union(arg)
        ]
        if not candidates:
            return
        callee_type = get_proper_type(self._types.get(call.callee))
        callee_label = _callee_label(call.callee)
        if isinstance(callee_type, AnyType) and _is_unknown_any(callee_type):
            return  # a callee from a module mypy cannot see: nothing is known about it
        if isinstance(callee_type, AnyType):
            for index in candidates:
                self._verdicts[id(call.args[index])] = (
                    False,
                    f"passed to `{callee_label}()`, which is untyped",
                    True,
                )
            return
        if isinstance(callee_type, CallableType):
            signatures = [callee_type]
        elif isinstance(callee_type, Overloaded):
            signatures = list(callee_type.items)
        else:
            return
        for index in candidates:
            verdict = self._argument_verdict(call, index, signatures, callee_label)
            if verdict is not None:
                self._verdicts[id(call.args[index])] = verdict

    def _argument_verdict(
        self,
        call: CallExpr,
        index: int,
        signatures: list[CallableType],
        callee_label: str,
    ) -> tuple[bool, str, bool] | None:
        arg = call.args[index]
        value_type = self._value_type(arg)
        callee_names = self._callee_names(call.callee)
        first: tuple[bool, str, bool] | None = None
        for signature in signatures:
            formal_index = _formal_for(call, index, signature, self._types)
            if formal_index is None:
                continue
            formal = signature.arg_types[formal_index]
            name = signature.arg_names[formal_index]
            accepts = content_types.accepts_content(formal, value_type) or self._spi.preserves(
                callee_names, name
            )
            where = f"parameter `{name}`" if name else f"argument {index + 1}"
            verdict = (
                accepts,
                f"passed to {where} of `{callee_label}()`, {self._declared_as(formal)}",
                content_types.erases_content(formal),
            )
            if accepts:
                return verdict
            first = first or verdict
        return first

    def _declared_target(self, lvalue: Expression) -> tuple[Type, str] | None:
        """The declared type of an assignment target, when it is declared (not inferred)."""
        if isinstance(lvalue, NameExpr):
            var = lvalue.node
            if isinstance(var, Var) and not var.is_inferred and var.type is not None:
                return var.type, lvalue.name
            return None
        if isinstance(lvalue, MemberExpr):
            receiver = self._types.get(lvalue.expr)
            var = _member_var(receiver, lvalue.name)
            if var is None or var.is_inferred:
                return None
            declared = content_types.declared_field_type(receiver, lvalue.name)
            return (declared, _short(lvalue)) if declared is not None else None
        if isinstance(lvalue, IndexExpr):
            key = lvalue.index
            if isinstance(key, StrExpr) and key.value in self._spi.content_fields:
                return None  # a message's "content" key: the union belongs there
            if self._inferred(lvalue.base):
                # d = {"effort": "low"}, then d[k] = content: mypy typed the dict from its
                # first values; nobody declared what its values are
                return None
            receiver = get_proper_type(self._types.get(lvalue.base))
            if isinstance(receiver, Instance) and len(receiver.args) == 2:
                return receiver.args[1], f"{_short(lvalue.base)}[...]"
        return None

    @staticmethod
    def _inferred(node: Expression) -> bool:
        """Whether ``node`` is a variable whose type mypy inferred from its value (``d =
        {...}``) rather than read from a declaration. (An attribute is not told apart: mypy
        marks ``self.d: dict[str, str] = {}`` inferred too.)"""
        return isinstance(node, NameExpr) and isinstance(node.node, Var) and node.node.is_inferred

    def _declared_as(self, declared: Type) -> str:
        proper = get_proper_type(declared)
        if isinstance(proper, AnyType) and proper.type_of_any in (
            TypeOfAny.unannotated,
            TypeOfAny.implementation_artifact,
        ):
            return "which is not annotated"
        return f"declared `{format_type_bare(declared, self._options)}`"


def _is_unknown_any(typ: Type | None) -> bool:
    """``Any`` because mypy could not see where it comes from (a module that is not installed,
    or an error), as opposed to a declared or inferred ``Any``: no evidence either way."""
    proper = get_proper_type(typ)
    if not isinstance(proper, AnyType):
        return False
    if proper.type_of_any == TypeOfAny.from_another_any and proper.source_any is not None:
        proper = proper.source_any
    return proper.type_of_any in (TypeOfAny.from_unimported_type, TypeOfAny.from_error)


def _missing_import(typ: Type | None) -> str | None:
    """For ``Any`` standing in for a name imported from a module mypy could not find, that
    name (as mypy records it: ``pkg.mod.Name`` or the importing module's ``mod.Name``)."""
    proper = get_proper_type(typ)
    if not isinstance(proper, AnyType):
        return None
    if proper.type_of_any == TypeOfAny.from_another_any and proper.source_any is not None:
        proper = proper.source_any
    if proper.type_of_any != TypeOfAny.from_unimported_type:
        return None
    return proper.missing_import_name or "?"


class Imported(NamedTuple):
    """What an import binds a name to: the module, and the name imported from it (``from
    module import name``; None for ``import module``)."""

    module: str
    name: str | None


def _imported_modules(tree: MypyFile) -> dict[str, Imported]:
    """Where each top-level name bound by an import of the file comes from."""
    found: dict[str, Imported] = {}
    for node in tree.imports:
        if isinstance(node, ImportFrom):
            _bind_imported(found, "." * node.relative + node.id, node.names)
        elif isinstance(node, Import):
            _bind_imported(found, None, node.ids)
    return found


def _bind_imported(
    found: dict[str, Imported], source: str | None, names: Iterable[tuple[str, str | None]]
) -> None:
    """Record, first binding first, where each name an import binds comes from: ``from
    source import name as alias`` binds ``alias or name`` to ``name`` of ``source``; ``import
    name as alias`` (no ``source``) binds ``alias``, or the name's first part, to ``name``."""
    for name, alias in names:
        if source is not None:
            found.setdefault(alias or name, Imported(source, name))
        else:
            found.setdefault(alias or name.split(".", 1)[0], Imported(name, None))


def _imported_modules_in_file(path: str) -> dict[str, Imported]:
    """``_imported_modules`` of the file at ``path``, read from its text; empty when it
    cannot be read. Each file read once while it stays the same: every file analysed after
    an edit may read the same module's ``Any``."""
    try:
        stat = os.stat(path)
    except OSError:
        return {}
    return dict(_imports_in_text(path, stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=64)
def _imports_in_text(path: str, mtime_ns: int, size: int) -> tuple[tuple[str, Imported], ...]:
    # ``mtime_ns`` and ``size`` are read only as the cache's key: a changed file is read again.
    try:
        with open(path, "rb") as file:
            tree = ast.parse(file.read(), path)
    except (OSError, SyntaxError, ValueError):
        return ()
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    found: dict[str, Imported] = {}
    for node in sorted(imports, key=lambda n: (n.lineno, n.col_offset)):
        names = [(alias.name, alias.asname) for alias in node.names]
        if isinstance(node, ast.ImportFrom):
            _bind_imported(found, "." * node.level + (node.module or ""), names)
        else:
            _bind_imported(found, None, names)
    return tuple(found.items())


# Where an ``Any`` comes from when it stands for a value nobody typed: written (``getattr()``'s
# return, ``cast(Any, ...)``, an annotation), an unannotated parameter, a bare ``dict`` (an
# error under ``disallow_any_generics``).
_UNKNOWN_VALUE_ANYS = frozenset(
    {
        TypeOfAny.explicit,
        TypeOfAny.unannotated,
        TypeOfAny.from_omitted_generics,
        TypeOfAny.from_error,
    }
)


def _is_unknown_value(typ: Type | None) -> bool:
    """``Any`` for a value nobody typed (``_UNKNOWN_VALUE_ANYS``), as opposed to one mypy made
    up (the items of ``list`` after ``isinstance(x, list)`` narrowed an ``Iterable[...]``) or
    a type from a module it cannot see, or an error."""
    proper = get_proper_type(typ)
    if isinstance(proper, UnionType):
        # ``getattr(m, "content", "")`` is ``Any | str``: the declared Any still decides.
        return any(_is_unknown_value(item) for item in proper.items)
    if not isinstance(proper, AnyType):
        return False
    if proper.type_of_any == TypeOfAny.from_another_any and proper.source_any is not None:
        proper = proper.source_any
    return proper.type_of_any in _UNKNOWN_VALUE_ANYS


def _is_object(typ: Type | None) -> bool:
    proper = get_proper_type(typ)
    return isinstance(proper, Instance) and proper.type.fullname == "builtins.object"


def _has_unknown_values(typ: Type | None) -> bool:
    """A mapping whose values are ``Any`` for want of a type: ``dict``, ``Mapping[str, Any]``."""
    proper = get_proper_type(typ)
    if isinstance(proper, UnionType):
        members = [get_proper_type(item) for item in proper.items]
        present = [m for m in members if not isinstance(m, NoneType)]
        return len(present) == 1 and _has_unknown_values(present[0])
    if not isinstance(proper, Instance):
        return False
    mapping = next((base for base in proper.type.mro if base.fullname == "typing.Mapping"), None)
    if mapping is None:
        return False
    values = map_instance_to_supertype(proper, mapping).args
    return len(values) == 2 and _is_unknown_value(values[1])


def _sink_names() -> frozenset[str]:
    return frozenset(load_catalog().sinks.by_callee)


_SINK_NAMES = _sink_names()
_UNRELATED = load_catalog().unrelated


def _is_fstring_lowering(call: CallExpr) -> bool:
    callee = call.callee
    if not isinstance(callee, MemberExpr) or not isinstance(callee.expr, StrExpr):
        return False
    if callee.name == "format":
        return len(call.args) == 2 and _FSTRING_FORMAT.fullmatch(callee.expr.value) is not None
    if callee.name == "join" and callee.expr.value == "" and len(call.args) == 1:
        pieces = call.args[0]
        return (
            isinstance(pieces, ListExpr)
            and pieces.line == callee.expr.line
            and pieces.column == callee.expr.column
        )
    return False


def _lines_of(node: Block | FuncDef) -> tuple[int, int]:
    """The (inclusive) range of lines ``node`` spans."""
    return node.line, node.end_line if node.end_line is not None else node.line


def _blocks_of(o: Statement) -> list[Block]:
    """The nested blocks of a compound statement (functions and classes are walked apart)."""
    if isinstance(o, IfStmt):
        return [*o.body, *([o.else_body] if o.else_body else [])]
    if isinstance(o, (WhileStmt, ForStmt)):
        return [o.body, *([o.else_body] if o.else_body else [])]
    if isinstance(o, WithStmt):
        return [o.body]
    if isinstance(o, TryStmt):
        blocks = [o.body, *o.handlers]
        blocks += [b for b in (o.else_body, o.finally_body) if b is not None]
        return blocks
    if isinstance(o, MatchStmt):
        return list(o.bodies)
    return []


def _format_operands(right: Expression) -> list[Expression]:
    if isinstance(right, TupleExpr):
        return list(right.items)
    if isinstance(right, DictExpr):
        return [value for _, value in right.items]
    return [right]


def _formal_for(
    call: CallExpr, index: int, signature: CallableType, types: dict[Expression, Type]
) -> int | None:
    def actual_type(i: int) -> Type:
        return types.get(call.args[i]) or AnyType(TypeOfAny.special_form)

    mapping = map_actuals_to_formals(
        call.arg_kinds, call.arg_names, signature.arg_kinds, signature.arg_names, actual_type
    )
    for formal_index, actuals in enumerate(mapping):
        if index in actuals:
            return formal_index
    return None


def _declared_return_type(function: FuncDef) -> Type | None:
    if function.is_generator:
        return None
    signature = get_proper_type(function.type)
    if not isinstance(signature, CallableType):
        return None
    returned = signature.ret_type
    if function.is_coroutine:
        proper = get_proper_type(returned)
        if isinstance(proper, Instance) and proper.type.fullname == "typing.Coroutine":
            returned = proper.args[-1]
    return returned


def _member_var(receiver: Type | None, name: str) -> Var | None:
    proper = get_proper_type(receiver)
    if not isinstance(proper, Instance):
        return None
    symbol = proper.type.get(name)
    return symbol.node if symbol is not None and isinstance(symbol.node, Var) else None


def _callee_label(callee: Expression) -> str:
    if isinstance(callee, NameExpr):
        return callee.name
    if isinstance(callee, MemberExpr):
        return f"{_short(callee.expr)}.{callee.name}"
    return "the callable"


def _short(node: Expression) -> str:
    if isinstance(node, NameExpr):
        return node.name
    if isinstance(node, MemberExpr):
        return f"{_short(node.expr)}.{node.name}"
    if isinstance(node, IndexExpr):
        return f"{_short(node.base)}[...]"
    return "..."
