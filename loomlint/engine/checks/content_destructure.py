"""LML002 content-destructure: as LML001, for content taken apart by a pattern or unpack."""

from __future__ import annotations

from typing import ClassVar

from loomlint.engine.advice import destructure_fix, use_consequence
from loomlint.engine.checks.base import (
    ContentFinding,
    ContentRule,
    Example,
    describe_origin,
    is_destructured,
)


class ContentDestructure(ContentRule):
    code: ClassVar[str] = "LML002"

    VALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from loomlint.content import LlmMessage, text_of

def lines(message: LlmMessage) -> list[str]:
    match message:
        case LlmMessage(content=str() as c):
            return c.splitlines()
        case LlmMessage(content=c):
            return text_of(c).splitlines()
    return []
"""
        ),
    )

    INVALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from loomlint.content import LlmMessage

def lines(message: LlmMessage) -> list[str]:
    match message:
        case LlmMessage(content=c):
            return c.splitlines()
    return []
""",
            (("LML002", 6, 20),),
        ),
        Example(
            """\
from loomlint.content import LlmMessage

def head(m: LlmMessage) -> str:
    role, c = m.role, m.content
    return role + ": " + c[0]
""",
            (("LML002", 5, 26),),
        ),
    )

    def applies(self, finding: ContentFinding) -> bool:
        return finding.position.category == "use" and is_destructured(finding.value)

    def message(self, finding: ContentFinding) -> str:
        position = finding.position
        fix = destructure_fix(finding.fix)
        consequence = use_consequence(position.description, position.misses)
        return f"{describe_origin(finding)} {consequence}; {fix}"
