"""The plugin's mypy error codes: one per ``mypy_code`` of the rule catalog (``rules/LML*.toml``).

mypy registers an ``ErrorCode`` globally when it is created, and validates
``--disable-error-code`` / ``disable_error_code`` only after plugins are loaded, so creating
them at import time is what makes those options (and ``# type: ignore[code]``) accept them.
Rules may share a code: LML001 and LML002 are both ``loom-content-use``.
"""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode

from loomlint.catalog.rules import load_catalog

_ERROR_CODE_CATEGORY: Final = "loomlint"


def _error_codes() -> dict[str, ErrorCode]:
    """Each rule's mypy error code, by rule code; described by the first rule that has it."""
    by_mypy_code: dict[str, ErrorCode] = {}
    by_rule: dict[str, ErrorCode] = {}
    for code, rule in sorted(load_catalog().rules.items()):
        if rule.mypy_code is None:
            continue
        if rule.mypy_code not in by_mypy_code:
            by_mypy_code[rule.mypy_code] = ErrorCode(
                rule.mypy_code, f"{rule.summary} ({code})", _ERROR_CODE_CATEGORY
            )
        by_rule[code] = by_mypy_code[rule.mypy_code]
    return by_rule


# Rule code (``LML003``) -> the mypy error code its findings are reported under.
ERROR_CODE_OF_RULE: Final = _error_codes()
MYPY_CODES: Final = frozenset(code.code for code in ERROR_CODE_OF_RULE.values())
