from __future__ import annotations

from pathlib import Path

from loomlint.engine.analyze import analyze_source
from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings

REPO = Path(__file__).resolve().parents[2]
PRESET_FIXTURES = REPO / "fixtures" / "presets"


def findings_without_types(root: Path, source: str, *presets: str) -> list[tuple[int, int, str]]:
    """(line, column, code) of each finding `analyze_source` gives `source` as `app.py` in
    `root`, without types, with `presets` (none: as `root`'s configuration says). Guesses
    included: without types, a read no preset's data grounds is one (``Guess.NO_TYPES``), and
    these tests are about how the presets' data judges such reads."""
    settings = load_settings(
        root,
        overrides=CliOverrides(no_types=True, presets=presets or None, report_guesses=True),
    )
    result = analyze_source("app.py", source.encode(), settings)
    return [(d.line, d.column, d.code) for d in result.diagnostics]
