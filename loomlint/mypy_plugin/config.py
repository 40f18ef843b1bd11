"""``[tool.loomlint]`` for the plugin: read once per mypy run, and fingerprinted for its cache.

The plugin reads the same configuration as ``loomlint check`` (``loomlint.project.config``): the
``loomlint.toml``, ``pyproject.toml`` (``[tool.loomlint]``), or ``mypy.ini`` / ``setup.cfg``
(``[loomlint]`` or ``[tool:loomlint]``) found walking up from mypy's configuration file, or
from the current directory when mypy has none. The settings log beside mypy's cache
(``settings_log``) keeps ``fingerprint`` for each module the plugin judges, so that a change of
presets, accessors, content fields or enabled rules re-checks those modules, and an unchanged
one lets a warm cache replay the findings.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from mypy.options import Options

import loomlint
from loomlint import __version__
from loomlint.catalog.rules import rules_dir
from loomlint.mypy_plugin.support import error_line
from loomlint.project.config import ConfigError, Settings
from loomlint.project.settings import load_settings

_PACKAGE = Path(loomlint.__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class PluginConfig:
    settings: Settings
    fingerprint: str


class PluginConfigError(Exception):
    """``[tool.loomlint]`` is invalid; the message is a mypy error line naming the key."""


def load_plugin_config(options: Options) -> PluginConfig:
    """Read the configuration next to mypy's configuration file (else from the cwd), once."""
    directory = config_directory(options)
    try:
        settings = load_settings(directory)
    except ConfigError as problem:
        # loomlint.project.config's messages start with the file, as found from ``directory``: the
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
    return PluginConfig(settings=settings, fingerprint=fingerprint(settings))


# ``loomlint.project.config`` names the key at fault as "key 'name'" in its messages.
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
    re-check the judged modules whenever an unrelated section of ``pyproject.toml`` changes.
    """
    payload = {
        "loomlint": __version__,
        "implementation": implementation_digest(),
        "catalog": _digest(sorted(rules_dir().rglob("*.toml"))),
        "project_root": settings.project_root.as_posix(),
        "enabled_codes": sorted(settings.enabled_codes),
        "per_file_ignores": [(p.pattern, sorted(p.codes)) for p in settings.per_file_ignores],
        "spi": dataclasses.asdict(settings.spi),
        "report_guesses": settings.report_guesses,
    }
    text = json.dumps(payload, sort_keys=True, default=_json_default)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.cache
def implementation_digest() -> str:
    """A digest of loomlint's own code: the findings come from all of it (the engine, the
    catalog, the SPI model, the configuration), so a change anywhere in it must not let a warm
    cache replay findings the old code computed. By content, not by modification time, so that
    reinstalling the same code leaves mypy's cache valid. (mypy itself only hashes the module
    named in ``plugins``.)"""
    return _digest(sorted(_PACKAGE.rglob("*.py")))


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
