"""Which ``[tool.loomlint]`` settings each module's findings in mypy's cache were judged under.

mypy keeps each module's errors, the plugin's findings among them, in its cache, and asks each
plugin for data to store beside them (``report_config_data``): data that differs at the next
run makes mypy check the module again. But mypy also hashes that data into the module's
interface, so data that followed loomlint's settings would make a change of one setting
re-check every module that imports a judged one; and, given for every module, every module of
the build, installed packages and typeshed included.

So the plugin stores no data with any module (None, at ``is_check=False``), and keeps its own
log, beside mypy's cache, of the settings each module it could judge was written under. When
mypy asks whether a cached module's data still holds (``is_check=True``), the plugin answers
None, the data stored, when:

- mypy reports no error in the module (an installed package, typeshed, ``ignore_errors``):
  the plugin judges nothing there, whatever the settings;
- the log says the module was last written under the current settings (their fingerprint,
  ``config.fingerprint``, loomlint's own code included), by a build that completed;
- its text names no content under the current settings, and did not under the settings it
  was written under: the plugin reported nothing then and would report nothing now.

Otherwise it answers other data, and mypy checks the module again; its interface unchanged,
no module that imports it is checked again.

The log is written ahead: a module's line is appended before mypy writes the module's cache,
naming the build that writes it; a build's lines count once the build is known to have
completed, which mypy says by writing its plugins' snapshot (last, after every module): a
snapshot newer than the one found when the build began. So a build killed halfway leaves
lines that never count, and those modules are checked again.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from dataclasses import dataclass
from typing import Any, Final, cast

from mypy.build import BuildManager, is_silent_import_module
from mypy.plugin import ReportConfigContext

from loomlint.engine.prescreen import may_hold_content
from loomlint.mypy_plugin.worker import MetastoreAt
from loomlint.project.config import Settings

LOG_FILE: Final = "loomlint-settings.jsonl"
# What the plugin answers for a module judged under other settings: any data but None.
STALE: Final = {"loomlint": "judged under other settings"}
# Lines a log may have beyond twice its entries before it is written anew, folded.
_SLACK_LINES = 256
_COMPACTED = "compacted"


@dataclass(frozen=True, slots=True)
class _Judged:
    settings: str
    # Whether the module's text named content under those settings (``may_hold_content``).
    names_content: bool


class SettingsLog:
    """The log of one mypy cache, and the plugin's answers to ``report_config_data``."""

    def __init__(self, settings: Settings, fingerprint: str) -> None:
        self._settings = settings
        self._fingerprint = fingerprint
        self._prefix: str | None = None
        self._metastore: MetastoreAt | None = None
        self._judged: dict[str, _Judged] | None = None
        self._build: str | None = None
        self._file: int | None = None

    def config_data(self, ctx: ReportConfigContext, manager: BuildManager | None) -> Any:
        if manager is None:
            # Without the build's manager nothing can be told apart: the settings themselves,
            # for every module (each change re-checks everything).
            return {"loomlint": self._fingerprint}
        options = manager.options
        if not options.incremental or options.cache_dir == os.devnull:
            return None  # no cache: nothing is checked against it
        if _silenced(ctx, manager):
            return None  # mypy reports nothing there: neither does the plugin
        if ctx.is_check:
            return None if self._stands(ctx, manager) else STALE
        self._will_write(ctx, manager)
        return None

    def _stands(self, ctx: ReportConfigContext, manager: BuildManager) -> bool:
        judged = self._log(manager).get(ctx.id)
        if judged is None:
            return False
        if judged.settings == self._fingerprint:
            return True
        return not judged.names_content and not self._names_content(ctx.path, manager)

    def _names_content(self, path: str, manager: BuildManager) -> bool:
        try:
            source = manager.fscache.read(path)
        except OSError:
            return True
        return may_hold_content(source, self._settings)

    def _will_write(self, ctx: ReportConfigContext, manager: BuildManager) -> None:
        self._log(manager)
        if self._build is None:
            self._build = secrets.token_hex(8)
            assert self._metastore is not None
            self._append({"build": self._build, "snapshot": self._metastore.snapshot_time()})
        self._append(
            {
                "module": ctx.id,
                "settings": self._fingerprint,
                "content": self._names_content(ctx.path, manager),
                "build": self._build,
            }
        )

    def _log(self, manager: BuildManager) -> dict[str, _Judged]:
        """The log's standing entries, read once (and written anew when it has grown)."""
        if self._judged is not None:
            return self._judged
        options = manager.options
        major, minor = options.python_version
        self._prefix = os.path.join(options.cache_dir, f"{major}.{minor}")
        self._metastore = MetastoreAt(self._prefix, options.sqlite_cache, options.sqlite_num_shards)
        lines = _read_lines(os.path.join(self._prefix, LOG_FILE))
        judged, abandoned = _fold(lines, self._metastore.snapshot_time())
        self._judged = judged
        if len(lines) > 2 * len(judged) + _SLACK_LINES:
            self._compact(judged)
        elif abandoned is not None:
            # Said once: a later build that writes nothing still changes the snapshot.
            self._append({"abandoned": abandoned})
        return judged

    def _append(self, line: dict[str, object]) -> None:
        assert self._prefix is not None
        try:
            if self._file is None:
                os.makedirs(self._prefix, exist_ok=True)
                self._file = os.open(
                    os.path.join(self._prefix, LOG_FILE),
                    os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                    0o644,
                )
            os.write(self._file, json.dumps(line).encode() + b"\n")
        except OSError:
            pass  # no line: that module is checked again next time

    def _compact(self, judged: dict[str, _Judged]) -> None:
        assert self._prefix is not None
        lines = [{"build": _COMPACTED}] + [
            {"module": module, "settings": j.settings, "content": j.names_content}
            | {"build": _COMPACTED}
            for module, j in sorted(judged.items())
        ]
        path = os.path.join(self._prefix, LOG_FILE)
        aside = f"{path}.{os.getpid()}.tmp"
        try:
            with open(aside, "w", encoding="utf-8") as file:
                file.writelines(json.dumps(line) + "\n" for line in lines)
            os.replace(aside, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(aside)


def _silenced(ctx: ReportConfigContext, manager: BuildManager) -> bool:
    """Whether mypy reports no error in the module: installed where mypy silences imports
    (site-packages, typeshed), unless named on its command line (an editable install puts a
    project in the first), or ``ignore_errors`` for it."""
    sources = manager.source_set
    named = ctx.id in sources.source_modules or ctx.path in sources.source_paths
    if not named and is_silent_import_module(manager, ctx.path):
        return True
    return manager.options.clone_for_module(ctx.id).ignore_errors


def _read_lines(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError):
        return []
    lines: list[dict[str, Any]] = []
    for raw in text.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # a line cut short by a kill: its build never completed anyway
        if isinstance(line, dict):
            lines.append(cast("dict[str, Any]", line))
    return lines


def _fold(
    lines: list[dict[str, Any]], snapshot_now: float | None
) -> tuple[dict[str, _Judged], str | None]:
    """The standing entries of a log, and the last build if it did not complete (to be said
    abandoned). A build completed if the snapshot found when the next build began (or now,
    for the last) differs from the one found when it began."""
    started: dict[str, object] = {}
    order: list[str] = []
    abandoned: set[str] = set()
    for line in lines:
        if "abandoned" in line:
            abandoned.add(str(line["abandoned"]))
        elif "module" not in line and isinstance(line.get("build"), str):
            build = line["build"]
            if build not in started:
                order.append(build)
            started[build] = line.get("snapshot")
    completed = {_COMPACTED}
    for index, build in enumerate(order):
        following = order[index + 1] if index + 1 < len(order) else None
        snapshot_after = started[following] if following is not None else snapshot_now
        if build not in abandoned and snapshot_after != started[build]:
            completed.add(build)
    last = order[-1] if order else None
    newly_abandoned = (
        last if last is not None and last not in completed and last not in abandoned else None
    )
    judged: dict[str, _Judged] = {}
    for line in lines:
        module, settings = line.get("module"), line.get("settings")
        if not isinstance(module, str):
            continue
        if line.get("build") in completed and isinstance(settings, str):
            judged[module] = _Judged(settings, line.get("content") is not False)
        else:
            judged.pop(module, None)  # written ahead by a build that did not complete
    return judged, newly_abandoned
