"""Control characters shown, not obeyed, in what a person reads.

A file name (a pull request chooses it) or a message can hold control characters: a newline
followed by ``::error ...`` is a workflow command to GitHub Actions when it starts a line of a
job's log, an escape sequence recolours or hides a terminal's text, and most C0 characters
are not allowed in XML at all. Every human format (text, github, gitlab, junit) shows them
as Python writes them in a string (``\\n``, ``\\x1b``, ``\\u2028``). Lone surrogates (the
bytes of a file name that is not UTF-8) are left to the writer, which writes them back as the
bytes they were.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, and the two Unicode line separators.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape_controls(text: str, *, keep: str = "") -> str:
    """``text`` with each control character but those in ``keep`` written as an escape."""
    return _CONTROL.sub(
        lambda match: match.group() if match.group() in keep else _escape(match.group()), text
    )


def _escape(char: str) -> str:
    return char.encode("unicode_escape").decode("ascii")
