"""LML004 content-cast: ``typing.cast`` of content to one branch instead of narrowing it."""

from __future__ import annotations

from typing import ClassVar

from loomlint.engine.advice import cast_fix
from loomlint.engine.checks.base import ContentFinding, ContentRule, Example, describe_origin


class ContentCast(ContentRule):
    code: ClassVar[str] = "LML004"

    VALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from typing import cast
from loomlint.content import Content, LlmMessage, text_of

def text(m: LlmMessage) -> str:
    whole = cast(Content, m.content)
    return text_of(whole)
"""
        ),
    )

    INVALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from typing import cast
from loomlint.content import LlmMessage

def text(m: LlmMessage) -> str:
    return cast(str, m.content)
""",
            (("LML004", 5, 22),),
        ),
    )

    def applies(self, finding: ContentFinding) -> bool:
        return finding.position.category == "cast"

    def message(self, finding: ContentFinding) -> str:
        fix = cast_fix(finding.fix)
        return f"{describe_origin(finding)} {finding.position.description}; {fix}"
