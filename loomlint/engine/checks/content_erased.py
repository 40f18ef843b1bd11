"""LML005 content-type-erased (opt-in): content passed or stored where its type is lost."""

from __future__ import annotations

from typing import ClassVar

from loomlint.engine.advice import erased_fix
from loomlint.engine.checks.base import ContentFinding, ContentRule, Example, describe_value


class ContentErased(ContentRule):
    code: ClassVar[str] = "LML005"

    VALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from typing import Any
from loomlint.content import LlmMessage, TextPart

def blocks(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [p.text for p in content if isinstance(p, TextPart)]

def convert(m: LlmMessage) -> list[str]:
    return blocks(m.content)
"""
        ),
    )

    INVALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
from typing import Any
from loomlint.content import LlmMessage

def convert(m: LlmMessage, registry: list[Any]) -> None:
    kept: Any = m.content
    registry.append(kept)
""",
            (("LML005", 5, 17),),
        ),
    )

    def applies(self, finding: ContentFinding) -> bool:
        return finding.position.category == "erased"

    def message(self, finding: ContentFinding) -> str:
        value = describe_value(finding)
        where = finding.position.description
        return f"{value} {where}, where its type is lost; {erased_fix(finding.fix)}"
