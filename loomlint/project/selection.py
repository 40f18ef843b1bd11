"""Rule selection: ``select`` / ``ignore`` code prefixes resolved to the set of enabled codes.

The semantics are Ruff's. A selector is a code or a prefix of codes (``LML003``, ``LML0``,
``LML``, or ``ALL``). Within one layer (the configuration file, then the command line) the
most specific selector that matches a code decides, and at equal specificity ``ignore`` wins.
A layer with a ``select`` starts from nothing; a layer without one refines the layer below.
``extend-select`` selects more on top of either (Ruff's meaning), and ``extend-ignore`` is
another ``ignore``.

Three kinds of codes stand outside ``select``: the analysis codes (LML9xx: a file could not be
analysed) are always reported unless ignored, so a narrow ``select`` can never hide that a file
went unchecked; ``LML100`` (unused suppression) is reported only on request; and an opt-in rule
(``opt_in`` in its catalog entry, as Ruff's opt-in rules) is off until a layer selects it by its
full code (``select`` or ``extend-select = ["LML005"]``): a prefix (``LML``, ``ALL``) does not.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

ALL = "ALL"
UNUSED_SUPPRESSION_CODE = "LML100"
_SELECTOR_SHAPE = re.compile(r"LML[0-9]{0,3}")


def is_analysis_code(code: str) -> bool:
    """LML9xx: the file could not be (fully) analysed."""
    return code.startswith("LML9")


def normalize_selector(selector: str) -> str:
    return selector.strip().upper()


def unknown_selectors(selectors: Iterable[str], known_codes: Collection[str]) -> list[str]:
    """The selectors (as given) that name no known code, in order, without duplicates."""
    unknown: list[str] = []
    for selector in selectors:
        normalized = normalize_selector(selector)
        if normalized == ALL:
            continue
        valid = _SELECTOR_SHAPE.fullmatch(normalized) is not None and any(
            code.startswith(normalized) for code in known_codes
        )
        if not valid and selector not in unknown:
            unknown.append(selector)
    return unknown


def selector_matches(selector: str, code: str) -> bool:
    return selector == ALL or code.startswith(selector)


def _specificity(selector: str) -> int:
    return 0 if selector == ALL else len(selector)


@dataclass(frozen=True, slots=True)
class SelectionLayer:
    """One source of ``select`` / ``ignore`` (normalized selectors)."""

    select: tuple[str, ...] | None
    ignore: tuple[str, ...]
    # ``extend-select``: selected on top of ``select`` (or of the layer below, without one).
    extend_select: tuple[str, ...] = ()


def resolve_enabled_codes(
    known_codes: Collection[str],
    layers: Sequence[SelectionLayer],
    *,
    report_unused_suppressions: bool,
    opt_in: Collection[str] = (),
) -> frozenset[str]:
    """The codes enabled after applying ``layers`` in order (see the module docstring)."""
    rule_codes = [
        code
        for code in known_codes
        if not is_analysis_code(code) and code != UNUSED_SUPPRESSION_CODE and code not in opt_in
    ]
    enabled = set(rule_codes)
    for layer in layers:
        enabled = {code for code in rule_codes if _layer_enables(layer, code, code in enabled)}
    for code in opt_in:
        chosen = False
        for layer in layers:
            chosen = _layer_enables(_exact_selects(layer, code), code, chosen)
        if chosen:
            enabled.add(code)
    all_ignores = [selector for layer in layers for selector in layer.ignore]
    for code in known_codes:
        if code in rule_codes or code in opt_in:
            continue
        requested = is_analysis_code(code) or report_unused_suppressions
        if requested and not any(selector_matches(s, code) for s in all_ignores):
            enabled.add(code)
    return frozenset(enabled)


def _exact_selects(layer: SelectionLayer, code: str) -> SelectionLayer:
    """``layer`` as an opt-in rule sees it: only its full code selects it."""
    return SelectionLayer(
        select=None if layer.select is None else tuple(s for s in layer.select if s == code),
        ignore=layer.ignore,
        extend_select=tuple(s for s in layer.extend_select if s == code),
    )


def _layer_enables(layer: SelectionLayer, code: str, enabled_below: bool) -> bool:
    # Walk the matching selectors from least to most specific; the last word wins, and an
    # ignore beats a select of the same specificity because it is applied after it.
    decisions: list[tuple[int, int, bool]] = [
        (_specificity(s), 0, True)
        for s in (*(layer.select or ()), *layer.extend_select)
        if selector_matches(s, code)
    ]
    decisions.extend((_specificity(s), 1, False) for s in layer.ignore if selector_matches(s, code))
    if not decisions:
        return enabled_below if layer.select is None else False
    return max(decisions)[2]
