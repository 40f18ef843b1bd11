"""Byte and size caps of the record's decisions 5 and 7, and the JSON caps that keep every walk
of a tool input (the guard's, `from_json`'s, `to_json`'s) and its later ``json.dumps`` bounded."""

from __future__ import annotations

from typing import Final

__all__ = [
    "MAX_INLINE_BYTES",
    "MAX_INLINE_TOTAL_BYTES",
    "MAX_RESOLVED_BYTES",
    "MAX_TOOL_INPUT_DEPTH",
    "MAX_TOOL_INPUT_NODES",
    "MAX_TOTAL_JSON_NODES",
]

MAX_INLINE_BYTES: Final = 64 * 1024
"""Per-part cap on decoded inline media bytes (decision 5); bigger media travels as a ref."""

MAX_INLINE_TOTAL_BYTES: Final = 256 * 1024
"""Per-request cap on decoded inline media bytes summed over every part (decision 5)."""

MAX_RESOLVED_BYTES: Final = 32 * 1024 * 1024
"""Running budget of resolved (fetched) bytes per request (decision 5), for resolvers."""

MAX_TOOL_INPUT_NODES: Final = 100_000
"""Most JSON nodes a tool_use input may have (decision 7); the walk fails closed above it."""

MAX_TOOL_INPUT_DEPTH: Final = 256
"""Deepest nesting of containers a tool_use input (or tool input schema) may have.

``json.dumps`` and ``json.loads`` recurse once per level, against a recursion limit of about
1000 shared with their caller; 256 leaves a deep caller room, and no real tool input comes
near it.
"""

MAX_TOTAL_JSON_NODES: Final = 4 * MAX_TOOL_INPUT_NODES
"""Most JSON nodes one request may carry over all its tool_use inputs and tool input schemas
(for `from_json` / `to_json`, over one message's tool inputs). Like the inline total, it stops
many values under the per-value cap, or one shared value repeated, from adding up."""
