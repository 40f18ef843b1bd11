"""Relative links of the hand-written docs lead to files and headings that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = [
    "index.md",
    "configuration.md",
    "ci.md",
    "pre-commit.md",
    "provider-checklist.md",
    "presets.md",
    "mypy-plugin.md",
    "editors.md",
    "performance.md",
    "corpus.md",
]


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    slugs = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        slugs.add(slug)
    return slugs


@pytest.mark.parametrize("name", PAGES)
def test_links_resolve(name: str) -> None:
    page = DOCS / name
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # an absolute URL
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.is_file(), f"{name}: broken link {target}"
        if anchor:
            assert anchor in anchors(linked), f"{name}: no heading for {target}"
