"""Without types, content whose items are read by a key only one SDK's blocks have is that
SDK's content: Bedrock Converse keys a block by its kind (`{"toolUse": ...}`), so a message
dict whose items are read so holds a list of blocks only (the `bedrock` preset's
`parts-only-block-keys`). A user's own SPI declares such keys the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomlint.catalog.rules import CatalogError, load_catalog, preset_from_mapping

from .conftest import findings_without_types

SOURCE = (
    "def first_block(message, turn):\n"
    '    tool = message["content"][0]["toolUse"]\n'
    '    blocks = turn.get("content")\n'
    "    for block in blocks:\n"
    '        if block.get("widget"):\n'
    "            return tool\n"
    '    return turn["content"][0]["text"]\n'
)


def _findings(tmp_path: Path, *presets: str) -> list[tuple[int, int, str]]:
    return findings_without_types(tmp_path, SOURCE, *presets)


def test_the_bedrock_preset_knows_converses_block_keys() -> None:
    assert load_catalog().presets["bedrock"].parts_only_block_keys == (
        "toolUse",
        "toolResult",
        "guardContent",
        "cachePoint",
        "reasoningContent",
        "citationsContent",
    )


def test_without_the_preset_every_read_is_judged_as_before(tmp_path: Path) -> None:
    assert _findings(tmp_path, "openai") == [
        (2, 12, "LML001"),
        (4, 18, "LML001"),
        (7, 12, "LML001"),
    ]


def test_a_read_whose_items_are_keyed_as_bedrocks_is_a_list(tmp_path: Path) -> None:
    # `message["content"][0]["toolUse"]` is no finding; `turn`'s items are read by no such key.
    assert _findings(tmp_path, "openai", "bedrock") == [(4, 18, "LML001"), (7, 12, "LML001")]


def test_a_declared_spi_names_its_own_block_keys(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.loomlint]\n"
        'preset = ["openai", "widgets"]\n'
        "[tool.loomlint.spi.widgets]\n"
        'modules = ["widgets"]\n'
        'content-fields = ["content"]\n'
        'parts-only-block-keys = ["widget"]\n',
        encoding="utf-8",
    )
    assert _findings(tmp_path) == [
        (2, 12, "LML001"),
        (7, 12, "LML001"),
    ]


@pytest.mark.parametrize("key", ["tool use", "", "cache-point"])
def test_a_block_key_must_be_a_name(key: str) -> None:
    with pytest.raises(CatalogError) as raised:
        preset_from_mapping({"name": "x", "parts-only-block-keys": [key]}, where="x.toml")
    assert str(raised.value) == (
        "x.toml: key 'parts-only-block-keys' must list the keys of a block "
        f"(e.g. 'toolUse'), got {key!r}"
    )
