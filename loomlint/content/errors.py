"""The errors the content API raises.

`GuardError` is the base of every refusal `guard_request` makes: a caller that wants "is this
request acceptable?" catches exactly that. `UnsupportedModalityError` (a capability refusal) and
`UnresolvedContentError` (a resolver failure) are not structural refusals, so they stand apart.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

__all__ = [
    "GuardError",
    "InvalidMediaError",
    "MalformedRequestError",
    "MisplacedPartError",
    "OrphanToolResultError",
    "OversizedInlinePartError",
    "OversizedToolInputError",
    "UnresolvedContentError",
    "UnsupportedModalityError",
    "UntrustedContentError",
    "Where",
]


@dataclass(frozen=True, slots=True)
class Where:
    """A position in a request: message index, part index, index inside a tool_result, field.

    Rendered as a path (``messages[1].content[0].content[2].source``) so that every error names
    the place it refers to the same way.
    """

    message: int | None = None
    part: int | None = None
    inner: int | None = None
    field: str | None = None

    def at(self, field: str) -> Where:
        """This position, one field further down (``where.at("source").at("data")``)."""
        return dataclasses.replace(self, field=f"{self.field}.{field}" if self.field else field)

    def __str__(self) -> str:
        if self.message is None:
            path = "request"
        else:
            path = f"messages[{self.message}]"
            if self.part is not None:
                path += f".content[{self.part}]"
                if self.inner is not None:
                    path += f".content[{self.inner}]"
        if self.field:
            path += f".{self.field}"
        return path


class GuardError(Exception):
    """Base of every refusal made by `guard_request`.

    ``rule`` names the rule that was broken, ``where`` the position of the offending value
    (``message_index`` / ``part_index`` are shortcuts into it). The message reads
    ``"<rule> at <path>: <detail>"``.
    """

    rule: ClassVar[str] = "guard"

    def __init__(self, detail: str, where: Where | None = None) -> None:
        self.where = where if where is not None else Where()
        self.detail = detail
        super().__init__(f"{self.rule} at {self.where}: {detail}")

    @property
    def message_index(self) -> int | None:
        """Index of the offending message in ``request.messages``, if any."""
        return self.where.message

    @property
    def part_index(self) -> int | None:
        """Index of the offending part in that message's content list, if any."""
        return self.where.part


class MalformedRequestError(GuardError):
    """The request does not have the SPI's shape: a wrong type in a field, a value that is not a
    part where a part is expected, a role outside the three, a tool input that is not JSON."""

    rule = "malformed-request"


class MisplacedPartError(GuardError):
    """A part is in a message whose role may not carry it: tool_use outside an assistant
    message, tool_result outside a user message, media outside a user message, a tool part
    inside a tool_result."""

    rule = "misplaced-part"


class OrphanToolResultError(GuardError):
    """A tool_result answers a tool_use id that no earlier assistant message declared."""

    rule = "orphan-tool-result"


class InvalidMediaError(GuardError):
    """A media part is malformed: its media type is not ``type/subtype`` or is of the wrong
    modality, its inline data is not strict base64, or its ref is not a str address with a
    size that is absent or a non-negative int."""

    rule = "invalid-media"


class UntrustedContentError(GuardError):
    """An untrusted part is somewhere only trusted content may be: outside a user message, or
    naming a stored ref (an untrusted party must not choose which blob enters the prompt)."""

    rule = "untrusted-content"


class OversizedInlinePartError(GuardError):
    """Inline media is too big: one part over the per-part cap, or the request's inline parts
    over the per-request total. The remedy is to store the bytes and send a ref."""

    rule = "oversized-inline-part"


class OversizedToolInputError(GuardError):
    """A tool_use input is over the JSON caps (it fails closed): more nodes than
    `MAX_TOOL_INPUT_NODES`, nested deeper than `MAX_TOOL_INPUT_DEPTH`, or taking the request's
    tool inputs and schemas over `MAX_TOTAL_JSON_NODES` nodes."""

    rule = "oversized-tool-input"


class UnsupportedModalityError(Exception):
    """The provider did not declare a media type the request carries (decision 6).

    Raised by `assert_request_supported` before any resolution or network call.
    """

    def __init__(
        self, detail: str, where: Where | None = None, media_type: str | None = None
    ) -> None:
        self.where = where if where is not None else Where()
        self.media_type = media_type
        self.detail = detail
        super().__init__(f"unsupported-modality at {self.where}: {detail}")


class UnresolvedContentError(Exception):
    """A stored ref could not be resolved to bytes (absent, over budget, size mismatch).

    ``loomlint.content`` ships no resolver, so nothing here raises it; it is the error a
    resolver built on these types raises for a ref the application put in a message itself.
    """

    def __init__(self, address: str, reason: str) -> None:
        self.address = address
        self.reason = reason
        super().__init__(f"unresolved content {address!r}: {reason}")
