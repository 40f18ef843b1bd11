"""Which presets a run needs when the configuration names none: what the checked code imports.

A project that imports ``langchain_core`` reads LangChain messages, whose safe accessor is
``msg.text``, not loomlint's ``text_of``; checking it with the reference SPI alone would miss
nothing syntactic but would offer the wrong fix and judge LangChain types as unknown.

``with_inferred_presets`` is the one judgement, fed the files a front end checks:
- ``loomlint check`` and ``loomlint fix`` (``runner.run_check``): the files of the run, as the
  runner reads them to check them, so nothing is read twice and a run that checks LangChain
  code gets the LangChain preset whatever else the project holds;
- the language server and the mypy plugin (``settings.load_settings``, ``presets_from="project"``):
  the project's Python files (those ``loomlint check`` walks from the project root,
  ``.gitignore`` and ``exclude`` honoured), since their mypy build covers the project.
A run over the whole project chooses the same presets in every front end.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from loomlint.catalog.rules import Preset
from loomlint.catalog.spi import build_spi_model
from loomlint.files.reading import Unreadable, read_source
from loomlint.project.config import DEFAULT_PRESETS, Settings
from loomlint.project.discovery import DiscoveryError, discover_files

# Reading every file of a huge tree for its imports would cost more than the check itself;
# past this many files the ones read decide (files are walked in a stable order).
MAX_FILES_READ = 20000


def imported_presets(sources: Iterable[bytes], presets: Mapping[str, Preset]) -> tuple[str, ...]:
    """The presets (in catalog order) one of whose ``modules`` some source imports."""
    searches = {
        name: _ImportSearch(preset.modules) for name, preset in presets.items() if preset.modules
    }
    found: set[str] = set()
    for source in sources:
        for name, search in searches.items():
            if name not in found and search.imported_by(source):
                found.add(name)
        if len(found) == len(searches):
            break
    return tuple(name for name in presets if name in found)


def with_inferred_presets(settings: Settings, sources: Iterable[bytes]) -> Settings:
    """``settings`` with the presets ``sources`` import when no preset was configured (the
    default presets when they import none of their modules); ``settings`` as they are when
    their presets are already chosen (configured, or inferred before)."""
    if not settings.inferable_presets:
        return settings
    available = {preset.name: preset for preset in settings.inferable_presets}
    return _with_chosen(settings, imported_presets(sources, available))


def with_presets_chosen(settings: Settings, names: Sequence[str]) -> Settings:
    """``settings`` with the presets named, as ``with_inferred_presets`` gives them when
    they are the ones imported (a daemon takes so the presets its client chose before the
    run, from more files than it checks: ``--shard``)."""
    if not settings.inferable_presets:
        return settings
    available = {preset.name: preset for preset in settings.inferable_presets}
    return _with_chosen(settings, tuple(name for name in available if name in names))


def presets_of_files(settings: Settings, files: Iterable[str]) -> tuple[Settings, str | None]:
    """``chosen_presets`` fed ``files`` (relative to ``settings.cwd``) read from disk, at
    most ``MAX_FILES_READ`` of them."""
    if not settings.inferable_presets:
        return settings, None
    paths = (settings.cwd / f for f in itertools.islice(files, MAX_FILES_READ))
    return chosen_presets(settings, _read(paths))


def _with_chosen(settings: Settings, chosen: tuple[str, ...]) -> Settings:
    available = {preset.name: preset for preset in settings.inferable_presets}
    decided = dataclasses.replace(settings, inferable_presets=())
    if not chosen or chosen == DEFAULT_PRESETS:
        return decided  # the default: nothing to say
    # The default first: with loomlint's own SPI among them, its fix names the accessor.
    ordered = sorted(chosen, key=lambda name: name not in DEFAULT_PRESETS)
    resolved = tuple(available[name] for name in ordered)
    return dataclasses.replace(
        decided,
        presets=resolved,
        spi=build_spi_model(
            resolved,
            extra_accessors=settings.accessors,
            extra_sanitizers=settings.sanitizers,
            extra_preserving=settings.preserving,
            extra_content_fields=settings.content_fields,
        ),
        presets_inferred=True,
    )


def chosen_presets(settings: Settings, sources: Iterable[bytes]) -> tuple[Settings, str | None]:
    """``with_inferred_presets``, and what a run says about the presets it chose (None when
    it chose none: they were configured, chosen before, or the default)."""
    chosen = with_inferred_presets(settings, sources)
    return chosen, inferred_presets_note(chosen) if chosen is not settings else None


def with_project_presets(settings: Settings) -> Settings:
    """``with_inferred_presets`` fed the project's own Python files (at most
    ``MAX_FILES_READ``), for a front end whose build covers the project."""
    if not settings.inferable_presets:
        return settings
    try:
        files = discover_files((settings.project_root,), settings).files
    except DiscoveryError:
        return dataclasses.replace(settings, inferable_presets=())
    return with_inferred_presets(settings, _read(settings.cwd / f for f in files[:MAX_FILES_READ]))


def inferred_presets_note(settings: Settings) -> str | None:
    """What a run says about presets it chose itself (None when they were configured, or
    when nothing was inferred and the default applies)."""
    if not settings.presets_inferred:
        return None
    names = ", ".join(p.name for p in settings.presets)
    return f"no preset configured; using {names} (from the imports of the checked files)"


class _ImportSearch:
    """Whether a source imports one of some modules."""

    def __init__(self, modules: Sequence[str]) -> None:
        # A module's name is in every source that imports it: most sources lack all of them,
        # and a substring test is far cheaper than the statement pattern.
        # (A name that holds another, `langchain_core` beside `langchain`, adds no test.)
        names = {m.encode() for m in modules}
        self._names = tuple(sorted(n for n in names if not any(o != n and o in n for o in names)))
        self._pattern = _import_pattern(modules)

    def imported_by(self, source: bytes) -> bool:
        return any(name in source for name in self._names) and bool(self._pattern.search(source))


def _import_pattern(modules: Sequence[str]) -> re.Pattern[bytes]:
    # `import m`, `import m.sub`, `from m import x`, `from m.sub import x`, also indented (an
    # import inside a function) and after `import a, ` on the same line.
    names = b"|".join(re.escape(m.encode()) for m in sorted(modules, key=len, reverse=True))
    return re.compile(
        rb"^[ \t]*(?:from[ \t]+(?:" + names + rb")(?:\.[\w.]+)?[ \t]+import\b"
        rb"|import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*(?:" + names + rb")"
        rb"(?:\.\w[\w.]*)?\b)",
        re.MULTILINE,
    )


def _read(paths: Iterable[Path]) -> Iterable[bytes]:
    for path in paths:
        try:
            yield read_source(str(path))
        except Unreadable:
            continue  # the check reports it
