"""One walk over a parsed module that everything after it reads from.

It records each node's parent, what the module's names mean (imports, its own functions and
classes), and the *family key* of every expression that the type oracle may know about (see
``typefacts``: start line, family, ordinal). Nothing here decides about content.
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
from loomlint.analysis.typefacts import FamilyKey, NodeKey


@dataclass(slots=True)
class ModuleIndex:
    parents: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict[cst.CSTNode, cst.CSTNode])
    names: ModuleNames = field(default_factory=ModuleNames)
    # Families in source order, per start line: mirrors what the oracle counts.
    families: dict[FamilyKey, list[cst.BaseExpression]] = field(
        default_factory=dict[FamilyKey, list[cst.BaseExpression]]
    )
    keys: dict[cst.BaseExpression, NodeKey] = field(
        default_factory=dict[cst.BaseExpression, NodeKey]
    )
    functions: list[cst.FunctionDef] = field(default_factory=list[cst.FunctionDef])
    statements: list[cst.BaseStatement] = field(default_factory=list[cst.BaseStatement])

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)


def build_index(module: cst.Module, positions: Mapping[cst.CSTNode, CodeRange]) -> ModuleIndex:
    visitor = _IndexVisitor(positions)
    module.visit(visitor)
    index = visitor.index
    for (line, family), members in index.families.items():
        members.sort(key=lambda n: _order(positions[n]))
        for ordinal, node in enumerate(members):
            index.keys[node] = (line, family, ordinal)
    return index


def _order(code_range: CodeRange) -> tuple[int, int, int]:
    return (code_range.start.column, code_range.end.line, code_range.end.column)


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


class _IndexVisitor(cst.CSTVisitor):
    def __init__(self, positions: Mapping[cst.CSTNode, CodeRange]) -> None:
        self.index = ModuleIndex()
        self._positions = positions
        self._stack: list[cst.CSTNode] = []
        # Inside annotations and import statements mypy keeps no expressions.
        self._hidden = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._stack:
            self.index.parents[node] = self._stack[-1]
        self._stack.append(node)
        hides = isinstance(node, (cst.Annotation, cst.Import, cst.ImportFrom, cst.TypeParameters))
        if hides:
            self._hidden += 1
        if isinstance(node, cst.BaseStatement):
            self.index.statements.append(node)
        if isinstance(node, cst.Import):
            record_import(self.index.names, node)
        elif isinstance(node, cst.ImportFrom):
            record_import_from(self.index.names, node)
        elif isinstance(node, cst.FunctionDef):
            if self._at_module_level():
                record_function(self.index.names, node)
            self.index.functions.append(node)
        elif isinstance(node, cst.ClassDef) and self._at_module_level():
            record_class(self.index.names, node)
        elif (
            isinstance(node, cst.AssignTarget)
            and isinstance(node.target, cst.Name)
            and self._at_module_level()
        ):
            self.index.names.assigned.add(node.target.value)
        if not self._hidden and isinstance(node, cst.BaseExpression):
            self._record_family(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()
        if isinstance(
            original_node, (cst.Annotation, cst.Import, cst.ImportFrom, cst.TypeParameters)
        ):
            self._hidden -= 1

    def _at_module_level(self) -> bool:
        # The stack holds the node being visited last; its ancestors decide.
        return not any(isinstance(n, (cst.FunctionDef, cst.ClassDef)) for n in self._stack[:-1])

    def _record_family(self, node: cst.BaseExpression) -> None:
        family = family_of(node)
        if family is None or not self._is_expression_position(node):
            return
        line = self._positions[node].start.line
        self.index.families.setdefault((line, family), []).append(node)

    def _is_expression_position(self, node: cst.BaseExpression) -> bool:
        parent = self._stack[-2] if len(self._stack) >= 2 else None
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
