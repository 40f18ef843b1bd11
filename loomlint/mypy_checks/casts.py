"""``typing.cast`` of content to one branch, found once a module is type-checked.

mypy turns ``cast(T, x)`` into a ``CastExpr`` during semantic analysis, so no call hook ever
sees it, and checking the cast has no hook of its own. The plugin therefore looks at the
module's casts when mypy has finished checking it (``get_additional_indirect_deps``, which
mypy calls once per checked module, before its errors are flushed and cached), reading each
operand's narrowed type from that module's checker (``checkers``). The error is attributed to
the module, not to the function around the cast: under dmypy, re-checking only that function
(after a change elsewhere) keeps the finding rather than dropping it.

A cast is flagged when its operand is the content union and its target is not a content
union itself (``cast(Content, x)`` is fine), as in the LibCST pass.
"""

from __future__ import annotations

from mypy.checker import TypeChecker
from mypy.nodes import CastExpr, Import, ImportAll, ImportBase, ImportFrom, MypyFile
from mypy.server.subexpr import get_subexpressions

from loomlint.analysis import content_types
from loomlint.analysis.typefacts import ContentKind
from loomlint.mypy_checks.checkers import CheckerRegistry
from loomlint.mypy_checks.config import PluginConfig
from loomlint.mypy_checks.findings import cast_message, emit
from loomlint.mypy_checks.values import brief_type, value_of

_CAST_MODULES = frozenset({"typing", "typing_extensions"})


def check_module(tree: MypyFile, checkers: CheckerRegistry, config: PluginConfig) -> None:
    """Check the casts of ``tree``, which mypy has just finished checking."""
    if not _may_cast(tree):
        checkers.forget(tree)
        return
    checker = checkers.checker_for(tree)
    if checker is None:
        return
    for expression in get_subexpressions(tree):
        if isinstance(expression, CastExpr):
            _check_cast(checker, expression, config)


def _check_cast(checker: TypeChecker, cast: CastExpr, config: PluginConfig) -> None:
    value = value_of(checker, cast.expr, config)
    if value is None or value.kind is not ContentKind.CONTENT:
        return
    target = cast.type
    if content_types.is_content_cast_target(target, config.spi):
        return
    message = cast_message(value, brief_type(target), config.spi)
    emit(checker, config, cast.expr, "cast", message, during_check=False)


def _may_cast(tree: MypyFile) -> bool:
    """Whether the module imports ``cast`` or a module that has it (a cheap pre-check)."""
    return any(_imports_cast(node) for node in tree.imports)


def _imports_cast(node: ImportBase) -> bool:
    if isinstance(node, ImportFrom):
        return node.id in _CAST_MODULES and any(name == "cast" for name, _ in node.names)
    if isinstance(node, Import):
        return any(name in _CAST_MODULES for name, _ in node.ids)
    return isinstance(node, ImportAll) and node.id in _CAST_MODULES
