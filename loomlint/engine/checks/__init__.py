"""The content rules, one module each. The engine asks them in order which one reports a finding."""

from __future__ import annotations

from loomlint.engine.checks.base import ContentFinding, ContentRule, Example
from loomlint.engine.checks.content_cast import ContentCast
from loomlint.engine.checks.content_coercion import ContentCoercion
from loomlint.engine.checks.content_destructure import ContentDestructure
from loomlint.engine.checks.content_erased import ContentErased
from loomlint.engine.checks.content_list_only import ContentListOnly
from loomlint.engine.checks.unsafe_content_use import UnsafeContentUse

ALL_RULES: tuple[ContentRule, ...] = (
    UnsafeContentUse(),
    ContentDestructure(),
    ContentCoercion(),
    ContentCast(),
    ContentErased(),
    ContentListOnly(),
)

__all__ = ["ALL_RULES", "ContentFinding", "ContentRule", "Example"]
