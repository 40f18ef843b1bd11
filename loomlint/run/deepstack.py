"""Run work on a thread with a deep stack: LibCST's parser and visitors, and mypy, recurse once
per nesting level, and generated code nests thousands of levels deep."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_DEEP_STACK_BYTES = 1024 * 1024 * 1024
_DEEP_RECURSION_LIMIT = 200_000


def deep_stack(work: Callable[[], T]) -> T:
    """Run ``work`` on a thread with a large stack and a raised recursion limit."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # re-raised on the calling thread
            failure.append(exc)

    previous_limit = sys.getrecursionlimit()
    previous_size = threading.stack_size()
    sys.setrecursionlimit(max(previous_limit, _DEEP_RECURSION_LIMIT))
    threading.stack_size(_DEEP_STACK_BYTES)
    try:
        thread = threading.Thread(target=target, name="loomlint-analysis")
        thread.start()
    finally:
        threading.stack_size(previous_size)
    thread.join()
    sys.setrecursionlimit(previous_limit)
    if failure:
        raise failure[0]
    return outcome[0]
