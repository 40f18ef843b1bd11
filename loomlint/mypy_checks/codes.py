"""The plugin's mypy error codes, named and described by the rule catalog (``rules/LML*.toml``).

mypy registers an ``ErrorCode`` globally when it is created, and validates
``--disable-error-code`` / ``disable_error_code`` only after plugins are loaded, so creating
them at import time is what makes those options (and ``# type: ignore[code]``) accept them.
"""

from __future__ import annotations

from typing import Final, Literal

from mypy.errorcodes import ErrorCode

from loomlint.catalog import CatalogError, load_catalog

Category = Literal["use", "coercion", "cast"]

# The catalog rule each category of finding belongs to. LML002 (a use whose origin is a
# destructuring) shares LML001's mypy code; the plugin, which sees types and not origins,
# reports every use as LML001.
RULE_BY_CATEGORY: Final[dict[Category, str]] = {
    "use": "LML001",
    "coercion": "LML003",
    "cast": "LML004",
}
_ERROR_CODE_CATEGORY: Final = "loomlint"


def _rules_reported_as(category: Category) -> tuple[str, ...]:
    """Every rule whose findings the plugin reports under ``category``'s mypy code: a comment
    silencing any of them silences the plugin's finding (``# noqa: LML002`` and a use)."""
    mypy_code = load_catalog().rule(RULE_BY_CATEGORY[category]).mypy_code
    return tuple(
        sorted(code for code, rule in load_catalog().rules.items() if rule.mypy_code == mypy_code)
    )


RULES_BY_CATEGORY: Final[dict[Category, tuple[str, ...]]] = {
    category: _rules_reported_as(category) for category in RULE_BY_CATEGORY
}


def _error_code(category: Category) -> ErrorCode:
    rule = load_catalog().rule(RULE_BY_CATEGORY[category])
    if rule.mypy_code is None:
        raise CatalogError(f"rules/{rule.code}.toml: key 'mypy_code' is required by the plugin")
    return ErrorCode(rule.mypy_code, f"{rule.summary} ({rule.code})", _ERROR_CODE_CATEGORY)


CONTENT_USE: Final = _error_code("use")
CONTENT_COERCION: Final = _error_code("coercion")
CONTENT_CAST: Final = _error_code("cast")

ERROR_CODES: Final[dict[Category, ErrorCode]] = {
    "use": CONTENT_USE,
    "coercion": CONTENT_COERCION,
    "cast": CONTENT_CAST,
}
MYPY_CODES: Final = frozenset(code.code for code in ERROR_CODES.values())
