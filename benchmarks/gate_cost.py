"""What the gate costs: mypy with loomlint's plugin, and loomlint check, against plain mypy.

One command, per codebase (issue 25's table):

    .venv/bin/python benchmarks/gate_cost.py              # the four codebases, 4 pairs each
    .venv/bin/python benchmarks/gate_cost.py --only langchain-core --pairs 2
    .venv/bin/python benchmarks/gate_cost.py --one-core   # also mypy + plugin on one core

Each round runs, in an order that rotates round by round so that machine noise hits each
alike: plain ``mypy`` cold; ``mypy`` with ``loomlint.mypy_plugin`` added to the codebase's own
mypy configuration, cold, then ``loomlint check --format sarif`` right after it (the CI job);
and ``loomlint check`` cold, then again warm; and ``loomlint check`` cold in the codebase as it
is, its mypy configuration naming no loomlint plugin (there ``check``'s own worker prepares the
files while mypy builds; with the plugin configured, the plugin's worker does it inside
``check``'s build). Every cold run has its own empty mypy cache and
no ``.loomlint_cache``. It prints the medians with their range, the ratios to plain mypy (the
median of the per-round ratios, and their range), the CPU time of mypy's own process, and how
long any process mypy started outlived it (the plugin's worker must not), found by making this
script the subreaper of what it runs. It checks the findings: the plugin's must be the ones
``loomlint check`` prints right after it and cold, and mypy's own errors the same with and
without the plugin. With ``--one-core`` it also runs plain mypy and mypy + plugin pinned to one
core (``taskset -c 0``): the plugin may add at most the engine's own work there, which the
plugin's LOOMLINT_TIMINGS line of that run states (facts taken, files analysed).

Wall times mean something only on a quiet machine: the load average is printed before and
after each codebase, with a warning when it was above 1.5. One more plugin run with
LOOMLINT_TIMINGS=1 shows where the plugin's time went in mypy's process and in its worker.

The codebases and their venvs are ``bench.py``'s (built once under $LOOMLINT_BENCH_DIR, default
<tmp>/loomlint-bench, with loomlint installed from this checkout).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench

CODEBASES = ("langchain-core", "deepagents", "llama-index-core", "camel-ai")
QUIET_LOAD = 1.5
_PR_SET_CHILD_SUBREAPER = 36
_MYPY_ERROR = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<column>\d+): error: .*\[(?P<code>[\w-]+)\]$"
)


@dataclass(frozen=True)
class Run:
    seconds: float
    # CPU seconds (user + system) of the process started, and of any it left behind.
    cpu: float
    orphans_cpu: float
    # How long the last process it started outlived it (0 when none did).
    outlived: float
    exit_code: int
    stdout: str
    stderr: str


@dataclass
class Rows:
    """One codebase's measurements."""

    plain: list[Run] = field(default_factory=list)
    plugin: list[Run] = field(default_factory=list)
    after: list[Run] = field(default_factory=list)
    cold: list[Run] = field(default_factory=list)
    # loomlint check cold, the codebase's own mypy configuration (no loomlint plugin named).
    cold_alone: list[Run] = field(default_factory=list)
    warm: list[Run] = field(default_factory=list)
    plain_one_core: list[Run] = field(default_factory=list)
    plugin_one_core: list[Run] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=4, help="rounds per codebase (default 4)")
    parser.add_argument(
        "--only", choices=CODEBASES, action="append", help="this codebase only (repeatable)"
    )
    parser.add_argument(
        "--one-core", action="store_true", help="also plain mypy and mypy + plugin on one core"
    )
    args = parser.parse_args(argv)
    # Stopped by SIGTERM (a timeout, kill), the codebase's own configuration is put back as
    # after Ctrl-C: the handlers of ``finally`` run.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))
    try:  # the findings are compared by the plugin's error codes: fail now, not after a round
        import loomlint.mypy_plugin.codes  # noqa: F401
    except ImportError as missing:
        sys.exit(f"gate_cost.py: run it with loomlint's own venv (.venv/bin/python): {missing}")
    if args.pairs < 4:
        print(f"note: {args.pairs} pairs; issue 25's figures need at least 4")
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    print(f"machine: {os.cpu_count()} cores; work folder {bench.WORK}")
    failed = False
    for codebase in bench.CODEBASES:
        if codebase.name not in CODEBASES or (args.only and codebase.name not in args.only):
            continue
        root = _unpacked(codebase)
        python = bench._venv(codebase)  # pyright: ignore[reportPrivateUsage]
        lines = sum(bench._count_lines(root / t) for t in codebase.targets)  # pyright: ignore[reportPrivateUsage]
        print(f"\n== {codebase.name}: {lines:,} lines in {', '.join(codebase.targets)}", flush=True)
        load_before = os.getloadavg()
        rows = _measure(python.parent, root, codebase.targets, args.pairs, args.one_core)
        load_after = os.getloadavg()
        _report(codebase.name, rows, load_before, load_after)
        _profile(python.parent, root, codebase.targets)
        failed = failed or bool(rows.problems)
    return 1 if failed else 0


def _unpacked(codebase: bench.Codebase) -> Path:
    root = bench.WORK / codebase.name
    if not root.is_dir():
        staging = bench.WORK / f"{codebase.name}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        reason = codebase.unpack(staging, argparse.Namespace(pydantic_ai_checkout=None))
        if reason is not None:
            raise SystemExit(f"{codebase.name}: {reason}")
        staging.rename(root)
    return root


def _measure(
    bin_dir: Path, root: Path, targets: tuple[str, ...], pairs: int, one_core: bool
) -> Rows:
    rows = Rows()
    # Columns, codes and one line per error (whatever the codebase configures), to compare
    # the findings: formatting only, the same for every mypy run.
    shown = ["--show-column-numbers", "--show-error-codes", "--no-pretty", "--no-color-output"]
    mypy = [str(bin_dir / "mypy"), *shown, "--", *targets]
    check = [str(bin_dir / "loomlint"), "check", "--quiet"]
    config = root / "pyproject.toml"
    original = config.read_text(encoding="utf-8") if config.exists() else None
    if original is not None and "loomlint.mypy_plugin" in original:
        # Its "plain" runs would be runs with the plugin: a run stopped by SIGKILL left it so.
        sys.exit(
            f"gate_cost.py: {config} already names loomlint's plugin; restore the codebase's "
            "own configuration (or remove the folder to unpack it again) and run again"
        )
    with_plugin = bench._with_loomlint_plugin(original)  # pyright: ignore[reportPrivateUsage]

    def configure(text: str | None) -> None:
        if text is None:
            config.unlink(missing_ok=True)
        else:
            config.write_text(text, encoding="utf-8")

    with tempfile.TemporaryDirectory(prefix="gate-cost-") as scratch:
        caches = Path(scratch)

        def fresh(name: str) -> dict[str, str]:
            cache = caches / name
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
            return {"MYPY_CACHE_DIR": str(cache)}

        def plain(run: int) -> None:
            configure(original)
            rows.plain.append(_run(mypy, root, fresh(f"plain-{run}")))

        def plugin(run: int) -> None:
            configure(with_plugin)
            env = fresh(f"plugin-{run}")
            rows.plugin.append(_run(mypy, root, env))
            rows.after.append(_run([*check, "--format", "sarif", "--", *targets], root, env))

        def cold(run: int) -> None:
            configure(with_plugin)
            env = fresh(f"check-{run}")
            rows.cold.append(_run([*check, "--format", "sarif", "--", *targets], root, env))
            rows.warm.append(_run([*check, "--format", "sarif", "--", *targets], root, env))
            configure(original)
            env = fresh(f"check-alone-{run}")
            rows.cold_alone.append(_run([*check, "--format", "sarif", "--", *targets], root, env))

        steps: list[Callable[[int], None]] = [plain, plugin, cold]
        try:
            for run in range(pairs):
                for step in steps[run % 3 :] + steps[: run % 3]:
                    step(run)
                print(
                    f"  round {run + 1}: plain {rows.plain[-1].seconds:.2f} s, plugin "
                    f"{rows.plugin[-1].seconds:.2f} s + check {rows.after[-1].seconds:.2f} s, "
                    f"check cold {rows.cold[-1].seconds:.2f} s, warm "
                    f"{rows.warm[-1].seconds:.2f} s, check cold without the plugin configured "
                    f"{rows.cold_alone[-1].seconds:.2f} s",
                    flush=True,
                )
            if one_core:
                pinned = ["taskset", "-c", "0", *mypy]
                for run in range(pairs):
                    for variant in ("plain", "plugin") if run % 2 == 0 else ("plugin", "plain"):
                        configure(original if variant == "plain" else with_plugin)
                        measured = _run(pinned, root, fresh(f"one-core-{variant}-{run}"))
                        target = rows.plain_one_core if variant == "plain" else rows.plugin_one_core
                        target.append(measured)
        finally:
            configure(original)
            shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
    _check_findings(rows)
    return rows


def _check_findings(rows: Rows) -> None:
    """The plugin's findings are loomlint check's (right after it, and cold); mypy's own
    errors are the same with and without the plugin."""
    from loomlint.mypy_plugin.codes import ERROR_CODE_OF_RULE

    rounds = zip(rows.plain, rows.plugin, rows.after, rows.cold, rows.cold_alone, strict=True)
    for plain, plugin, after, cold, cold_alone in rounds:
        ours = _mypy_errors(plugin.stdout)
        own = {e for e in ours if not e[3].startswith("loom-")}
        if own != _mypy_errors(plain.stdout):
            rows.problems.append("mypy's own errors differ with the plugin")
        found = {e for e in ours if e[3].startswith("loom-")}
        checks = (("right after", after), ("cold", cold), ("cold, no plugin", cold_alone))
        for label, check in checks:
            reported = {
                (path, line, column, ERROR_CODE_OF_RULE[code].code)
                for path, line, column, code in _sarif_findings(check.stdout)
                if code in ERROR_CODE_OF_RULE
            }
            if reported != found:
                rows.problems.append(
                    f"loomlint check {label} reports {len(reported)} findings, the plugin "
                    f"{len(found)}: {sorted(reported ^ found)[:5]}"
                )
    for name, runs in (("mypy + plugin", rows.plugin), ("one core", rows.plugin_one_core)):
        if any(run.outlived > 1.0 for run in runs):
            rows.problems.append(f"{name}: a process outlived mypy by more than 1 s")


def _mypy_errors(stdout: str) -> set[tuple[str, int, int, str]]:
    found: set[tuple[str, int, int, str]] = set()
    for line in stdout.splitlines():
        match = _MYPY_ERROR.match(line)
        if match is not None:
            found.add(
                (
                    os.path.normpath(match["path"]),
                    int(match["line"]),
                    int(match["column"]),
                    match["code"],
                )
            )
    return found


def _sarif_findings(stdout: str) -> set[tuple[str, int, int, str]]:
    try:
        report = json.loads(stdout)
    except ValueError:
        return set()
    found: set[tuple[str, int, int, str]] = set()
    for sarif_run in report.get("runs", []):
        for result in sarif_run.get("results", []):
            location = result["locations"][0]["physicalLocation"]
            region = location.get("region", {})
            path = os.path.normpath(location["artifactLocation"]["uri"])
            found.add(
                (path, region.get("startLine", 1), region.get("startColumn", 1), result["ruleId"])
            )
    return found


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> Run:
    """One run: its wall time (to its process's exit), the CPU time of its process and of what
    it left behind (this process is their subreaper: orphans come back here to be reaped), and
    how long they outlived it."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    outputs: dict[str, bytes] = {}

    def read(name: str, stream: IO[bytes]) -> None:
        outputs[name] = stream.read()

    readers = [
        threading.Thread(target=read, args=(name, stream), daemon=True)
        for name, stream in (("stdout", process.stdout), ("stderr", process.stderr))
        if stream is not None
    ]
    for reader in readers:
        reader.start()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    ended = time.perf_counter()
    orphans_cpu = outlived = 0.0
    while True:
        try:
            _, _, orphan = os.wait4(-1, 0)
        except ChildProcessError:
            break
        orphans_cpu += orphan.ru_utime + orphan.ru_stime
        outlived = max(outlived, time.perf_counter() - ended)
    for reader in readers:
        reader.join()
    stdout = outputs.get("stdout", b"").decode(errors="replace")
    stderr = outputs.get("stderr", b"").decode(errors="replace")
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{stdout}\n{stderr}")
    return Run(
        seconds,
        usage.ru_utime + usage.ru_stime,
        orphans_cpu,
        outlived,
        process.returncode,
        stdout,
        stderr,
    )


def _report(
    name: str, rows: Rows, load_before: tuple[float, ...], load_after: tuple[float, ...]
) -> None:
    job = [p.seconds + a.seconds for p, a in zip(rows.plugin, rows.after, strict=True)]
    table = [
        ("plain `mypy` cold", rows.plain, ""),
        (
            "`mypy` + plugin cold",
            rows.plugin,
            f"{_ratio(rows.plugin, rows.plain)} wall (target <= 1.10x); mypy's process CPU "
            f"{_cpu_ratio(rows.plugin, rows.plain)}; worker CPU "
            f"{_median_of([r.orphans_cpu for r in rows.plugin])} s, "
            f"outlived mypy by at most {max((r.outlived for r in rows.plugin), default=0):.3f} s",
        ),
        (
            "CI job: `mypy` + plugin, then `loomlint check --format sarif`",
            None,
            f"{_ratios(job, [r.seconds for r in rows.plain])} plain mypy (target <= 1.15x); "
            f"median {statistics.median(job) if job else 0:.2f} s",
        ),
        (
            "`loomlint check` right after `mypy` + plugin",
            rows.after,
            "target <= 0.5 s; same findings" if not rows.problems else "see the problems below",
        ),
        (
            "`loomlint check` cold",
            rows.cold,
            f"{_ratio(rows.cold, rows.plain)} plain mypy (target <= 1.10x)",
        ),
        ("`loomlint check` warm, unchanged", rows.warm, ""),
        (
            "`loomlint check` cold, no loomlint plugin configured",
            rows.cold_alone,
            f"{_ratio(rows.cold_alone, rows.plain)} plain mypy (target <= 1.10x)",
        ),
    ]
    if rows.plugin_one_core:
        added = statistics.median(
            p.cpu + p.orphans_cpu - q.cpu
            for p, q in zip(rows.plugin_one_core, rows.plain_one_core, strict=True)
        )
        table += [
            ("plain `mypy`, one core (`taskset -c 0`)", rows.plain_one_core, ""),
            (
                "`mypy` + plugin, one core",
                rows.plugin_one_core,
                f"{_ratio(rows.plugin_one_core, rows.plain_one_core)} wall; the plugin's "
                f"processes added {added:.2f} s CPU (median of pairs)",
            ),
        ]
    print(
        f"\n{name}, {len(rows.plain)} rounds; load average before "
        f"{load_before[0]:.2f}, after {load_after[0]:.2f}"
    )
    if max(load_before[0], load_after[0]) > QUIET_LOAD:
        print(
            f"WARNING: the load average was above {QUIET_LOAD} (before {load_before[0]:.2f}, after "
            f"{load_after[0]:.2f}): the machine was not quiet, and wall times say little"
        )
    print("| run | median wall | range | note |\n| --- | ---: | --- | --- |")
    for label, runs, note in table:
        if runs is None:
            print(f"| {label} | | | **{note}** |")
        elif runs:
            seconds = [r.seconds for r in runs]
            print(
                f"| {label} | {statistics.median(seconds):.2f} s "
                f"| {min(seconds):.2f}-{max(seconds):.2f} s | {note} |"
            )
    for problem in dict.fromkeys(rows.problems):
        print(f"PROBLEM: {problem}")


def _profile(bin_dir: Path, root: Path, targets: tuple[str, ...]) -> None:
    """One more cold plugin run with LOOMLINT_TIMINGS=1: where the plugin's time went."""
    config = root / "pyproject.toml"
    original = config.read_text(encoding="utf-8") if config.exists() else None
    config.write_text(bench._with_loomlint_plugin(original), encoding="utf-8")  # pyright: ignore[reportPrivateUsage]
    try:
        with tempfile.TemporaryDirectory(prefix="gate-cost-profile-") as cache:
            shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
            done = _run(
                [str(bin_dir / "mypy"), "--", *targets],
                root,
                {"MYPY_CACHE_DIR": cache, "LOOMLINT_TIMINGS": "1"},
            )
    finally:
        if original is None:
            config.unlink(missing_ok=True)
        else:
            config.write_text(original, encoding="utf-8")
        shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
    print("where the plugin's time went (one more cold run, LOOMLINT_TIMINGS=1):")
    for line in done.stderr.splitlines():
        if line.startswith("loomlint timings (mypy plugin):"):
            print(f"  {line.removeprefix('loomlint timings (mypy plugin): ')}")
    print(f"  mypy's process CPU {done.cpu:.2f} s, the worker's {done.orphans_cpu:.2f} s")


def _median(runs: list[Run]) -> float:
    return statistics.median(r.seconds for r in runs) if runs else 0.0


def _median_of(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}" if values else "-"


def _ratio(ours: list[Run], theirs: list[Run]) -> str:
    return _ratios([r.seconds for r in ours], [r.seconds for r in theirs])


def _cpu_ratio(ours: list[Run], theirs: list[Run]) -> str:
    return _ratios([r.cpu for r in ours], [r.cpu for r in theirs])


def _ratios(ours: list[float], theirs: list[float]) -> str:
    """The median of the per-round ratios, with their range."""
    ratios = [a / b for a, b in zip(ours, theirs, strict=True) if b > 0]
    if not ratios:
        return "-"
    return f"{statistics.median(ratios):.2f}x (pairs {min(ratios):.2f}-{max(ratios):.2f}x)"


if __name__ == "__main__":
    sys.exit(main())
