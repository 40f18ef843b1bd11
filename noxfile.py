"""The test suite on every Python the package claims (3.10 to 3.13), one virtualenv each.

    nox -s tests-3.10 tests-3.13      # what .ci/run runs beside README's own test command
    nox -s tests-3.12 -- -k daemon    # arguments after -- go to pytest

Each session installs the project and its test dependencies (with uv, or pip where uv is
missing) from wheels only (``--only-binary=:all:``): a dependency without a wheel for that
Python fails the install, named, instead of building from source. A Python that is not on the
machine is skipped, with nox's note naming it ("Python interpreter 3.10 not found"), on CI too.

Interpreters are looked for on ``PATH`` (``python3.10``...), pyenv's shims included: the
claimed versions installed under ``$(pyenv root)/versions`` are selected for this run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import nox

PYTHONS = ["3.10", "3.11", "3.12", "3.13"]

# uv makes and fills a session's virtualenv in some 18 CPU-seconds where venv and pip take 31
# (it is in the dev extra, beside nox); without uv, venv and pip do it.
nox.options.default_venv_backend = "uv|venv"
# nox fails a missing interpreter when CI is set; a Python absent here is skipped, with its note.
nox.options.error_on_missing_interpreters = False
nox.options.sessions = ["tests"]
# Only the interpreters on the machine: none is downloaded.
nox.options.download_python = "never"


def _let_pyenv_shims_answer() -> None:
    """pyenv's shims (``python3.10`` on PATH) run only the versions pyenv selects: the
    newest installed patch release of each claimed Python is selected too, after the
    versions selected already (which keep ``python3``)."""
    if shutil.which("pyenv") is None:
        return
    done = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=False)
    versions = Path(done.stdout.strip()) / "versions"
    if done.returncode != 0 or not versions.is_dir():
        return
    selected = subprocess.run(
        ["pyenv", "version-name"], capture_output=True, text=True, check=False
    ).stdout.strip()
    names = [name for name in selected.split(":") if name]
    for python in PYTHONS:
        releases = [
            entry.name
            for entry in versions.iterdir()
            if re.fullmatch(rf"{re.escape(python)}\.\d+", entry.name)
            and (entry / "bin" / f"python{python}").exists()
        ]
        if releases:
            names.append(max(releases, key=lambda name: int(name.rsplit(".", 1)[1])))
    os.environ["PYENV_VERSION"] = ":".join(dict.fromkeys(names))


_let_pyenv_shims_answer()


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The whole suite (README's test command) on one Python."""
    if session.venv_backend == "uv":
        # pip compiles what it installs to bytecode, uv only when told: without it every
        # process the suite starts (mypy, loomlint check, the daemon, pre-commit) would compile
        # its imports again (PYTHONDONTWRITEBYTECODE on these machines).
        install = ["--compile-bytecode"]
    else:
        session.install("--quiet", "--upgrade", "pip")
        install = []
    session.install("--quiet", "--only-binary=:all:", *install, "-e", ".[dev]")
    session.run("python", "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", *session.posargs)
