"""Every bad key or value is an error that names the file and the exact key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from loomlint.project.config import ConfigError, Settings

WriteConfig = Callable[..., Path]
Load = Callable[..., Settings]

KNOWN = (
    "LML001, LML002, LML003, LML004, LML005, LML006, LML100, LML901, LML902, LML903, LML904, LML905"
)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'selcet = ["LML001"]',
            "pyproject.toml: [tool.loomlint] unknown key 'selcet' (did you mean 'select'?)",
        ),
        (
            "per_file_ignores = {}",
            "pyproject.toml: [tool.loomlint] unknown key 'per_file_ignores' "
            "(did you mean 'per-file-ignores'?)",
        ),
        (
            'colour = "blue"',
            "pyproject.toml: [tool.loomlint] unknown key 'colour' (known keys: accessors, "
            "content-fields, content-preserving, exclude, extend, extend-exclude, extend-ignore, "
            "extend-select, ignore, mypy-config-file, per-file-ignores, "
            "preset, report-guesses, report-unused-suppressions, sanitizers, select, spi, types)",
        ),
        (
            'select = "LML001"',
            "pyproject.toml: [tool.loomlint] key 'select': expected a list of strings, "
            "got a string ('LML001')",
        ),
        (
            'select = ["LML001", 3]',
            "pyproject.toml: [tool.loomlint] key 'select': expected a list of strings, "
            "got a list with a non-string item",
        ),
        (
            'select = ["LML999"]',
            f"pyproject.toml: [tool.loomlint] key 'select': unknown rule code 'LML999' "
            f"(known: {KNOWN})",
        ),
        (
            'ignore = ["LML999", "E501", "LML999"]',
            f"pyproject.toml: [tool.loomlint] key 'ignore': unknown rule codes 'LML999', 'E501' "
            f"(known: {KNOWN})",
        ),
        (
            'ignore = ["L"]',
            f"pyproject.toml: [tool.loomlint] key 'ignore': unknown rule code 'L' (known: {KNOWN})",
        ),
        (
            'preset = ["langchan"]',
            "pyproject.toml: [tool.loomlint] key 'preset': unknown preset 'langchan' "
            "(available: anthropic, bedrock, cohere, langchain, loom, mcp, openai, pydantic-ai, "
            "semantic-kernel)",
        ),
        (
            "preset = 'loom'",
            "pyproject.toml: [tool.loomlint] key 'preset': expected a list of strings, "
            "got a string ('loom')",
        ),
        (
            'accessors = ["text_of"]',
            "pyproject.toml: [tool.loomlint] key 'accessors': 'text_of' is not a qualified name "
            "(expected 'package.module.function', e.g. 'myapp.text.text_of')",
        ),
        (
            'sanitizers = ["myapp..clean"]',
            "pyproject.toml: [tool.loomlint] key 'sanitizers': 'myapp..clean' is not a qualified "
            "name (expected 'package.module.function', e.g. 'myapp.text.text_of')",
        ),
        (
            'content-fields = ["my-field"]',
            "pyproject.toml: [tool.loomlint] key 'content-fields': 'my-field' is not a valid "
            "Python identifier",
        ),
        (
            'types = "pyright"',
            "pyproject.toml: [tool.loomlint] key 'types': expected one of 'mypy', 'none', "
            "got 'pyright'",
        ),
        (
            "types = false",
            "pyproject.toml: [tool.loomlint] key 'types': expected a string, got a boolean (false)",
        ),
        (
            'report-unused-suppressions = "yes"',
            "pyproject.toml: [tool.loomlint] key 'report-unused-suppressions': expected true or "
            "false, got a string ('yes')",
        ),
        (
            "exclude = ['\\']",
            "pyproject.toml: [tool.loomlint] key 'exclude': invalid pattern '\\'",
        ),
        (
            "extend-exclude = 3",
            "pyproject.toml: [tool.loomlint] key 'extend-exclude': expected a list of strings, "
            "got an integer (3)",
        ),
        (
            'per-file-ignores = ["tests"]',
            "pyproject.toml: [tool.loomlint] key 'per-file-ignores': expected a table of glob "
            'patterns to lists of rule codes, e.g. per-file-ignores = { "tests/**" = ["LML003"] '
            "}, got a list with a non-string item",
        ),
        (
            'per-file-ignores = { "tests/*" = "LML001" }',
            "pyproject.toml: [tool.loomlint.per-file-ignores] key 'tests/*': expected a list of "
            'rule codes, e.g. "tests/*" = ["LML001"], got a string (\'LML001\')',
        ),
        (
            'per-file-ignores = { "tests/*" = ["LML01x"] }',
            f"pyproject.toml: [tool.loomlint.per-file-ignores] key 'tests/*': unknown rule code "
            f"'LML01x' (known: {KNOWN})",
        ),
        (
            "per-file-ignores = { '\\' = [\"LML001\"] }",
            "pyproject.toml: [tool.loomlint.per-file-ignores] key '\\': invalid pattern",
        ),
        (
            "spi = 1",
            "pyproject.toml: [tool.loomlint] key 'spi': expected a table, got an integer (1)",
        ),
        (
            "[tool.loomlint.spi.loom]\ncontent-fields = ['body']",
            "pyproject.toml: [tool.loomlint.spi.loom] the name 'loom' is taken by a built-in "
            "preset; choose another",
        ),
        (
            "[tool.loomlint.spi.'my spi']\ncontent-fields = ['body']",
            "pyproject.toml: [tool.loomlint.spi] 'my spi' is not a valid SPI name "
            "(letters, digits, '-' and '_', starting with a letter)",
        ),
        (
            "spi = { mine = 3 }",
            "pyproject.toml: [tool.loomlint.spi.mine] expected a table, got an integer (3)",
        ),
        (
            "[tool.loomlint.spi.mine]\nname = 'other'",
            "pyproject.toml: [tool.loomlint.spi.mine] key 'name': must be 'mine' "
            "(the table's name) if given",
        ),
        (
            "[tool.loomlint.spi.mine]\ncontent-fields = 'body'",
            "pyproject.toml: [tool.loomlint.spi.mine]: key 'content-fields' must be a list of "
            "strings",
        ),
    ],
)
def test_bad_key_or_value_names_file_and_key(
    write_pyproject: WriteConfig, load: Load, body: str, message: str
) -> None:
    write_pyproject(body + "\n")
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value) == message


def test_unknown_key_of_a_user_spi(write_pyproject: WriteConfig, load: Load) -> None:
    # The list of keys is the catalog's (preset files and user SPIs share it).
    write_pyproject("[tool.loomlint.spi.mine]\nfields = ['body']\n")
    with pytest.raises(ConfigError) as raised:
        load()
    message = str(raised.value)
    assert message.startswith(
        "pyproject.toml: [tool.loomlint.spi.mine]: unknown key 'fields' (expected one of "
    )
    assert "content-fields" in message


def test_mypy_config_file_must_exist(
    write_pyproject: WriteConfig, load: Load, tmp_path: Path
) -> None:
    write_pyproject('mypy-config-file = "nope.ini"\n')
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value) == (
        f"pyproject.toml: [tool.loomlint] key 'mypy-config-file': no such file 'nope.ini' "
        f"(relative to {tmp_path})"
    )


def test_invalid_toml_names_file_and_line(tmp_path: Path, load: Load) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.loomlint]\nselect = [\n  LML001\n]\n")
    with pytest.raises(ConfigError) as raised:
        load()
    message = str(raised.value)
    assert message.startswith("pyproject.toml: invalid TOML: ")
    assert "line 3" in message


def test_non_utf8_config_names_file_and_line(tmp_path: Path, load: Load) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b"[tool.loomlint]\n# caf\xe9\nselect = []\n")
    with pytest.raises(ConfigError) as raised:
        load()
    assert (
        str(raised.value) == "pyproject.toml: invalid TOML: line 2 is not valid UTF-8 (byte 0xe9)"
    )


def test_tool_loomlint_must_be_a_table(tmp_path: Path, load: Load) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool]\nloomlint = "on"\n')
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value) == "pyproject.toml: [tool.loomlint] must be a table"


def test_errors_in_a_parent_folder_name_the_file_by_absolute_path(
    write_pyproject: WriteConfig, load: Load, tmp_path: Path
) -> None:
    write_pyproject('selcet = ["LML001"]\n')
    (tmp_path / "pkg").mkdir()
    with pytest.raises(ConfigError) as raised:
        load(cwd=tmp_path / "pkg")
    assert str(raised.value) == (
        f"{tmp_path.as_posix()}/pyproject.toml: [tool.loomlint] unknown key 'selcet' "
        "(did you mean 'select'?)"
    )


def test_loomlint_toml_errors_have_no_table_prefix(tmp_path: Path, load: Load) -> None:
    (tmp_path / "loomlint.toml").write_text('selcet = ["LML001"]\n[per-file-ignores]\n')
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value) == "loomlint.toml: unknown key 'selcet' (did you mean 'select'?)"


def test_loomlint_toml_subtable_errors(tmp_path: Path, load: Load) -> None:
    (tmp_path / "loomlint.toml").write_text('[per-file-ignores]\n"a.py" = "LML001"\n')
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value) == (
        "loomlint.toml: [per-file-ignores] key 'a.py': expected a list of rule codes, "
        'e.g. "a.py" = ["LML001"], got a string (\'LML001\')'
    )


def test_missing_explicit_config_is_an_error(tmp_path: Path, load: Load) -> None:
    with pytest.raises(ConfigError) as raised:
        load(config=Path("missing.toml"))
    assert str(raised.value) == "missing.toml: cannot read the file: No such file or directory"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"select": ("LML999",)}, f"--select: unknown rule code 'LML999' (known: {KNOWN})"),
        ({"ignore": ("lml00x",)}, f"--ignore: unknown rule code 'lml00x' (known: {KNOWN})"),
        (
            {"presets": ("langchan",)},
            "--preset: unknown preset 'langchan' "
            "(available: anthropic, bedrock, cohere, langchain, loom, mcp, openai, pydantic-ai, "
            "semantic-kernel)",
        ),
    ],
)
def test_bad_command_line_values_name_the_option(
    load: Load, overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        load(**overrides)
    assert str(raised.value) == message


@pytest.mark.parametrize("nested", ["[" * 20_000 + "]" * 20_000, "{a = " * 20_000 + "}" * 20_000])
def test_deeply_nested_toml_is_a_configuration_error(
    write_pyproject: WriteConfig, load: Load, nested: str
) -> None:
    write_pyproject(f"select = {nested}\n")
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value) == (
        "pyproject.toml: invalid TOML: it nests arrays or tables too deeply to read"
    )
