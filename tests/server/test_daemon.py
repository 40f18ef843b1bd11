"""The real `loomlint daemon`, asked by the real `loomlint check`: the same report byte for
byte as a check in its own process, in every format; it follows edits on disk; and a dead,
stale, hung or foreign daemon leaves `check` working as without one."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import langchain_sample
import pytest
from daemon_harness import ANSWERED, LOOMLINT, Daemon, loomlint, wait_gone
from daemon_harness import daemon_env as _env
from daemon_harness import runtime as runtime  # a fixture
from lsp_harness import Session, summary
from mypy_caches import MypyCaches

pytestmark = pytest.mark.slow

CONFIG_MYPY = "strict = true\n"
CONFIG = f"""\
[tool.loomlint]
per-file-ignores = {{ "tests/*" = ["LML003"] }}

[tool.mypy]
{CONFIG_MYPY}"""

HELPERS = """\
from loomlint.content import LlmMessage


def body(message: LlmMessage) -> str:
    return "x"
"""

HELPERS_RETURNING_CONTENT = """\
from loomlint.content import Content, LlmMessage


def body(message: LlmMessage) -> Content:
    return message.content
"""

APP = """\
from loomlint.content import LlmMessage

from pkg.helpers import body


def show(message: LlmMessage) -> str:
    return body(message).strip()


def shout(message: LlmMessage) -> str:
    return str(message.content)
"""

TEST_FILE = """\
from loomlint.content import LlmMessage


def check(message: LlmMessage) -> str:
    return f"{message.content}" + message.content.strip()
"""

SHOUT = (
    "pkg/app.py:11:16: LML003 [*] content of `message` is coerced to str by str(); "
    "use text_of(...)\n"
)
SHOW = (
    "pkg/app.py:7:12: LML001 `body(message)` (typed as message content) is used as one branch "
    "by `.strip()`, but it may be a list of parts; narrow it with isinstance() first, or use "
    "text_of(...)\n"
)
STRIP_IN_TEST = (
    "tests/test_app.py:5:35: LML001 content of `message` is used as one branch by `.strip()`, "
    "but it may be a list of parts; narrow it with isinstance() first, or use text_of(...)\n"
)
EVERYTHING = SHOUT + STRIP_IN_TEST + "Found 2 findings (1 fixable with `loomlint fix`).\n"


def make_project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text(CONFIG)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text(HELPERS)
    (root / "pkg" / "app.py").write_text(APP)
    (root / "tests" / "test_app.py").write_text(TEST_FILE)
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


@pytest.fixture(autouse=True)
def check_mypy_cache(
    mypy_caches: MypyCaches, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The mypy cache of the tests' checks in their own process (``--no-daemon``, or where no
    daemon answers): typeshed and ``loomlint.content`` as CONFIG's ``[tool.mypy]`` builds them,
    from the session's template, so that a check here is not a cold build. The daemon keeps
    no mypy cache: its warm-up is its own."""
    cache = mypy_caches.copy(tmp_path_factory.mktemp("check-mypy-cache"), mypy=CONFIG_MYPY)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MYPY_CACHE_DIR", str(cache))
        yield cache


class Shared(NamedTuple):
    project: Path
    runtime: Path
    daemon: Daemon


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    """One project and its daemon for the tests that change nothing in the project: each
    start costs a process and a warm-up build."""
    root = make_project(tmp_path_factory.mktemp("shared") / "project")
    with tempfile.TemporaryDirectory(prefix="ll-") as folder:
        os.chmod(folder, 0o700)
        running = Daemon(root, Path(folder))
        try:
            yield Shared(root, Path(folder), running)
        finally:
            running.stop()


@pytest.fixture
def daemon(project: Path, runtime: Path) -> Iterator[Daemon]:
    running = Daemon(project, runtime)
    try:
        yield running
    finally:
        running.stop()


def socket_of(runtime: Path) -> Path:
    (path,) = (runtime / "loomlint").glob("*.sock")
    return path


@pytest.mark.parametrize(
    "args",
    [
        ("--format", "text"),
        ("--format", "json"),
        ("--format", "sarif"),
        ("--format", "github"),
        ("--format", "gitlab"),
        ("--format", "junit"),
        ("--format", "text", "--show-fixes", "--statistics"),
        ("--format", "text", "--select", "LML001", "pkg"),
        ("--format", "json", "--exit-zero"),
    ],
)
def test_the_daemon_gives_the_report_of_a_local_check_byte_for_byte(
    shared: Shared, args: tuple[str, ...]
) -> None:
    project, runtime, _ = shared
    via_daemon = loomlint(project, runtime, "check", "-v", *args)
    local = loomlint(project, runtime, "check", "--no-daemon", "--no-cache", *args)
    assert ANSWERED in via_daemon.stderr
    assert via_daemon.stdout == local.stdout
    assert via_daemon.returncode == local.returncode
    assert via_daemon.stdout


def test_the_text_report_is_the_expected_one_from_the_project_and_from_a_subfolder(
    shared: Shared,
) -> None:
    project, runtime, _ = shared
    done = loomlint(project, runtime, "check", "-v")
    assert ANSWERED in done.stderr
    assert done.returncode == 1
    assert done.stdout == (EVERYTHING)
    in_subfolder = loomlint(project / "pkg", runtime, "check", "-v", ".", "../tests")
    assert ANSWERED in in_subfolder.stderr
    # A file outside the current folder is reported by its absolute path, as ever.
    assert in_subfolder.stdout == (
        STRIP_IN_TEST.replace("tests/", f"{project}/tests/", 1)
        + SHOUT.replace("pkg/", "")
        + "Found 2 findings (1 fixable with `loomlint fix`).\n"
    )
    local = loomlint(
        project / "pkg", runtime, "check", "--no-daemon", "--no-cache", ".", "../tests"
    )
    assert local.stdout == in_subfolder.stdout


def test_the_daemon_follows_edits_on_disk(project: Path, runtime: Path, daemon: Daemon) -> None:
    assert loomlint(project, runtime, "check", "pkg").stdout.startswith(SHOUT)
    # A dependency's interface changes: the unchanged file that uses it is judged again.
    (project / "pkg" / "helpers.py").write_text(HELPERS_RETURNING_CONTENT)
    done = loomlint(project, runtime, "check", "-v", "pkg")
    assert ANSWERED in done.stderr
    assert done.stdout == SHOW + SHOUT + "Found 2 findings (1 fixable with `loomlint fix`).\n"
    # The finding is fixed in the file itself.
    (project / "pkg" / "app.py").write_text(APP.replace("str(message.content)", '"y"'))
    done = loomlint(project, runtime, "check", "-v", "pkg")
    assert ANSWERED in done.stderr
    assert done.stdout == SHOW + "Found 1 finding.\n"
    # Back again: the dependency no longer returns content.
    (project / "pkg" / "helpers.py").write_text(HELPERS)
    done = loomlint(project, runtime, "check", "-v", "pkg")
    assert ANSWERED in done.stderr
    assert (done.stdout, done.returncode) == ("All checks passed.\n", 0)
    local = loomlint(project, runtime, "check", "--no-daemon", "--no-cache", "pkg")
    assert (local.stdout, local.returncode) == ("All checks passed.\n", 0)


def test_a_killed_daemon_leaves_a_stale_socket_and_check_works_without_it(
    project: Path, runtime: Path, daemon: Daemon
) -> None:
    os.kill(daemon.pid, signal.SIGKILL)
    wait_gone(daemon.pid)
    assert socket_of(runtime).exists()
    done = loomlint(project, runtime, "check", "-v")
    assert "note: daemon: no daemon answers on its socket (a stale socket?); checking here" in (
        done.stderr
    )
    assert done.stdout == EVERYTHING
    assert done.returncode == 1
    # A new daemon replaces the stale socket.
    again = Daemon(project, runtime)
    try:
        assert ANSWERED in loomlint(project, runtime, "check", "-v").stderr
    finally:
        again.stop()


def test_a_hung_daemon_is_given_up_on(project: Path, runtime: Path, daemon: Daemon) -> None:
    os.kill(daemon.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        done = loomlint(project, runtime, "check", "-v", LOOMLINT_DAEMON_TIMEOUT="1")
        assert time.monotonic() - started < 60
    finally:
        os.kill(daemon.pid, signal.SIGCONT)
    assert "note: daemon: the daemon said nothing for 1 s; it is not used; checking here" in (
        done.stderr
    )
    assert done.stdout == EVERYTHING


def test_no_daemon_and_its_variable_check_here(shared: Shared) -> None:
    project, runtime, _ = shared
    flag = loomlint(project, runtime, "check", "-v", "--no-daemon")
    assert "note: daemon: not asked (--no-daemon); checking here" in flag.stderr
    variable = loomlint(project, runtime, "check", "-v", LOOMLINT_NO_DAEMON="1")
    assert "note: daemon: not asked (LOOMLINT_NO_DAEMON is set); checking here" in (variable.stderr)
    untyped = loomlint(project, runtime, "check", "-v", "--no-types")
    assert "a check without types has no warm types to use" in untyped.stderr
    for done in (flag, variable):
        assert done.stdout == (EVERYTHING)


def test_the_daemon_declines_files_outside_its_project(shared: Shared, tmp_path: Path) -> None:
    project, runtime, _ = shared
    outside = tmp_path / "outside.py"
    outside.write_text(
        "from loomlint.content import LlmMessage\n\n\n"
        "def shout(message: LlmMessage) -> str:\n"
        "    return str(message.content)\n"
    )
    done = loomlint(project, runtime, "check", "-v", "pkg/app.py", str(outside))
    assert f"note: daemon: the daemon declined: '{outside}' is outside its project" in (done.stderr)
    assert done.stdout == (
        SHOUT.replace("pkg/app.py:11:", f"{outside}:5:")
        + SHOUT
        + "Found 2 findings (2 fixable with `loomlint fix`).\n"
    )


def test_without_a_daemon_check_says_so_under_verbose(project: Path, runtime: Path) -> None:
    done = loomlint(project, runtime, "check", "-v")
    assert "note: daemon: no daemon runs for this project; checking here" in done.stderr
    assert done.stdout == EVERYTHING
    status = loomlint(project, runtime, "daemon", "status")
    assert (status.stdout, status.returncode) == (f"no loomlint daemon runs for {project}\n", 1)


def test_a_socket_that_is_not_trusted_is_not_used(project: Path, runtime: Path) -> None:
    folder = runtime / "loomlint"
    loomlint(project, runtime, "daemon", "status")  # creates the folder
    path = folder / (_socket_name(project, runtime) + ".sock")
    path.write_text("")
    done = loomlint(project, runtime, "check", "-v")
    assert f"note: daemon: '{path}' is not a socket; it is not used; checking here" in (done.stderr)
    path.unlink()
    if os.getuid() == 0:  # only root can give a socket away
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen()
        try:
            os.chown(path, 54321, -1)
            done = loomlint(project, runtime, "check", "-v")
            assert (
                f"note: daemon: the socket '{path}' belongs to another user; it is not used"
                in done.stderr
            )
        finally:
            listener.close()
    os.chmod(folder, 0o755)
    done = loomlint(project, runtime, "check", "-v")
    assert f"note: daemon: '{folder}' is open to other users: no daemon socket there" in (
        done.stderr
    )
    assert done.stdout == EVERYTHING


def _socket_name(project: Path, runtime: Path) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from loomlint.server.endpoint import "
            "socket_path; print(socket_path(Path(sys.argv[1])).stem)",
            str(project),
        ],
        env=_env(runtime),
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_the_language_server_answers_check_with_the_files_on_disk(
    project: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    asyncio.run(_editor_and_terminal(project, runtime))


async def _editor_and_terminal(project: Path, runtime: Path) -> None:
    app = project / "pkg" / "app.py"
    async with Session(project) as session:
        # The editor holds a fix of the finding, not saved.
        session.open(app, APP.replace("str(message.content)", '"y"'))
        await session.diagnostics(app, lambda p: p.version == 1)
        done = await asyncio.to_thread(loomlint, project, runtime, "check", "-v", "pkg")
        assert ANSWERED in done.stderr
        # The file on disk is judged, not the buffer.
        assert done.stdout == SHOUT + "Found 1 finding (1 fixable with `loomlint fix`).\n"
        # A dependency changed on disk reaches the check, and then the editor.
        (project / "pkg" / "helpers.py").write_text(HELPERS_RETURNING_CONTENT)
        done = await asyncio.to_thread(loomlint, project, runtime, "check", "-v", "pkg")
        assert ANSWERED in done.stderr
        assert done.stdout == SHOW + SHOUT + "Found 2 findings (1 fixable with `loomlint fix`).\n"
        version = session.replace(app, APP.replace("str(message.content)", '"z"'))
        typed = await session.diagnostics(
            app, lambda p: p.version == version and len(p.diagnostics) == 1
        )
        assert summary(typed) == [("LML001", 6, 11, 6, 24)]
        done = await asyncio.to_thread(loomlint, project, runtime, "check", "-v", "pkg")
        assert done.stdout == SHOW + SHOUT + "Found 2 findings (1 fixable with `loomlint fix`).\n"
    # The server's socket goes with it: check runs in its own process again.
    done = loomlint(project, runtime, "check", "-v", "pkg")
    assert "note: daemon: no daemon runs for this project; checking here" in done.stderr


def test_a_daemon_running_other_loomlint_code_declines(shared: Shared, tmp_path: Path) -> None:
    project, runtime, _ = shared
    # Another copy of loomlint (an editable install edited since the daemon started, say):
    # its code may judge otherwise, so the daemon declines and the check runs here.
    spec = importlib.util.find_spec("loomlint")
    assert spec is not None and spec.origin is not None
    package = Path(spec.origin).parent
    other = tmp_path / "other-loomlint"
    shutil.copytree(package, other / "loomlint", copy_function=shutil.copy)  # new mtimes
    shutil.copytree(package.parent / "rules", other / "rules", copy_function=shutil.copy)
    done = loomlint(project, runtime, "check", "-v", PYTHONPATH=str(other))
    assert (
        "note: daemon: the daemon declined: it runs another loomlint, mypy or Python "
        "environment (restart it: loomlint daemon stop; loomlint daemon start); checking here"
    ) in done.stderr
    assert done.stdout == EVERYTHING
    assert ANSWERED in loomlint(project, runtime, "check", "-v").stderr


def test_a_file_mypy_re_processed_keeps_its_result_when_its_types_did_not_change(
    project: Path, runtime: Path
) -> None:
    # The daemon's timings (in its log) say how many files each check analysed.
    started = loomlint(project, runtime, "daemon", "start", LOOMLINT_TIMINGS="1")
    assert started.returncode == 0, started.stderr
    pid = int(started.stdout.split()[3])
    try:
        assert loomlint(project, runtime, "check", "-v", "pkg").stdout.startswith(SHOUT)
        # A new parameter name: mypy re-processes `show` in app.py, whose types stay.
        (project / "pkg" / "helpers.py").write_text(HELPERS.replace("(message:", "(msg:"))
        done = loomlint(project, runtime, "check", "-v", "pkg")
        assert ANSWERED in done.stderr
        assert done.stdout == SHOUT + "Found 1 finding (1 fixable with `loomlint fix`).\n"
        (log,) = (runtime / "loomlint").glob("*.log")
        planned = [
            line.split("planned: ")[1]
            for line in log.read_text().splitlines()
            if "planned: " in line
        ]
        # The warm-up, the first check (nothing to analyse), then only helpers.py.
        assert planned[-1] == "1 files to analyse"
    finally:
        loomlint(project, runtime, "daemon", "stop")
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_the_warm_up_succeeds_and_the_daemon_chooses_presets_as_a_local_check_does(
    project: Path, runtime: Path
) -> None:
    # The LangChain file is there before the daemon starts: its warm-up builds LangChain's
    # types once (an update that adds them costs several times a cold build).
    (project / "pkg" / "chat.py").write_text(langchain_sample.APP)
    running = Daemon(project, runtime)
    try:
        # Asked at once, each check waits for the warm-up, which built the project's types:
        # none is a cold start, whatever presets its files choose. A shard's presets are the
        # whole run's: the daemon takes those its client chose.
        reports: dict[tuple[str, ...], tuple[str, str]] = {}
        for args in ((), ("pkg/chat.py",), ("pkg/app.py",), ("--shard", "1/2"), ("--shard", "2/2")):
            done = loomlint(project, runtime, "check", "-v", *args)
            lines = done.stderr.splitlines(keepends=True)
            (answered,) = (line for line in lines if line.startswith(ANSWERED))
            # no "(a cold start: ...)"; the daemon's log says why it built again
            assert answered.endswith(" s\n"), (answered, running.log())
            local = loomlint(project, runtime, "check", "--no-daemon", "--no-cache", *args)
            assert (done.stdout, done.returncode) == (local.stdout, local.returncode)
            reports[args] = (local.stdout, local.stderr)
            assert "".join(line for line in lines if line != answered) == local.stderr
        for args, presets in ((("pkg/chat.py",), "langchain"), ((), "loom, langchain")):
            stdout, stderr = reports[args]
            assert stderr == (
                f"note: no preset configured; using {presets} (from the imports of the checked "
                "files)\n"
            )
            assert "chat.py:5:31: LML003 [*] content of `reply`" in stdout
        log = running.log()
        assert "warm-up failed" not in log
        assert "loomlint daemon: warmed up: 5 files checked in " in log
    finally:
        running.stop()


def test_a_package_installed_while_the_daemon_runs_is_found(tmp_path: Path, runtime: Path) -> None:
    # A folder on the Python path where mypy looks for packages, as site-packages is.
    site = tmp_path / "site"
    site.mkdir()
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.loomlint]\n")
    (root / "show.py").write_text(
        "from notes import Note\n\n\ndef show(note: Note) -> str:\n    return str(note.content)\n"
    )
    # The project's own folder is on the path too, as an editable install puts it.
    path = [str(site), str(root), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {"PYTHONPATH": os.pathsep.join(path), "MYPY_CACHE_DIR": str(tmp_path / "mypy-cache")}
    running = Daemon(root, runtime, **env)
    try:
        before = loomlint(root, runtime, "check", "-v", **env)
        assert ANSWERED in before.stderr
        assert "warning: mypy could not find notes, which defines the messages read" in (
            before.stderr
        )
        # An entry no import can name (a tool's cache, a virtualenv made beside the packages)
        # changes nothing mypy finds: the warm build answers.
        (site / ".ruff_cache").mkdir()
        cached = loomlint(root, runtime, "check", "-v", **env)
        answered = [line for line in cached.stderr.splitlines() if line.startswith(ANSWERED)]
        assert len(answered) == 1 and answered[0].endswith(" s"), answered  # not a cold start
        assert (cached.stdout, _without_answered(cached.stderr)) == (
            before.stdout,
            _without_answered(before.stderr),
        )
        (site / "notes").mkdir()
        (site / "notes" / "__init__.py").write_text("class Note:\n    content: str\n")
        (site / "notes" / "py.typed").write_text("")
        after = loomlint(root, runtime, "check", "-v", **env)
        local = loomlint(root, runtime, "check", "--no-daemon", "--no-cache", **env)
        assert (local.stdout, local.stderr, local.returncode) == ("All checks passed.\n", "", 0)
        assert (after.stdout, after.returncode) == (local.stdout, local.returncode)
        assert after.stderr.startswith(ANSWERED) and after.stderr.count("\n") == 1, after.stderr
        assert after.stderr.endswith(" (a cold start: it built the project's types first)\n")
        # A new file of the project's own (its folder on the path changes) costs no new build.
        (root / "other.py").write_text("X = 1\n")
        again = loomlint(root, runtime, "check", "-v", **env)
        assert again.stdout == "All checks passed.\n"
        assert again.stderr.startswith(ANSWERED) and again.stderr.endswith(" s\n"), again.stderr
    finally:
        running.stop()


def _without_answered(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if not line.startswith(ANSWERED)]


def test_a_daemon_stopped_by_sigterm_removes_its_socket(project: Path, runtime: Path) -> None:
    running = Daemon(project, runtime)
    os.kill(running.pid, signal.SIGTERM)
    wait_gone(running.pid)
    assert list((runtime / "loomlint").glob("*.sock")) == []
    done = loomlint(project, runtime, "daemon", "status")
    assert (done.stdout, done.returncode) == (f"no loomlint daemon runs for {project}\n", 1)


def test_status_and_stop_remove_the_socket_a_killed_daemon_left(
    project: Path, runtime: Path
) -> None:
    for command in ("status", "stop"):
        running = Daemon(project, runtime)
        os.kill(running.pid, signal.SIGKILL)
        wait_gone(running.pid)
        path = socket_of(runtime)
        done = loomlint(project, runtime, "daemon", command)
        assert (done.stdout, done.returncode) == (
            f"no loomlint daemon runs for {project} (removed the socket it left: {path})\n",
            1 if command == "status" else 0,
        )
        assert not path.exists()
        again = loomlint(project, runtime, "daemon", command)
        assert again.stdout == f"no loomlint daemon runs for {project}\n"


def test_concurrent_starts_start_one_daemon_and_keep_its_log(project: Path, runtime: Path) -> None:
    starts = [
        subprocess.Popen(
            [*LOOMLINT, "daemon", "start"],
            cwd=project,
            env=_env(runtime),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outcomes = [start.communicate(timeout=300) for start in starts]
    pids = {int(out.split()[3]) for out, _ in outcomes if out.startswith("started: ")}
    try:
        assert [start.returncode for start in starts] == [0, 0, 0], outcomes
        assert len(pids) == 1, outcomes
        (pid,) = pids
        assert sorted(out.split(":")[0] for out, _ in outcomes) == [
            "already running",
            "already running",
            "started",
        ]
        (log,) = (runtime / "loomlint").glob("*.log")
        assert log.read_text().startswith(f"loomlint daemon {pid} listening on "), log.read_text()
    finally:
        loomlint(project, runtime, "daemon", "stop")
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
