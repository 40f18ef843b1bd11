"""One walk over a parsed module that everything after it reads from.

It records each node's parent, what the module's names mean (imports, its own functions and
classes), its functions and statements, and the expressions the type oracle may know about
(see ``typefacts``). Positions are not needed for the walk: ``assign_keys`` gives those
expressions their (line, family, ordinal) keys later, and only when a file has something to
report. Nothing here decides about content.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange

from loomlint.engine.names import (
    ModuleNames,
    record_class,
    record_function,
    record_import,
    record_import_from,
)
from loomlint.engine.tree import STATEMENT_TYPES, child_nodes
from loomlint.engine.typefacts import FamilyKey, NodeKey

# Inside these, mypy keeps no expressions.
_HIDING = (cst.Annotation, cst.Import, cst.ImportFrom, cst.TypeParameters)


@dataclass(slots=True)
class ModuleIndex:
    parents: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict[cst.CSTNode, cst.CSTNode])
    names: ModuleNames = field(default_factory=ModuleNames)
    # Expressions the oracle may know about, with their family, in source order.
    family_nodes: list[tuple[cst.BaseExpression, str]] = field(
        default_factory=list[tuple[cst.BaseExpression, str]]
    )
    # Filled by assign_keys: per start line and family, the members in source order.
    families: dict[FamilyKey, list[cst.BaseExpression]] = field(
        default_factory=dict[FamilyKey, list[cst.BaseExpression]]
    )
    keys: dict[cst.BaseExpression, NodeKey] = field(
        default_factory=dict[cst.BaseExpression, NodeKey]
    )
    # Every function, outer ones before the functions they contain.
    functions: list[cst.FunctionDef] = field(default_factory=list[cst.FunctionDef])
    statements: list[cst.BaseStatement] = field(default_factory=list[cst.BaseStatement])

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)


def build_index(module: cst.Module) -> ModuleIndex:
    index = ModuleIndex()
    # (node, hidden inside an annotation or import, at module level)
    stack: list[tuple[cst.CSTNode, bool, bool]] = [(module, False, True)]
    while stack:
        node, hidden, module_level = stack.pop()
        if isinstance(node, _HIDING):
            hidden = True
        _record(index, node, hidden, module_level)
        inner_level = module_level and not isinstance(node, (cst.FunctionDef, cst.ClassDef))
        children = list(child_nodes(node))
        for child in children:
            index.parents[child] = node
        stack.extend((child, hidden, inner_level) for child in reversed(children))
    return index


def assign_keys(index: ModuleIndex, positions: Mapping[cst.CSTNode, CodeRange]) -> None:
    """Give every oracle-known expression its (line, family, ordinal) key."""
    families: dict[FamilyKey, list[cst.BaseExpression]] = {}
    for node, family in index.family_nodes:
        families.setdefault((positions[node].start.line, family), []).append(node)
    for (line, family), members in families.items():
        members.sort(key=lambda n: _order(positions[n]))
        for ordinal, node in enumerate(members):
            index.keys[node] = (line, family, ordinal)
    index.families = families


def _order(code_range: CodeRange) -> tuple[int, int, int]:
    return (code_range.start.column, code_range.end.line, code_range.end.column)


def _record(index: ModuleIndex, node: cst.CSTNode, hidden: bool, module_level: bool) -> None:
    node_type = type(node)
    if node_type in STATEMENT_TYPES:
        index.statements.append(node)  # type: ignore[arg-type]
    recorder = _RECORDERS.get(node_type)
    if recorder is not None:
        recorder(index, node, module_level)
    if not hidden:
        family = _FAMILIES.get(node_type)
        if family is not None:
            name = family(node)
            if name is not None and _is_expression_position(node, index.parent(node)):
                index.family_nodes.append((node, name))  # type: ignore[arg-type]


def _record_import(index: ModuleIndex, node: cst.CSTNode, module_level: bool) -> None:
    assert isinstance(node, cst.Import)
    record_import(index.names, node)


def _record_import_from(index: ModuleIndex, node: cst.CSTNode, module_level: bool) -> None:
    assert isinstance(node, cst.ImportFrom)
    record_import_from(index.names, node)


def _record_function(index: ModuleIndex, node: cst.CSTNode, module_level: bool) -> None:
    assert isinstance(node, cst.FunctionDef)
    if module_level:
        record_function(index.names, node)
    index.functions.append(node)


def _record_class(index: ModuleIndex, node: cst.CSTNode, module_level: bool) -> None:
    assert isinstance(node, cst.ClassDef)
    if module_level:
        record_class(index.names, node)


def _record_assign_target(index: ModuleIndex, node: cst.CSTNode, module_level: bool) -> None:
    assert isinstance(node, cst.AssignTarget)
    if module_level and isinstance(node.target, cst.Name):
        index.names.assigned.add(node.target.value)


# Dispatch on the exact node type: far cheaper than a chain of isinstance checks on LibCST's
# ABC-based classes, once per node of every file.
_RECORDERS: dict[type[cst.CSTNode], Callable[[ModuleIndex, cst.CSTNode, bool], None]] = {
    cst.Import: _record_import,
    cst.ImportFrom: _record_import_from,
    cst.FunctionDef: _record_function,
    cst.ClassDef: _record_class,
    cst.AssignTarget: _record_assign_target,
}


def _binary_family(node: cst.CSTNode) -> str | None:
    assert isinstance(node, cst.BinaryOperation)
    operator = type(node.operator)
    return "op:+" if operator is cst.Add else "op:%" if operator is cst.Modulo else None


def _boolean_family(node: cst.CSTNode) -> str | None:
    assert isinstance(node, cst.BooleanOperation)
    return "op:and" if isinstance(node.operator, cst.And) else "op:or"


_FAMILIES: dict[type[cst.CSTNode], Callable[[cst.CSTNode], str | None]] = {
    cst.Name: lambda node: f"name:{node.value}",  # type: ignore[attr-defined]
    cst.Attribute: lambda node: f"attr:{node.attr.value}",  # type: ignore[attr-defined]
    cst.Subscript: lambda node: "index",
    cst.Call: lambda node: "call",
    cst.BinaryOperation: _binary_family,
    cst.BooleanOperation: _boolean_family,
    cst.IfExp: lambda node: "cond",
    cst.NamedExpr: lambda node: "walrus",
    cst.Await: lambda node: "await",
}


def family_of(node: cst.CSTNode) -> str | None:
    """The oracle family of an expression node, before context exclusions."""
    family = _FAMILIES.get(type(node))
    return family(node) if family is not None else None


def _is_expression_position(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
    if isinstance(node, cst.Name):
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return False
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
            return False
        if isinstance(parent, cst.Param) and parent.name is node:
            return False
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return False
        if isinstance(parent, cst.NameItem):
            return False
        if isinstance(parent, cst.MatchKeywordElement) and parent.key is node:
            return False
    if isinstance(node, cst.Attribute):
        value = node.value
        # mypy has a SuperExpr, not a member expression, for super().x
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            return value.func.value != "super"
    return True
