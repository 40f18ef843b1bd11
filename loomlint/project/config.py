"""``[tool.loomlint]`` configuration, validated once, as a frozen and picklable ``Settings``.

Discovery: ``--config PATH`` (a ``pyproject.toml``, a ``loomlint.toml`` whose top level is
the table, or a ``mypy.ini`` / ``setup.cfg`` with a ``[loomlint]`` section), else the nearest
such file holding loomlint's table, walking up from the current directory (see
``find_config``); none gives the defaults. Every error names the
file and the exact key, so a user can fix it without reading this module.
"""

from __future__ import annotations

import codecs
import configparser
import dataclasses
import difflib
import functools
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeGuard, cast

from loomlint import __version__
from loomlint.catalog.rules import (
    CatalogError,
    Preset,
    load_catalog,
    preset_from_mapping,
    rules_dir,
)
from loomlint.catalog.spi import SpiModel, build_spi_model
from loomlint.project.globs import MatcherMissing, check_patterns, matches
from loomlint.project.selection import (
    UNUSED_SUPPRESSION_CODE,
    SelectionLayer,
    normalize_selector,
    resolve_enabled_codes,
    selector_matches,
    unknown_selectors,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TypeOracleName = Literal["mypy", "none"]

PYPROJECT = "pyproject.toml"
LOOMLINT_TOML = "loomlint.toml"

# Ruff's defaults, plus loomlint's own cache: folders that never hold code to check.
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".hg",
    ".ipynb_checkpoints",
    ".loomlint_cache",
    ".mypy_cache",
    ".nox",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

DEFAULT_PRESETS: tuple[str, ...] = ("loom",)

CONFIG_KEYS: tuple[str, ...] = (
    "accessors",
    "content-fields",
    "content-preserving",
    "exclude",
    "extend",
    "extend-exclude",
    "extend-ignore",
    "extend-select",
    "ignore",
    "mypy-config-file",
    "per-file-ignores",
    "preset",
    "report-guesses",
    "report-unused-suppressions",
    "sanitizers",
    "select",
    "spi",
    "types",
)

_TYPE_ORACLES: tuple[TypeOracleName, ...] = ("mypy", "none")
_SPI_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


class ConfigError(Exception):
    """The configuration is invalid. The message names the file (or option) and the key."""


# Builds the ConfigError for a problem, naming where it is (a key of a file, or an option).
_ErrorFactory = Callable[[str], ConfigError]


@dataclass(frozen=True, slots=True)
class PerFileIgnore:
    """``"<pattern>" = [codes]``: codes (or prefixes) ignored in files matching the pattern.

    A pattern starting with ``!`` applies to the files that do *not* match the rest (Ruff's
    convention).
    """

    pattern: str
    codes: frozenset[str]

    @property
    def negated(self) -> bool:
        return self.pattern.startswith("!")

    def applies_to(self, relative_path: str) -> bool:
        body = self.pattern[1:] if self.negated else self.pattern
        return matches((body,), relative_path) != self.negated


@dataclass(frozen=True, slots=True)
class CliOverrides:
    """Command-line options that override the configuration file (``None``: not given)."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    presets: tuple[str, ...] | None = None
    no_types: bool = False
    report_unused_suppressions: bool | None = None
    no_project_plugins: bool = False
    report_guesses: bool | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a run needs from configuration, validated. Frozen, hashable and picklable."""

    project_root: Path
    config_path: Path | None
    # The directory relative paths (of files and diagnostics) are relative to.
    cwd: Path
    # The effective selectors: ``select`` of the command line if given, else of the file.
    select: frozenset[str] | None
    # Every ignore selector, from the file and the command line.
    ignore: frozenset[str]
    # The codes that are reported at all, resolved from the layers of select / ignore.
    enabled_codes: frozenset[str]
    per_file_ignores: tuple[PerFileIgnore, ...]
    # Gitignore-style patterns relative to ``project_root`` (``exclude`` + ``extend-exclude``).
    exclude: tuple[str, ...]
    presets: tuple[Preset, ...]
    spi: SpiModel
    accessors: tuple[str, ...]
    sanitizers: tuple[str, ...]
    content_fields: tuple[str, ...]
    types: TypeOracleName
    mypy_config_file: Path | None
    report_unused_suppressions: bool
    # With types, also report the findings that rest on no type and no preset data: reads of
    # messages whose module mypy could not find (``report-guesses``, ``--report-guesses``).
    report_guesses: bool = False
    # False with --no-project-plugins: loomlint's mypy build loads none of the plugins the
    # project's mypy configuration names (their code would run in loomlint's process).
    project_mypy_plugins: bool = True
    # No preset was configured, and ``presets`` are those the checked code's imports call for.
    presets_inferred: bool = False
    # No preset was configured and none is chosen yet: the run chooses among these from the
    # imports of the files it checks (``preset_inference.with_inferred_presets``).
    inferable_presets: tuple[Preset, ...] = ()
    # ``content-preserving``: kept to build the SPI model again with inferred presets.
    preserving: tuple[str, ...] = ()
    # The base configurations ``extend`` named, theirs included (absolute paths): read with
    # ``config_path``, so a long-running server watches them as it watches it.
    config_bases: tuple[Path, ...] = ()

    def is_code_enabled(self, code: str, path: str) -> bool:
        """Whether ``code`` is reported for ``path`` (relative to ``cwd``, or absolute)."""
        code = code.upper()
        if code not in self.enabled_codes:
            return False
        if not self.per_file_ignores:
            return True
        # Outside the project only name patterns ("__init__.py") can sensibly apply.
        relative = self.project_relative(path) or Path(path).name
        return not any(
            entry.applies_to(relative) and any(selector_matches(s, code) for s in entry.codes)
            for entry in self.per_file_ignores
        )

    def project_relative(self, path: str | Path) -> str | None:
        """``path`` relative to ``project_root`` (posix); None when it lies outside."""
        absolute = Path(os.path.normpath(self.cwd / path))
        try:
            return absolute.relative_to(self.project_root).as_posix()
        except ValueError:
            return None

    def settings_fingerprint(self) -> str:
        """A stable hash of everything that affects the diagnostics of a file (for a cache)."""
        payload = {
            "loomlint": __version__,
            "catalog": _catalog_digest(),
            "project_root": self.project_root.as_posix(),
            "enabled_codes": sorted(self.enabled_codes),
            "per_file_ignores": [(p.pattern, sorted(p.codes)) for p in self.per_file_ignores],
            "presets": [dataclasses.asdict(p) for p in self.presets],
            "spi": dataclasses.asdict(self.spi),
            # Still to be chosen by a run: the same text may be judged under other presets.
            "inferable_presets": [p.name for p in self.inferable_presets],
            "types": self.types,
            "mypy_config": _mypy_config_digest(self),
            "project_mypy_plugins": self.project_mypy_plugins,
            "report_unused_suppressions": self.report_unused_suppressions,
            "report_guesses": self.report_guesses,
        }
        text = json.dumps(payload, sort_keys=True, default=_json_default)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _json_default(value: object) -> object:
    if isinstance(value, (set, frozenset)):
        return sorted(cast("set[str]", value))
    if isinstance(value, Path):
        return value.as_posix()
    raise TypeError(f"cannot fingerprint {type(value).__name__}")


@functools.cache
def _catalog_digest() -> str:
    digest = hashlib.sha256()
    root = rules_dir()
    for path in sorted(root.rglob("*.toml")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _mypy_config_digest(settings: Settings) -> str | None:
    if settings.types == "none":
        return None
    config = settings.mypy_config_file or _discovered_mypy_config(
        settings.cwd, settings.project_root
    )
    if config is None:
        return None
    try:
        return hashlib.sha256(config.read_bytes()).hexdigest()
    except OSError:
        return None


_MYPY_CONFIG_NAMES = ("mypy.ini", ".mypy.ini", PYPROJECT, "setup.cfg")


def _discovered_mypy_config(cwd: Path, project_root: Path) -> Path | None:
    """The file mypy's own discovery would read, approximately: the first one found walking up
    from ``cwd`` to the project root that is a mypy file or mentions mypy."""
    folders = [cwd]
    if project_root in cwd.parents:
        folders.extend(cwd.parents[: cwd.parents.index(project_root) + 1])
    for folder in folders:
        for name in _MYPY_CONFIG_NAMES:
            candidate = folder / name
            try:
                data = candidate.read_bytes()
            except OSError:
                continue
            if name.endswith(".ini") or b"mypy" in data:
                return candidate
    return None


# --- loading ---------------------------------------------------------------------------------


def read_settings(
    cwd: Path, config: Path | None = None, overrides: CliOverrides | None = None
) -> Settings:
    """Find, read and validate the configuration, then apply command-line overrides.

    With no preset configured, ``presets`` is the default and ``inferable_presets`` the
    presets to infer from imports: ``settings.load_settings`` infers them from the project's
    files, ``runner.run_check`` from the files it checks.
    """
    cwd = Path(os.path.abspath(cwd))
    overrides = overrides if overrides is not None else CliOverrides()
    found: tuple[Path, _ConfigTable] | None
    if config is not None:
        config_path = Path(os.path.abspath(cwd / config))
        table = _read_config_table(config_path, cwd, explicit=True)
        assert table is not None
        found = (config_path, table)
    else:
        found = find_config(cwd)
    if found is None:
        reader = _TableReader({}, file="", prefix="")
        return _build_settings(reader, cwd, cwd, None, overrides)
    config_path, table = found
    reader = _with_bases(_reader_of(table, config_path, cwd), config_path, cwd, ())
    return _build_settings(reader, config_path.parent, cwd, config_path, overrides)


def _reader_of(table: _ConfigTable, path: Path, cwd: Path) -> _TableReader:
    reader_class = _IniReader if table.ini else _TableReader
    return reader_class(table.data, file=_display(path, cwd), prefix=table.prefix)


# Keys whose value is a path, read relative to the folder of the file that sets it.
_PATH_KEYS = ("mypy-config-file",)


def _with_bases(
    reader: _TableReader, path: Path, cwd: Path, chain: tuple[Path, ...]
) -> _TableReader:
    """``reader`` over its table merged onto the base configuration its ``extend`` names
    (Ruff's key; bases may extend others): its own keys win, key by key. Errors about a key
    name the file that set it."""
    value = reader.data.get("extend")
    if value is None:
        return reader
    if not isinstance(value, str) or not value:
        raise reader.error(
            "extend", f"expected the path of a configuration file, got {_describe(value)}"
        )
    base_path = Path(os.path.normpath(path.parent / Path(value).expanduser()))
    seen = (*chain, path)
    if base_path in seen:
        names = " -> ".join(_display(p, cwd) for p in (*seen, base_path))
        raise reader.error("extend", f"'{value}' extends this file again ({names})")
    if not base_path.is_file():
        raise reader.error("extend", f"no such file '{value}'")
    base_table = _read_config_table(base_path, cwd, explicit=True)
    assert base_table is not None
    base = _with_bases(_reader_of(base_table, base_path, cwd), base_path, cwd, seen)
    data = dict(base.data)
    for key in _PATH_KEYS:
        # Set by the base itself (its own bases' paths were resolved as theirs).
        if isinstance(data.get(key), str) and base.origin(key) == (base.file, base.prefix):
            data[key] = os.path.normpath(base_path.parent / Path(str(data[key])).expanduser())
    origins = {key: base.origin(key) for key in base.data}
    for key, own in reader.data.items():
        if key != "extend":
            data[key] = own
            origins[key] = reader.origin(key)
    data.pop("extend", None)
    merged = type(reader)(data, file=reader.file, prefix=reader.prefix)
    merged.origins = origins
    merged.bases = (base_path, *base.bases)
    return merged


@dataclass(frozen=True, slots=True)
class _ConfigTable:
    """The loomlint table of a configuration file, and the name it has there."""

    data: dict[str, object]
    prefix: str  # "tool.loomlint", "loomlint", "tool:loomlint" or "" (a loomlint.toml)
    ini: bool = False


# Besides TOML, mypy's own INI files may hold the table (as pydantic's and django-stubs'
# plugins allow), so a project configured in mypy.ini or setup.cfg needs no second file.
INI_FILES = ("mypy.ini", ".mypy.ini", "setup.cfg")
INI_SECTIONS = ("loomlint", "tool:loomlint")


def find_config(cwd: Path) -> tuple[Path, _ConfigTable] | None:
    """The nearest configuration at or above ``cwd``: its path and its loomlint table.

    In each folder: ``loomlint.toml``, else a ``pyproject.toml`` with ``[tool.loomlint]``,
    else a ``mypy.ini``, ``.mypy.ini`` or ``setup.cfg`` with ``[loomlint]`` or
    ``[tool:loomlint]``.
    """
    for directory in (cwd, *cwd.parents):
        for name in (LOOMLINT_TOML, PYPROJECT, *INI_FILES):
            candidate = directory / name
            if candidate.is_file():
                table = _read_config_table(candidate, cwd, explicit=name == LOOMLINT_TOML)
                if table is not None:
                    return candidate, table
    return None


def _read_config_table(path: Path, cwd: Path, *, explicit: bool) -> _ConfigTable | None:
    """The loomlint table of ``path``; ``None`` for a file without one, unless ``explicit``."""
    display = _display(path, cwd)
    if path.suffix in (".ini", ".cfg"):
        return _read_ini_section(path, display, explicit=explicit)
    data = _read_toml(path, display)
    if path.name != PYPROJECT:
        return _ConfigTable(data, "")
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{display}: [tool] must be a table")
    section = cast("dict[str, object]", tool).get("loomlint")
    if section is None:
        return _ConfigTable({}, "tool.loomlint") if explicit else None
    if not isinstance(section, dict):
        raise ConfigError(f"{display}: [tool.loomlint] must be a table")
    return _ConfigTable(cast("dict[str, object]", section), "tool.loomlint")


# In an INI file every key is a list (comma- or line-separated) except these.
_INI_LISTS = frozenset(CONFIG_KEYS) - {
    "extend",
    "mypy-config-file",
    "per-file-ignores",
    "report-guesses",
    "report-unused-suppressions",
    "spi",
    "types",
}
_INI_BOOLEANS = {"true": True, "yes": True, "on": True, "1": True}
_INI_BOOLEANS.update({"false": False, "no": False, "off": False, "0": False})


def _read_ini_section(path: Path, display: str, *, explicit: bool) -> _ConfigTable | None:
    """``[loomlint]`` or ``[tool:loomlint]`` of an INI file, as the TOML table it stands for:
    lists are comma- or line-separated, ``per-file-ignores`` is one ``pattern: CODES`` per
    line (flake8's shape), and keys may be spelled with ``_`` as mypy's own are."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8-sig"), source=display)
    except OSError as exc:
        raise ConfigError(f"{display}: cannot read the file: {exc.strerror or exc}") from exc
    except (configparser.Error, UnicodeDecodeError) as exc:
        raise ConfigError(f"{display}: invalid INI: {exc}") from exc
    name = next((section for section in INI_SECTIONS if parser.has_section(section)), None)
    if name is None:
        return _ConfigTable({}, INI_SECTIONS[0], ini=True) if explicit else None
    data: dict[str, object] = {}
    for raw_key, value in parser.items(name):
        key = raw_key.replace("_", "-")
        where = f"{display}: [{name}] key '{key}'"
        if key in _INI_LISTS:
            data[key] = [item.strip() for item in re.split(r"[,\n]", value) if item.strip()]
        elif key in ("report-unused-suppressions", "report-guesses"):
            if value.strip().lower() not in _INI_BOOLEANS:
                raise ConfigError(f"{where}: expected true or false, got '{value}'")
            data[key] = _INI_BOOLEANS[value.strip().lower()]
        elif key == "per-file-ignores":
            data[key] = _ini_per_file_ignores(value, where)
        elif key == "spi":
            raise ConfigError(
                f"{where}: an SPI is declared as a table, which INI cannot hold; "
                "declare it in pyproject.toml ([tool.loomlint.spi.NAME]) or loomlint.toml"
            )
        else:
            data[key] = value.strip()
    return _ConfigTable(data, name, ini=True)


def _ini_per_file_ignores(value: str, where: str) -> dict[str, object]:
    entries: dict[str, object] = {}
    for line in value.splitlines():
        if not line.strip():
            continue
        pattern, colon, codes = line.rpartition(":")
        if not colon or not pattern.strip():
            raise ConfigError(
                f"{where}: expected one 'pattern: CODES' per line, e.g. "
                f"'tests/**: LML003', got '{line.strip()}'"
            )
        entries[pattern.strip()] = [c.strip() for c in codes.split(",") if c.strip()]
    return entries


def _read_toml(path: Path, display: str) -> dict[str, object]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{display}: cannot read the file: {exc.strerror or exc}") from exc
    raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{display}: invalid TOML: line {line} is not valid UTF-8 (byte 0x{raw[exc.start]:02x})"
        ) from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{display}: invalid TOML: {exc}") from exc
    except RecursionError:
        # tomllib reads nested arrays and inline tables recursively.
        raise ConfigError(
            f"{display}: invalid TOML: it nests arrays or tables too deeply to read"
        ) from None


def _display(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


class _TableReader:
    """Typed access to one configuration table, with errors that name file, table and key."""

    def __init__(self, data: Mapping[str, object], *, file: str, prefix: str) -> None:
        self.data = data
        self.file = file
        self.prefix = prefix
        # The (file, table) each key of a merged table (``extend``) was read from.
        self.origins: dict[str, tuple[str, str]] = {}
        # The files ``extend`` merged in, nearest first.
        self.bases: tuple[Path, ...] = ()

    def origin(self, key: str) -> tuple[str, str]:
        return self.origins.get(key, (self.file, self.prefix))

    def label(self, subtable: str = "", *, key: str | None = None) -> str:
        file, prefix = self.origin(subtable.split(".")[0] if subtable else key or "")
        name = ".".join(part for part in (prefix, subtable) if part)
        return f"{file}: [{name}] " if name else f"{file}: "

    def error(self, key: str, problem: str, *, subtable: str = "") -> ConfigError:
        return ConfigError(f"{self.label(subtable, key=key)}key '{key}': {problem}")

    def example_per_file_ignores(self, pattern: str, codes: Sequence[str]) -> str:
        """One ``per-file-ignores`` entry as this file's format writes it."""
        listed = ", ".join(json.dumps(code) for code in codes)
        return f"{json.dumps(pattern)} = [{listed}]"

    def example_per_file_ignores_table(self) -> str:
        return f"per-file-ignores = {{ {self.example_per_file_ignores('tests/**', ['LML003'])} }}"

    def reject_unknown_keys(self) -> None:
        for key in self.data:
            if key in CONFIG_KEYS:
                continue
            hint = _did_you_mean(key, CONFIG_KEYS)
            raise ConfigError(f"{self.label(key=key)}unknown key '{key}' ({hint})")

    def string_list(self, key: str) -> tuple[str, ...] | None:
        if key not in self.data:
            return None
        value: object = self.data[key]
        if not _is_string_list(value):
            raise self.error(key, f"expected a list of strings, got {_describe(value)}")
        return tuple(value)

    def codes(self, key: str, known_codes: Sequence[str]) -> tuple[str, ...] | None:
        selectors = self.string_list(key)
        if selectors is None:
            return None
        _check_selectors(selectors, known_codes, lambda problem: self.error(key, problem))
        return tuple(normalize_selector(s) for s in selectors)

    def boolean(self, key: str) -> bool | None:
        value = self.data.get(key)
        if value is None or isinstance(value, bool):
            return value
        raise self.error(key, f"expected true or false, got {_describe(value)}")

    def string(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is None or isinstance(value, str):
            return value
        raise self.error(key, f"expected a string, got {_describe(value)}")

    def table(self, key: str) -> dict[str, object]:
        value = self.data.get(key, {})
        if not isinstance(value, dict):
            raise self.error(key, f"expected a table, got {_describe(value)}")
        return cast("dict[str, object]", value)


class _IniReader(_TableReader):
    """A ``[loomlint]`` section of an INI file: its examples are written as INI."""

    def example_per_file_ignores(self, pattern: str, codes: Sequence[str]) -> str:
        return f"'{pattern}: {', '.join(codes)}'"

    def example_per_file_ignores_table(self) -> str:
        return "'per-file-ignores = tests/**: LML003' (one 'pattern: CODES' per line)"


def _is_string_list(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(
        isinstance(item, str) for item in cast("list[object]", value)
    )


def _did_you_mean(key: str, known: Sequence[str]) -> str:
    spelled = key.replace("_", "-").lower()
    if spelled in known:
        return f"did you mean '{spelled}'?"
    close = difflib.get_close_matches(spelled, known, n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    return f"known keys: {', '.join(known)}"


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a float ({value})"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list with a non-string item"
    # Imported here, on an error's path: importing ``loomlint.content`` imports the whole
    # reference library, a sixth of every `loomlint check`'s start.
    from loomlint.content.words import with_article

    return with_article(type(value).__name__)


def _check_selectors(
    selectors: Sequence[str],
    known_codes: Sequence[str],
    error: _ErrorFactory,
) -> None:
    unknown = unknown_selectors(selectors, known_codes)
    if unknown:
        noun = "rule code" if len(unknown) == 1 else "rule codes"
        names = ", ".join(f"'{code}'" for code in unknown)
        raise error(f"unknown {noun} {names} (known: {', '.join(known_codes)})")


def _build_settings(
    reader: _TableReader,
    project_root: Path,
    cwd: Path,
    config_path: Path | None,
    overrides: CliOverrides,
) -> Settings:
    reader.reject_unknown_keys()
    catalog = load_catalog()
    known_codes = sorted(catalog.rules)

    file_select = reader.codes("select", known_codes)
    file_extend_select = reader.codes("extend-select", known_codes) or ()
    file_ignore = (
        *(reader.codes("ignore", known_codes) or ()),
        *(reader.codes("extend-ignore", known_codes) or ()),
    )
    cli_select = _cli_codes("--select", overrides.select, known_codes)
    cli_extend_select = _cli_codes("--extend-select", overrides.extend_select, known_codes) or ()
    cli_ignore = _cli_codes("--ignore", overrides.ignore, known_codes) or ()

    report_unused = overrides.report_unused_suppressions
    if report_unused is None:
        # Selecting LML100 by its full code asks for it, as selecting RUF100 does in Ruff.
        effective_select = cli_select if cli_select is not None else file_select
        report_unused = bool(reader.boolean("report-unused-suppressions")) or (
            UNUSED_SUPPRESSION_CODE
            in (*(effective_select or ()), *file_extend_select, *cli_extend_select)
        )

    layers = [
        SelectionLayer(select=file_select, ignore=file_ignore, extend_select=file_extend_select)
    ]
    if cli_select is not None or cli_ignore or cli_extend_select:
        layers.append(
            SelectionLayer(select=cli_select, ignore=cli_ignore, extend_select=cli_extend_select)
        )
    enabled = resolve_enabled_codes(
        known_codes,
        layers,
        report_unused_suppressions=report_unused,
        opt_in=[code for code, rule in catalog.rules.items() if rule.opt_in],
    )

    available = dict(catalog.presets)
    available.update(_user_spis(reader, catalog.presets))
    names: tuple[str, ...] | None = None
    if overrides.presets is not None:
        presets = _resolve_presets(
            overrides.presets, available, lambda p: ConfigError(f"--preset: {p}")
        )
    else:
        names = reader.string_list("preset")
        presets = _resolve_presets(
            names if names is not None else DEFAULT_PRESETS,
            available,
            lambda p: reader.error("preset", p),
        )

    accessors = _qualified_names(reader, "accessors")
    sanitizers = _qualified_names(reader, "sanitizers")
    preserving = _qualified_names(
        reader,
        "content-preserving",
        example="'myapp.store.save.body' or 'myapp.models.Record.payload'",
    )
    content_fields = _identifiers(reader, "content-fields")

    types = _type_oracle(reader)
    if overrides.no_types:
        types = "none"
    report_guesses = overrides.report_guesses
    if report_guesses is None:
        report_guesses = bool(reader.boolean("report-guesses"))

    settings = Settings(
        project_root=project_root,
        config_path=config_path,
        cwd=cwd,
        select=_effective_select(file_select, cli_select),
        ignore=frozenset((*file_ignore, *cli_ignore)),
        enabled_codes=enabled,
        per_file_ignores=_per_file_ignores(reader, known_codes),
        exclude=_exclude(reader),
        presets=presets,
        spi=build_spi_model(
            presets,
            extra_accessors=accessors,
            extra_sanitizers=sanitizers,
            extra_preserving=preserving,
            extra_content_fields=content_fields,
        ),
        accessors=accessors,
        sanitizers=sanitizers,
        content_fields=content_fields,
        preserving=preserving,
        types=types,
        mypy_config_file=_mypy_config_file(reader, project_root),
        report_unused_suppressions=report_unused,
        report_guesses=report_guesses,
        project_mypy_plugins=not overrides.no_project_plugins,
        config_bases=reader.bases,
    )
    if overrides.presets is None and names is None:
        settings = dataclasses.replace(settings, inferable_presets=tuple(available.values()))
    return settings


def _effective_select(
    file_select: tuple[str, ...] | None, cli_select: tuple[str, ...] | None
) -> frozenset[str] | None:
    chosen = cli_select if cli_select is not None else file_select
    return frozenset(chosen) if chosen is not None else None


def _cli_codes(
    option: str, values: Sequence[str] | None, known_codes: Sequence[str]
) -> tuple[str, ...] | None:
    if values is None:
        return None
    _check_selectors(values, known_codes, lambda problem: ConfigError(f"{option}: {problem}"))
    return tuple(normalize_selector(v) for v in values)


def _user_spis(reader: _TableReader, packaged: Mapping[str, Preset]) -> dict[str, Preset]:
    spis: dict[str, Preset] = {}
    for name, table in reader.table("spi").items():
        subtable = f"spi.{name}"
        if not _SPI_NAME.fullmatch(name):
            raise ConfigError(
                f"{reader.label('spi')}'{name}' is not a valid SPI name "
                "(letters, digits, '-' and '_', starting with a letter)"
            )
        if name in packaged:
            raise ConfigError(
                f"{reader.label(subtable)}the name '{name}' is taken by a built-in preset; "
                "choose another"
            )
        if not isinstance(table, dict):
            raise ConfigError(f"{reader.label(subtable)}expected a table, got {_describe(table)}")
        data = cast("dict[str, object]", table)
        declared = data.get("name", name)
        if declared != name:
            raise reader.error(
                "name", f"must be '{name}' (the table's name) if given", subtable=subtable
            )
        try:
            spis[name] = preset_from_mapping(
                {**data, "name": name}, where=reader.label(subtable).rstrip()
            )
        except CatalogError as exc:
            raise ConfigError(str(exc)) from exc
    return spis


def _resolve_presets(
    names: Sequence[str],
    available: Mapping[str, Preset],
    error: _ErrorFactory,
) -> tuple[Preset, ...]:
    resolved: dict[str, Preset] = {}
    for name in names:
        preset = available.get(name)
        if preset is None:
            raise error(f"unknown preset '{name}' (available: {', '.join(sorted(available))})")
        resolved.setdefault(name, preset)
    return tuple(resolved.values())


def _qualified_names(
    reader: _TableReader,
    key: str,
    *,
    example: str = "'package.module.function', e.g. 'myapp.text.text_of'",
) -> tuple[str, ...]:
    names = reader.string_list(key) or ()
    for name in names:
        parts = name.split(".")
        if len(parts) < 2 or not all(part.isidentifier() for part in parts):
            raise reader.error(key, f"'{name}' is not a qualified name (expected {example})")
    return names


def _identifiers(reader: _TableReader, key: str) -> tuple[str, ...]:
    names = reader.string_list(key) or ()
    for name in names:
        if not name.isidentifier():
            raise reader.error(key, f"'{name}' is not a valid Python identifier")
    return names


def _type_oracle(reader: _TableReader) -> TypeOracleName:
    value = reader.string("types")
    if value is None:
        return "mypy"
    if value not in _TYPE_ORACLES:
        choices = ", ".join(f"'{choice}'" for choice in _TYPE_ORACLES)
        raise reader.error("types", f"expected one of {choices}, got '{value}'")
    return value


def _mypy_config_file(reader: _TableReader, project_root: Path) -> Path | None:
    value = reader.string("mypy-config-file")
    if value is None:
        return None
    path = Path(os.path.normpath(project_root / Path(value).expanduser()))
    if not path.is_file():
        raise reader.error(
            "mypy-config-file", f"no such file '{value}' (relative to {project_root})"
        )
    return path


def _exclude(reader: _TableReader) -> tuple[str, ...]:
    exclude = reader.string_list("exclude")
    extend = reader.string_list("extend-exclude") or ()
    for key, patterns in (("exclude", exclude or ()), ("extend-exclude", extend)):
        refused = _check_patterns(patterns)
        if refused is not None:
            raise reader.error(key, _refusal(*refused))
    return (*(DEFAULT_EXCLUDE if exclude is None else exclude), *extend)


def _check_patterns(patterns: Sequence[str]) -> tuple[str, str | None] | None:
    """``globs.check_patterns``; no pattern matcher at all is an error of no key's."""
    try:
        return check_patterns(patterns)
    except MatcherMissing as exc:
        raise ConfigError(str(exc)) from exc


def _refusal(pattern: str, problem: str | None) -> str:
    if problem is None:
        return f"invalid pattern '{pattern}'"
    shown = pattern if len(pattern) <= 60 else pattern[:57] + "..."
    return f"pattern '{shown}' refused: {problem}"


def _per_file_ignores(
    reader: _TableReader, known_codes: Sequence[str]
) -> tuple[PerFileIgnore, ...]:
    entries: list[PerFileIgnore] = []
    value = reader.data.get("per-file-ignores", {})
    if not isinstance(value, dict):
        raise reader.error(
            "per-file-ignores",
            "expected a table of glob patterns to lists of rule codes, e.g. "
            f"{reader.example_per_file_ignores_table()}, got {_describe(value)}",
        )
    for pattern, codes in cast("dict[str, object]", value).items():

        def error(problem: str, pattern: str = pattern) -> ConfigError:
            return reader.error(pattern, problem, subtable="per-file-ignores")

        if not _is_string_list(codes):
            given = re.findall(r"[A-Za-z]+[0-9]*", codes) if isinstance(codes, str) else []
            example = reader.example_per_file_ignores(pattern, given or ["LML003"])
            raise error(f"expected a list of rule codes, e.g. {example}, got {_describe(codes)}")
        selectors = codes
        _check_selectors(selectors, known_codes, error)
        refused = _check_patterns([pattern.removeprefix("!")])
        if refused is not None:
            _, problem = refused
            raise error("invalid pattern" if problem is None else f"pattern refused: {problem}")
        entries.append(
            PerFileIgnore(
                pattern=pattern, codes=frozenset(normalize_selector(s) for s in selectors)
            )
        )
    return tuple(entries)
