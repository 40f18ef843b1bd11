"""Findings loomlint's mypy plugin hands to the ``loomlint check`` build it runs inside.

When the project's mypy configuration names ``loomlint.mypy_plugin``, ``loomlint check``'s own
mypy build loads it too: mypy's cache must record the plugin's findings for every module the
build checks, or the user's next ``mypy`` run, finding those modules fresh, would replay them
without. So the plugin judges those modules there as it does in any mypy run, and hands each
result here (``collecting``, set by the oracle around its build); the run takes it instead of
judging the file a second time, when the plugin judged the same bytes under the same settings.
The plugin records nothing in the result cache inside such a build: the run does.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Generator
from dataclasses import dataclass

from loomlint.engine.diagnostics import FileResult


@dataclass(frozen=True, slots=True)
class PluginResult:
    settings_fingerprint: str
    source_digest: str
    result: FileResult


class PluginResults:
    """The plugin's results of one build, by absolute path."""

    def __init__(self) -> None:
        self._results: dict[str, PluginResult] = {}

    def put(self, path: str, found: PluginResult) -> None:
        self._results[path] = found

    def take(self, path: str) -> PluginResult | None:
        return self._results.pop(path, None)


_CURRENT: contextvars.ContextVar[PluginResults | None] = contextvars.ContextVar(
    "loomlint_plugin_results", default=None
)


@contextlib.contextmanager
def collecting(results: PluginResults) -> Generator[None, None, None]:
    """Around a build of loomlint's: the plugin hands its results to ``results``."""
    token = _CURRENT.set(results)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> PluginResults | None:
    """The results of the loomlint build this code runs inside; None in any other mypy run."""
    return _CURRENT.get()
