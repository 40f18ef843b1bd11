"""Issue 29 and issue 28's combined tests, beyond what the fixture comments say: the message of
a loop that picks the text part names the accessor of the value's SPI (`text_of(...)`,
LangChain's `.text`) or, for an SPI with none, says to narrow; a loop whose characters reach a
use keeps the message it had; and the text part comes from the preset's data, so a
user-declared SPI's `[text-part]` decides for its own parts.

The fixtures (``fixtures/analysis/text_part_filters.py``, ``fixtures/presets/*/*_text_filters.py``)
hold every shape's exact findings with and without types (and the mypy plugin's, in
``tests/mypy_plugin/test_plugin_cli_agreement.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from expectations import REPO

from loomlint.cli import main

LOST = (
    "is iterated for its text parts, but it may be a string, whose characters are not parts: "
    "its text is lost; "
)
CHARACTERS = "is iterated, but it may be a list of parts; "


def _messages(*args: str) -> dict[int, str]:
    result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache", *args])
    assert result.exit_code in (0, 1), result.output + result.stderr
    return {d["line"]: d["message"] for d in json.loads(result.stdout)}


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
@pytest.mark.parametrize(
    ("preset", "path", "line", "origin", "advice"),
    [
        (
            "loom",
            "fixtures/analysis/text_part_filters.py",
            24,
            "content of `m`",
            "use text_of(...), or narrow it with isinstance() first",
        ),
        (
            "loom",
            "fixtures/analysis/text_part_filters.py",
            56,
            "`c` (typed as message content)",
            "use text_of(...), or narrow it with isinstance() first",
        ),
        (
            "langchain",
            "fixtures/presets/langchain/lc_text_filters.py",
            16,
            "content of `msg`",
            "use .text, or narrow it with isinstance() first",
        ),
        (
            "openai",
            "fixtures/presets/openai/openai_text_filters.py",
            18,
            "content of `message`",
            "narrow it with isinstance() first",
        ),
        (
            "anthropic",
            "fixtures/presets/anthropic/anthropic_text_filters.py",
            13,
            "content of `message`",
            "narrow it with isinstance() first",
        ),
    ],
)
def test_a_text_part_filter_is_advised_the_accessor_of_its_spi(
    preset: str,
    path: str,
    line: int,
    origin: str,
    advice: str,
    types: bool,
    mypy_cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)
    mode = [] if types else ["--no-types"]
    messages = _messages(*mode, "--preset", preset, path)
    assert messages[line] == f"{origin} {LOST}{advice}"


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_characters_reaching_a_use_keep_their_message(
    types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`assert isinstance(part, str) or ...` lets characters through: a use after it sees
    them; an `or` of a `str` test and the text part counts each character; refusing strings
    raises on the first character."""
    monkeypatch.chdir(REPO)
    mode = [] if types else ["--no-types"]
    messages = _messages(*mode, "fixtures/analysis/text_part_filters.py")
    expected = f"content of `m` {CHARACTERS}narrow it with isinstance() first, or use text_of(...)"
    assert [messages[line] for line in (73, 171, 205)] == [expected] * 3
    assert 165 not in messages  # the assert alone: it holds for every character
