"""Which presets a project needs when its configuration names none: what its code imports.

A project that imports ``langchain_core`` reads LangChain messages, whose safe accessor is
``msg.text``, not loomlint's ``text_of``; checking it with the reference SPI alone would miss
nothing syntactic but would offer the wrong fix and judge LangChain types as unknown. Every
front end (the CLI, the mypy plugin, the language server) gets its settings from
``config.load_settings``, which calls ``with_inferred_presets``: they agree by construction.

The evidence is the project's own Python files (those ``loomlint check`` walks from the project
root: ``.gitignore`` and ``exclude`` honoured), not only the files of one run, so that a
pre-commit run over three staged files and a mypy run over the whole tree choose the same
presets, and a cache keyed by them stays valid between the two.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from loomlint.catalog import Preset
from loomlint.config import DEFAULT_PRESETS, Settings
from loomlint.discovery import DiscoveryError, discover_files
from loomlint.spi import build_spi_model

# Reading every file of a huge tree for its imports would cost more than the check itself;
# past this many files the ones read decide (files are walked in a stable order).
MAX_FILES_READ = 20000


def imported_presets(sources: Iterable[bytes], presets: Mapping[str, Preset]) -> tuple[str, ...]:
    """The presets (in catalog order) one of whose ``modules`` some source imports."""
    patterns = {
        name: _import_pattern(preset.modules) for name, preset in presets.items() if preset.modules
    }
    found: set[str] = set()
    for source in sources:
        for name, pattern in patterns.items():
            if name not in found and pattern.search(source):
                found.add(name)
        if len(found) == len(patterns):
            break
    return tuple(name for name in presets if name in found)


def with_inferred_presets(settings: Settings, presets: Mapping[str, Preset]) -> Settings:
    """``settings`` with the presets the project's imports call for; the default presets when
    it imports none of their modules."""
    try:
        files = discover_files((settings.project_root,), settings).files
    except DiscoveryError:
        return settings
    chosen = imported_presets(_read(settings.cwd / f for f in files[:MAX_FILES_READ]), presets)
    if not chosen or chosen == DEFAULT_PRESETS:
        return settings  # the default: nothing to say
    # The default first: with loomlint's own SPI among them, its fix names the accessor.
    ordered = sorted(chosen, key=lambda name: name not in DEFAULT_PRESETS)
    resolved = tuple(presets[name] for name in ordered)
    return dataclasses.replace(
        settings,
        presets=resolved,
        spi=build_spi_model(
            resolved,
            extra_accessors=settings.accessors,
            extra_sanitizers=settings.sanitizers,
            extra_content_fields=settings.content_fields,
        ),
        presets_inferred=True,
    )


def inferred_presets_note(settings: Settings) -> str | None:
    """What a run says about presets it chose itself (None when they were configured, or
    when nothing was inferred and the default applies)."""
    if not settings.presets_inferred:
        return None
    names = ", ".join(p.name for p in settings.presets)
    return f"no preset configured; using {names} (from the imports of the project's code)"


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
            yield path.read_bytes()
        except OSError:
            continue
