"""ProviderCapabilities patterns, assert_request_supported, and default_capabilities's
allowlist by model family (decision 6)."""

from __future__ import annotations

from typing import Any

import pytest
from guard_helpers import assistant, b64, call, half_built, png, request, user

from loomlint.content import (
    AudioPart,
    DataSource,
    FilePart,
    ImagePart,
    LlmMessage,
    LlmRequest,
    ProviderCapabilities,
    TextPart,
    ToolResultPart,
    UnsupportedModalityError,
    assert_request_supported,
    default_capabilities,
)

WAV = AudioPart("audio/wav", DataSource(b64(2)))
PDF = FilePart("application/pdf", DataSource(b64(2)))


@pytest.mark.parametrize(
    ("patterns", "media_type", "accepted"),
    [
        (("image/png",), "image/png", True),
        (("image/png",), "IMAGE/PNG", True),
        (("IMAGE/PNG",), "image/png", True),
        (("image/png",), "image/jpeg", False),
        (("image/*",), "image/webp", True),
        (("image/*",), "imagex/webp", False),
        (("*",), "image/anything", True),
        (("*/*",), "image/anything", True),
        ((), "image/png", False),
        (("image/jpeg", "image/png"), "image/png", True),
    ],
)
def test_patterns(patterns: tuple[str, ...], media_type: str, accepted: bool) -> None:
    assert ProviderCapabilities(image=patterns).accepts("image", media_type) is accepted


def test_patterns_are_per_modality() -> None:
    caps = ProviderCapabilities(image=("*",))
    assert caps.accepts("image", "image/png")
    assert not caps.accepts("audio", "audio/wav")
    assert not caps.accepts("file", "application/pdf")


def test_text_and_tool_calls_need_no_declaration() -> None:
    req = request(
        LlmMessage("system", "s"),
        user(TextPart("hi")),
        assistant(TextPart("t"), call()),
        user(ToolResultPart("call_1", [TextPart("r")])),
    )
    assert_request_supported(req, None)
    assert_request_supported(req, ProviderCapabilities())


@pytest.mark.parametrize(
    "capabilities", [None, ProviderCapabilities(), ProviderCapabilities(image=("image/jpeg",))]
)
def test_an_undeclared_image_is_refused_naming_its_media_type_and_position(
    capabilities: ProviderCapabilities | None,
) -> None:
    with pytest.raises(UnsupportedModalityError) as raised:
        assert_request_supported(
            request(user(TextPart("x")), user(TextPart("y"), png())), capabilities
        )
    message = str(raised.value)
    assert message.startswith(
        "unsupported-modality at messages[1].content[1]: image part of type 'image/png'"
    )
    assert raised.value.media_type == "image/png"
    assert raised.value.where.message == 1


def test_a_declared_image_passes() -> None:
    assert_request_supported(request(user(png())), ProviderCapabilities(image=("image/png",)))


@pytest.mark.parametrize(
    ("part", "capabilities"),
    [
        (WAV, ProviderCapabilities(image=("*",), file=("*",))),
        (PDF, ProviderCapabilities(image=("*",), audio=("*",))),
    ],
)
def test_each_modality_is_checked_on_its_own(part: Any, capabilities: ProviderCapabilities) -> None:
    with pytest.raises(UnsupportedModalityError):
        assert_request_supported(request(user(part)), capabilities)
    assert_request_supported(request(user(part)), ProviderCapabilities(audio=("*",), file=("*",)))


def test_media_inside_a_tool_result_is_checked() -> None:
    req = request(assistant(call()), user(ToolResultPart("call_1", [TextPart("x"), png()])))
    with pytest.raises(
        UnsupportedModalityError, match=r"at messages\[1\]\.content\[0\]\.content\[1\]"
    ):
        assert_request_supported(req, None)
    assert_request_supported(req, ProviderCapabilities(image=("image/*",)))


@pytest.mark.parametrize(
    "content",
    [
        None,
        (TextPart("x"),),
        ["x"],
        [{"type": "image"}],
        [ToolResultPart("c", [ToolResultPart("c", "x")])],  # type: ignore[list-item]
    ],
)
def test_unrecognised_content_fails_closed(content: Any) -> None:
    with pytest.raises(UnsupportedModalityError):
        assert_request_supported(
            request(LlmMessage("user", content)), ProviderCapabilities(image=("*",))
        )


def test_a_non_string_media_type_fails_closed() -> None:
    with pytest.raises(UnsupportedModalityError):
        assert_request_supported(
            request(user(ImagePart(5, DataSource("")))),  # type: ignore[arg-type]
            ProviderCapabilities(image=("*",)),
        )


# --- default_capabilities ------------------------------------------------------------------------

OPENAI_MEDIA = [
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4o-2024-08-06",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano-2025-04-14",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5.1",
    "o1",
    "o1-2024-12-17",
    "o1-pro",
    "o3",
    "o3-pro",
    "o3-2025-04-16",
    "o4-mini",
    "gpt-4-turbo-2024-04-09",
]
OPENAI_NOTHING = [
    "gpt-4",
    "gpt-4-0613",
    "gpt-4-0314",
    "gpt-4-32k",
    "gpt-4-turbo",
    "gpt-4-turbo-preview",
    "gpt-4-1106-preview",
    "gpt-4-vision-preview",
    "gpt-3.5-turbo",
    "gpt-3.5-turbo-0125",
    "o1-mini",
    "o1-mini-2024-09-12",
    "o1-preview",
    "o1-preview-2024-09-12",
    "o3-mini",
    "o3-mini-2025-01-31",
    "gpt-40",
    "llama3",
    "my-local-alias",
    "gpt-6-unknown-future",
    "",
    "GPT-4O",
]
ANTHROPIC_MEDIA = [
    "claude-3-opus-20240229",
    "claude-3-haiku-20240307",
    "claude-3-5-sonnet-20241022",
    "claude-3-5-sonnet-latest",
    "claude-3-7-sonnet-20250219",
    "claude-sonnet-4-20250514",
    "claude-opus-4-1-20250805",
    "claude-sonnet-4-5",
    "claude-haiku-4-5-20251001",
    "claude-opus-4-0",
]
ANTHROPIC_NOTHING = ["claude-2.1", "claude-2.0", "claude-instant-1.2", "claude", "gpt-4o", "local"]
GEMINI_MEDIA = [
    "gemini-1.5-pro",
    "gemini-1.5-flash",
    "gemini-1.5-flash-8b",
    "gemini-1.5-pro-002",
    "gemini-1.5-pro-latest",
    "gemini-2.0-flash",
    "gemini-2.0-flash-lite",
    "gemini-2.5-pro",
    "gemini-2.5-flash-preview-05-20",
    "gemini-flash-latest",
    "gemini-pro-latest",
    "gemini-flash-lite-latest",
    "models/gemini-2.5-flash",
]
GEMINI_NOTHING = [
    "gemini-1.0-pro-latest",
    "gemini-1.0-pro",
    "gemini-pro",
    "gemini-pro-vision",
    "gemma-3-27b-it",
    "gemini-exp-1206",
]


@pytest.mark.parametrize("model", OPENAI_MEDIA)
def test_openai_media_families_declare_images_and_pdf_but_no_audio(model: str) -> None:
    caps = default_capabilities("openai", model)
    assert caps.accepts("image", "image/png")
    assert caps.accepts("file", "application/pdf")
    assert not caps.accepts("audio", "audio/wav")


@pytest.mark.parametrize("model", ["gpt-4o-audio-preview", "gpt-4o-mini-audio-preview-2024-12-17"])
def test_openai_gpt_4o_audio_models_add_wav_and_mp3(model: str) -> None:
    caps = default_capabilities("openai", model)
    assert caps.audio == ("audio/wav", "audio/mpeg")
    assert caps.accepts("image", "image/png")


@pytest.mark.parametrize("model", ["gpt-audio", "gpt-audio-mini", "gpt-audio-2025-08-28"])
def test_openai_gpt_audio_models_declare_audio_only(model: str) -> None:
    assert default_capabilities("openai", model) == ProviderCapabilities(
        audio=("audio/wav", "audio/mpeg")
    )


@pytest.mark.parametrize(
    ("vendor", "model"),
    [("openai", m) for m in OPENAI_NOTHING]
    + [("anthropic", m) for m in ANTHROPIC_NOTHING]
    + [("gemini", m) for m in GEMINI_NOTHING],
)
def test_every_other_model_declares_nothing(vendor: Any, model: str) -> None:
    assert default_capabilities(vendor, model) == ProviderCapabilities()


@pytest.mark.parametrize("model", ANTHROPIC_MEDIA)
def test_anthropic_claude_3_and_later_declare_images_and_pdf(model: str) -> None:
    caps = default_capabilities("anthropic", model)
    assert caps.accepts("image", "image/webp")
    assert caps.accepts("file", "application/pdf")
    assert caps.audio == ()


@pytest.mark.parametrize("model", GEMINI_MEDIA)
def test_gemini_1_5_and_later_declare_images_audio_pdf_and_text(model: str) -> None:
    caps = default_capabilities("gemini", model)
    assert caps.accepts("image", "image/png")
    assert caps.accepts("audio", "audio/mp3")
    assert caps.accepts("file", "application/pdf")
    assert caps.accepts("file", "text/plain")


@pytest.mark.parametrize(
    ("vendor", "model", "base_url"),
    [
        ("openai", "gpt-4o", "https://api.openai.com/v1"),
        ("openai", "gpt-4o", "https://api.openai.com/v1/"),
        ("openai", "gpt-4o", "HTTPS://API.OPENAI.COM"),
        ("anthropic", "claude-3-5-sonnet-latest", "https://api.anthropic.com"),
        ("gemini", "gemini-2.0-flash", "https://generativelanguage.googleapis.com/v1beta"),
    ],
)
def test_the_vendors_own_base_url_counts_as_default(vendor: Any, model: str, base_url: str) -> None:
    assert default_capabilities(vendor, model, base_url=base_url) == default_capabilities(
        vendor, model
    )
    assert default_capabilities(vendor, model) != ProviderCapabilities()


@pytest.mark.parametrize(
    ("vendor", "model", "base_url"),
    [
        ("openai", "gpt-4o", "http://localhost:11434/v1"),
        ("openai", "gpt-4o", "https://openrouter.ai/api/v1"),
        ("openai", "gpt-4o", "https://api.openai.com.evil.example/v1"),
        ("anthropic", "claude-sonnet-4-5", "https://proxy.internal/anthropic"),
        ("gemini", "gemini-2.5-pro", "https://us-central1-aiplatform.googleapis.com"),
        ("openai", "gpt-4o", "https://api.anthropic.com"),
    ],
)
def test_a_non_default_base_url_declares_nothing(vendor: Any, model: str, base_url: str) -> None:
    assert default_capabilities(vendor, model, base_url=base_url) == ProviderCapabilities()


@pytest.mark.parametrize("vendor", ["mistral", "OpenAI", "", None, ["openai"]])
def test_an_unknown_vendor_is_a_value_error(vendor: Any) -> None:
    with pytest.raises(ValueError, match="unknown vendor"):
        default_capabilities(vendor, "gpt-4o")


def test_shipped_declarations_match_the_record() -> None:
    openai = default_capabilities("openai", "gpt-4o-audio-preview")
    assert {"image/png", "image/jpeg"} <= set(openai.image)
    assert openai.audio == ("audio/wav", "audio/mpeg")
    assert openai.file == ("application/pdf",)
    anthropic = default_capabilities("anthropic", "claude-sonnet-4-5")
    assert anthropic.audio == () and anthropic.file == ("application/pdf",)
    gemini = default_capabilities("gemini", "gemini-2.5-pro")
    assert gemini.audio and gemini.image and set(gemini.file) == {"application/pdf", "text/plain"}


def test_a_declared_default_supports_a_real_request() -> None:
    req = request(user(png(), WAV, PDF))
    assert_request_supported(req, default_capabilities("gemini", "gemini-2.5-pro"))
    with pytest.raises(UnsupportedModalityError, match="audio/wav"):
        assert_request_supported(req, default_capabilities("anthropic", "claude-sonnet-4-5"))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (half_built(LlmRequest), "at request.messages: messages is not set"),
        (LlmRequest([half_built(LlmMessage)]), "at messages[0].content: content is not set"),
        (
            LlmRequest([LlmMessage("user", [half_built(ImagePart)])]),
            "at messages[0].content[0].media_type: media_type is not set",
        ),
        (
            LlmRequest([LlmMessage("user", [half_built(ToolResultPart)])]),
            "at messages[0].content[0].content: content is not set",
        ),
    ],
)
def test_a_half_built_request_fails_closed(bad: LlmRequest, message: str) -> None:
    with pytest.raises(UnsupportedModalityError) as raised:
        assert_request_supported(bad, ProviderCapabilities(image=("*",)))
    assert str(raised.value).startswith(f"unsupported-modality {message}")
