"""What every content rule shares: the finding it judges, how origins read in messages, and
how a rule declares the valid and invalid examples that become its tests."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import libcst as cst

from loomlint.catalog.spi import SpiFix
from loomlint.engine.flow import Origin, Value
from loomlint.engine.sinks import Position
from loomlint.engine.typefacts import ContentKind


@dataclass(frozen=True, slots=True)
class ContentFinding:
    """A content value (``node``) in a position that is not sanctioned."""

    node: cst.BaseExpression
    code_text: str
    value: Value
    kind: ContentKind
    position: Position
    # The fix of the SPI the value belongs to (``SpiModel.fix_for``), worded by ``advice``.
    fix: SpiFix
    line: int  # where the finding is reported


@dataclass(frozen=True, slots=True)
class Example:
    """A rule example. ``expected`` lists (code, line, column), 1-based, in order."""

    source: str
    expected: tuple[tuple[str, int, int], ...] = ()


class ContentRule(ABC):
    code: ClassVar[str]
    VALID: ClassVar[tuple[Example, ...]]
    INVALID: ClassVar[tuple[Example, ...]]

    @abstractmethod
    def applies(self, finding: ContentFinding) -> bool:
        """Whether this rule is the one that reports ``finding``."""

    @abstractmethod
    def message(self, finding: ContentFinding) -> str: ...


def describe_origin(finding: ContentFinding) -> str:
    """How a message names where the value came from, e.g. "content of `m` (read at line 12)"."""
    value = finding.value
    origins = sorted(value.origins, key=lambda o: (o.line, o.receiver))
    if not origins:
        return f"`{finding.code_text}`"
    first = origins[0]
    held = f", held in `{value.alias}`" if value.alias else ""
    here = finding.line
    if first.how == "typed":
        typed_name = value.alias or first.receiver or finding.code_text
        return f"`{typed_name}` (typed as message content)"
    if first.how == "capture":
        return (
            f"content captured from `{first.receiver}` by a match pattern "
            f"at line {first.line}{held}"
        )
    if first.how == "unpack":
        return f"content of `{first.receiver}` (unpacked at line {first.line}{held})"
    others = [o for o in origins[1:] if o.how == "read"]
    if others:
        lines = ", ".join(str(o.line) for o in [first, *others])
        receivers = sorted({o.receiver for o in [first, *others]})
        names = " or ".join(f"`{r}`" for r in receivers)
        return f"content of {names} (read at lines {lines}{held})"
    if first.line == here and not held:
        return f"content of `{first.receiver}`"
    return f"content of `{first.receiver}` (read at line {first.line}{held})"


def describe_value(finding: ContentFinding) -> str:
    """The origin, qualified by what was taken from it (a parts list, a part)."""
    typed_here = [o for o in finding.value.origins if o.how == "typed" and o.node is finding.node]
    if typed_here and finding.kind in _TYPED_NOUNS:
        # Judged by its own type (a parameter, to_parts(...), an element): no read to name.
        return f"`{finding.code_text}` (typed as {_TYPED_NOUNS[finding.kind]})"
    origin = describe_origin(finding)
    if finding.kind is ContentKind.PARTS:
        return f"a list of parts from {origin}"
    if finding.kind is ContentKind.PART:
        return f"a part of {origin}"
    return origin


_TYPED_NOUNS = {ContentKind.PARTS: "a list of parts", ContentKind.PART: "a content part"}


def is_destructured(value: Value) -> bool:
    return bool(value.origins) and all(o.destructured for o in value.origins)


__all__ = [
    "ContentFinding",
    "ContentRule",
    "Example",
    "Origin",
    "describe_origin",
    "describe_value",
    "is_destructured",
]
