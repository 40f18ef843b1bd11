"""Provider conformance kit: the record's provider cases, runnable from pytest.

A provider under test is built by a factory from a fake `Transport` (what the kit observes as
"the wire") and the capabilities it should declare::

    def factory(transport: Transport, capabilities: ProviderCapabilities | None) -> Provider:
        return MyProvider(transport=transport, capabilities=capabilities)

    def test_conformance() -> None:
        run_conformance(factory, raise_on_failure=True)

or one test per case (readable ids)::

    @pytest.mark.parametrize("case", conformance_cases())
    def test_case(case: ConformanceCase) -> None:
        case.run(factory)

(equivalently ``@pytest.mark.parametrize("case", CONFORMANCE_CASES, ids=lambda c: c.id)``).

The cases, each run through ``complete`` and through ``stream``:

- ``text-parts-as-text``: a user message of text parts reaches the wire as text, never as a
  string-coerced list (``"[TextPart(text='hi')]"``);
- ``undeclared-image-refused``: a provider that did not declare ``image/png`` (no
  capabilities, or only ``image/jpeg``) refuses an image request with
  `UnsupportedModalityError` before any transport call;
- ``declared-image-on-wire``: a provider that declared ``image/png`` puts the image's base64
  data on the wire (declaring a modality and dropping it is the same silent loss).

The transport's reply is the kit's neutral shape, `DEFAULT_REPLY`; a provider that parses a
vendor's shape gets that shape through ``reply=``. The kit never checks the reply's parsing,
only what reached the wire and what was refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias

from loomlint.content import (
    DataSource,
    ImagePart,
    JSONValue,
    LlmMessage,
    LlmRequest,
    LlmResponse,
    ProviderCapabilities,
    TextPart,
    UnsupportedModalityError,
)
from loomlint.content.json_value import JSONShapeError, validated_json

__all__ = [
    "CONFORMANCE_CASES",
    "CONFORMANCE_TEXT",
    "DEFAULT_REPLY",
    "PNG_BASE64",
    "CaseResult",
    "ConformanceCase",
    "ConformanceFailure",
    "LlmStreamChunk",
    "Provider",
    "ProviderFactory",
    "RecordingTransport",
    "Transport",
    "TransportError",
    "conformance_cases",
    "image_request",
    "run_conformance",
    "text_request",
]

Mode: TypeAlias = Literal["complete", "stream"]
_MODES: tuple[Mode, ...] = ("complete", "stream")

DEFAULT_REPLY: dict[str, JSONValue] = {"content": "ok", "tool_calls": [], "stop_reason": "end_turn"}
"""What `RecordingTransport` answers unless told otherwise: the kit's neutral reply shape."""

PNG_BASE64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/"
    "iZk9HQAAAABJRU5ErkJggg=="
)
"""The image of the image cases: a real 1x1 PNG, so a provider that inspects bytes sees one."""

CONFORMANCE_TEXT = "hi"
"""The text of the text case's one text part."""

# What a string-coerced parts list looks like on the wire: a dataclass repr, a dict repr or
# a JSON dump of part dicts inside what should have been a plain text value.
_COERCION_SIGNS = ("TextPart(", "{'type': 'text'", '{"type": "text"', '{"type":"text"')
_WORD = re.compile(rf"\b{re.escape(CONFORMANCE_TEXT)}\b")


@dataclass(frozen=True, slots=True)
class LlmStreamChunk:
    """One item of a provider's stream: a text delta, and the assembled response on the last."""

    text: str = ""
    response: LlmResponse | None = None


class Transport(Protocol):
    """What a provider sends its vendor payload through (an HTTP client, in real life)."""

    def send(self, payload: dict[str, JSONValue]) -> dict[str, JSONValue]:
        """Send one JSON payload and return the vendor's JSON reply."""
        ...


class Provider(Protocol):
    """The provider protocol the kit checks.

    ``stream`` returns an iterable of `LlmStreamChunk`; it may refuse when called or, if it is
    a generator, on the first ``next()``, as long as that is before any transport call.
    """

    @property
    def capabilities(self) -> ProviderCapabilities | None:
        """The media types the provider declared; None means text and tool calls only."""
        ...

    def complete(self, request: LlmRequest) -> LlmResponse:
        """Answer ``request`` in one response."""
        ...

    def stream(self, request: LlmRequest) -> Iterable[LlmStreamChunk]:
        """Answer ``request`` as a stream of chunks."""
        ...


ProviderFactory: TypeAlias = Callable[[Transport, ProviderCapabilities | None], Provider]
"""Builds the provider under test around the kit's transport and the given declaration."""


class TransportError(ValueError):
    """`RecordingTransport` was sent a payload that is not JSON (no real wire would take it)."""


class ConformanceFailure(AssertionError):
    """A provider broke a conformance case; the message says which and how.

    An `AssertionError`, so pytest reports it as a test failure with the message.
    """


class RecordingTransport:
    """A fake transport that records every payload (as a JSON copy) and answers ``reply``."""

    def __init__(self, reply: dict[str, JSONValue] | None = None) -> None:
        self.sent: list[dict[str, JSONValue]] = []
        self.rejected: list[str] = []
        self._reply: dict[str, JSONValue] = DEFAULT_REPLY if reply is None else reply

    @property
    def calls(self) -> int:
        """How many times ``send`` was called, accepted or not."""
        return len(self.sent) + len(self.rejected)

    def send(self, payload: dict[str, JSONValue]) -> dict[str, JSONValue]:
        """Record ``payload`` and return a copy of the reply; a non-JSON payload is recorded in
        ``rejected`` and raises `TransportError`, as serialising it for a real wire would."""
        try:
            recorded = validated_json(payload)
        except JSONShapeError as error:
            self.rejected.append(str(error))
            raise TransportError(f"payload is not JSON: {error}") from None
        self.sent.append(recorded if isinstance(recorded, dict) else {"payload": recorded})
        reply = validated_json(self._reply)
        return reply if isinstance(reply, dict) else {"reply": reply}


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The outcome of one case: its id, whether it passed and, if not, why."""

    case_id: str
    passed: bool
    message: str = ""


@dataclass(frozen=True, slots=True)
class ConformanceCase:
    """One conformance case. ``run(factory)`` returns if the provider conforms and raises
    `ConformanceFailure` (with a message naming what went wrong) otherwise."""

    id: str
    description: str
    check: Callable[[ProviderFactory, dict[str, JSONValue] | None], None] = field(repr=False)

    def run(self, factory: ProviderFactory, *, reply: dict[str, JSONValue] | None = None) -> None:
        """Run the case against a provider built by ``factory``."""
        self.check(factory, reply)


def run_conformance(
    factory: ProviderFactory,
    *,
    reply: dict[str, JSONValue] | None = None,
    raise_on_failure: bool = False,
) -> list[CaseResult]:
    """Run every case against providers built by ``factory``; one result per case.

    With ``raise_on_failure`` every case still runs, then one `ConformanceFailure` lists all
    failures (if any).
    """
    results: list[CaseResult] = []
    for case in CONFORMANCE_CASES:
        try:
            case.run(factory, reply=reply)
        except ConformanceFailure as failure:
            results.append(CaseResult(case.id, passed=False, message=str(failure)))
        else:
            results.append(CaseResult(case.id, passed=True))
    failed = [result for result in results if not result.passed]
    if raise_on_failure and failed:
        listed = "\n".join(f"- {result.case_id}: {result.message}" for result in failed)
        raise ConformanceFailure(f"{len(failed)} of {len(results)} cases failed:\n{listed}")
    return results


def conformance_cases() -> Sequence[object]:
    """The cases as ``pytest.param`` objects with ids, for ``pytest.mark.parametrize``.

    Imports pytest only when called: pytest is a test-time dependency.
    """
    import pytest

    return [pytest.param(case, id=case.id) for case in CONFORMANCE_CASES]


def text_request() -> LlmRequest:
    """The request of the text case: one user message holding one text part."""
    return LlmRequest(messages=[LlmMessage(role="user", content=[TextPart(text=CONFORMANCE_TEXT)])])


def image_request() -> LlmRequest:
    """The request of the image cases: a question and an inline ``image/png``."""
    return LlmRequest(
        messages=[
            LlmMessage(
                role="user",
                content=[
                    TextPart(text="What is in this image?"),
                    ImagePart(media_type="image/png", source=DataSource(data=PNG_BASE64)),
                ],
            )
        ]
    )


def _call(provider: Provider, mode: Mode, request: LlmRequest) -> None:
    if mode == "complete":
        provider.complete(request)
    else:
        for _chunk in provider.stream(request):
            pass


def _strings(payloads: list[dict[str, JSONValue]]) -> Iterator[tuple[str, str]]:
    """Every string value on the wire with its path (``payload[0].messages[0].content``).

    Iterative, like every walk in loomlint: a provider's payload may be arbitrarily deep.
    """
    stack: list[tuple[str, JSONValue]] = [
        (f"payload[{index}]", payload) for index, payload in reversed(list(enumerate(payloads)))
    ]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            yield path, value
        elif isinstance(value, dict):
            stack.extend((f"{path}.{key}", child) for key, child in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(
                (f"{path}[{index}]", child) for index, child in reversed(list(enumerate(value)))
            )


def _fail_unless_json(transport: RecordingTransport, mode: Mode) -> None:
    if transport.rejected:
        raise ConformanceFailure(
            f"{mode}() sent a payload that is not JSON: {transport.rejected[0]}"
        )


def _check_text_as_text(
    mode: Mode,
) -> Callable[[ProviderFactory, dict[str, JSONValue] | None], None]:
    def check(factory: ProviderFactory, reply: dict[str, JSONValue] | None) -> None:
        transport = RecordingTransport(reply)
        provider = factory(transport, None)
        try:
            _call(provider, mode, text_request())
        except Exception as error:
            raise ConformanceFailure(
                f"{mode}() raised {type(error).__name__} on a text-parts message: {error}"
            ) from error
        _fail_unless_json(transport, mode)
        strings = list(_strings(transport.sent))
        for path, value in strings:
            if any(sign in value for sign in _COERCION_SIGNS):
                raise ConformanceFailure(
                    f"{mode}() put a string-coerced parts list on the wire: {path} is "
                    f"{value!r}; read message content with text_of() or map each part, never "
                    "str() / f-strings / join on the content"
                )
        if not transport.sent:
            raise ConformanceFailure(f"{mode}() never called the transport")
        if not any(_WORD.search(value) for _path, value in strings):
            raise ConformanceFailure(
                f"{mode}() dropped the text: {CONFORMANCE_TEXT!r} of a text-parts message is "
                f"nowhere on the wire ({len(transport.sent)} payload(s) recorded)"
            )

    return check


_UNDECLARED: tuple[ProviderCapabilities | None, ...] = (
    None,
    ProviderCapabilities(image=("image/jpeg",)),
)


def _check_undeclared_image_refused(
    mode: Mode,
) -> Callable[[ProviderFactory, dict[str, JSONValue] | None], None]:
    def check(factory: ProviderFactory, reply: dict[str, JSONValue] | None) -> None:
        for capabilities in _UNDECLARED:
            transport = RecordingTransport(reply)
            provider = factory(transport, capabilities)
            try:
                _call(provider, mode, image_request())
            except UnsupportedModalityError:
                if transport.calls:
                    raise ConformanceFailure(
                        f"{mode}() refused the undeclared image/png only after "
                        f"{transport.calls} transport call(s); check capabilities first"
                    ) from None
                continue
            except Exception as error:
                raise ConformanceFailure(
                    f"{mode}() raised {type(error).__name__} for an undeclared image/png "
                    f"(capabilities={capabilities!r}) instead of UnsupportedModalityError: "
                    f"{error}"
                ) from error
            raise ConformanceFailure(
                f"{mode}() accepted an image/png request although capabilities={capabilities!r} "
                f"do not declare image/png ({transport.calls} transport call(s)); call "
                "assert_request_supported(request, self.capabilities) before any I/O"
            )

    return check


def _check_declared_image_on_wire(
    mode: Mode,
) -> Callable[[ProviderFactory, dict[str, JSONValue] | None], None]:
    def check(factory: ProviderFactory, reply: dict[str, JSONValue] | None) -> None:
        capabilities = ProviderCapabilities(image=("image/png",))
        transport = RecordingTransport(reply)
        provider = factory(transport, capabilities)
        try:
            _call(provider, mode, image_request())
        except Exception as error:
            raise ConformanceFailure(
                f"{mode}() raised {type(error).__name__} for an image/png request although "
                f"capabilities={capabilities!r} declare it: {error}"
            ) from error
        _fail_unless_json(transport, mode)
        # Padding is optional on some wires (data: URLs, vendors), so match without it.
        data = PNG_BASE64.rstrip("=")
        if not any(data in value for _path, value in _strings(transport.sent)):
            raise ConformanceFailure(
                f"{mode}() declared image/png and accepted the request, but the image's "
                f"base64 data is nowhere on the wire ({len(transport.sent)} payload(s) "
                "recorded): declaring a modality and dropping it is a silent loss"
            )

    return check


CONFORMANCE_CASES: tuple[ConformanceCase, ...] = tuple(
    case
    for mode in _MODES
    for case in (
        ConformanceCase(
            id=f"text-parts-as-text[{mode}]",
            description=f"{mode}(): a text-parts message reaches the wire as text",
            check=_check_text_as_text(mode),
        ),
        ConformanceCase(
            id=f"undeclared-image-refused[{mode}]",
            description=f"{mode}(): an undeclared image/png is refused before any I/O",
            check=_check_undeclared_image_refused(mode),
        ),
        ConformanceCase(
            id=f"declared-image-on-wire[{mode}]",
            description=f"{mode}(): a declared image/png is put on the wire",
            check=_check_declared_image_on_wire(mode),
        ),
    )
)
"""Every case, in a stable order: the three cases through ``complete``, then ``stream``."""
