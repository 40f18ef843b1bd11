"""Renderers of diagnostics: ``text``, ``json``, ``sarif``, ``github``, ``gitlab`` and
``junit``, one module each."""

from __future__ import annotations

from typing import Literal

OutputFormat = Literal["text", "json", "sarif", "github", "gitlab", "junit"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "sarif", "github", "gitlab", "junit")
