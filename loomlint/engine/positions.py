"""Positions of the nodes the analysis reports or keys on, computed the way LibCST does.

LibCST's ``PositionProvider`` records a range for every node, whitespace, punctuation and
operators included, in one code-generation pass. Recording is most of that pass's cost, and
the analysis only ever asks for the positions of expressions, statements, parameters and
match patterns. This runs the same pass with the same recording state, recording only those.
The ranges it records are exactly the ones ``PositionProvider`` gives.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Mapping
from typing import cast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from loomlint.engine.tree import EXPRESSION_TYPES, STATEMENT_TYPES, node_types_under

_WANTED: frozenset[type[cst.CSTNode]] = (
    EXPRESSION_TYPES
    | STATEMENT_TYPES
    | frozenset({cst.Param})
    | node_types_under(cst.MatchPattern)
    # What compound statements take their end from: recorded so their ranges are exact.
    | node_types_under(cst.BaseSuite)
    | frozenset({cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase})
)
_NOT_RECORDED = contextlib.nullcontext()


class _RecordingWanted(PositionProvidingCodegenState):
    """LibCST's position-recording state, recording wanted node types only."""

    def before_codegen(self, node: cst.CSTNode) -> None:
        if type(node) in _WANTED:
            self._stack.append(CodePosition(self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if type(node) in _WANTED:
            start = self._stack.pop()
            computed = _computed(self)
            if node not in computed:
                computed[node] = CodeRange(start, CodePosition(self.line, self.column))

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> contextlib.AbstractContextManager[None]:
        if type(node) not in _WANTED:
            return _NOT_RECORDED
        return self._record_syntactic(node, start_node, end_node)

    @contextlib.contextmanager
    def _record_syntactic(
        self, node: cst.CSTNode, start_node: cst.CSTNode | None, end_node: cst.CSTNode | None
    ) -> Generator[None]:
        start = CodePosition(self.line, self.column)
        try:
            yield
        finally:
            end = CodePosition(self.line, self.column)
            computed = _computed(self)
            if start_node is not None and start_node in computed:
                start = computed[start_node].start
            if end_node is not None and end_node in computed:
                end = computed[end_node].end
            computed[node] = CodeRange(start, end)


def _computed(state: PositionProvidingCodegenState) -> dict[cst.CSTNode, CodeRange]:
    return cast("dict[cst.CSTNode, CodeRange]", getattr(state.provider, "_computed"))  # noqa: B009


def compute_positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """Positions of the module's expressions, statements, parameters and match patterns."""
    try:
        provider = PositionProvider()
        state = _RecordingWanted(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            provider=provider,
        )
        module._codegen(state)  # pyright: ignore[reportPrivateUsage]
        computed: object = getattr(provider, "_computed")  # noqa: B009 - private, on purpose
        return cast("Mapping[cst.CSTNode, CodeRange]", computed)
    except (AttributeError, TypeError):  # pragma: no cover - a LibCST without these internals
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
