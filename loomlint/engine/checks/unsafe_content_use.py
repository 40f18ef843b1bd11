"""LML001 unsafe-content-use: the content union used as if it were one of its branches."""

from __future__ import annotations

from typing import ClassVar

from loomlint.engine.advice import use_consequence, use_fix
from loomlint.engine.checks.base import (
    ContentFinding,
    ContentRule,
    Example,
    describe_origin,
    is_destructured,
)


class UnsafeContentUse(ContentRule):
    code: ClassVar[str] = "LML001"

    VALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from loomlint.content import LlmMessage, text_of

def preview(m: LlmMessage) -> str:
    if isinstance(m.content, str):
        return m.content[:80]
    return text_of(m.content)[:80]
"""
        ),
        Example(
            """\
from loomlint.content import LlmMessage, has_structured_parts

def count(m: LlmMessage) -> int:
    c = m.content
    if not has_structured_parts(c):
        return len(c)
    return len(c)
"""
        ),
        Example(
            """\
from loomlint.content import Content, LlmMessage

def keep(c: Content) -> Content:
    return c

def copy(m: LlmMessage) -> LlmMessage:
    return LlmMessage(role="user", content=keep(m.content))
"""
        ),
        Example(
            """\
from loomlint.content import LlmMessage, ToolUsePart

def tool_names(m: LlmMessage) -> list[str]:
    return [part.name for part in m.content if isinstance(part, ToolUsePart)]
"""
        ),
    )

    INVALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from loomlint.content import LlmMessage

def preview(m: LlmMessage) -> str:
    return m.content.strip()[:80]
""",
            (("LML001", 4, 12),),
        ),
        Example(
            """\
from loomlint.content import LlmMessage

def words(m: LlmMessage) -> int:
    text = m.content
    total = len(text)
    for piece in text:
        total += 1
    return total + ("error" in text)
""",
            (("LML001", 5, 17), ("LML001", 6, 18), ("LML001", 8, 32)),
        ),
        Example(
            """\
from loomlint.content import LlmMessage, TextPart

def text_parts(m: LlmMessage) -> int:
    return sum(1 for part in m.content if isinstance(part, TextPart))
""",
            (("LML001", 4, 30),),
        ),
    )

    def applies(self, finding: ContentFinding) -> bool:
        return finding.position.category == "use" and not is_destructured(finding.value)

    def message(self, finding: ContentFinding) -> str:
        position = finding.position
        fix = use_fix(finding.fix, misses=position.misses)
        consequence = use_consequence(position.description, position.misses)
        return f"{describe_origin(finding)} {consequence}; {fix}"
