"""Time `loomlint check` after a one-line edit in a function body: cold and warm in its own
process, and answered by `loomlint daemon` (not a test).

    python3 benchmarks/daemon_latency.py [--rounds 3] [--codebase langchain-core]

It uses the workspace `benchmarks/bench.py` prepares (run that once first): the codebase's
tree under $LOOMLINT_BENCH_DIR (default <tmp>/loomlint-bench) and its venv, whose packages
(mypy, the codebase's dependencies) serve this checkout's loomlint, put first on
PYTHONPATH. Each round edits the same mid-sized module that reads content (a new local
assignment before its first return, as bench.py's edit scenario does) and times, each on its
own edit:

- cold: `check --no-daemon`, with no result cache and an empty mypy cache;
- warm: `check --no-daemon`, with both caches filled by the runs before;
- daemon: `check` answered by the project's daemon, started and warmed up before the rounds.

Every run's report must be the same (checked); the edit is undone at the end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import _edit_a_body, _edit_target

TARGETS = {
    "langchain-core": ("langchain_core",),
    "deepagents": ("deepagents",),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--codebase", choices=sorted(TARGETS), default="langchain-core")
    args = parser.parse_args()
    work = Path(
        os.environ.get("LOOMLINT_BENCH_DIR", Path(tempfile.gettempdir()) / "loomlint-bench")
    )
    root = work / args.codebase
    python = work / "venvs" / args.codebase / "bin" / "python"
    targets = TARGETS[args.codebase]
    if not python.exists() or not root.exists():
        print(f"no prepared workspace at {work}: run benchmarks/bench.py first", file=sys.stderr)
        return 2
    loomlint = [str(python), "-c", "from loomlint.cli import console_main; console_main()"]
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    edited = _edit_target([root / target for target in targets])
    original = edited.read_text(encoding="utf-8")
    print(f"{args.codebase}: editing a function body in {edited.relative_to(root)}", flush=True)
    times: dict[str, list[float]] = {"cold": [], "warm": [], "daemon": []}
    reports: set[str] = set()
    with tempfile.TemporaryDirectory() as scratch:
        warm_cache = {"MYPY_CACHE_DIR": str(Path(scratch) / "warm")}

        def check(*flags: str, env: dict[str, str]) -> tuple[float, str, str]:
            started = time.perf_counter()
            done = subprocess.run(
                [*loomlint, "check", "-v", *flags, "--", *targets],
                cwd=root,
                env={**os.environ, **env},
                capture_output=True,
                text=True,
                check=False,
            )
            elapsed = time.perf_counter() - started
            if done.returncode not in (0, 1):
                raise SystemExit(f"check failed ({done.returncode}): {done.stderr[-2000:]}")
            return elapsed, done.stdout, done.stderr

        try:
            shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
            check("--no-daemon", env=warm_cache)  # fills both caches
            started = subprocess.run(
                [*loomlint, "daemon", "start"], cwd=root, capture_output=True, text=True
            )
            print(f"  {started.stdout.strip() or started.stderr.strip()}", flush=True)
            began = time.perf_counter()
            _, _, said = check(env={})  # waits for the daemon's warm-up
            print(f"  daemon warmed up in {time.perf_counter() - began:.1f} s", flush=True)
            if "checked by the daemon" not in said:
                raise SystemExit(f"the daemon did not answer: {said}")
            edit = 0
            for run in range(args.rounds):
                for scenario in ("cold", "warm", "daemon"):
                    edit += 1
                    edited.write_text(_edit_a_body(original, edit), encoding="utf-8")
                    if scenario == "cold":
                        shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
                        cold_cache = {"MYPY_CACHE_DIR": str(Path(scratch) / f"cold-{run}")}
                        seconds, report, said = check("--no-daemon", env=cold_cache)
                    elif scenario == "warm":
                        seconds, report, said = check("--no-daemon", env=warm_cache)
                    else:
                        seconds, report, said = check(env={})
                        if "checked by the daemon" not in said:
                            raise SystemExit(f"the daemon did not answer: {said}")
                    times[scenario].append(seconds)
                    reports.add(report)
                    print(f"  round {run + 1} {scenario:6} {seconds:6.2f} s", flush=True)
        finally:
            edited.write_text(original, encoding="utf-8")
            subprocess.run([*loomlint, "daemon", "stop"], cwd=root, capture_output=True)
    if len(reports) != 1:
        print("the reports differ between runs", file=sys.stderr)
        return 1
    for scenario, seconds in times.items():
        print(
            f"{scenario:6}: median {statistics.median(seconds):.2f} s "
            f"(lowest {min(seconds):.2f}, highest {max(seconds):.2f}, {len(seconds)} rounds)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
