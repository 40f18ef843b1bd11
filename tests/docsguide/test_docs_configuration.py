"""Every TOML example of docs/configuration.md is a configuration loomlint accepts, and every
key loomlint knows is documented there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from loomlint.project.config import CONFIG_KEYS, DEFAULT_EXCLUDE
from loomlint.project.settings import load_settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
TEXT = DOC.read_text(encoding="utf-8")
EXAMPLES = re.findall(r"^```toml\n(.*?)^```", TEXT, flags=re.M | re.S)
SPI_EXAMPLE = next(example for example in EXAMPLES if "[tool.loomlint.spi.chat]" in example)


@pytest.mark.parametrize("example", EXAMPLES)
def test_each_example_loads(example: str, tmp_path: Path) -> None:
    table = example if example.startswith("[tool.loomlint") else "[tool.loomlint]\n" + example
    if '"chat"' in example and example is not SPI_EXAMPLE:
        table += "\n" + SPI_EXAMPLE[SPI_EXAMPLE.index("[tool.loomlint.spi.chat]") :]
    (tmp_path / "pyproject.toml").write_text(table, encoding="utf-8")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")
    settings = load_settings(tmp_path)
    assert settings.config_path == tmp_path / "pyproject.toml"


def test_every_key_has_a_section() -> None:
    documented = re.findall(r"^### `([a-z-]+)`$", TEXT, flags=re.M)
    assert sorted(documented) == sorted(CONFIG_KEYS)


def test_the_default_exclude_list_is_the_real_one() -> None:
    section = TEXT.split("### `exclude`", 1)[1].split("Gitignore-style patterns", 1)[0]
    assert re.findall(r"`([^`]+)`", section) == list(DEFAULT_EXCLUDE)


def test_every_check_option_is_documented_and_explained() -> None:
    import click

    from loomlint.cli import check_command

    table = TEXT.split("## Command-line options", 1)[1].split("Other commands:", 1)[0]
    documented = set(re.findall(r"^\| `(-[^` ,]+(?:, --[^` ]+)?)", table, flags=re.M))
    names = {name.split(", ")[-1] for name in documented}
    for parameter in check_command.params:
        if not isinstance(parameter, click.Option) or parameter.name == "help":
            continue
        option = max(parameter.opts, key=len)
        assert option in names, f"{option} is not in the options table of configuration.md"
        assert parameter.help and len(parameter.help) > 20, f"{option} has no help text"
