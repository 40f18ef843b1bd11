"""The fence that brackets untrusted media in a user message (decision 7, ADR 0085).

Media cannot carry fence tags itself, so it is bracketed by two text parts. The bracket is a
label for the model; the refusals of untrusted content elsewhere are what is structural.
"""

from __future__ import annotations

import json
from typing import Final

from loomlint.content.parts import TextPart

__all__ = ["FENCE_CLOSE", "FENCE_OPEN", "fence_close", "fence_open"]

FENCE_OPEN: Final = "<untrusted-content"
"""The start of the text of a fence-open part (followed by the origin and ``>``)."""

FENCE_CLOSE: Final = "</untrusted-content>"
"""The text of a fence-close part."""


def fence_open(origin: str) -> TextPart:
    """The text part opening a fence around media from ``origin``.

    The origin is JSON-quoted with ``<`` and ``>`` escaped, so whatever it holds it cannot
    close the fence or open another tag.
    """
    quoted = json.dumps(origin).replace("<", "\\u003c").replace(">", "\\u003e")
    return TextPart(text=f"{FENCE_OPEN} origin={quoted}>")


def fence_close() -> TextPart:
    """The text part closing a fence."""
    return TextPart(text=FENCE_CLOSE)
