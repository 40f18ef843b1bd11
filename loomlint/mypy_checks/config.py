"""``[tool.loomlint]`` for the plugin: read once per mypy run, and fingerprinted for its cache.

The plugin reads the same configuration as ``loomlint check`` (``loomlint.config``): the
``loomlint.toml``, ``pyproject.toml`` (``[tool.loomlint]``), or ``mypy.ini`` / ``setup.cfg``
(``[loomlint]`` or ``[tool:loomlint]``) found walking up from mypy's configuration file, or
from the current directory when mypy has none. mypy stores ``fingerprint`` with every cached
module (``report_config_data``), so a change of presets, accessors, content fields or enabled
rules re-checks every module, and an unchanged one lets a warm cache replay the findings.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from mypy.nodes import TypeInfo
from mypy.options import Options
from mypy.types import AnyType, Instance, Type, get_proper_type

from loomlint import __version__
from loomlint.analysis.content_types import classify
from loomlint.analysis.typefacts import ContentKind
from loomlint.catalog import SinkCatalog, load_catalog, rules_dir
from loomlint.config import ConfigError, Settings, load_settings
from loomlint.mypy_checks.codes import RULE_BY_CATEGORY, RULES_BY_CATEGORY, Category
from loomlint.mypy_checks.support import error_line
from loomlint.mypy_checks.suppressions import FileSuppressions
from loomlint.spi import SpiModel

_PACKAGE = Path(__file__).resolve().parent.parent
# The sources whose behaviour the findings depend on: a change in any of them must not let a
# warm cache replay findings computed by the old code. (mypy itself only hashes the module
# named in ``plugins``.)
_IMPLEMENTATION = (
    "mypy_plugin.py",
    "mypy_checks",
    "analysis/content_types.py",
    "analysis/typefacts.py",
    "spi.py",
    "catalog.py",
    "config.py",
    "suppress.py",
)


class KindCache:
    """``content_types.classify`` for this SPI, remembered per type: every argument of every
    coercing call (each f-string interpolation) is classified, and most are the same few types.

    A plain class (``str``, ``int``, a dataclass) is remembered by its ``TypeInfo`` with the MRO
    it was classified with (mypy replaces the MRO list when a class's bases change, as under
    dmypy after an edit); any other type by the type itself (mypy's types hash structurally).
    """

    _LIMIT = 8192

    def __init__(self, spi: SpiModel) -> None:
        self._spi = spi
        self._by_class: dict[TypeInfo, tuple[list[TypeInfo], ContentKind]] = {}
        self._by_type: dict[Type, ContentKind] = {}

    def kind(self, typ: Type) -> ContentKind:
        proper = get_proper_type(typ)
        if isinstance(proper, Instance) and not proper.args:
            known = self._by_class.get(proper.type)
            if known is not None and known[0] is proper.type.mro:
                return known[1]
            kind = classify(proper, self._spi)
            self._by_class[proper.type] = (proper.type.mro, kind)
            return kind
        if isinstance(proper, AnyType):
            return ContentKind.ANY
        cached = self._by_type.get(typ)
        if cached is not None:
            return cached
        kind = classify(typ, self._spi)
        if len(self._by_type) >= self._LIMIT:
            self._by_type.clear()
        self._by_type[typ] = kind
        return kind


@dataclass(frozen=True, slots=True)
class PluginConfig:
    settings: Settings
    spi: SpiModel
    sinks: SinkCatalog
    fingerprint: str
    # Method names that may be an accessor of the SPI (checked on every method call).
    accessor_methods: frozenset[str]
    kinds: KindCache
    suppressions: FileSuppressions

    def reports(self, category: Category, path: str) -> bool:
        """Whether ``[tool.loomlint]`` enables the rule of ``category`` for ``path``."""
        return self.settings.is_code_enabled(RULE_BY_CATEGORY[category], os.path.abspath(path))

    def suppressed(self, category: Category, path: str, line: int) -> bool:
        """Whether a ``# loomlint: ignore`` or ``# noqa`` comment silences the finding."""
        return self.suppressions.covers(path, line, RULES_BY_CATEGORY[category])


class PluginConfigError(Exception):
    """``[tool.loomlint]`` is invalid; the message is a mypy error line naming the key."""


def load_plugin_config(options: Options) -> PluginConfig:
    """Read the configuration next to mypy's configuration file (else from the cwd), once."""
    directory = config_directory(options)
    try:
        settings = load_settings(directory)
    except ConfigError as problem:
        # loomlint.config's messages start with the file, as found from ``directory``: the
        # location goes in front instead, as in mypy's own errors.
        message = str(problem)
        named, _, rest = message.partition(": ")
        path: Path | None = None
        if rest and (directory / named).is_file():
            path, message = directory / named, rest
        key = _KEY_IN_MESSAGE.search(message)
        raise PluginConfigError(
            error_line(
                _display(path) if path is not None else None,
                f"loomlint: {message}",
                key=key.group(1) if key is not None else None,
            )
        ) from None
    return PluginConfig(
        settings=settings,
        spi=settings.spi,
        sinks=load_catalog().sinks,
        fingerprint=fingerprint(settings),
        accessor_methods=settings.spi.accessor_short_names,
        kinds=KindCache(settings.spi),
        suppressions=FileSuppressions(),
    )


# ``loomlint.config`` names the key at fault as "key 'name'" in its messages.
_KEY_IN_MESSAGE = re.compile(r"key '([^']+)'")


def _display(path: Path) -> Path:
    """``path`` relative to the current folder when below it, as mypy names files."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def config_directory(options: Options) -> Path:
    config_file = options.config_file
    if config_file:
        path = Path(os.path.abspath(config_file))
        if path.is_file():
            return path.parent
    return Path.cwd()


def fingerprint(settings: Settings) -> str:
    """A hash of everything the plugin's findings depend on, besides the checked code.

    Unlike ``Settings.settings_fingerprint`` (the LibCST cache's key) it leaves mypy's own
    configuration out: mypy tracks its options itself, and hashing the whole file would
    re-check everything whenever an unrelated section of ``pyproject.toml`` changes.
    """
    payload = {
        "loomlint": __version__,
        "implementation": _digest(_implementation_files()),
        "catalog": _digest(sorted(rules_dir().rglob("*.toml"))),
        "project_root": settings.project_root.as_posix(),
        "enabled_codes": sorted(settings.enabled_codes),
        "per_file_ignores": [(p.pattern, sorted(p.codes)) for p in settings.per_file_ignores],
        "spi": dataclasses.asdict(settings.spi),
    }
    text = json.dumps(payload, sort_keys=True, default=_json_default)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _implementation_files() -> list[Path]:
    files: list[Path] = []
    for name in _IMPLEMENTATION:
        path = _PACKAGE / name
        files.extend(sorted(path.glob("*.py")) if path.is_dir() else [path])
    return files


def _digest(paths: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest()


def _json_default(value: object) -> object:
    if isinstance(value, (set, frozenset)):
        return sorted(cast("set[str]", value))
    raise TypeError(f"cannot fingerprint {type(value).__name__}")
