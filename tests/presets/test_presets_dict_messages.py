"""Without types, `d["content"]` is a message's content only where an active SPI has dict
messages: LangChain's messages are objects, so in a LangChain codebase a dict's "content" key
(a file record, a search hit, a tool argument) is no finding; `m.content` still is."""

from __future__ import annotations

from pathlib import Path

from loomlint.catalog.rules import load_catalog

from .conftest import findings_without_types

SOURCE = (
    "from langchain_core.messages import AIMessage\n"
    "\n"
    "\n"
    "def show(m: AIMessage, record: dict, hit) -> str:\n"
    '    body = record["content"].strip()\n'
    '    snippet = hit.get("content", "").lower()\n'
    "    return m.content.strip() + body + snippet\n"
)


def _findings(tmp_path: Path, *presets: str) -> list[tuple[int, int, str]]:
    return findings_without_types(tmp_path, SOURCE, *presets)


def test_the_presets_say_which_spis_have_dict_messages() -> None:
    presets = load_catalog().presets
    assert {name: p.dict_messages for name, p in presets.items()} == {
        "anthropic": True,
        "bedrock": True,
        "cohere": False,
        "langchain": False,
        "loom": True,
        "mcp": False,
        "openai": True,
        "pydantic-ai": True,
        "semantic-kernel": False,
    }


def test_langchain_alone_reads_no_dict_content(tmp_path: Path) -> None:
    assert _findings(tmp_path, "langchain") == [(7, 12, "LML001")]


def test_an_spi_with_dict_messages_keeps_dict_reads(tmp_path: Path) -> None:
    assert _findings(tmp_path, "langchain", "openai") == [
        (5, 12, "LML001"),
        (6, 15, "LML001"),
        (7, 12, "LML001"),
    ]
