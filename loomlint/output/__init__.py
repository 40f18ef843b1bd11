"""Renderers of diagnostics: ``text``, ``json``, ``sarif`` and ``github``, one module each."""

from __future__ import annotations

from typing import Literal

OutputFormat = Literal["text", "json", "sarif", "github"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "sarif", "github")
