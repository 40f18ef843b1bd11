"""Rule pages: Ruff's sections, and the committed docs/rules/ equal to the generator's output."""

from __future__ import annotations

from pathlib import Path

from loomlint.catalog.rules import load_catalog
from loomlint.report.docs import main, render_rule_page, rendered_pages, write_pages

DOCS_RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"


def test_page_sections_in_order() -> None:
    page = render_rule_page(load_catalog().rules["LML003"])
    headings = [line for line in page.splitlines() if line.startswith("#")]
    assert headings == [
        "# LML003 (content-coercion)",
        "## What it does",
        "## Why is this bad?",
        "## Example",
        "## Use instead",
        "## Fix safety",
        "## Options",
        "## Known problems",
    ]
    assert page.splitlines()[2] == (
        "Part-message content, a narrowed parts list, or a single part is turned into a string."
    )
    assert page.splitlines()[4] == (
        "Fix is sometimes available (`loomlint fix`). "
        "The mypy plugin reports it as `loom-content-coercion`."
    )
    assert page.endswith("```\n") or page.endswith(".\n")
    assert not page.endswith("\n\n")


def test_committed_pages_match_the_catalog() -> None:
    """Run `python -m loomlint.report.docs` after changing rules/ to update docs/rules/."""
    expected = rendered_pages()
    committed = {path.name: path.read_text(encoding="utf-8") for path in DOCS_RULES.glob("*.md")}
    assert sorted(committed) == sorted(expected)
    for name, text in expected.items():
        stale = f"docs/rules/{name} is stale: run python -m loomlint.report.docs"
        assert committed[name] == text, stale


def test_generator_writes_pages_and_removes_stale_ones(tmp_path: Path) -> None:
    (tmp_path / "LML999.md").write_text("old")
    (tmp_path / "notes.md").write_text("kept")
    assert main([str(tmp_path)]) == 0
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == sorted([*rendered_pages(), "notes.md"])
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert "| [LML003](LML003.md) | content-coercion | yes |" in index
    assert write_pages(tmp_path)  # idempotent


def test_generator_usage() -> None:
    assert main(["a", "b"]) == 2
