"""The plugin's messages, and the one function every check reports through.

A message names the value and its type, says what happens to it, and how to fix it:
``Message content "m.content" (str | list[...]) is coerced to str by an f-string; use
text_of(...)``. The wording of what happens follows the LibCST pass (``analysis/sinks.py``).
"""

from __future__ import annotations

from mypy.checker import TypeChecker
from mypy.nodes import Context

from loomlint.analysis.typefacts import ContentKind
from loomlint.mypy_checks.codes import ERROR_CODES, Category
from loomlint.mypy_checks.config import PluginConfig
from loomlint.mypy_checks.reporting import report
from loomlint.mypy_checks.values import Value, accessor_hint, subject
from loomlint.spi import SpiModel

_NARROW = "narrow it with isinstance() first"


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
    return f"{subject(value)} is coerced to str by {label}; {_coercion_fix(value, spi)}"


def serialiser_message(value: Value, label: str, spi: SpiModel) -> str:
    """``json.dumps`` of content whose parts are not JSON (the LibCST pass's wording)."""
    fix = _coercion_fix(value, spi)
    return f"{subject(value)} makes {label} raise TypeError when it holds parts (not JSON); {fix}"


def _coercion_fix(value: Value, spi: SpiModel) -> str:
    if value.kind is ContentKind.PART:
        return "read the part's fields instead"
    return accessor_hint(spi) or _NARROW


def use_message(value: Value, description: str, spi: SpiModel, *, accessor: bool = True) -> str:
    """``accessor``: whether reading the text instead (``text_of``) is a fix worth naming."""
    hint = accessor_hint(spi) if accessor else ""
    fix = f"{_NARROW}, or {hint}" if hint else _NARROW
    return f"{subject(value)} {description}; {fix}"


def cast_message(value: Value, target: str, spi: SpiModel) -> str:
    hint = accessor_hint(spi)
    fix = f"{hint}, or narrow it with isinstance()" if hint else "narrow it with isinstance()"
    return f'{subject(value)} is cast to "{target}" instead of being narrowed; {fix}'
