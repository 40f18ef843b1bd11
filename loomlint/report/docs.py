"""Rule pages (Markdown), rendered from the catalog, and the ``docs/rules/`` generator.

``loomlint explain CODE``, the SARIF rule help and ``docs/rules/<CODE>.md`` all come from
``render_rule_page``, so the three cannot disagree, and a test keeps the committed pages equal
to what this module produces from ``rules/``.

Usage: ``python -m loomlint.report.docs [OUTDIR]`` (default ``docs/rules``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from loomlint.catalog.rules import Rule, load_catalog

# The project's home: the one place a link loomlint prints or sends is spelled. SARIF's tool
# link, and (through DOCS_BASE_URL) every rule link: SARIF's help links, the language server's
# code descriptions, `rules --format json`. A fork or mirror changes it here (docs/ci.md).
PROJECT_URL = "https://github.com/loomlint/loomlint"
# Where the published rule pages live.
DOCS_BASE_URL = f"{PROJECT_URL}/blob/main/docs/rules"
DEFAULT_OUTDIR = Path("docs/rules")
INDEX_NAME = "index.md"


def rule_url(code: str) -> str:
    return f"{DOCS_BASE_URL}/{code}.md"


def render_rule_page(rule: Rule) -> str:
    """The rule's page, with Ruff's sections, ending in one newline."""
    facts: list[str] = []
    if rule.fixable:
        facts.append("Fix is sometimes available (`loomlint fix`).")
    if rule.opt_in:
        facts.append(
            f'Off by default: select it by its full code (`extend-select = ["{rule.code}"]`).'
        )
    if rule.mypy_code:
        facts.append(f"The mypy plugin reports it as `{rule.mypy_code}`.")
    blocks = [f"# {rule.code} ({rule.name})", rule.summary]
    if facts:
        blocks.append(" ".join(facts))
    sections = (
        ("What it does", rule.what),
        ("Why is this bad?", rule.why),
        ("Example", rule.example),
        ("Use instead", rule.use_instead),
        ("Fix safety", rule.fix_safety),
        ("Options", rule.options),
        ("Known problems", rule.known_problems),
    )
    for title, body in sections:
        blocks.append(f"## {title}")
        blocks.append(body.strip())
    return "\n\n".join(blocks) + "\n"


def render_index(rules: Iterable[Rule]) -> str:
    """``docs/rules/index.md``: one table row per rule, linking its page."""
    lines = [
        "# Rules",
        "",
        "Generated from `rules/` by `python -m loomlint.report.docs`; do not edit by hand.",
        "",
        "| Code | Name | Fixable | Summary |",
        "| --- | --- | --- | --- |",
    ]
    for rule in rules:
        fixable = "yes" if rule.fixable else "no"
        summary = rule.summary.replace("|", "\\|")
        lines.append(f"| [{rule.code}]({rule.code}.md) | {rule.name} | {fixable} | {summary} |")
    return "\n".join(lines) + "\n"


def rendered_pages() -> dict[str, str]:
    """File name -> content of every page the generator writes."""
    rules = [rule for _, rule in sorted(load_catalog().rules.items())]
    pages = {f"{rule.code}.md": render_rule_page(rule) for rule in rules}
    pages[INDEX_NAME] = render_index(rules)
    return pages


def write_pages(outdir: Path) -> list[Path]:
    """Write every page into ``outdir`` and delete pages of rules that no longer exist."""
    outdir.mkdir(parents=True, exist_ok=True)
    pages = rendered_pages()
    for stale in sorted(outdir.glob("LML*.md")):
        if stale.name not in pages:
            stale.unlink()
    written: list[Path] = []
    for name, text in pages.items():
        path = outdir / name
        # Always "\n" line endings, so pages compare equal on every platform.
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or (args and args[0] in ("-h", "--help")):
        print("usage: python -m loomlint.report.docs [OUTDIR]", file=sys.stderr)
        return 2
    outdir = Path(args[0]) if args else DEFAULT_OUTDIR
    written = write_pages(outdir)
    print(f"wrote {len(written)} pages to {outdir.as_posix()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
