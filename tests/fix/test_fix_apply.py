"""`apply_fixes` on real findings: exact output text, imports added or reused, idempotent."""

from __future__ import annotations

import textwrap
from pathlib import Path

from loomlint.engine.analyze import analyze_source
from loomlint.fix.edits import apply_fixes
from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings


def _fix(tmp_path: Path, source: str) -> tuple[str, int, int]:
    settings = load_settings(tmp_path, overrides=CliOverrides(no_types=True))
    result = analyze_source("mod.py", source.encode(), settings)
    outcome = apply_fixes(source, result.diagnostics)
    return outcome.text, len(outcome.fixed), len(outcome.skipped)


def test_coercions_are_rewritten_and_the_import_is_added(tmp_path: Path) -> None:
    source = textwrap.dedent(
        """\
        import logging

        from loomlint.content import LlmMessage

        log = logging.getLogger(__name__)


        def render(m: LlmMessage, history: list[LlmMessage]) -> str:
            # keep this comment
            a = str(m.content)
            b = f"said: {m.content:>20} and {m.content!r}"
            c = "%s / %s" % (m.role, m.content)
            d = "{} said {}".format(m.role, m.content)
            e = "prefix " + (m.content or "")
            print("turn", m.content, sep="|")
            log.info("turn %s", m.content)
            return a + b + c + d + e + repr(m.content)
        """
    )
    fixed, count, skipped = _fix(tmp_path, source)
    assert fixed == textwrap.dedent(
        """\
        import logging

        from loomlint.content import LlmMessage, text_of

        log = logging.getLogger(__name__)


        def render(m: LlmMessage, history: list[LlmMessage]) -> str:
            # keep this comment
            a = text_of(m.content)
            b = f"said: {text_of(m.content):>20} and {m.content!r}"
            c = "%s / %s" % (m.role, text_of(m.content))
            d = "{} said {}".format(m.role, text_of(m.content))
            e = "prefix " + (text_of(m.content or ""))
            print("turn", text_of(m.content), sep="|")
            log.info("turn %s", text_of(m.content))
            return a + b + c + d + e + repr(m.content)
        """
    )
    assert (count, skipped) == (7, 0)
    again, count_again, _ = _fix(tmp_path, fixed)
    assert (again, count_again) == (fixed, 0)


def test_an_existing_import_is_reused(tmp_path: Path) -> None:
    source = textwrap.dedent(
        """\
        from loomlint.content import LlmMessage, text_of


        def show(m: LlmMessage) -> str:
            return str(m.content) + text_of(m.content)
        """
    )
    fixed, count, _ = _fix(tmp_path, source)
    assert fixed == source.replace("str(m.content)", "text_of(m.content)")
    assert count == 1


def test_a_name_taken_by_something_else_blocks_the_fix(tmp_path: Path) -> None:
    source = textwrap.dedent(
        """\
        from loomlint.content import LlmMessage
        from mylib import text_of


        def show(m: LlmMessage) -> str:
            return str(m.content) + text_of(1)
        """
    )
    fixed, count, skipped = _fix(tmp_path, source)
    assert (fixed, count, skipped) == (source, 0, 1)


def test_a_percent_format_with_other_conversions_is_not_rewritten(tmp_path: Path) -> None:
    source = textwrap.dedent(
        """\
        from loomlint.content import LlmMessage


        def show(m: LlmMessage) -> str:
            return "%r" % m.content + "%d: %s" % (1, m.content)
        """
    )
    fixed, count, _ = _fix(tmp_path, source)
    assert (fixed, count) == (source, 0)
