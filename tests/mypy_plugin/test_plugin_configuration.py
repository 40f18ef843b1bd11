"""The plugin's configuration: [tool.loomlint], mypy's own code switches, and mypy's cache.

Each test's mypy cache (``mypy_cache``) starts from the session's template, where typeshed and
``loomlint.content`` are built: the modules of the test's own project start cold.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy_runs import LOOSE_TEXT_HELPERS as HELPERS
from mypy_runs import MypyRun, run_mypy, write_project

SHOW_PRINT = ("helpers.py", 9, "loom-content-coercion")
SHOW_LOOSE = ("helpers.py", 10, "loom-content-use")


def _check(root: Path, cache: Path, *extra: str) -> MypyRun:
    args = ["--config-file", str(root / "pyproject.toml"), "--cache-dir", str(cache), *extra]
    return run_mypy([*args, "helpers.py"], cwd=root)


@pytest.mark.slow
def test_a_configured_accessor_silences_its_argument_and_rechecks_a_cached_module(
    tmp_path: Path, mypy_cache: Path
) -> None:
    root, cache = tmp_path / "project", mypy_cache
    write_project(root, files={"helpers.py": HELPERS})
    assert _check(root, cache).keys() == {SHOW_PRINT, SHOW_LOOSE}

    # Only [tool.loomlint] changes: helpers.py is unchanged and cached, yet re-checked.
    write_project(root, loomlint='accessors = ["helpers.loose_text"]')
    assert _check(root, cache).keys() == {SHOW_PRINT}

    write_project(root, loomlint='ignore = ["LML003"]')
    assert _check(root, cache).keys() == {SHOW_LOOSE}


@pytest.mark.slow
def test_a_warm_cache_replays_the_findings(tmp_path: Path, mypy_cache: Path) -> None:
    root, cache = tmp_path / "project", mypy_cache
    write_project(root, files={"helpers.py": HELPERS})
    cold = _check(root, cache)
    warm = _check(root, cache, "--verbose")
    assert cold.keys() == warm.keys() == {SHOW_PRINT, SHOW_LOOSE}
    assert cold.stdout == warm.stdout
    # The findings came from the cache: helpers.py was not checked again.
    assert "Metadata fresh for helpers" in warm.stderr


@pytest.mark.slow
def test_per_file_ignores_apply_to_the_plugin(tmp_path: Path, mypy_cache: Path) -> None:
    root, cache = tmp_path / "project", mypy_cache
    ignores = '[tool.loomlint.per-file-ignores]\n"helpers.py" = ["LML001"]'
    write_project(root, files={"helpers.py": HELPERS}, loomlint=ignores)
    assert _check(root, cache).keys() == {SHOW_PRINT}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mypy", "flags"),
    [
        ('disable_error_code = ["loom-content-coercion"]', ()),
        ("", ("--disable-error-code", "loom-content-coercion")),
        (
            '[[tool.mypy.overrides]]\nmodule = "helpers"\n'
            'disable_error_code = ["loom-content-coercion"]',
            (),
        ),
    ],
    ids=["config", "command-line", "per-module"],
)
def test_mypy_can_disable_a_plugin_code(
    tmp_path: Path, mypy_cache: Path, mypy: str, flags: tuple[str, ...]
) -> None:
    root = tmp_path / "project"
    header = 'plugins = ["loomlint.mypy_plugin"]\nstrict = true\n'
    write_project(root, mypy=header + mypy, files={"helpers.py": HELPERS})
    run = _check(root, mypy_cache, *flags)
    assert run.exit_status == 1, run.stderr
    assert run.keys() == {SHOW_LOOSE}


@pytest.mark.slow
def test_type_ignore_with_the_plugins_code(tmp_path: Path, mypy_cache: Path) -> None:
    root = tmp_path / "project"
    ignored = HELPERS.replace(
        "    print(m.content)\n", "    print(m.content)  # type: ignore[loom-content-coercion]\n"
    )
    mypy = 'plugins = ["loomlint.mypy_plugin"]\nstrict = true\nwarn_unused_ignores = true'
    write_project(root, mypy=mypy, files={"helpers.py": ignored})
    assert _check(root, mypy_cache).keys() == {SHOW_LOOSE}


@pytest.mark.slow
def test_the_configuration_is_found_next_to_mypys_configuration_file(
    tmp_path: Path, mypy_cache: Path
) -> None:
    # mypy.ini in a sub-folder, beside the pyproject.toml that holds [tool.loomlint]; mypy runs
    # from elsewhere.
    root = tmp_path / "project"
    accessors = 'accessors = ["helpers.loose_text"]'
    write_project(root, loomlint=accessors, files={"helpers.py": HELPERS})
    (root / "mypy.ini").write_text("[mypy]\nplugins = loomlint.mypy_plugin\n", encoding="utf-8")
    args = ["--config-file", str(root / "mypy.ini"), "--cache-dir", str(mypy_cache)]
    run = run_mypy([*args, str(root / "helpers.py")], cwd=tmp_path)
    assert run.keys() == {SHOW_PRINT}


@pytest.mark.slow
def test_mypys_parallel_workers_report_the_same_findings(tmp_path: Path, mypy_cache: Path) -> None:
    root = tmp_path / "project"
    write_project(root, files={"helpers.py": HELPERS, "other.py": HELPERS})
    args = ["--config-file", str(root / "pyproject.toml"), "--cache-dir", str(mypy_cache)]
    run = _run_with_started_workers([*args, "--num-workers", "2", "helpers.py", "other.py"], root)
    assert run.keys() == {
        SHOW_PRINT,
        SHOW_LOOSE,
        ("other.py", 9, "loom-content-coercion"),
        ("other.py", 10, "loom-content-use"),
    }


_STARTS = 6


def _run_with_started_workers(args: list[str], cwd: Path) -> MypyRun:
    # mypy gives its parallel workers 3 s to start (WORKER_START_TIMEOUT, compiled in); on a
    # loaded machine they can take longer, and mypy raises before it checks anything. That is
    # mypy's start-up, not what the test asks: a start that timed out is tried again (three
    # tries were not enough at load 6 in CI, three suites and the corpus on two cores).
    for attempt in range(_STARTS):
        try:
            return run_mypy(args, cwd=cwd)
        except OSError as error:
            if "Cannot connect to build worker" not in str(error) or attempt == _STARTS - 1:
                raise
    raise AssertionError("unreachable")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "section"),
    [("mypy.ini", "loomlint"), ("setup.cfg", "tool:loomlint"), ("setup.cfg", "loomlint")],
)
def test_the_loomlint_section_of_mypy_ini_or_setup_cfg(
    tmp_path: Path, mypy_cache: Path, name: str, section: str
) -> None:
    root, cache = tmp_path / "project", mypy_cache
    root.mkdir()
    (root / "helpers.py").write_text(HELPERS, encoding="utf-8")
    config = root / name
    config.write_text(
        f"[mypy]\nplugins = loomlint.mypy_plugin\nstrict = True\n\n[{section}]\nignore = LML001\n",
        encoding="utf-8",
    )
    run = run_mypy(
        ["--config-file", str(config), "--cache-dir", str(cache), "helpers.py"], cwd=root
    )
    assert run.keys() == {SHOW_PRINT}, run.stdout + run.stderr
    # per-file-ignores in flake8's shape; the change re-checks the cached module.
    config.write_text(
        "[mypy]\nplugins = loomlint.mypy_plugin\nstrict = True\n\n"
        f"[{section}]\nper_file_ignores =\n    helpers.py: LML003\n",
        encoding="utf-8",
    )
    run = run_mypy(
        ["--config-file", str(config), "--cache-dir", str(cache), "helpers.py"], cwd=root
    )
    assert run.keys() == {SHOW_LOOSE}, run.stdout + run.stderr
