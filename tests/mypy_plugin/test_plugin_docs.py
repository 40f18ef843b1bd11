"""docs/mypy-plugin.md and docs/editors.md tell the truth about the plugin."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from loomlint.catalog.rules import load_catalog
from loomlint.mypy_plugin.support import UnsupportedMypyError, check_supported

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = ["mypy-plugin.md", "editors.md"]


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.M | re.S)


@pytest.mark.parametrize("name", PAGES)
def test_toml_examples_parse(name: str) -> None:
    blocks = _blocks((DOCS / name).read_text(encoding="utf-8"), "toml")
    assert blocks
    for block in blocks:
        tomllib.loads(block)


def test_the_quoted_refusal_is_the_plugins_own_message() -> None:
    text = (DOCS / "mypy-plugin.md").read_text(encoding="utf-8")
    with pytest.raises(UnsupportedMypyError) as raised:
        check_supported("1.11.2")
    assert f"pyproject.toml:2: error: {raised.value}" in text


def test_the_error_code_table_names_the_catalogs_codes() -> None:
    text = (DOCS / "mypy-plugin.md").read_text(encoding="utf-8")
    for code in ("LML001", "LML002", "LML003", "LML004"):
        mypy_code = load_catalog().rule(code).mypy_code
        assert re.search(rf"^\| `{mypy_code}` \|[^\n]*\[{code}\]", text, flags=re.M), code
