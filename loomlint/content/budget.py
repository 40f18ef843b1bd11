"""`JSONBudget`: the caps every walk of a tool input applies, per value and in total.

The guard, `from_json` and `to_json` each validate tool inputs through one budget per request
(or message), so the three agree on what is too large, and none of them can be made to walk,
copy or hand ``json.dumps`` more than `MAX_TOTAL_JSON_NODES` nodes, however the values share
sub-structures.
"""

from __future__ import annotations

from loomlint.content.json_value import (
    JSONTooDeepError,
    JSONTooLargeError,
    JSONValue,
    counted_json,
)
from loomlint.content.limits import (
    MAX_TOOL_INPUT_DEPTH,
    MAX_TOOL_INPUT_NODES,
    MAX_TOTAL_JSON_NODES,
)

__all__ = ["JSONBudget"]


class JSONBudget:
    """Nodes left for the JSON values of one request; `validated` spends from it."""

    def __init__(self) -> None:
        self._left = MAX_TOTAL_JSON_NODES

    def validated(self, value: object) -> JSONValue:
        """A checked copy of ``value`` (see `counted_json`), its nodes spent from the budget.

        Raises `JSONShapeError` for a value that is not JSON, and `JSONTooLargeError` for one
        over `MAX_TOOL_INPUT_NODES` nodes, over `MAX_TOOL_INPUT_DEPTH` deep, or that takes
        the values validated so far over `MAX_TOTAL_JSON_NODES` nodes.
        """
        cap = min(MAX_TOOL_INPUT_NODES, self._left)
        try:
            data, nodes = counted_json(value, max_nodes=cap, max_depth=MAX_TOOL_INPUT_DEPTH)
        except JSONTooDeepError:
            raise
        except JSONTooLargeError:
            if cap < MAX_TOOL_INPUT_NODES:
                raise JSONTooLargeError(
                    f"more than {MAX_TOTAL_JSON_NODES} nodes in total with the JSON before it"
                ) from None
            raise
        self._left -= nodes
        return data
