"""When the plugin cannot run: an unsupported mypy, or a bad ``[tool.loomlint]``.

Either is reported as a normal mypy error at the configuration line at fault, and mypy exits
with status 2, as for its own configuration errors. Raising from the plugin's entry point or
constructor would not do that: mypy prints "Error constructing plugin instance" and a
traceback, and under dmypy a plugin that fails while the daemon re-loads plugins (it does on
every ``dmypy run``) crashes the daemon. So the problem is raised as a ``CompileError`` (what
mypy's own ``plugin_error`` raises) the first time mypy asks the plugin anything during a
build, where mypy and the daemon both turn it into an error message and exit status 2.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final, NoReturn

from mypy.errors import CompileError
from mypy.plugin import Plugin, ReportConfigContext

# The mypy versions the plugin was verified on, [first, last): it reads each checked module's
# types from mypy's build state when mypy calls ``get_additional_indirect_deps`` (see
# ``run.checked_modules``), which no plugin API promises.
SUPPORTED_MYPY: Final = ((2, 4), (3, 0))
SUPPORTED_MYPY_TEXT: Final = "mypy>=2.4,<3"
_VERSION = re.compile(r"(\d+)\.(\d+)")


class UnsupportedMypyError(RuntimeError):
    """The running mypy is not one the plugin supports. The message says which are."""


def mypy_version_supported(version: str) -> bool:
    """Whether ``version`` (mypy's ``__version__``, e.g. ``2.4.1`` or ``2.5.0+dev.abc``) is
    in ``SUPPORTED_MYPY``."""
    match = _VERSION.match(version)
    if match is None:
        return False
    found = (int(match.group(1)), int(match.group(2)))
    first, last = SUPPORTED_MYPY
    return first <= found < last


def check_supported(version: str) -> None:
    """Raise ``UnsupportedMypyError`` unless this mypy can run the plugin."""
    if not mypy_version_supported(version):
        raise UnsupportedMypyError(
            f"loomlint's mypy plugin supports {SUPPORTED_MYPY_TEXT}, but this is mypy {version}. "
            f"Install a supported mypy (pip install '{SUPPORTED_MYPY_TEXT}'), or remove "
            "'loomlint.mypy_plugin' from mypy's plugins and run 'loomlint check' instead."
        )


def error_line(path: Path | None, message: str, *, key: str | None = None) -> str:
    """``message`` as mypy prints an error: ``path:line: error: message``, at ``key``'s line
    in ``path`` when it is found there (else the first line)."""
    if path is None:
        return f"error: {message}"
    line = _key_line(path, key) if key is not None else 1
    return f"{path}:{line}: error: {message}"


def _key_line(path: Path, key: str) -> int:
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return 1
    return next((n for n, text in enumerate(lines, start=1) if pattern.match(text)), 1)


class RefusingPlugin(Plugin):
    """A plugin that cannot run: raises its ``problem`` as a mypy error (exit status 2) at the
    first question mypy asks it during a build, at ``key``'s line of mypy's configuration."""

    problem: str = ""
    key: str | None = None

    def refuse(self) -> NoReturn:
        config = self.options.config_file
        path = Path(config) if config else None
        raise CompileError([error_line(path, self.problem, key=self.key)], use_stdout=False)

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        self.refuse()

    def get_additional_deps(self, file: Any) -> list[tuple[int, str, int]]:
        self.refuse()


def refusing_plugin(problem: str, *, key: str | None = None) -> type[Plugin]:
    """A ``RefusingPlugin`` class for ``problem`` (mypy's entry point returns a class)."""
    return type("LoomlintPluginUnavailable", (RefusingPlugin,), {"problem": problem, "key": key})
