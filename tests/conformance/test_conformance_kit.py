"""The conformance kit against sample providers: a correct one passes every case, one that
string-coerces content fails the text case with the coerced value in the message, and a few
other broken providers fail the case that describes their bug."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from loomlint.content import (
    AudioPart,
    DataSource,
    FilePart,
    ImagePart,
    JSONValue,
    LlmContentPart,
    LlmMessage,
    LlmRequest,
    LlmResponse,
    ProviderCapabilities,
    TextPart,
    ToolCall,
    ToolResultPart,
    ToolUsePart,
    assert_request_supported,
    guard_request,
)
from loomlint.content.conformance import (
    CONFORMANCE_CASES,
    DEFAULT_REPLY,
    ConformanceCase,
    ConformanceFailure,
    LlmStreamChunk,
    Provider,
    RecordingTransport,
    Transport,
    TransportError,
    conformance_cases,
    image_request,
    run_conformance,
    text_request,
)


class JsonWireProvider:
    """A correct provider: checks capabilities first, maps every part to a JSON wire shape."""

    def __init__(self, transport: Transport, capabilities: ProviderCapabilities | None) -> None:
        self.capabilities = capabilities
        self._transport = transport

    def complete(self, request: LlmRequest) -> LlmResponse:
        assert_request_supported(request, self.capabilities)
        return self._response(self._transport.send(self._payload(request)))

    def stream(self, request: LlmRequest) -> Iterator[LlmStreamChunk]:
        # Checked eagerly, so the refusal comes from the call itself, not the first next().
        assert_request_supported(request, self.capabilities)
        return self._chunks(request)

    def _chunks(self, request: LlmRequest) -> Iterator[LlmStreamChunk]:
        response = self._response(self._transport.send(self._payload(request)))
        yield LlmStreamChunk(text=response.content)
        yield LlmStreamChunk(response=response)

    def _payload(self, request: LlmRequest) -> dict[str, JSONValue]:
        messages: list[JSONValue] = [self._message(message) for message in request.messages]
        return {"model": "sample-1", "system": request.system, "messages": messages}

    def _message(self, message: LlmMessage) -> dict[str, JSONValue]:
        if isinstance(message.content, str):
            return {"role": message.role, "content": message.content}
        parts: list[JSONValue] = [self._part(part) for part in message.content]
        return {"role": message.role, "content": parts}

    def _part(self, part: LlmContentPart) -> dict[str, JSONValue]:
        if isinstance(part, TextPart):
            return {"type": "text", "text": part.text}
        if isinstance(part, ToolUsePart):
            return {"type": "tool_use", "id": part.id, "name": part.name, "input": part.input}
        if isinstance(part, ToolResultPart):
            content: JSONValue = (
                part.content
                if isinstance(part.content, str)
                else [self._part(inner) for inner in part.content]
            )
            return {"type": "tool_result", "tool_use_id": part.tool_use_id, "content": content}
        if not isinstance(part.source, DataSource):
            raise ValueError("refs must be resolved before the provider sees them")
        kind = {ImagePart: "image", AudioPart: "audio", FilePart: "file"}[type(part)]
        return {"type": kind, "media_type": part.media_type, "data": part.source.data}

    def _response(self, reply: dict[str, JSONValue]) -> LlmResponse:
        content = reply.get("content")
        stop_reason = reply.get("stop_reason")
        return LlmResponse(
            content=content if isinstance(content, str) else "",
            tool_calls=list[ToolCall](),
            stop_reason=stop_reason if isinstance(stop_reason, str) else "unknown",
        )


class CoercingProvider(JsonWireProvider):
    """The bug the kit exists for: builds the wire text with ``str(m.content)``."""

    def _message(self, message: LlmMessage) -> dict[str, JSONValue]:
        return {"role": message.role, "content": str(message.content)}


class UncheckedProvider(JsonWireProvider):
    """Never looks at its capabilities: sends whatever it is given."""

    def complete(self, request: LlmRequest) -> LlmResponse:
        return self._response(self._transport.send(self._payload(request)))

    def stream(self, request: LlmRequest) -> Iterator[LlmStreamChunk]:
        return self._chunks(request)


class LateRefusingProvider(JsonWireProvider):
    """Refuses, but only after it has already called the transport."""

    def complete(self, request: LlmRequest) -> LlmResponse:
        response = self._response(self._transport.send(self._payload(request)))
        assert_request_supported(request, self.capabilities)
        return response


class LazyStreamProvider(JsonWireProvider):
    """A generator stream: the check runs on the first next(), still before any I/O."""

    def stream(self, request: LlmRequest) -> Iterator[LlmStreamChunk]:
        assert_request_supported(request, self.capabilities)
        yield from self._chunks(request)


class MediaDroppingProvider(JsonWireProvider):
    """Declares images, accepts them, and silently sends only the text."""

    def _part(self, part: LlmContentPart) -> dict[str, JSONValue]:
        if isinstance(part, ImagePart):
            return {"type": "text", "text": ""}
        return super()._part(part)


class WrongErrorProvider(JsonWireProvider):
    """Refuses undeclared media, but with a generic error."""

    def complete(self, request: LlmRequest) -> LlmResponse:
        if any(not isinstance(m.content, str) and len(m.content) > 1 for m in request.messages):
            raise RuntimeError("no images here")
        return super().complete(request)


class NotJsonProvider(JsonWireProvider):
    """Puts the part objects themselves in the payload."""

    def _message(self, message: LlmMessage) -> dict[str, JSONValue]:
        return {"role": message.role, "content": message.content}  # type: ignore[dict-item]


def _failures(provider: type[JsonWireProvider]) -> dict[str, str]:
    results = run_conformance(provider)
    assert [result.case_id for result in results] == [case.id for case in CONFORMANCE_CASES]
    return {result.case_id: result.message for result in results if not result.passed}


def test_the_correct_provider_passes_every_case() -> None:
    results = run_conformance(JsonWireProvider, raise_on_failure=True)
    assert len(results) == 6
    assert all(result.passed for result in results)


@pytest.mark.parametrize("case", conformance_cases())
def test_each_case_passes_the_correct_provider(case: ConformanceCase) -> None:
    case.run(JsonWireProvider)


@pytest.mark.parametrize("case", CONFORMANCE_CASES, ids=lambda case: case.id)
def test_the_documented_parametrize_pattern_works(case: ConformanceCase) -> None:
    case.run(LazyStreamProvider)


def test_parametrize_ids_are_the_case_ids() -> None:
    params = conformance_cases()
    assert [param.id for param in params] == [  # type: ignore[attr-defined]
        "text-parts-as-text[complete]",
        "undeclared-image-refused[complete]",
        "declared-image-on-wire[complete]",
        "text-parts-as-text[stream]",
        "undeclared-image-refused[stream]",
        "declared-image-on-wire[stream]",
    ]


def test_a_string_coercing_provider_fails_the_text_case_naming_the_coerced_value() -> None:
    failures = _failures(CoercingProvider)
    assert set(failures) == {"text-parts-as-text[complete]", "text-parts-as-text[stream]"}
    message = failures["text-parts-as-text[complete]"]
    assert "[TextPart(text='hi')]" in message
    assert "payload[0].messages[0].content" in message
    assert "text_of()" in message


def test_a_string_coercing_provider_fails_raise_on_failure() -> None:
    with pytest.raises(ConformanceFailure, match=r"2 of 6 cases failed") as raised:
        run_conformance(CoercingProvider, raise_on_failure=True)
    assert "[TextPart(text='hi')]" in str(raised.value)
    assert isinstance(raised.value, AssertionError)


def test_a_single_case_raises_conformance_failure() -> None:
    text_case = CONFORMANCE_CASES[0]
    with pytest.raises(ConformanceFailure, match=r"string-coerced parts list"):
        text_case.run(CoercingProvider)


def test_a_provider_that_ignores_capabilities_fails_the_refusal_cases() -> None:
    failures = _failures(UncheckedProvider)
    assert set(failures) == {
        "undeclared-image-refused[complete]",
        "undeclared-image-refused[stream]",
    }
    assert "assert_request_supported" in failures["undeclared-image-refused[complete]"]
    assert "capabilities=None" in failures["undeclared-image-refused[stream]"]


def test_refusing_after_a_transport_call_fails() -> None:
    failures = _failures(LateRefusingProvider)
    assert set(failures) == {"undeclared-image-refused[complete]"}
    assert "only after 1 transport call(s)" in failures["undeclared-image-refused[complete]"]


def test_a_lazy_generator_stream_that_checks_first_passes() -> None:
    assert _failures(LazyStreamProvider) == {}


def test_a_provider_that_drops_a_declared_image_fails() -> None:
    failures = _failures(MediaDroppingProvider)
    assert set(failures) == {"declared-image-on-wire[complete]", "declared-image-on-wire[stream]"}
    assert "silent loss" in failures["declared-image-on-wire[complete]"]


def test_a_provider_refusing_with_the_wrong_error_fails() -> None:
    failures = _failures(WrongErrorProvider)
    assert "undeclared-image-refused[complete]" in failures
    message = failures["undeclared-image-refused[complete]"]
    assert "RuntimeError" in message
    assert "UnsupportedModalityError" in message


def test_a_provider_sending_non_json_fails() -> None:
    failures = _failures(NotJsonProvider)
    assert "text-parts-as-text[complete]" in failures
    assert "TransportError" in failures["text-parts-as-text[complete]"]


def test_the_recording_transport_records_copies_and_replies() -> None:
    transport = RecordingTransport()
    payload: dict[str, JSONValue] = {"messages": [{"content": "x"}]}
    assert transport.send(payload) == DEFAULT_REPLY
    payload["messages"] = []
    assert transport.sent == [{"messages": [{"content": "x"}]}]
    assert transport.calls == 1


def test_the_recording_transport_refuses_non_json() -> None:
    transport = RecordingTransport(reply={"content": "custom"})
    with pytest.raises(TransportError, match=r"not JSON"):
        transport.send({"part": TextPart(text="hi")})  # type: ignore[dict-item]
    assert transport.sent == []
    assert transport.calls == 1
    assert transport.send({}) == {"content": "custom"}


def test_a_custom_reply_reaches_the_provider() -> None:
    seen: list[dict[str, JSONValue]] = []

    class Spy(JsonWireProvider):
        def _response(self, reply: dict[str, JSONValue]) -> LlmResponse:
            seen.append(reply)
            return super()._response(reply)

    run_conformance(Spy, reply={"content": "vendor", "stop_reason": "stop"})
    assert seen
    assert all(reply == {"content": "vendor", "stop_reason": "stop"} for reply in seen)


def test_the_kit_requests_pass_the_guard() -> None:
    assert guard_request(text_request()) == text_request()
    assert guard_request(image_request()) == image_request()


def test_sample_providers_satisfy_the_protocol() -> None:
    provider: Provider = JsonWireProvider(RecordingTransport(), None)
    assert provider.capabilities is None
