"""LML003 content-coercion: content, a narrowed parts list, or a part turned into a string."""

from __future__ import annotations

from typing import ClassVar

from loomlint.engine.advice import coercion_fix
from loomlint.engine.checks.base import ContentFinding, ContentRule, Example, describe_value


class ContentCoercion(ContentRule):
    code: ClassVar[str] = "LML003"

    VALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
import logging
from loomlint.content import LlmMessage, text_of

def log_turn(m: LlmMessage) -> str:
    logging.info("assistant said %s", text_of(m.content))
    return f"Previous answer: {text_of(m.content)}"
"""
        ),
        Example(
            """\
from loomlint.content import LlmMessage

def show(m: LlmMessage) -> str:
    if isinstance(m.content, str):
        return "said: " + m.content
    return "said: (parts)"
"""
        ),
    )

    INVALID: ClassVar[tuple[Example, ...]] = (
        Example(
            """\
import logging
from loomlint.content import LlmMessage

def log_turn(m: LlmMessage) -> str:
    logging.info("assistant said %s", m.content)
    return f"Previous answer: {m.content}"
""",
            (("LML003", 5, 39), ("LML003", 6, 32)),
        ),
        Example(
            """\
import json
from loomlint.content import LlmMessage

def dump(messages: list[LlmMessage]) -> str:
    joined = "\\n".join(m.content for m in messages)
    return str(messages[0].content) + json.dumps(messages[-1].content) + joined
""",
            (("LML003", 5, 24), ("LML003", 6, 16), ("LML003", 6, 50)),
        ),
    )

    def applies(self, finding: ContentFinding) -> bool:
        return finding.position.category == "coercion"

    def message(self, finding: ContentFinding) -> str:
        fix = coercion_fix(finding.kind, finding.fix)
        return f"{describe_value(finding)} {finding.position.description}; {fix}"
