"""Provider capabilities and `assert_request_supported` (the record's decision 6).

Fail closed: a provider handles text and tool calls, and a media type only if it declared it.
The check runs before any resolution or network call, so an undeclared modality is a refusal,
never a silent drop.
"""

from __future__ import annotations

from dataclasses import dataclass

from loomlint.content.errors import UnsupportedModalityError, Where
from loomlint.content.fields import UnreadableFieldError, read_field
from loomlint.content.json_value import describe, exact_list
from loomlint.content.media import Modality, modality_of
from loomlint.content.parts import (
    AudioPart,
    FilePart,
    ImagePart,
    LlmMessage,
    TextPart,
    ToolResultPart,
    ToolUsePart,
)
from loomlint.content.request import LlmRequest

__all__ = ["ProviderCapabilities", "assert_request_supported"]


@dataclass(frozen=True, slots=True)
class ProviderCapabilities:
    """The media types a provider accepts, per modality.

    Each entry is a pattern: an exact type (``image/png``), a type wildcard (``image/*``) or
    ``*`` (anything of that modality). Matching ignores case, as media types do. Empty tuples
    (the default) mean text and tool calls only.
    """

    image: tuple[str, ...] = ()
    audio: tuple[str, ...] = ()
    file: tuple[str, ...] = ()

    def patterns(self, modality: Modality) -> tuple[str, ...]:
        """The declared patterns of one modality."""
        if modality == "image":
            return self.image
        if modality == "audio":
            return self.audio
        return self.file

    def accepts(self, modality: Modality, media_type: str) -> bool:
        """True if ``media_type`` matches one of the patterns declared for ``modality``."""
        wanted = media_type.lower()
        top = wanted.split("/", 1)[0]
        for pattern in self.patterns(modality):
            declared = pattern.lower()
            if declared in ("*", "*/*", wanted) or declared == f"{top}/*":
                return True
        return False


def assert_request_supported(
    request: LlmRequest, capabilities: ProviderCapabilities | None
) -> None:
    """Raise `UnsupportedModalityError` for the first media part ``capabilities`` does not
    declare, naming its media type and position; ``None`` means text and tool calls only.

    Looks inside tool_result content too. Call it at the top of a provider's ``complete`` and
    ``stream``, before any resolution or I/O. Fail closed: a content value or part it does not
    recognise is refused as well (`guard_request` says what exactly is wrong with it).
    """
    declared = capabilities if capabilities is not None else ProviderCapabilities()
    raw_messages = _field(request, "messages", Where())
    messages = exact_list(raw_messages)
    if messages is None:
        raise UnsupportedModalityError(f"messages is {describe(raw_messages)}, not a list")
    for index, message in enumerate(messages):
        where = Where(message=index)
        if not isinstance(message, LlmMessage):
            raise UnsupportedModalityError(f"not an LlmMessage: {describe(message)}", where)
        _check_content(_field(message, "content", where), declared, where, nested=False)


def _check_content(
    content: object, declared: ProviderCapabilities, where: Where, *, nested: bool
) -> None:
    if type(content) is str:
        return
    items = exact_list(content)
    if items is None:
        raise UnsupportedModalityError(f"content is {describe(content)}", where.at("content"))
    for index, part in enumerate(items):
        if nested:
            at = Where(message=where.message, part=where.part, inner=index)
        else:
            at = Where(message=where.message, part=index)
        if isinstance(part, (ImagePart, AudioPart, FilePart)):
            _check_media(part, declared, at)
        elif not nested and isinstance(part, ToolResultPart):
            _check_content(_field(part, "content", at), declared, at, nested=True)
        elif not isinstance(part, TextPart) and (nested or not isinstance(part, ToolUsePart)):
            # Fail closed: a value that is no part of this SPI could be media in disguise.
            raise UnsupportedModalityError(f"not a supported part: {describe(part)}", at)


def _check_media(
    part: ImagePart | AudioPart | FilePart, declared: ProviderCapabilities, where: Where
) -> None:
    modality = modality_of(part)
    media_type = _field(part, "media_type", where)
    if type(media_type) is not str or not declared.accepts(modality, media_type):
        patterns = declared.patterns(modality)
        shown = ", ".join(patterns) if patterns else "none"
        raise UnsupportedModalityError(
            f"{modality} part of type {describe(media_type)} is not declared by this provider "
            f"(declared {modality} types: {shown})",
            where,
            media_type if type(media_type) is str else None,
        )


def _field(owner: object, name: str, where: Where) -> object:
    """``owner.<name>``; a field that cannot be read fails closed, like a part not recognised."""
    try:
        return read_field(owner, name)
    except UnreadableFieldError as error:
        raise UnsupportedModalityError(f"{name} {error}", where.at(name)) from None
