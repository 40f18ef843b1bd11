"""LML006 content-list-only (opt-in): content used in a way only a list allows (its own methods,
``+=`` of a list), which on the string branch fails at once."""

from __future__ import annotations

from typing import ClassVar

from loomlint.engine.advice import list_only_fix
from loomlint.engine.checks.base import ContentFinding, ContentRule, Example, describe_origin


class ContentListOnly(ContentRule):
    code: ClassVar[str] = "LML006"

    VALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from loomlint.content import LlmMessage, TextPart

def add_note(m: LlmMessage) -> None:
    if isinstance(m.content, list):
        m.content.append(TextPart(text="note"))
    else:
        m.content += "\\nnote"
"""
        ),
    )

    INVALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from loomlint.content import LlmMessage, TextPart

def add_note(m: LlmMessage) -> None:
    m.content.append(TextPart(text="note"))
""",
            (("LML006", 4, 5),),
        ),
    )

    def applies(self, finding: ContentFinding) -> bool:
        return finding.position.category == "list-only"

    def message(self, finding: ContentFinding) -> str:
        position = finding.position
        return (
            f"{describe_origin(finding)} {position.description}, but it may be a string, "
            f"which fails there; {list_only_fix()}"
        )
