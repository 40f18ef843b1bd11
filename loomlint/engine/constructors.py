"""Whether constructing a class stores the content it is given, as it is given.

A message made here holds the branch of the content it was given (``engine.flow``) only where
the class stores that value unchanged. A dataclass, a model or a ``TypedDict`` with no
constructor or validator of its own does. So does one whose ``__init__`` only hands the
parameter on: to ``super().__init__(content=content)`` or ``self.content = content``, after at
most ``if content is None: content = ""`` (qwen-agent's ``Message``, whose ``__init__`` exists
to take ``role`` and ``content`` by position). Any other use of the parameter (wrapping it in
a part, converting it, storing something else in the field) may store another branch than the
one given, and the class is not followed.
"""

from __future__ import annotations

import libcst as cst

from loomlint.engine.syntax import (
    all_params,
    dotted_name,
    is_self_field,
    is_text_literal,
    string_value,
    suite_body,
)
from loomlint.engine.tree import walk

# Methods by which a class may store something else than the content it is given.
CONSTRUCTING_METHODS = frozenset({"__init__", "__post_init__", "__new__", "model_post_init"})


def stores_content_as_given(cls: cst.ClassDef, fields: frozenset[str]) -> bool:
    """Whether constructing ``cls`` stores each content field as given: no validator, and no
    constructing method but an ``__init__`` that hands its content parameters on unchanged."""
    for statement in suite_body(cls.body):
        if not isinstance(statement, cst.FunctionDef):
            continue
        if any(_validates_content(d, fields) for d in statement.decorators):
            return False
        name = statement.name.value
        if name == "__init__" and not _hands_content_on(statement, fields):
            return False
        if name in CONSTRUCTING_METHODS and name != "__init__":
            return False
    return True


def own_constructor(cls: cst.ClassDef) -> cst.FunctionDef | None:
    """The class's own ``__init__``, whose parameters take a construction's positional
    arguments (after ``self``)."""
    for statement in suite_body(cls.body):
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "__init__":
            return statement
    return None


def _validates_content(decorator: cst.Decorator, fields: frozenset[str]) -> bool:
    """Whether a decorator makes its method a validator that may change a content field: any
    validator (``@model_validator``, ``@root_validator``, ``@field_validator("*")``) but one
    of named fields that are not content (``@field_validator("role")``)."""
    node = decorator.decorator
    func = node.func if isinstance(node, cst.Call) else node
    if "validator" not in (dotted_name(func) or ""):
        return False
    if not isinstance(node, cst.Call) or "model" in (dotted_name(func) or ""):
        return True
    named = [string_value(arg.value) for arg in node.args if arg.keyword is None]
    return not named or any(name is None or name == "*" or name in fields for name in named)


def _hands_content_on(init: cst.FunctionDef, fields: frozenset[str]) -> bool:
    """Whether ``__init__`` stores each content field it takes as a parameter unchanged, and
    stores nothing else in a content field."""
    taken = {p.name.value for p in all_params(init.params)} & fields
    uses = _ContentUses(fields, taken)
    walk(init.body, uses.enter, uses.leave)
    return uses.unchanged


class _ContentUses:
    """Walks an ``__init__``'s body: every use of a content parameter must hand it on as it
    is, and every assignment to ``self.<field>`` must store that parameter."""

    def __init__(self, fields: frozenset[str], taken: set[str]) -> None:
        self._fields = fields
        self._taken = taken
        self._stack: list[cst.CSTNode] = []
        self.unchanged = True

    def enter(self, node: cst.CSTNode) -> bool:
        if not self.unchanged:
            return False
        if isinstance(node, cst.Name) and node.value in self._taken:
            self.unchanged = self._handed_on(node)
        elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            self.unchanged = self._stores_as_given(node)
        self._stack.append(node)
        return True

    def leave(self, original_node: cst.CSTNode) -> None:
        if self._stack and self._stack[-1] is original_node:
            self._stack.pop()

    def _handed_on(self, name: cst.Name) -> bool:
        parent = self._stack[-1] if self._stack else None
        if isinstance(parent, cst.Arg):
            # ``content=content``: the keyword itself, or the value of its own keyword.
            keyword = parent.keyword
            return keyword is not None and (
                keyword is name or (parent.value is name and keyword.value == name.value)
            )
        if isinstance(parent, cst.Attribute):
            return parent.attr is name  # ``self.content``: judged by its assignment
        if isinstance(parent, cst.Assign):
            return parent.value is name and all(
                is_self_field(t.target, self._fields) for t in parent.targets
            )
        if isinstance(parent, cst.Comparison):
            return _is_none_test(parent, name.value)
        if isinstance(parent, cst.AssignTarget):
            # ``content = ""`` under ``if content is None:``: None stored as the empty text.
            assign = self._stack[-2] if len(self._stack) > 1 else None
            return (
                isinstance(assign, cst.Assign)
                and is_text_literal(assign.value)
                and any(
                    isinstance(node, cst.If) and _is_none_test(node.test, name.value)
                    for node in self._stack
                )
            )
        return False

    def _stores_as_given(self, node: cst.Assign | cst.AugAssign | cst.AnnAssign) -> bool:
        targets = (
            [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        for target in targets:
            if not is_self_field(target, self._fields):
                continue
            assert isinstance(target, cst.Attribute)
            value = node.value
            if not (
                isinstance(node, cst.Assign)
                and isinstance(value, cst.Name)
                and value.value == target.attr.value
                and value.value in self._taken
            ):
                return False
        return True


def _is_none_test(node: cst.BaseExpression, name: str) -> bool:
    """``name is None``."""
    return (
        isinstance(node, cst.Comparison)
        and isinstance(node.left, cst.Name)
        and node.left.value == name
        and len(node.comparisons) == 1
        and isinstance(node.comparisons[0].operator, cst.Is)
        and isinstance(node.comparisons[0].comparator, cst.Name)
        and node.comparisons[0].comparator.value == "None"
    )
