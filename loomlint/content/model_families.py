"""`default_capabilities`: decision 6's allowlist of media-capable model families.

Media is on only for a vendor's known media-capable families; every other model id (plain
gpt-4 and its snapshots, gpt-3.5, gemini-1.0, a local alias, an unknown future id) declares
nothing and is refused locally rather than 400'd by the API. A new family needs one line in
`_FAMILIES` before it is trusted with media. A non-default ``base_url`` (an OpenAI-compatible
server, a proxy) declares nothing either: the model id says nothing about what is behind it.
"""

from __future__ import annotations

import re
from typing import Literal, TypeAlias

from loomlint.content.capabilities import ProviderCapabilities

__all__ = ["DEFAULT_BASE_URLS", "Vendor", "default_capabilities"]

Vendor: TypeAlias = Literal["openai", "anthropic", "gemini"]
"""The vendors with shipped declarations."""

# The shipped declarations (decision 6), one per vendor, before the family narrows them.
_OPENAI_IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_OPENAI_AUDIO = ("audio/wav", "audio/mpeg")  # wav and mp3
_OPENAI_FILES = ("application/pdf",)
_ANTHROPIC_IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_ANTHROPIC_FILES = ("application/pdf",)
_GEMINI_IMAGES = ("image/png", "image/jpeg", "image/webp", "image/heic", "image/heif")
_GEMINI_AUDIO = ("audio/wav", "audio/mp3", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac")
_GEMINI_FILES = ("application/pdf", "text/plain")

_OPENAI_VISION = ProviderCapabilities(image=_OPENAI_IMAGES, file=_OPENAI_FILES)
_OPENAI_VISION_AUDIO = ProviderCapabilities(
    image=_OPENAI_IMAGES, audio=_OPENAI_AUDIO, file=_OPENAI_FILES
)
_OPENAI_AUDIO_ONLY = ProviderCapabilities(audio=_OPENAI_AUDIO)
_ANTHROPIC = ProviderCapabilities(image=_ANTHROPIC_IMAGES, file=_ANTHROPIC_FILES)
_GEMINI = ProviderCapabilities(image=_GEMINI_IMAGES, audio=_GEMINI_AUDIO, file=_GEMINI_FILES)

# One line per family; first full match wins, so the audio lines come before gpt-4o*.
_FAMILIES: tuple[tuple[Vendor, re.Pattern[str], ProviderCapabilities], ...] = (
    ("openai", re.compile(r"gpt-4o(-mini)?-audio(-.+)?"), _OPENAI_VISION_AUDIO),
    ("openai", re.compile(r"gpt-audio(-.+)?"), _OPENAI_AUDIO_ONLY),
    ("openai", re.compile(r"gpt-4o(-.+)?"), _OPENAI_VISION),
    ("openai", re.compile(r"gpt-4\.1(-.+)?"), _OPENAI_VISION),
    ("openai", re.compile(r"gpt-5([.-].+)?"), _OPENAI_VISION),
    ("openai", re.compile(r"o[13](?!.*-(mini|preview)(-|$))(-.+)?"), _OPENAI_VISION),
    ("openai", re.compile(r"o4(-.+)?"), _OPENAI_VISION),
    ("openai", re.compile(r"gpt-4-turbo-\d{4}-\d{2}-\d{2}"), _OPENAI_VISION),
    ("anthropic", re.compile(r"claude-3(-.+)?"), _ANTHROPIC),
    ("anthropic", re.compile(r"claude-([4-9]|[1-9]\d+)([-.].+)?"), _ANTHROPIC),
    ("anthropic", re.compile(r"claude-(opus|sonnet|haiku)-([4-9]|[1-9]\d+)([-.].+)?"), _ANTHROPIC),
    ("gemini", re.compile(r"gemini-1\.([5-9]|[1-9]\d+)(-.+)?"), _GEMINI),
    ("gemini", re.compile(r"gemini-([2-9]|[1-9]\d+)(\.\d+)?(-.+)?"), _GEMINI),
    ("gemini", re.compile(r"gemini-(pro|flash|flash-lite)-latest"), _GEMINI),
)

DEFAULT_BASE_URLS: dict[Vendor, tuple[str, ...]] = {
    "openai": ("https://api.openai.com", "https://api.openai.com/v1"),
    "anthropic": ("https://api.anthropic.com", "https://api.anthropic.com/v1"),
    "gemini": (
        "https://generativelanguage.googleapis.com",
        "https://generativelanguage.googleapis.com/v1",
        "https://generativelanguage.googleapis.com/v1beta",
    ),
}
"""The base URLs that count as the vendor's own (a trailing ``/`` and case are ignored)."""


def default_capabilities(
    vendor: Vendor, model: str, *, base_url: str | None = None
) -> ProviderCapabilities:
    """What a shipped provider declares for ``model`` by default (decision 6).

    The vendor's declaration if ``model`` is in one of its media-capable families and
    ``base_url`` is None or the vendor's own; otherwise `ProviderCapabilities()` (text and
    tool calls only). A Gemini id may carry the API's ``models/`` prefix. Raises
    `ValueError` for a vendor other than ``"openai"``, ``"anthropic"`` and ``"gemini"``.
    A provider's own configuration always wins over this default.
    """
    vendor = _vendor(vendor)
    if base_url is not None and _normalise(base_url) not in DEFAULT_BASE_URLS[vendor]:
        return ProviderCapabilities()
    if vendor == "gemini" and model.startswith("models/"):
        model = model.removeprefix("models/")
    for family_vendor, pattern, capabilities in _FAMILIES:
        if family_vendor == vendor and pattern.fullmatch(model):
            return capabilities
    return ProviderCapabilities()


def _vendor(value: object) -> Vendor:
    for vendor in DEFAULT_BASE_URLS:
        if type(value) is str and value == vendor:
            return vendor
    raise ValueError(f"unknown vendor {value!r}: expected 'openai', 'anthropic' or 'gemini'")


def _normalise(base_url: str) -> str:
    return base_url.strip().rstrip("/").lower()
