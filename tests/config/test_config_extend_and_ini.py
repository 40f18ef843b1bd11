"""``extend-select`` / ``extend-ignore``, and the ``[loomlint]`` section of mypy.ini / setup.cfg."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from loomlint.project.config import ConfigError, Settings

WriteConfig = Callable[..., Path]
Load = Callable[..., Settings]

ANALYSIS = {"LML901", "LML902", "LML903", "LML904", "LML905"}


@pytest.mark.parametrize(
    ("body", "overrides", "enabled"),
    [
        ('select = ["LML001"]\nextend-select = ["LML003"]', {}, {"LML001", "LML003"}),
        ('extend-select = ["LML100"]', {}, {"LML001", "LML002", "LML003", "LML100"}),
        ('select = ["LML001"]', {"extend_select": ("LML002",)}, {"LML001", "LML002"}),
        ('extend-ignore = ["LML00"]\nignore = ["LML9"]', {}, set[str]()),
        ('ignore = ["LML001"]', {"ignore": ("LML002",)}, {"LML003"} | ANALYSIS),
        # The command line's --extend-select beats the file's ignore, as Ruff's does.
        (
            'ignore = ["LML003"]',
            {"extend_select": ("LML003",)},
            {"LML001", "LML002", "LML003"} | ANALYSIS,
        ),
    ],
)
def test_extend_select_and_extend_ignore(
    write_pyproject: WriteConfig,
    load: Load,
    body: str,
    overrides: dict[str, object],
    enabled: set[str],
) -> None:
    write_pyproject(body)
    expected = enabled if "LML9" in body else enabled | ANALYSIS
    assert load(**overrides).enabled_codes == expected


def test_unknown_extend_select_code_names_the_key(write_pyproject: WriteConfig, load: Load) -> None:
    write_pyproject('extend-select = ["LML07"]')
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value).startswith(
        "pyproject.toml: [tool.loomlint] key 'extend-select': unknown rule code 'LML07' (known: "
    )
    write_pyproject("")
    with pytest.raises(ConfigError) as raised:
        load(extend_select=("X1",))
    assert str(raised.value).startswith("--extend-select: unknown rule code 'X1' (known: ")


MYPY_INI = """\
[mypy]
strict = True

[{section}]
select = LML001,
    LML003
preset = loom
report_unused_suppressions = yes
per-file-ignores =
    tests/*: LML001
    gen/**: LML001, LML003
"""


@pytest.mark.parametrize("name", ["mypy.ini", ".mypy.ini", "setup.cfg"])
@pytest.mark.parametrize("section", ["loomlint", "tool:loomlint"])
def test_ini_section(tmp_path: Path, load: Load, name: str, section: str) -> None:
    (tmp_path / name).write_text(MYPY_INI.format(section=section), encoding="utf-8")
    (tmp_path / "src").mkdir()
    settings = load(cwd=tmp_path / "src")
    assert settings.config_path == tmp_path / name
    assert settings.project_root == tmp_path
    assert settings.enabled_codes == {"LML001", "LML003", "LML100"} | ANALYSIS
    assert settings.report_unused_suppressions is True
    assert [(p.pattern, sorted(p.codes)) for p in settings.per_file_ignores] == [
        ("tests/*", ["LML001"]),
        ("gen/**", ["LML001", "LML003"]),
    ]
    assert not settings.is_code_enabled("LML001", str(tmp_path / "tests" / "a.py"))


def test_toml_comes_before_ini_in_the_same_folder(
    tmp_path: Path, write_pyproject: WriteConfig, load: Load
) -> None:
    (tmp_path / "mypy.ini").write_text(MYPY_INI.format(section="loomlint"), encoding="utf-8")
    write_pyproject('select = ["LML002"]')
    assert load().config_path == tmp_path / "pyproject.toml"
    # An INI file without the section is not loomlint's configuration.
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "mypy.ini").write_text("[mypy]\nstrict = True\n", encoding="utf-8")
    assert load().config_path is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "per-file-ignores = tests/*",
            "mypy.ini: [loomlint] key 'per-file-ignores': expected one 'pattern: CODES' per "
            "line, e.g. 'tests/**: LML003', got 'tests/*'",
        ),
        (
            "per-file-ignores =\n    tests/*: LML0x",
            "mypy.ini: [loomlint.per-file-ignores] key 'tests/*': unknown rule code 'LML0x' "
            "(known: LML001, LML002, LML003, LML004, LML005, LML006, LML100, LML901, LML902, "
            "LML903, LML904, LML905)",
        ),
        (
            "report_unused_suppressions = maybe",
            "mypy.ini: [loomlint] key 'report-unused-suppressions': expected true or false, "
            "got 'maybe'",
        ),
        ("selct = LML001", "mypy.ini: [loomlint] unknown key 'selct' (did you mean 'select'?)"),
        (
            "spi = x",
            "mypy.ini: [loomlint] key 'spi': an SPI is declared as a table, which INI cannot "
            "hold; declare it in pyproject.toml ([tool.loomlint.spi.NAME]) or loomlint.toml",
        ),
        ("[x", "mypy.ini: invalid INI: Source contains parsing errors: 'mypy.ini'"),
    ],
)
def test_ini_errors(tmp_path: Path, load: Load, body: str, message: str) -> None:
    (tmp_path / "mypy.ini").write_text(f"[loomlint]\n{body}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value).split("\n")[0] == message


# --- extend: a base configuration shared by several projects -----------------------------------


def test_extend_reads_a_base_configuration_and_the_own_keys_win(tmp_path: Path, load: Load) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "loomlint.toml").write_text(
        'select = ["LML001", "LML003"]\n'
        'preset = ["openai"]\n'
        'mypy-config-file = "mypy.ini"\n'
        '[per-file-ignores]\n"tests/**" = ["LML003"]\n'
    )
    (shared / "mypy.ini").write_text("[mypy]\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.loomlint]\nextend = "../shared/loomlint.toml"\nselect = ["LML003"]\n'
    )
    settings = load(cwd=project)
    assert settings.project_root == project
    assert settings.enabled_codes == {"LML003"} | ANALYSIS
    assert [p.name for p in settings.presets] == ["openai"]
    # A path in the base is relative to the base's folder.
    assert settings.mypy_config_file == shared / "mypy.ini"
    assert not settings.is_code_enabled("LML003", str(project / "tests" / "test_x.py"))


def test_extend_chains_and_its_errors_name_the_key_and_the_file(tmp_path: Path, load: Load) -> None:
    (tmp_path / "base.toml").write_text('ignore = ["LML001"]\n')
    (tmp_path / "middle.toml").write_text('extend = "base.toml"\nignore = ["LML002"]\n')
    (tmp_path / "loomlint.toml").write_text('extend = "middle.toml"\n')
    assert load().enabled_codes == {"LML001", "LML003"} | ANALYSIS
    (tmp_path / "base.toml").write_text('extend = "loomlint.toml"\n')
    (tmp_path / "middle.toml").write_text('extend = "base.toml"\n')
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value) == (
        "base.toml: key 'extend': 'loomlint.toml' extends this file again "
        "(loomlint.toml -> middle.toml -> base.toml -> loomlint.toml)"
    )
    (tmp_path / "loomlint.toml").write_text('extend = "missing.toml"\n')
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value) == "loomlint.toml: key 'extend': no such file 'missing.toml'"
    (tmp_path / "loomlint.toml").write_text('extend = "base.toml"\n')
    (tmp_path / "base.toml").write_text('select = ["LML07"]\n')
    with pytest.raises(ConfigError) as raised:
        load()
    assert str(raised.value).startswith("base.toml: key 'select': unknown rule code 'LML07'")


def test_the_settings_name_every_base_extend_reads(
    tmp_path: Path, write_pyproject: WriteConfig, load: Load
) -> None:
    # What a long-running server watches besides the configuration file itself.
    shared = tmp_path.parent / f"{tmp_path.name}-shared"
    shared.mkdir()
    (shared / "loomlint.toml").write_text('extend = "team/loomlint.toml"\n', encoding="utf-8")
    (shared / "team").mkdir()
    (shared / "team" / "loomlint.toml").write_text('ignore = ["LML003"]\n', encoding="utf-8")
    write_pyproject(f'extend = "../{shared.name}/loomlint.toml"\n')
    settings = load()
    assert settings.config_bases == (shared / "loomlint.toml", shared / "team" / "loomlint.toml")
    assert "LML003" not in settings.enabled_codes
    write_pyproject("")
    assert load().config_bases == ()
