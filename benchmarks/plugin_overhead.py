"""Overhead of loomlint's mypy plugin: mypy with and without it, cold cache, on langchain-core.

langchain-core is a real package whose messages carry union content
(``BaseMessage.content: str | list[str | dict]``). The script makes the run reproducible on its
own: it downloads the pinned wheel into ``benchmarks/.work/`` (git-ignored) unless it is there
already, extracts the package's source, and type-checks it with mypy twice per round, with and
without ``plugins = ["loomlint.mypy_plugin"]``, alternating the order, each run with a fresh
cache directory. It prints each run, the medians (wall clock, and CPU time of the mypy
process, which other load on the machine disturbs less) and their ratio; the plugin's budget
is +10%, and the exit status is 1 when either ratio exceeds it. (POSIX only: CPU time comes
from ``resource``.)

    python benchmarks/plugin_overhead.py                      # this interpreter's mypy
    python benchmarks/plugin_overhead.py --python /path/to/venv/bin/python --rounds 7

``--python`` names an interpreter that has mypy, loomlint (``pip install -e .``) and, for a
faithful workload, langchain-core's dependencies (``pip install langchain-core==1.8.4``):
without them mypy checks the same code against unresolved imports. Nothing is committed: the
wheel, the extracted source and the caches stay under ``benchmarks/.work/``.
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "langchain-core"
VERSION = "1.8.4"
WHEEL = f"langchain_core-{VERSION}-py3-none-any.whl"
WORK = Path(__file__).resolve().parent / ".work"
BUDGET = 1.10
_SUMMARY = re.compile(r"^(Found \d+ errors? in \d+ files?|Success: no issues found).*$", re.M)


@dataclass(frozen=True)
class Run:
    variant: str
    seconds: float
    # CPU time (user + system) of the mypy process: less disturbed than the wall clock by
    # other work on the machine.
    cpu_seconds: float
    findings: int
    other_errors: int
    summary: str


def main() -> int:
    parser = argparse.ArgumentParser(description="mypy with and without loomlint's plugin, cold.")
    parser.add_argument("--python", default=sys.executable, help="interpreter that runs mypy")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each variant")
    parser.add_argument("--wheel", type=Path, help="use this wheel instead of downloading it")
    options = parser.parse_args()

    source = _extract(_wheel(options.wheel, options.python))
    configs = _configs()
    runs: list[Run] = []
    for round_number in range(options.rounds):
        order = ["without", "with"] if round_number % 2 == 0 else ["with", "without"]
        for variant in order:
            run = _run_mypy(options.python, source, configs[variant], variant)
            runs.append(run)
            print(
                f"round {round_number + 1}: {variant:>7} plugin  {run.seconds:6.2f} s wall  "
                f"{run.cpu_seconds:6.2f} s cpu  ({run.findings} loomlint findings; {run.summary})",
                flush=True,
            )

    without = [r for r in runs if r.variant == "without"]
    with_plugin = [r for r in runs if r.variant == "with"]
    if {r.other_errors for r in without} != {r.other_errors for r in with_plugin}:
        print("warning: mypy's own errors differ between the variants", file=sys.stderr)
    print()
    print(f"{PACKAGE} {VERSION}, {options.rounds} cold runs of each variant")
    ratios: list[float] = []
    for label, measure in (("wall", _wall), ("cpu", _cpu)):
        median_without = statistics.median(map(measure, without))
        median_with = statistics.median(map(measure, with_plugin))
        ratio = median_with / median_without
        ratios.append(ratio)
        # The fastest run of each variant is the one other load disturbed least.
        best_ratio = min(map(measure, with_plugin)) / min(map(measure, without))
        print(
            f"{label:>4}: median without plugin {median_without:.2f} s, with plugin "
            f"{median_with:.2f} s, ratio {ratio:.3f} (overhead {100 * (ratio - 1):+.1f}%); "
            f"best runs: ratio {best_ratio:.3f}"
        )
    print(f"budget: +{100 * (BUDGET - 1):.0f}% (on the medians)")
    return 0 if max(ratios) < BUDGET else 1


def _wall(run: Run) -> float:
    return run.seconds


def _cpu(run: Run) -> float:
    return run.cpu_seconds


def _wheel(given: Path | None, python: str) -> Path:
    if given is not None:
        return given
    wheel = WORK / WHEEL
    if not wheel.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--dest", str(WORK), f"{PACKAGE}=={VERSION}"],
            check=True,
        )  # fmt: skip
    return wheel


def _extract(wheel: Path) -> Path:
    """The wheel's ``langchain_core`` package, extracted once under ``.work/``."""
    root = WORK / f"src-{wheel.stem}"
    if not (root / "langchain_core").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        with zipfile.ZipFile(wheel) as archive:
            members = [n for n in archive.namelist() if n.startswith("langchain_core/")]
            archive.extractall(root, members)
    return root


def _configs() -> dict[str, Path]:
    """mypy configurations, identical but for the plugin (and an empty [tool.loomlint])."""
    folder = WORK / "configs"
    paths: dict[str, Path] = {}
    for variant, plugins in (("with", '["loomlint.mypy_plugin"]'), ("without", "[]")):
        directory = folder / variant
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "pyproject.toml"
        path.write_text(f"[tool.mypy]\nplugins = {plugins}\n\n[tool.loomlint]\n")
        paths[variant] = path
    return paths


def _run_mypy(python: str, source: Path, config: Path, variant: str) -> Run:
    with tempfile.TemporaryDirectory(prefix="mypy-cache-", dir=WORK) as cache:
        command = [python, "-m", "mypy", "langchain_core", "--config-file", str(config),
                   "--cache-dir", cache, "--no-color-output", "--no-pretty"]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, cwd=source, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"mypy failed ({variant} plugin):\n{done.stdout}\n{done.stderr}")
    lines = done.stdout.splitlines()
    findings = sum(1 for line in lines if re.search(r"\[loom-content-[a-z]+\]$", line))
    errors = sum(1 for line in lines if ": error: " in line)
    summary = _SUMMARY.search(done.stdout)
    return Run(
        variant=variant,
        seconds=seconds,
        cpu_seconds=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        findings=findings,
        other_errors=errors - findings,
        summary=summary.group(0) if summary else "no summary",
    )


if __name__ == "__main__":
    raise SystemExit(main())
