"""GitHub Actions workflow commands: one ``::error`` / ``::warning`` annotation per finding."""

from __future__ import annotations

from collections.abc import Sequence

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.output.escape import escape_controls
from loomlint.report.output.levels import level_of


def render_github(diagnostics: Sequence[Diagnostic], warnings: Sequence[str] = ()) -> str:
    """``warnings`` (about the run, not a line) come first, as file-less ``::warning``s."""
    notices = "".join(f"::warning title=loomlint::{_message(w)}\n" for w in warnings)
    return notices + "".join(
        f"{_annotation(d)}\n" for d in sorted(diagnostics, key=lambda d: d.sort_key)
    )


def _annotation(diagnostic: Diagnostic) -> str:
    properties = ",".join(
        f"{key}={escape_property(value)}"
        for key, value in (
            ("file", escape_controls(diagnostic.path)),
            ("line", str(diagnostic.line)),
            ("col", str(diagnostic.column)),
            ("endLine", str(diagnostic.end_line)),
            ("endColumn", str(diagnostic.end_column)),
            ("title", f"{diagnostic.code} {diagnostic.name}"),
        )
    )
    return f"::{level_of(diagnostic.code)} {properties}::{_message(diagnostic.message)}"


def _message(text: str) -> str:
    """A message's line breaks as GitHub's escapes (it shows them as breaks); any other
    control character shown as an escape."""
    return escape_data(escape_controls(text, keep="\r\n"))


def escape_data(value: str) -> str:
    """GitHub's escaping of a command's message (``%`` first, so escapes are not re-escaped)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """GitHub's escaping of a property value: the message's, plus ``:`` and ``,``."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")
