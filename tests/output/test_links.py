"""Every link loomlint prints or sends (SARIF's tool and help links, the JSON report's and the
language server's rule links, `rules --format json`) comes from one documented constant,
``loomlint.report.docs.PROJECT_URL``: a fork or mirror changes it in one place."""

from __future__ import annotations

import re
from pathlib import Path

import loomlint
from loomlint.report.docs import DOCS_BASE_URL, PROJECT_URL, rule_url
from loomlint.report.output.sarif import INFORMATION_URI

PACKAGE = Path(loomlint.__file__).parent


def test_the_links_derive_from_the_project_url() -> None:
    assert PROJECT_URL == "https://github.com/loomlint/loomlint"
    assert INFORMATION_URI == PROJECT_URL
    assert DOCS_BASE_URL.removeprefix(PROJECT_URL) == "/blob/main/docs/rules"
    assert rule_url("LML003") == f"{PROJECT_URL}/blob/main/docs/rules/LML003.md"


def test_no_module_spells_a_link_to_loomlint_of_its_own() -> None:
    spelled = {
        (path.relative_to(PACKAGE).as_posix(), url)
        for path in PACKAGE.rglob("*.py")
        for url in re.findall(r"https?://[^\s\"'`)]+", path.read_text(encoding="utf-8"))
        if "loomlint" in url
    }
    assert spelled == {("report/docs.py", PROJECT_URL)}
