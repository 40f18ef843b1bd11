"""Where a project's daemon listens, and how ``loomlint check`` asks it.

A daemon (``loomlint daemon start``) listens on a Unix-domain socket named by a hash of the
project root, in a folder only the user can enter: ``$XDG_RUNTIME_DIR/loomlint`` when that
is set, else ``loomlint-<uid>`` in the temporary folder. Nothing is trusted blindly: the
folder must be the user's own, a real folder, closed to others (mode 0700); the socket must
be the user's own socket; the daemon checks the peer's user id on Linux (``SO_PEERCRED``)
and that every file asked about lies inside its project.

The exchange is one JSON object a line. The client sends one request; the daemon says
``accepted`` at once, ``working`` every second while the check runs, then ``result`` (or
``refused`` with the reason). A daemon that is silent for ``LOOMLINT_DAEMON_TIMEOUT``
seconds (10) is given up on, and the check runs in the client's process, as does every
check the daemon refuses: a daemon can make a check faster, never different.

This module is imported by every ``loomlint check``: it stays light (no mypy, no LibCST).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import socket
import stat
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from loomlint.engine.diagnostics import (
    FileResult,
    diagnostic_from_json,
    diagnostic_to_json,
    guesses_from_json,
    guesses_to_json,
)
from loomlint.project.config import CliOverrides, Settings
from loomlint.run.cache import implementation_fingerprint

PROTOCOL = 3
# Seconds the client waits for the daemon's next word (it says `working` every second).
TIMEOUT_VARIABLE = "LOOMLINT_DAEMON_TIMEOUT"
DEFAULT_TIMEOUT = 10.0
# Set to 1, `loomlint check` never asks a daemon (the same as --no-daemon).
NO_DAEMON_VARIABLE = "LOOMLINT_NO_DAEMON"
# The largest line either side accepts (a result of every file of a large project fits).
MAX_LINE_BYTES = 256 << 20


class EndpointError(Exception):
    """No safe place for the socket, or a socket that is not to be trusted; the message
    says why (the check then runs locally)."""


def socket_folder() -> Path:
    """The user's own folder for daemon sockets, created if missing, checked always."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        folder = Path(runtime) / "loomlint"
    else:
        folder = Path(tempfile.gettempdir()) / f"loomlint-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        status = os.lstat(folder)
    except OSError as exc:
        raise EndpointError(f"cannot use '{folder}' for the daemon's socket: {exc}") from exc
    if not stat.S_ISDIR(status.st_mode):
        raise EndpointError(f"'{folder}' is not a folder (a link?): no daemon socket there")
    if status.st_uid != os.getuid():
        raise EndpointError(f"'{folder}' belongs to another user: no daemon socket there")
    if status.st_mode & 0o077:
        raise EndpointError(f"'{folder}' is open to other users: no daemon socket there")
    return folder


def socket_path(project_root: Path) -> Path:
    """The socket of the daemon for ``project_root`` (named by a hash: a socket path is
    limited to about 100 bytes)."""
    digest = hashlib.sha256(os.fsencode(os.path.realpath(project_root))).hexdigest()
    return socket_folder() / f"{digest[:24]}.sock"


def trusted_socket(path: Path) -> None:
    """Raises ``EndpointError`` unless ``path`` is a socket of this user's."""
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        raise EndpointError("no daemon runs for this project") from None
    except OSError as exc:
        raise EndpointError(f"cannot inspect the daemon's socket '{path}': {exc}") from exc
    if not stat.S_ISSOCK(status.st_mode):
        raise EndpointError(f"'{path}' is not a socket; it is not used")
    if status.st_uid != os.getuid():
        raise EndpointError(f"the socket '{path}' belongs to another user; it is not used")


def remove_stale_socket(path: Path) -> bool:
    """Remove the socket at ``path`` if it is this user's and nobody listens on it (its
    daemon was killed); whether it did. A daemon that is alive, even hung, keeps it."""
    try:
        trusted_socket(path)
    except EndpointError:
        return False
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(os.fspath(path))
    except ConnectionRefusedError:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return True
    except OSError:
        return False
    finally:
        probe.close()
    return False


@functools.cache
def environment_digest() -> str:
    """What makes two loomlint processes judge alike besides the settings: loomlint's code
    and catalog, mypy's version, and the Python environment. Taken once per process: a
    daemon compares what it runs, not what was installed after it started. (Packages
    installed into the environment meanwhile are the warm build's to notice:
    ``WarmMypy`` watches the folders mypy finds packages in.)"""
    # Imported here: ``importlib.metadata`` is slow to import, and a check only needs this
    # digest once it knows a daemon is there to ask.
    from importlib import metadata

    try:
        mypy_version = metadata.version("mypy")
    except metadata.PackageNotFoundError:
        mypy_version = "-"
    payload = [implementation_fingerprint(), mypy_version, sys.prefix, sys.version]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class CheckRequest:
    """A check of files on disk, asked of the daemon: the settings are loaded there from
    the same place, and must come out the same (``settings``, their fingerprint)."""

    cwd: str
    config: str | None
    overrides: CliOverrides
    files: tuple[str, ...]
    settings: str
    environment: str
    # The presets the client chose before the run, from more files than it checks
    # (``--shard``); None when the run chooses them from its files (or they are configured).
    presets: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "op": "check",
            "protocol": PROTOCOL,
            "cwd": self.cwd,
            "config": self.config,
            "overrides": asdict(self.overrides),
            "files": list(self.files),
            "settings": self.settings,
            "environment": self.environment,
            "presets": None if self.presets is None else list(self.presets),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckRequest:
        """Raises ``KeyError``, ``TypeError`` or ``ValueError`` on data of another shape."""
        raw = cast("dict[str, Any]", data["overrides"])
        overrides = CliOverrides(
            select=None if raw["select"] is None else tuple(map(str, raw["select"])),
            ignore=tuple(map(str, raw["ignore"])),
            extend_select=tuple(map(str, raw["extend_select"])),
            presets=None if raw["presets"] is None else tuple(map(str, raw["presets"])),
            no_types=bool(raw["no_types"]),
            report_unused_suppressions=(
                None
                if raw["report_unused_suppressions"] is None
                else bool(raw["report_unused_suppressions"])
            ),
            no_project_plugins=bool(raw["no_project_plugins"]),
            report_guesses=None if raw["report_guesses"] is None else bool(raw["report_guesses"]),
        )
        config = data["config"]
        presets = data.get("presets")
        return cls(
            cwd=str(data["cwd"]),
            config=None if config is None else str(config),
            overrides=overrides,
            files=tuple(str(f) for f in cast("list[object]", data["files"])),
            settings=str(data["settings"]),
            environment=str(data["environment"]),
            presets=None if presets is None else tuple(str(p) for p in presets),
        )


@dataclass(slots=True)
class DaemonRun:
    """A check's result as the daemon sent it (``cli.RunResult``), and how it went."""

    results: list[FileResult] = field(default_factory=list[FileResult])
    notes: list[str] = field(default_factory=list[str])
    digests: dict[str, str] = field(default_factory=dict[str, str])
    warnings: list[str] = field(default_factory=list[str])
    pid: int = 0
    seconds: float = 0.0
    # Whether the daemon had to build the project from scratch for it.
    cold: bool = False
    # The presets the daemon chose are not sent back: only `fix` reuses a run's settings,
    # and it never asks the daemon.
    settings: Settings | None = None


def file_result_to_json(result: FileResult) -> dict[str, object]:
    return {
        "path": result.path,
        "diagnostics": [diagnostic_to_json(d) for d in result.diagnostics],
        "degraded": result.degraded,
        "unresolved_imports": list(result.unresolved_imports),
        "unresolved_untyped": list(result.unresolved_untyped),
        "guesses": guesses_to_json(result.guesses),
    }


def file_result_from_json(data: Mapping[str, Any]) -> FileResult:
    return FileResult(
        path=str(data["path"]),
        diagnostics=[diagnostic_from_json(d) for d in data["diagnostics"]],
        degraded=bool(data["degraded"]),
        unresolved_imports=tuple(str(m) for m in data["unresolved_imports"]),
        unresolved_untyped=tuple(str(m) for m in data["unresolved_untyped"]),
        guesses=guesses_from_json(data["guesses"]),
    )


def encode(message: Mapping[str, object]) -> bytes:
    # ASCII: a file name's undecodable bytes (lone surrogates) travel as \\udcXX escapes.
    return json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    data: object = json.loads(line)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return cast("dict[str, Any]", data)


def exchange(path: Path, request: Mapping[str, object], timeout: float) -> dict[str, Any]:
    """Send ``request`` to the daemon at ``path``; its final answer (not ``accepted`` or
    ``working``). Raises ``EndpointError`` for anything but an answer in time."""
    trusted_socket(path)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(timeout)
    try:
        try:
            connection.connect(os.fspath(path))
        except (ConnectionRefusedError, FileNotFoundError):
            raise EndpointError("no daemon answers on its socket (a stale socket?)") from None
        connection.sendall(encode(request))
        stream = connection.makefile("rb")
        while True:
            line = stream.readline(MAX_LINE_BYTES)
            if not line.endswith(b"\n"):
                raise EndpointError("the daemon closed the connection without an answer")
            message = decode(line)
            if message.get("event") not in ("accepted", "working"):
                return message
    except TimeoutError:
        raise EndpointError(f"the daemon said nothing for {timeout:g} s; it is not used") from None
    except (OSError, ValueError) as exc:
        raise EndpointError(f"the daemon could not be asked: {exc}") from None
    finally:
        connection.close()


def client_timeout() -> float:
    try:
        return max(0.1, float(os.environ.get(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT)))
    except ValueError:
        return DEFAULT_TIMEOUT


def check_with_daemon(
    files: Sequence[str],
    settings: Settings,
    *,
    config_path: Path | None,
    overrides: CliOverrides,
) -> DaemonRun:
    """The run of ``files`` (as the command line names them) by this project's daemon, with
    every path as a local run reports it. Raises ``EndpointError`` saying why the daemon
    cannot give it (the caller then runs the check itself)."""
    if not hasattr(socket, "AF_UNIX"):
        raise EndpointError("this platform has no Unix-domain sockets")
    socket_file = socket_path(settings.project_root)
    trusted_socket(socket_file)  # no daemon, no request to make: the usual case, answered first
    absolute = {os.path.abspath(settings.cwd / path): path for path in files}
    request = CheckRequest(
        cwd=str(settings.cwd),
        config=None if config_path is None else os.path.abspath(config_path),
        overrides=overrides,
        files=tuple(absolute),
        settings=settings.settings_fingerprint(),
        environment=environment_digest(),
        # Presets already chosen (configured, or by the client from more files than it
        # checks): the daemon takes the same.
        presets=None if settings.inferable_presets else tuple(p.name for p in settings.presets),
    )
    answer = exchange(socket_file, request.to_json(), client_timeout())
    if answer.get("event") == "refused":
        raise EndpointError(f"the daemon declined: {answer.get('reason')}")
    if answer.get("event") != "result":
        raise EndpointError(f"the daemon gave no result ({answer.get('event')!r})")
    try:
        run = DaemonRun(
            results=[_as_given(file_result_from_json(r), absolute) for r in answer["results"]],
            notes=[str(note) for note in answer["notes"]],
            digests={absolute.get(str(p), str(p)): str(d) for p, d in answer["digests"].items()},
            warnings=[str(warning) for warning in answer["warnings"]],
            pid=int(answer["pid"]),
            seconds=float(answer["seconds"]),
            cold=answer.get("cold") is True,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise EndpointError(f"the daemon's answer is malformed ({exc!r})") from None
    if [r.path for r in run.results] != list(files):
        raise EndpointError("the daemon answered for other files than those asked about")
    return run


def _as_given(result: FileResult, given: Mapping[str, str]) -> FileResult:
    """The daemon checked absolute paths: each is written back as the command line named it
    (in messages too, where mypy quotes it)."""
    absolute = result.path
    path = given.get(absolute, absolute)
    return FileResult(
        path=path,
        diagnostics=[
            replace(
                d,
                path=path if d.path == absolute else d.path,
                message=d.message.replace(absolute, path),
            )
            for d in result.diagnostics
        ],
        degraded=result.degraded,
        unresolved_imports=result.unresolved_imports,
        unresolved_untyped=result.unresolved_untyped,
        guesses=result.guesses,
    )
