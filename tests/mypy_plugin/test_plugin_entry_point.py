"""The plugin's entry point, version check, error codes, hook selection and fingerprint."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy.errorcodes import error_codes
from mypy.options import Options
from mypy_runs import run_mypy, write_project

from loomlint.catalog import load_catalog
from loomlint.config import load_settings
from loomlint.mypy_checks import codes
from loomlint.mypy_checks.config import fingerprint
from loomlint.mypy_checks.support import (
    RefusingPlugin,
    UnsupportedMypyError,
    check_supported,
    mypy_version_supported,
)
from loomlint.mypy_plugin import LoomlintPlugin, plugin

NAIVE_PLUGIN = Path(__file__).with_name("naive_plugin.py")


@pytest.mark.parametrize("version", ["2.4.1", "2.4.0", "2.9.0", "2.5.0+dev.0123abcd"])
def test_supported_mypy_versions_load_the_plugin(version: str) -> None:
    assert plugin(version) is LoomlintPlugin


@pytest.mark.parametrize("version", ["1.19.1", "2.3.0", "3.0.0", "0.991", "unknown"])
def test_an_unsupported_mypy_version_is_refused_with_a_clear_message(version: str) -> None:
    refusing = plugin(version)
    assert issubclass(refusing, RefusingPlugin)
    message = refusing.problem
    assert f"this is mypy {version}" in message
    assert "mypy>=2.4,<3" in message
    assert not mypy_version_supported(version)
    with pytest.raises(UnsupportedMypyError):
        check_supported(version)


def test_error_codes_are_registered_with_mypy_and_named_by_the_catalog() -> None:
    catalog = load_catalog()
    assert codes.CONTENT_USE.code == catalog.rule("LML001").mypy_code == "loom-content-use"
    assert catalog.rule("LML002").mypy_code == "loom-content-use"
    assert codes.CONTENT_COERCION.code == catalog.rule("LML003").mypy_code
    assert codes.CONTENT_CAST.code == catalog.rule("LML004").mypy_code == "loom-content-cast"
    for code in codes.ERROR_CODES.values():
        assert error_codes[code.code] is code
        assert code.category == "loomlint"


def _options(plugins: list[str]) -> Options:
    options = Options()
    options.plugins = plugins
    return options


@pytest.mark.parametrize(
    ("plugins", "every_callee"),
    [
        (["loomlint.mypy_plugin"], True),
        (["pydantic.mypy", "loomlint.mypy_plugin"], True),
        (["loomlint.mypy_plugin:plugin"], True),
        (["loomlint.mypy_plugin", "pydantic.mypy"], False),
        ([], True),  # handed to mypy.build as an extra plugin: it comes last
    ],
)
def test_every_callee_is_hooked_only_when_no_later_plugin_would_be_hidden(
    plugins: list[str], every_callee: bool
) -> None:
    loaded = LoomlintPlugin(_options(plugins))
    # Not a catalog callable: hooked only for the parameter check.
    assert (loaded.get_function_hook("mypackage.helper") is not None) is every_callee
    # Catalog callables are always hooked.
    assert loaded.get_function_hook("builtins.print") is not None
    assert loaded.get_method_hook("logging.Logger.info") is not None


def test_the_default_plugins_hooks_are_kept() -> None:
    loaded = LoomlintPlugin(_options(["loomlint.mypy_plugin", "other.plugin"]))
    # No check of ours, so the default plugin's own hook is returned as is.
    assert loaded.get_method_hook("builtins.int.__pow__") is not None
    # A name whose real signature comes from the default plugin is not re-checked.
    everything = LoomlintPlugin(_options(["loomlint.mypy_plugin"]))
    assert everything.get_function_hook("dataclasses.replace") is None


def test_the_fingerprint_follows_the_loomlint_configuration(tmp_path: Path) -> None:
    write_project(tmp_path)
    before = fingerprint(load_settings(tmp_path))
    assert fingerprint(load_settings(tmp_path)) == before
    write_project(tmp_path, loomlint='accessors = ["helpers.loose_text"]')
    assert fingerprint(load_settings(tmp_path)) != before


def test_mypy_config_sections_other_than_loomlints_do_not_change_the_fingerprint(
    tmp_path: Path,
) -> None:
    pyproject = write_project(tmp_path)
    before = fingerprint(load_settings(tmp_path))
    pyproject.write_text(pyproject.read_text() + "\n[tool.ruff]\nline-length = 90\n")
    assert fingerprint(load_settings(tmp_path)) == before


@pytest.mark.slow
def test_mypy_still_swallows_plugin_errors_on_overloaded_callees(
    tmp_path: Path, mypy_cache: Path
) -> None:
    # The limit the plugin works around (mypy_checks.reporting): an error a hook reports with
    # ``ctx.api.fail`` for a union argument is lost for the overloaded ``str`` and ``print``,
    # and kept for ``repr``. If this fails, mypy fixed issue 7367 and the workaround may be
    # retired.
    source = "def f(x: int | str) -> None:\n    str(x)\n    print(x)\n    repr(x)\n"
    config = write_project(
        tmp_path, mypy=f'plugins = ["{NAIVE_PLUGIN.as_posix()}"]', files={"naive.py": source}
    )
    args = ["--config-file", str(config), "--cache-dir", str(mypy_cache), "naive.py"]
    run = run_mypy(args, cwd=tmp_path)
    assert run.keys() == {("naive.py", 4, "misc")}
