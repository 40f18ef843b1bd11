"""The plugin's messages, and the one function every check reports through.

A message names the value and its type, says what happens to it, and how to fix it:
``Message content "m.content" (str | list[...]) is coerced to str by an f-string; use
text_of(...)``. The wording of what happens follows the LibCST pass (``analysis/sinks.py``).
"""

from __future__ import annotations

from mypy.checker import TypeChecker
from mypy.nodes import Context

from loomlint.advice import cast_fix, coercion_fix, use_consequence, use_fix
from loomlint.mypy_checks.codes import ERROR_CODES, Category
from loomlint.mypy_checks.config import PluginConfig
from loomlint.mypy_checks.reporting import report
from loomlint.mypy_checks.values import Value, subject
from loomlint.spi import SpiModel


def emit(
    checker: TypeChecker,
    config: PluginConfig,
    node: Context,
    category: Category,
    message: str,
    *,
    during_check: bool = True,
) -> None:
    """Report ``message`` unless ``[tool.loomlint]`` disables its rules for this file, or a
    loomlint suppression comment silences it there."""
    if config.reports(category, checker.path) and not config.suppressed(
        category, checker.path, node.line
    ):
        report(checker, node, message, ERROR_CODES[category], during_check=during_check)


def coercion_message(value: Value, label: str, spi: SpiModel) -> str:
    fix = coercion_fix(value.kind, spi.fix_for(value.owner))
    return f"{subject(value)} is coerced to str by {label}; {fix}"


def serialiser_message(value: Value, label: str, spi: SpiModel) -> str:
    """``json.dumps`` of content whose parts are not JSON (the LibCST pass's wording)."""
    fix = coercion_fix(value.kind, spi.fix_for(value.owner))
    return f"{subject(value)} makes {label} raise TypeError when it holds parts (not JSON); {fix}"


def use_message(value: Value, description: str, spi: SpiModel, *, accessor: bool = True) -> str:
    """``accessor``: whether reading the text instead (``text_of``) is a fix worth naming."""
    fix = use_fix(spi.fix_for(value.owner), accessor=accessor)
    return f"{subject(value)} {use_consequence(description)}; {fix}"


def cast_message(value: Value, target: str, spi: SpiModel) -> str:
    fix = cast_fix(spi.fix_for(value.owner))
    return f'{subject(value)} is cast to "{target}" instead of being narrowed; {fix}'
