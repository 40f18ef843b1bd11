"""loomlint: keeps Python code that consumes an LLM message SPI from misreading message content."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
