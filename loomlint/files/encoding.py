"""A buffer's text as the bytes of a file: what the file holding it has on disk.

Python decodes a source file as its coding declaration says (PEP 263: ``# -*- coding:
latin-1 -*-`` on the first or second line), UTF-8 without one; so does every reader of
sources here, and so does mypy. An editor's buffer is text: to be judged as the file it
stands for, it is encoded as that declaration says, so that decoding it as Python does gives
the text back, character for character (a buffer encoded as UTF-8 under a ``latin-1``
declaration reads as other characters, and every column after them shifts).
"""

from __future__ import annotations

import io
import tokenize


def source_bytes(text: str) -> bytes:
    """The bytes of a file holding ``text``, encoded as its coding declaration says.

    A text its declared encoding cannot hold, or that declares an encoding Python does not
    know, is no file's: it becomes the UTF-8 bytes an editor that ignores the declaration
    saves, which the readers then decode (or refuse, LML902) as they would such a file. A
    lone surrogate (JSON's ``"\\ud800"``) has no UTF-8 either: it becomes the bytes of
    ``surrogatepass``, which no UTF-8 decoder takes, so the buffer is what such a file is.
    """
    data = text.encode("utf-8", errors="surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return data
    if encoding in ("utf-8", "utf-8-sig"):  # the BOM, if any, is the text's first character
        return data
    try:
        return text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return data
