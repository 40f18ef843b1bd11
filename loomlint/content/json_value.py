"""`JSONValue` and the one iterative walk that validates and copies it.

The walk is iterative (an explicit stack), so no input depth can raise `RecursionError`, and
it tracks the containers on the current path, so a cyclic value is reported, not looped on.
It counts a node each time it reaches one: a sub-structure shared N times costs N times its
size, which is what a copy or ``json.dumps`` of the value costs too, so a node cap bounds them.
Only the exact types `json.loads` produces are JSON here: a tuple, a `dict` subclass, a
non-`str` key or a non-finite float is refused, since a provider would serialise them
differently from what the guard checked (or not at all).
"""

from __future__ import annotations

import functools
import json
import math
import sys
from dataclasses import dataclass
from typing import TypeAlias, cast

from typing_extensions import TypeIs

from loomlint.content.words import with_article

__all__ = [
    "JSONShapeError",
    "JSONTooDeepError",
    "JSONTooLargeError",
    "JSONValue",
    "counted_json",
    "describe",
    "exact_dict",
    "exact_list",
    "validated_json",
    "with_article",
]

JSONValue: TypeAlias = str | int | float | bool | list["JSONValue"] | dict[str, "JSONValue"] | None
"""A JSON value as `json.loads` returns it."""

_Key: TypeAlias = "str | int"


class JSONShapeError(ValueError):
    """A value is not JSON. ``path`` is a suffix such as ``.a[3]`` relative to the walked root."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path or '<root>'}: {reason}")


class JSONTooLargeError(ValueError):
    """A value is over one of the walk's caps; ``reason`` says which (``more than 5 nodes``)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class JSONTooDeepError(JSONTooLargeError):
    """A value nests containers deeper than the walk's cap."""


@dataclass(slots=True)
class _Frame:
    """One open container on the walk's stack; ``key`` is where it sits in its parent."""

    key: _Key | None
    source_id: int
    items: list[tuple[_Key, object]]
    next_index: int
    target: list[JSONValue] | dict[str, JSONValue]


def describe(value: object) -> str:
    """A short, JSON-flavoured description of a value for error messages.

    Never calls the value's own ``__repr__`` (only exact built-in types are shown), and never
    prints a huge int (whose ``repr`` itself raises past Python's digit limit).
    """
    kind = type(value)
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str) and kind is str:
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, int) and kind is int:
        return repr(value) if value.bit_length() <= 64 else f"a {value.bit_length()}-bit integer"
    if isinstance(value, float) and kind is float:
        return repr(value)
    if kind is list:
        return "an array"
    if kind is dict:
        return "an object"
    return with_article(kind.__name__)


def _render_path(keys: list[_Key]) -> str:
    parts: list[str] = []
    for key in keys:
        if isinstance(key, int):
            parts.append(f"[{key}]")
        elif key.isidentifier():
            parts.append(f".{key}")
        else:
            parts.append(f"[{json.dumps(key)}]")
    return "".join(parts)


def _is_json_scalar(value: object) -> TypeIs[str | int | float | bool | None]:
    kind = type(value)
    if value is None or kind is str or kind is bool:
        return True
    if isinstance(value, int) and kind is int:
        return not _too_long(value)
    return isinstance(value, float) and kind is float and math.isfinite(value)


def _too_long(value: int) -> bool:
    """Whether Python refuses to write ``value`` in decimal (``json.dumps`` would raise)."""
    limit = _int_digit_limit()
    return limit > 0 and value.bit_length() > 3 * limit and abs(value) >= _ten_to(limit)


def _int_digit_limit() -> int:
    # 3.10 before 3.10.7 has no limit.
    get_limit = getattr(sys, "get_int_max_str_digits", None)
    return int(get_limit()) if get_limit is not None else 0


@functools.lru_cache(maxsize=4)
def _ten_to(digits: int) -> int:
    return int(10**digits)


def _scalar_problem(value: object) -> str:
    """Why a non-container value is not a JSON scalar."""
    if isinstance(value, float) and type(value) is float:
        return f"expected a finite number, got {value!r}"
    if isinstance(value, int) and type(value) is int:
        return (
            f"expected a JSON value, got an integer of more than {_int_digit_limit()} digits, "
            "which JSON writers refuse (sys.get_int_max_str_digits())"
        )
    return f"expected a JSON value, got {describe(value)}"


def _open(value: list[object] | dict[object, object], key: _Key | None) -> _Frame:
    """Start copying a container that sits under ``key`` in its parent.

    A bad object key raises `JSONShapeError` with an empty path; the walk adds the path only
    then, since building it for every container would make a deep walk quadratic.
    """
    if isinstance(value, list):
        return _Frame(key, id(value), list(enumerate(value)), 0, [])
    items: list[tuple[_Key, object]] = []
    for item_key, child in value.items():
        if type(item_key) is not str:
            raise JSONShapeError("", f"object key {describe(item_key)} is not a string")
        items.append((item_key, child))
    return _Frame(key, id(value), items, 0, {})


def exact_dict(value: object) -> dict[object, object] | None:
    """``value`` if it is exactly a ``dict``, else None.

    Exact built-in types only, here and in `exact_list`: a subclass could run arbitrary code
    on iteration or comparison, and raise something its caller promised never to raise.
    """
    if type(value) is dict:
        return cast("dict[object, object]", value)
    return None


def exact_list(value: object) -> list[object] | None:
    """``value`` if it is exactly a ``list``, else None."""
    if type(value) is list:
        return cast("list[object]", value)
    return None


def _as_container(value: object) -> list[object] | dict[object, object] | None:
    listed = exact_list(value)
    return listed if listed is not None else exact_dict(value)


def validated_json(
    value: object, *, max_nodes: int | None = None, max_depth: int | None = None
) -> JSONValue:
    """A deep copy of ``value`` checked to be JSON, walked iteratively (see `counted_json`)."""
    return counted_json(value, max_nodes=max_nodes, max_depth=max_depth)[0]


def counted_json(
    value: object, *, max_nodes: int | None = None, max_depth: int | None = None
) -> tuple[JSONValue, int]:
    """A deep copy of ``value`` checked to be JSON, and how many nodes it has.

    Every value counts as one node (a container and each of its elements; object keys do not
    count), each time it is reached. Raises `JSONTooLargeError` as soon as the count passes
    ``max_nodes``, `JSONTooDeepError` as soon as containers nest deeper than ``max_depth``
    (``[[0]]`` is 2 deep, a scalar 0), and `JSONShapeError` (naming the path) for a value that
    is not JSON or a container that contains itself. Never raises `RecursionError`, whatever
    the depth.
    """
    if max_nodes is not None and max_nodes < 1:
        raise JSONTooLargeError(f"more than {max_nodes} nodes")
    root = _as_container(value)
    if root is None:
        if _is_json_scalar(value):
            return value, 1
        raise JSONShapeError("", _scalar_problem(value))
    if max_depth is not None and max_depth < 1:
        raise JSONTooDeepError(f"nested more than {max_depth} deep")
    nodes = 1
    first = _open(root, None)
    stack = [first]
    on_path = {first.source_id}
    while stack:
        frame = stack[-1]
        if frame.next_index == len(frame.items):
            stack.pop()
            on_path.discard(frame.source_id)
            continue
        key, child = frame.items[frame.next_index]
        frame.next_index += 1
        nodes += 1
        if max_nodes is not None and nodes > max_nodes:
            raise JSONTooLargeError(f"more than {max_nodes} nodes")
        container = _as_container(child)
        if container is None:
            if not _is_json_scalar(child):
                raise JSONShapeError(_path_to(stack, key), _scalar_problem(child))
            _attach(frame.target, key, child)
            continue
        if id(container) in on_path:
            raise JSONShapeError(_path_to(stack, key), "cyclic: a container that contains itself")
        if max_depth is not None and len(stack) >= max_depth:
            raise JSONTooDeepError(f"nested more than {max_depth} deep")
        try:
            opened = _open(container, key)
        except JSONShapeError as error:
            raise JSONShapeError(_path_to(stack, key), error.reason) from None
        _attach(frame.target, key, opened.target)
        stack.append(opened)
        on_path.add(opened.source_id)
    return first.target, nodes


def _keys_to(stack: list[_Frame], key: _Key) -> list[_Key]:
    keys = [frame.key for frame in stack[1:] if frame.key is not None]
    keys.append(key)
    return keys


def _path_to(stack: list[_Frame], key: _Key) -> str:
    return _render_path(_keys_to(stack, key))


def _attach(target: list[JSONValue] | dict[str, JSONValue], key: _Key, value: JSONValue) -> None:
    if isinstance(target, list):
        target.append(value)
    elif isinstance(key, str):
        target[key] = value
