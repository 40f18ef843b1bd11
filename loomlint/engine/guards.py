"""Iteration over content whose every element use is guarded by a part-type ``isinstance``.

``for part in m.content: if isinstance(part, ImagePart): ...`` is safe whichever branch the
content holds: iterating a string yields its characters, and a character fails every such guard,
so nothing happens for text. ``ElementGuards.all_guarded(loop)`` answers for a ``for`` statement
or a comprehension clause: the loop's element is a plain name, it is tested at least once, and
every other use of it is where a guard holds (inside ``if isinstance(p, C):``, after ``if not
isinstance(p, C): continue``, in a comprehension whose condition is the guard, or after the
guard in an ``and`` chain). A guard's class must be one a string is never an instance of: a
builtin other than ``str`` and ``object``, a class of another library or of the project (not
``typing`` or ``collections.abc``, whose protocols a string satisfies), and not a subclass of
``str``. A key test of a block (``if "text" in block``, ``"type" not in block``) guards as well,
for a key of two or more characters: a character never contains one. The same syntax decides
with and without types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from loomlint.engine.index import ModuleIndex
from loomlint.engine.syntax import string_value, suite_body
from loomlint.engine.tree import child_nodes

# Classes a one-character string is an instance of, or may be (protocols, generics).
_STRING_CLASSES = frozenset({"builtins.str", "builtins.object"})
_PROTOCOL_MODULES = ("collections.", "typing.", "typing_extensions.", "numbers.", "abc.")
_STR_SUBCLASS_BASES = frozenset({"builtins.str", "enum.StrEnum"})
_EXITS = (cst.Continue, cst.Break, cst.Return, cst.Raise)


@dataclass(slots=True)
class _Scan:
    """What one pass over a loop body found about its element's uses."""

    guards: int = 0
    unguarded: bool = False


class ElementGuards:
    def __init__(self, index: ModuleIndex) -> None:
        self._index = index

    def all_guarded(self, loop: cst.For | cst.CompFor) -> bool:
        target: cst.BaseExpression = loop.target
        iterated = loop.iter
        if (
            isinstance(iterated, cst.Call)
            and self._index.names.qualified(iterated.func) == "builtins.enumerate"
            and isinstance(target, cst.Tuple)
            and len(target.elements) == 2
        ):
            target = target.elements[1].value  # for i, part in enumerate(m.content)
        if not isinstance(target, cst.Name):
            return False
        name = target.value
        scan = _Scan()
        if isinstance(loop, cst.For):
            self._statements(suite_body(loop.body), name, False, scan)
        else:
            guarded = False
            for condition in loop.ifs:
                guarded = self._test(condition.test, name, guarded, scan) or guarded
            for consumer in self._comprehension_consumers(loop):
                self._expression(consumer, name, guarded, scan)
        return scan.guards > 0 and not scan.unguarded

    def _comprehension_consumers(self, clause: cst.CompFor) -> list[cst.CSTNode]:
        """What a comprehension clause feeds: the clauses inside it, and the element."""
        found: list[cst.CSTNode] = []
        if clause.inner_for_in is not None:
            found.append(clause.inner_for_in)
        node: cst.CSTNode | None = clause
        while node is not None and not isinstance(
            node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
        ):
            node = self._index.parent(node)
        if isinstance(node, cst.DictComp):
            found += [node.key, node.value]
        elif node is not None:
            found.append(node.elt)
        return found

    # --- statements -----------------------------------------------------------------------------

    def _statements(
        self,
        body: Sequence[cst.BaseStatement | cst.BaseSmallStatement],
        name: str,
        guarded: bool,
        scan: _Scan,
    ) -> bool:
        """Scans a block; returns whether the guard holds after it (an early exit on the
        guard's failure guards what follows)."""
        for statement in body:
            if isinstance(statement, cst.If):
                guarded = self._if(statement, name, guarded, scan)
            elif _rebinds(statement, name):
                scan.unguarded = True
            else:
                self._expression(statement, name, guarded, scan)
        return guarded

    def _if(self, statement: cst.If, name: str, guarded: bool, scan: _Scan) -> bool:
        holds_if_true = self._test(statement.test, name, guarded, scan) or guarded
        holds_if_false = self._test_fails(statement.test, name) or guarded
        self._statements(suite_body(statement.body), name, holds_if_true, scan)
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            self._if(orelse, name, holds_if_false, scan)
        elif isinstance(orelse, cst.Else):
            self._statements(suite_body(orelse.body), name, holds_if_false, scan)
        if orelse is None and holds_if_false and _always_exits(statement.body):
            return True  # ``if not isinstance(p, C): continue``
        return guarded

    # --- tests ----------------------------------------------------------------------------------

    def _test(self, test: cst.BaseExpression, name: str, guarded: bool, scan: _Scan) -> bool:
        """Scans a test's uses; returns whether the test being true means the guard holds."""
        if self._is_guard(test, name):
            scan.guards += 1
            return True
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            left = self._test(test.left, name, guarded, scan)
            right = self._test(test.right, name, guarded or left, scan)
            return left or right
        if (
            isinstance(test, cst.UnaryOperation)
            and isinstance(test.operator, cst.Not)
            and self._is_guard(test.expression, name)
        ) or _is_key_test(test, name, cst.NotIn):
            scan.guards += 1
            return False
        self._expression(test, name, guarded, scan)
        return False

    def _test_fails(self, test: cst.BaseExpression, name: str) -> bool:
        """Whether the test being false means the guard holds (``not isinstance(p, C)``,
        ``"type" not in p``)."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self._is_guard(test.expression, name)
        if _is_key_test(test, name, cst.NotIn):
            return True
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
            return self._test_fails(test.left, name) or self._test_fails(test.right, name)
        return False

    def _is_guard(self, test: cst.BaseExpression, name: str) -> bool:
        if _is_key_test(test, name, cst.In):
            return True
        if not (
            isinstance(test, cst.Call)
            and len(test.args) == 2
            and self._index.names.qualified(test.func) == "builtins.isinstance"
        ):
            return False
        subject = test.args[0].value
        if not (isinstance(subject, cst.Name) and subject.value == name):
            return False
        classes = test.args[1].value
        members = (
            [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        )
        return bool(members) and all(self._excludes_strings(member) for member in members)

    def _excludes_strings(self, cls: cst.BaseExpression) -> bool:
        """Whether no string is an instance of ``cls``, as far as syntax can tell."""
        local = self._index.names.local_class(cls)
        if local is not None:
            return not any(
                self._index.names.qualified(base.value) in _STR_SUBCLASS_BASES
                for base in local.bases
            )
        qualified = self._index.names.qualified(cls)
        if qualified is None:
            return False
        if qualified.startswith("builtins."):
            return qualified not in _STRING_CLASSES
        return not qualified.startswith(_PROTOCOL_MODULES)

    # --- uses -----------------------------------------------------------------------------------

    def _expression(self, node: cst.CSTNode, name: str, guarded: bool, scan: _Scan) -> None:
        """Any use of ``name`` under ``node`` counts as unguarded unless ``guarded``; a
        nested ``if`` is scanned as a statement, a guard inside an expression as a test."""
        if guarded or scan.unguarded:
            return
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Name) and current.value == name:
                if not _is_attribute_name(current, self._index):
                    scan.unguarded = True
                    return
            elif isinstance(current, cst.If):
                self._if(current, name, guarded, scan)
                continue
            elif isinstance(current, cst.BaseExpression) and self._is_guard(current, name):
                scan.guards += 1
                continue
            elif isinstance(current, cst.BooleanOperation) and isinstance(
                current.operator, cst.And
            ):
                self._test(current, name, guarded, scan)
                continue
            elif isinstance(current, cst.IfExp):
                holds = self._test(current.test, name, guarded, scan)
                self._expression(current.body, name, holds, scan)
                self._expression(current.orelse, name, self._test_fails(current.test, name), scan)
                continue
            stack.extend(child_nodes(current))


def _is_key_test(
    test: cst.BaseExpression, name: str, operator: type[cst.In] | type[cst.NotIn]
) -> bool:
    """``"type" in p`` (with ``cst.In``) or ``"type" not in p`` (``cst.NotIn``): a key test of
    a block, which a character fails, since no string of two or more characters is in one."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    key = string_value(test.left)
    return (
        isinstance(target.operator, operator)
        and key is not None
        and len(key) >= 2
        and isinstance(target.comparator, cst.Name)
        and target.comparator.value == name
    )


def _is_attribute_name(node: cst.Name, index: ModuleIndex) -> bool:
    """``x.part``: the attribute's name, not a use of a variable ``part``."""
    parent = index.parent(node)
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return True
    return isinstance(parent, cst.Arg) and parent.keyword is node


def _rebinds(statement: cst.BaseStatement | cst.BaseSmallStatement, name: str) -> bool:
    """Whether a simple statement assigns ``name`` (what follows is no element any more)."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        targets: list[cst.BaseExpression] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            targets = [small.target]
        if any(isinstance(t, cst.Name) and t.value == name for t in targets):
            return True
    return False


def _always_exits(body: cst.BaseSuite) -> bool:
    statements = suite_body(body)
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(last.body[-1], _EXITS)
    return False
