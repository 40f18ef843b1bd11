"""The settings a front end runs with: the configuration read and validated
(``config.read_settings``), and, where none is configured, the presets the project imports
(``preset_inference``). Reading the configuration knows nothing of the project's files; this
module joins the two, so that configuration, discovery and inference import one way only."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from loomlint.project.config import CliOverrides, Settings, read_settings
from loomlint.project.preset_inference import with_project_presets


def load_settings(
    cwd: Path,
    config: Path | None = None,
    overrides: CliOverrides | None = None,
    *,
    presets_from: Literal["project", "run"] = "project",
) -> Settings:
    """Find, read and validate the configuration, then apply command-line overrides.

    With no preset configured, the presets are inferred from the imports of the project's
    files, or, with ``presets_from="run"``, left for ``runner.run_check`` to infer from the
    files it checks (``inferable_presets``; ``presets`` is the default until then).
    """
    settings = read_settings(cwd, config, overrides)
    if presets_from == "run":
        return settings
    return with_project_presets(settings)
