"""How severe each code is, for the formats that carry a level (SARIF, GitHub annotations)."""

from __future__ import annotations

from typing import Literal

Level = Literal["error", "warning"]

# Housekeeping and "checked with less precision" are warnings; everything else fails a gate.
_WARNING_CODES = frozenset({"LML100", "LML904"})


def level_of(code: str) -> Level:
    return "warning" if code.upper() in _WARNING_CODES else "error"
