"""Discovery of the configuration file, defaults, overrides, and what Settings carries."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from pathlib import Path

import pytest

from loomlint.project.config import DEFAULT_EXCLUDE, CliOverrides, Settings
from loomlint.project.settings import load_settings

WriteConfig = Callable[..., Path]
Load = Callable[..., Settings]

RULES = {"LML001", "LML002", "LML003"}  # the default: LML004 and LML005 are opt-in
ANALYSIS = {"LML901", "LML902", "LML903", "LML904", "LML905"}


def test_no_configuration_gives_defaults(load: Load, tmp_path: Path) -> None:
    settings = load()
    assert settings.config_path is None
    assert settings.project_root == tmp_path
    assert settings.cwd == tmp_path
    assert settings.select is None
    assert settings.ignore == frozenset()
    assert settings.enabled_codes == RULES | ANALYSIS
    assert settings.per_file_ignores == ()
    assert settings.exclude == DEFAULT_EXCLUDE
    assert [p.name for p in settings.presets] == ["loom"]
    assert settings.spi.preset_names == ("loom",)
    assert settings.types == "mypy"
    assert settings.mypy_config_file is None
    assert settings.report_unused_suppressions is False


def test_nearest_pyproject_with_a_loomlint_table_walking_up(
    write_pyproject: WriteConfig, load: Load, tmp_path: Path
) -> None:
    root = write_pyproject('select = ["LML003"]\n')
    # A pyproject.toml without [tool.loomlint] on the way up is skipped, as Ruff does.
    write_pyproject("", folder="pkg", header="[project]\nname = 'pkg'\n")
    deeper = tmp_path / "pkg" / "sub"
    deeper.mkdir()
    settings = load(cwd=deeper)
    assert settings.config_path == root
    assert settings.project_root == tmp_path
    assert settings.cwd == deeper
    assert settings.select == frozenset({"LML003"})


def test_loomlint_toml_wins_over_pyproject_in_the_same_folder(
    write_pyproject: WriteConfig, load: Load, tmp_path: Path
) -> None:
    write_pyproject('select = ["LML003"]\n')
    (tmp_path / "loomlint.toml").write_text('select = ["LML001"]\n')
    settings = load()
    assert settings.config_path == tmp_path / "loomlint.toml"
    assert settings.select == frozenset({"LML001"})


def test_explicit_config_file_relative_to_cwd(load: Load, tmp_path: Path) -> None:
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "loomlint.toml").write_text('ignore = ["LML002"]\ntypes = "none"\n')
    settings = load(config=Path("ci/loomlint.toml"))
    assert settings.config_path == tmp_path / "ci" / "loomlint.toml"
    assert settings.project_root == tmp_path / "ci"
    assert settings.types == "none"
    assert "LML002" not in settings.enabled_codes


def test_explicit_pyproject_without_a_table_gives_defaults(load: Load, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    settings = load(config=Path("pyproject.toml"))
    assert settings.config_path == tmp_path / "pyproject.toml"
    assert settings.enabled_codes == RULES | ANALYSIS


def test_bom_and_crlf_are_read(tmp_path: Path, load: Load) -> None:
    (tmp_path / "pyproject.toml").write_bytes(
        b'\xef\xbb\xbf[tool.loomlint]\r\nselect = ["LML001"]\r\n'
    )
    assert load().select == frozenset({"LML001"})


def test_every_key(write_pyproject: WriteConfig, load: Load, tmp_path: Path) -> None:
    (tmp_path / "mypy.ini").write_text("[mypy]\n")
    write_pyproject(
        """
select = ["lml0"]
ignore = ["LML004"]
exclude = ["generated/"]
extend-exclude = ["*_pb2.py"]
preset = ["loom", "myspi"]
accessors = ["myapp.text.text_of"]
sanitizers = ["myapp.text.redact"]
content-fields = ["body"]
types = "none"
mypy-config-file = "mypy.ini"
report-unused-suppressions = true

[tool.loomlint.per-file-ignores]
"tests/**" = ["LML001", "lml002"]

[tool.loomlint.spi.myspi]
content-fields = ["payload"]
accessors = ["myspi.text"]
"""
    )
    settings = load()
    assert settings.select == frozenset({"LML0"})
    assert settings.ignore == frozenset({"LML004"})
    assert settings.enabled_codes == {"LML001", "LML002", "LML003", "LML100"} | ANALYSIS
    assert settings.exclude == ("generated/", "*_pb2.py")
    assert [p.name for p in settings.presets] == ["loom", "myspi"]
    assert settings.spi.preset_names == ("loom", "myspi")
    assert settings.spi.content_fields == {"content", "payload", "body"}
    assert set(settings.spi.accessors) >= {"myspi.text", "myapp.text.text_of", "myapp.text.redact"}
    assert settings.accessors == ("myapp.text.text_of",)
    assert settings.sanitizers == ("myapp.text.redact",)
    assert settings.content_fields == ("body",)
    assert settings.types == "none"
    assert settings.mypy_config_file == tmp_path / "mypy.ini"
    assert settings.report_unused_suppressions is True
    [entry] = settings.per_file_ignores
    assert (entry.pattern, entry.codes) == ("tests/**", frozenset({"LML001", "LML002"}))


def test_user_spi_is_selectable_only_when_named(write_pyproject: WriteConfig, load: Load) -> None:
    write_pyproject("[tool.loomlint.spi.myspi]\ncontent-fields = ['payload']\n")
    assert load().spi.preset_names == ("loom",)
    assert load(presets=("myspi",)).spi.content_fields == {"payload"}


def test_command_line_overrides(write_pyproject: WriteConfig, load: Load) -> None:
    write_pyproject('select = ["LML001"]\nignore = ["LML903"]\n')
    settings = load(
        select=("LML003", "lml004"),
        ignore=("LML004",),
        no_types=True,
        report_unused_suppressions=True,
    )
    assert settings.select == frozenset({"LML003", "LML004"})
    assert settings.ignore == frozenset({"LML903", "LML004"})
    assert settings.enabled_codes == {"LML003", "LML100", "LML901", "LML902", "LML904", "LML905"}
    assert settings.types == "none"
    assert settings.report_unused_suppressions is True


def test_report_unused_from_command_line_false_overrides_file(
    write_pyproject: WriteConfig, load: Load
) -> None:
    write_pyproject("report-unused-suppressions = true\n")
    assert load(report_unused_suppressions=False).report_unused_suppressions is False
    assert load().report_unused_suppressions is True


def test_settings_are_picklable_and_hashable(write_pyproject: WriteConfig, load: Load) -> None:
    write_pyproject('[tool.loomlint.per-file-ignores]\n"tests/*" = ["LML001"]\n')
    settings = load()
    copy = pickle.loads(pickle.dumps(settings))
    assert copy == settings
    assert hash(copy) == hash(settings)
    assert copy.settings_fingerprint() == settings.settings_fingerprint()


def test_fingerprint_is_stable_and_tracks_what_affects_results(
    write_pyproject: WriteConfig, load: Load, tmp_path: Path
) -> None:
    write_pyproject('ignore = ["LML004"]\n')
    first = load().settings_fingerprint()
    assert load().settings_fingerprint() == first
    (tmp_path / "sub").mkdir()
    assert load(cwd=tmp_path / "sub").settings_fingerprint() == first
    assert load(no_types=True).settings_fingerprint() != first
    assert load(select=("LML001",)).settings_fingerprint() != first
    assert load(report_unused_suppressions=True).settings_fingerprint() != first
    write_pyproject('ignore = ["LML004"]\ncontent-fields = ["body"]\n')
    assert load().settings_fingerprint() != first


def test_fingerprint_follows_the_mypy_configuration(load: Load, tmp_path: Path) -> None:
    (tmp_path / "mypy.ini").write_text("[mypy]\nstrict = true\n")
    first = load().settings_fingerprint()
    (tmp_path / "mypy.ini").write_text("[mypy]\nstrict = false\n")
    assert load().settings_fingerprint() != first


def test_load_settings_accepts_a_relative_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings(Path("."), None, CliOverrides())
    assert settings.cwd == tmp_path
    assert settings.project_root == tmp_path
