"""Byte and size caps of the record's decisions 5 and 7."""

from __future__ import annotations

from typing import Final

__all__ = [
    "MAX_INLINE_BYTES",
    "MAX_INLINE_TOTAL_BYTES",
    "MAX_RESOLVED_BYTES",
    "MAX_TOOL_INPUT_NODES",
]

MAX_INLINE_BYTES: Final = 64 * 1024
"""Per-part cap on decoded inline media bytes (decision 5); bigger media travels as a ref."""

MAX_INLINE_TOTAL_BYTES: Final = 256 * 1024
"""Per-request cap on decoded inline media bytes summed over every part (decision 5)."""

MAX_RESOLVED_BYTES: Final = 32 * 1024 * 1024
"""Running budget of resolved (fetched) bytes per request (decision 5), for resolvers."""

MAX_TOOL_INPUT_NODES: Final = 100_000
"""Most JSON nodes a tool_use input may have (decision 7); the walk fails closed above it."""
