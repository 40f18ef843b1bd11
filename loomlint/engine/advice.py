"""The fix each finding advises, worded once for ``loomlint check`` and the mypy plugin.

A message names the value, says what happens to it (``analysis/sinks.py`` and the plugin's
checks word that alike), and ends with one of these. The fix is that of the SPI the value
belongs to (``SpiModel.fix_for``): ``use text_of(...)`` for the reference SPI, ``use .text``
for LangChain, and, for an SPI with no accessor, how to narrow the value.
"""

from __future__ import annotations

from loomlint.catalog.spi import SpiFix
from loomlint.engine.typefacts import ContentKind

_NARROW = "narrow it with isinstance() first"


def coercion_fix(kind: ContentKind, fix: SpiFix) -> str:
    """LML003: content, a parts list or a part turned into a string."""
    if kind is ContentKind.PART:
        return "read the part's fields instead"
    label = fix.label
    return f"use {label}" if label is not None else "narrow it with isinstance(..., str) first"


def use_consequence(description: str, misses: str = "parts") -> str:
    """LML001 and LML002: what using the union as one branch risks. ``misses``: the branch
    the use gets wrong (``parts``; ``text`` for a loop that picks text parts)."""
    if misses == "text":
        lost = "whose characters are not parts: its text is lost"
        return f"{description}, but it may be a string, {lost}"
    return f"{description}, but it may be a list of parts"


def use_fix(fix: SpiFix, *, accessor: bool = True, misses: str = "parts") -> str:
    """LML001: the union used as one branch. ``accessor``: whether reading the text instead
    is a fix worth naming there. A loop that picks text parts wants the text: the accessor
    comes first."""
    label = fix.label if accessor else None
    if label is None:
        return _NARROW
    return f"use {label}, or {_NARROW}" if misses == "text" else f"{_NARROW}, or use {label}"


def list_only_fix() -> str:
    """LML006: the union used in a way only a list allows. No accessor helps: the code changes
    the list itself."""
    return "narrow it with isinstance(..., list) first"


def destructure_fix(fix: SpiFix) -> str:
    """LML002: a destructured origin used as one branch."""
    label = fix.label
    narrow = "match `str() as ...` or narrow with isinstance() first"
    return f"{narrow}, or use {label}" if label is not None else narrow


def cast_fix(fix: SpiFix) -> str:
    """LML004: the union cast to one branch."""
    label = fix.label
    narrow = "narrow it with isinstance()"
    return f"use {label}, or {narrow}" if label is not None else narrow


def erased_fix(fix: SpiFix) -> str:
    """LML005: content passed or stored where its type is lost (no body to follow)."""
    label = fix.label
    keep = "declare the content type there"
    if label is None:
        return f"{keep}, or narrow it first"
    return f"{keep}, narrow it first, or use {label}"
