"""One walk over a parsed module that everything after it reads from.

It records each node's parent, what the module's names mean (imports, its own functions and
classes), its functions and statements, and the expressions the type oracle may know about
(see ``typefacts``). Positions are not needed for the walk: ``assign_keys`` gives those
expressions their (line, family, ordinal) keys later, and only when a file has something to
report. Nothing here decides about content.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange

from loomlint.analysis.names import (
    ModuleNames,
    record_class,
    record_function,
    record_import,
    record_import_from,
)
from loomlint.analysis.tree import child_nodes, is_expression, is_statement
from loomlint.analysis.typefacts import FamilyKey, NodeKey

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
    if is_statement(node):
        index.statements.append(node)  # type: ignore[arg-type]
    if isinstance(node, cst.Import):
        record_import(index.names, node)
    elif isinstance(node, cst.ImportFrom):
        record_import_from(index.names, node)
    elif isinstance(node, cst.FunctionDef):
        if module_level:
            record_function(index.names, node)
        index.functions.append(node)
    elif isinstance(node, cst.ClassDef):
        if module_level:
            record_class(index.names, node)
    elif (
        isinstance(node, cst.AssignTarget)
        and module_level
        and isinstance(node.target, cst.Name)
    ):
        index.names.assigned.add(node.target.value)
    if not hidden and is_expression(node):
        expression: cst.BaseExpression = node  # type: ignore[assignment]
        family = family_of(expression)
        if family is not None and _is_expression_position(expression, index.parent(node)):
            index.family_nodes.append((expression, family))


def family_of(node: cst.CSTNode) -> str | None:
    """The oracle family of an expression node, before context exclusions."""
    if isinstance(node, cst.Name):
        return f"name:{node.value}"
    if isinstance(node, cst.Attribute):
        return f"attr:{node.attr.value}"
    if isinstance(node, cst.Subscript):
        return "index"
    if isinstance(node, cst.Call):
        return "call"
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Add):
            return "op:+"
        if isinstance(node.operator, cst.Modulo):
            return "op:%"
        return None
    if isinstance(node, cst.BooleanOperation):
        return "op:and" if isinstance(node.operator, cst.And) else "op:or"
    if isinstance(node, cst.IfExp):
        return "cond"
    if isinstance(node, cst.NamedExpr):
        return "walrus"
    if isinstance(node, cst.Await):
        return "await"
    return None


def _is_expression_position(node: cst.BaseExpression, parent: cst.CSTNode | None) -> bool:
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
