"""Checks on one media part's fields: media type and modality, inline base64, ref.

Each returns the problem as text (or raises `ValueError` with it), and the guard says where.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Literal, TypeAlias

from loomlint.content.fields import UnreadableFieldError, read_field
from loomlint.content.json_value import describe
from loomlint.content.parts import AudioPart, ContentRef, ImagePart, MediaPart

__all__ = [
    "Modality",
    "check_base64",
    "inline_size",
    "media_type_problem",
    "modality_of",
    "ref_problem",
]

Modality: TypeAlias = Literal["image", "audio", "file"]
"""The three media modalities a provider declares separately (decision 6)."""

# RFC 6838 restricted-name, for both halves. No parameters and no wildcards: a part names
# one concrete type, and capability patterns (image/*) are matched against it.
_TOKEN = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}"
_MEDIA_TYPE = re.compile(rf"(?P<top>{_TOKEN})/{_TOKEN}")


def modality_of(part: MediaPart) -> Modality:
    """The modality a media part belongs to, by its class."""
    if isinstance(part, ImagePart):
        return "image"
    if isinstance(part, AudioPart):
        return "audio"
    return "file"


def media_type_problem(media_type: object, modality: Modality) -> str | None:
    """Why ``media_type`` is not a well-formed type of ``modality``, or None if it is.

    Image parts need ``image/...`` and audio parts ``audio/...``. A file part may have any
    other type (``application/pdf``, ``text/plain``), but not an image or audio one: those
    have their own part classes, and a file carrying an image would slip an image past a
    provider that declared files but no images.
    """
    if type(media_type) is not str:
        return f"media type must be a string, got {describe(media_type)}"
    match = _MEDIA_TYPE.fullmatch(media_type)
    if match is None:
        return f"media type {describe(media_type)} is not of the form type/subtype"
    top = match.group("top").lower()
    if modality == "file":
        if top in ("image", "audio"):
            return (
                f"a file part may not carry {describe(media_type)}: use an "
                f"{'ImagePart' if top == 'image' else 'AudioPart'}"
            )
        return None
    if top != modality:
        # Only image and audio get here, and both take "an".
        return f"an {modality} part needs an {modality}/* media type, got {describe(media_type)}"
    return None


def inline_size(data: object) -> int:
    """The byte size inline base64 ``data`` decodes to, from its length alone.

    Nothing is decoded, so a cap can refuse a huge string at once: strict base64 is groups
    of four characters, each three bytes, less one byte per ``=`` of padding (at most two).
    Raises `ValueError` if ``data`` is not a string or its length is not a multiple of four.
    Whether the characters are base64 is `check_base64`'s question.
    """
    if type(data) is not str:
        raise ValueError(f"inline data must be a base64 string, got {describe(data)}")
    if len(data) % 4:
        raise ValueError(_NOT_BASE64)
    padding = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
    return len(data) // 4 * 3 - padding


def check_base64(data: object) -> None:
    """Raise `ValueError` unless ``data`` is strict base64: standard alphabet, correct
    padding, no whitespace (``b64decode(validate=True)``). Call it after `inline_size` has
    bounded the length: it decodes."""
    if type(data) is not str:
        raise ValueError(f"inline data must be a base64 string, got {describe(data)}")
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(_NOT_BASE64) from None


_NOT_BASE64 = "inline data is not valid base64 (standard alphabet, padded, no whitespace)"


def ref_problem(ref: object) -> str | None:
    """Why ``ref`` is not a usable `ContentRef`, or None.

    The address is a non-empty string; the size is absent (None) or a non-negative int. A
    bool is not a size, though Python counts it as an int.
    """
    if not isinstance(ref, ContentRef):
        return f"a ref source needs a ContentRef, got {describe(ref)}"
    try:
        address = read_field(ref, "address")
    except UnreadableFieldError as error:
        return f"a ref's address {error}"
    try:
        size = read_field(ref, "size")
    except UnreadableFieldError as error:
        return f"a ref's size {error}"
    if type(address) is not str or not address:
        return f"a ref address must be a non-empty string, got {describe(address)}"
    return _size_problem(size)


def _size_problem(size: object) -> str | None:
    if size is None:
        return None
    # Exact int: a bool is an int subclass, but True is not a byte count.
    if not isinstance(size, int) or type(size) is not int or size < 0:
        return f"a ref size must be absent or a non-negative int, got {describe(size)}"
    return None
