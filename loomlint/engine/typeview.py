"""The type oracle's facts, looked up by LibCST node.

A node is *covered* when the oracle analysed its file, its (line, family) group has the same
number of members on both sides (so ordinals identify the same nodes), it is not inside a
function mypy left unchecked or code it skips (an unreachable branch, a file whose first line
is ``# type: ignore``), mypy did not type it ``Any`` for want of a module it could not
find (the SPI's package not installed where loomlint runs), and it is not a content read of a
receiver mypy types ``Any``. Only covered nodes are judged by types; the rest fall back to the
syntactic flow, as ``--no-types`` judges them, but a read in an unchecked function or of an
``Any`` receiver counts only with syntactic evidence that its receiver is a message, and a
finding on it is a guess unless the presets' data grounds it (``footing``, ``engine.guesses``).
"""

from __future__ import annotations

import libcst as cst

from loomlint.engine.index import ModuleIndex
from loomlint.engine.typefacts import CalleeFact, ContentKind, ExprFact, FileTypes, Footing


class TypeView:
    def __init__(self, file_types: FileTypes | None, index: ModuleIndex) -> None:
        self._types = file_types
        self._index = index
        self._agreeing: set[tuple[int, str]] = set()
        if file_types is not None:
            for family_key, members in index.families.items():
                if file_types.family_counts.get(family_key) == len(members):
                    self._agreeing.add(family_key)

    @property
    def available(self) -> bool:
        return self._types is not None

    def covered(self, node: cst.CSTNode) -> bool:
        if self._types is None or not isinstance(node, cst.BaseExpression):
            return False
        key = self._index.keys.get(node)
        if key is None or (key[0], key[1]) not in self._agreeing:
            return False
        return (
            not self._types.is_unchecked(key[0])
            and not self._types.is_skipped(key[0])
            and key not in self._types.untyped
            and key not in self._types.any_reads
        )

    def needs_evidence(self, node: cst.CSTNode) -> bool:
        """Whether a content read counts only with syntactic evidence that its receiver is a
        message: types are available, and mypy says nothing of this receiver (it types it
        ``Any``, does not check the function it is in, or skips the code)."""
        if self._types is None or not isinstance(node, cst.BaseExpression):
            return False
        key = self._index.keys.get(node)
        if key is None:
            return False
        return (
            key in self._types.any_reads
            or self._types.is_unchecked(key[0])
            or self._types.is_skipped(key[0])
        )

    def skipped(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is in code mypy skips (``FileTypes.skipped``)."""
        if self._types is None or not isinstance(node, cst.BaseExpression):
            return False
        key = self._index.keys.get(node)
        return key is not None and self._types.is_skipped(key[0])

    def footing(self, node: cst.CSTNode) -> Footing:
        """What mypy's types say of ``node``, for telling a finding that rests on a type from
        a guess (``engine.guesses``)."""
        if self._types is None:
            return Footing.NO_TYPES
        if not isinstance(node, cst.BaseExpression):
            return Footing.UNKNOWN
        key = self._index.keys.get(node)
        if key is None:
            return Footing.UNKNOWN
        if self._types.is_skipped(key[0]):
            return Footing.SKIPPED
        if key in self._types.untyped:
            return Footing.MISSING_MODULE
        if self._types.is_unchecked(key[0]):
            return Footing.UNCHECKED
        if (key[0], key[1]) not in self._agreeing:
            return Footing.UNKNOWN
        if key in self._types.any_reads:
            return Footing.TYPED_ANY
        fact = self._types.exprs.get(key)
        if fact is not None and fact.kind is ContentKind.ANY and not fact.field_origin:
            # A name or call mypy types ``Any`` (``msg = turn["content"]``, ``c: Any``): kept as
            # content only because the flow knows where it came from.
            return Footing.TYPED_ANY
        return Footing.TYPED

    def expr(self, node: cst.BaseExpression) -> ExprFact | None:
        """The fact for a covered node (None: the oracle knows it, and it is not interesting)."""
        key = self._index.keys.get(node)
        if self._types is None or key is None:
            return None
        return self._types.exprs.get(key)

    def comparand_may_be_text(self, element: cst.BaseExpression) -> bool | None:
        """For ``content[0] == x``: whether mypy says ``x`` may be a string
        (``ExprFact.comparand_may_be_text``). Asked of any node whose line the two parsers
        agree on, in a function mypy does not check too: there the call of a class has no
        type, but mypy still resolves the class it names."""
        key = self._index.keys.get(element)
        if self._types is None or key is None or (key[0], key[1]) not in self._agreeing:
            return None
        fact = self._types.exprs.get(key)
        return fact.comparand_may_be_text if fact is not None else None

    def callee(self, call: cst.Call) -> CalleeFact | None:
        key = self._index.keys.get(call)
        if self._types is None or key is None:
            return None
        return self._types.callees.get(key)

    def typed_content_nodes(self) -> list[cst.BaseExpression]:
        """Covered leaf expressions the oracle types as the content union, a list of the SPI's
        parts or one part: judged by their type wherever the value came from."""
        if self._types is None:
            return []
        found: list[cst.BaseExpression] = []
        for node, key in self._index.keys.items():
            fact = self._types.exprs.get(key)
            if fact is None or not key[1].startswith(_LEAF_FAMILIES):
                continue
            if fact.kind in _TYPED_CANDIDATES and self.covered(node):
                found.append(node)
        return found


# Composite expressions (x or y, a if t else b, walrus) pass a value on; their operands are the
# candidates, so reporting them too would report one misuse twice.
_LEAF_FAMILIES = ("name:", "attr:", "index", "call", "await")
# Kinds a value is a candidate for by its type alone (a parts list or part is reported only
# where it is turned into a string; the engine decides that).
_TYPED_CANDIDATES = frozenset({ContentKind.CONTENT, ContentKind.PARTS, ContentKind.PART})
