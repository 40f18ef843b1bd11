"""loomlint against its peers, side by side in one run: medians of several runs, and ratios.

Not a test. Run from the repository root:

    python3 benchmarks/bench.py                 # langchain-core and a synthetic 300k-line tree
    python3 benchmarks/bench.py --runs 3 --only langchain-core

It builds its own workspace outside the repository (in $LOOMLINT_BENCH_DIR, default
<tmp>/loomlint-bench, so that neither this repository's configuration nor its .gitignore
applies): a venv with loomlint (this checkout, editable), mypy, Fixit and langchain-core's
dependencies; langchain-core's source from its PyPI wheel; and the synthetic tree. Each
scenario alternates the tools run by run so that machine noise hits both alike. Peak memory
is the largest sum of RSS over the process tree (loomlint's workers included), sampled every
20 ms in cold runs of their own (the sampling's CPU would skew the timed runs).

Scenarios and the targets they check (issue 7):
  cold        type-aware `loomlint check`, no caches, vs plain `mypy` on the same files and
              config                                              target: <= 1.25x
  warm        `loomlint check` again, nothing changed              target: < 1 s
  edit        `loomlint check` after editing a function body      target: < 3 s
              (and, for information, after adding a function: dependents re-analysed)
  no-types    `loomlint check --no-types` vs `fixit lint`, lines/s target: >= 10x Fixit
  memory      peak RSS of the cold run vs mypy's                  target: <= 1.5x
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import venv
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = Path(os.environ.get("LOOMLINT_BENCH_DIR", Path(tempfile.gettempdir()) / "loomlint-bench"))
VENV = WORK / "venv"
LANGCHAIN_CORE = "langchain-core==1.8.3"
SYNTHETIC_LINES = 300_000


@dataclass(frozen=True)
class Measurement:
    seconds: float
    peak_rss_mb: float
    exit_code: int


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per tool and scenario")
    parser.add_argument(
        "--only", choices=["langchain-core", "synthetic"], help="benchmark one tree only"
    )
    args = parser.parse_args(argv)
    python = _workspace()
    trees: list[tuple[str, Path, str]] = []
    if args.only in (None, "langchain-core"):
        trees.append(("langchain-core", _langchain_core(python), "langchain_core"))
    if args.only in (None, "synthetic"):
        trees.append(("synthetic", _synthetic(), "app"))
    for name, root, package in trees:
        lines = _count_lines(root / package)
        print(f"\n== {name}: {lines:,} lines in {root / package}")
        _sanity_check(python, root, package)
        _bench_tree(python, root, package, lines, args.runs)
    return 0


# --- scenarios -----------------------------------------------------------------------------------


def _bench_tree(python: Path, root: Path, package: str, lines: int, runs: int) -> None:
    bin_dir = python.parent
    loomlint = [str(bin_dir / "loomlint"), "check", package, "--quiet"]
    mypy = [str(bin_dir / "mypy"), package]
    fixit = [str(bin_dir / "fixit"), "lint", package]
    with tempfile.TemporaryDirectory() as scratch:
        caches = Path(scratch)

        def fresh(tool: str, run: int) -> dict[str, str]:
            cache = caches / f"{tool}-{run}"
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
            return {"MYPY_CACHE_DIR": str(cache)}

        cold_l, cold_m = _alternate(
            runs,
            lambda i: _measure([*loomlint, "--no-cache"], root, fresh("loomlint", i)),
            lambda i: _measure(mypy, root, fresh("mypy", i)),
        )
        _report("cold, types", "loomlint check", cold_l, "mypy", cold_m, limit=1.25)
        # Sampling /proc every 20 ms takes CPU from the run it watches (more from loomlint's
        # several processes than from mypy's one): memory is measured in runs of its own.
        memory_l, memory_m = _alternate(
            runs,
            lambda i: _measure(
                [*loomlint, "--no-cache"], root, fresh("loomlint", i), sample_memory=True
            ),
            lambda i: _measure(mypy, root, fresh("mypy", i), sample_memory=True),
        )
        _report_memory(memory_l, memory_m, limit=1.5)

        warm_env = {"MYPY_CACHE_DIR": str(caches / "warm")}
        shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
        _measure(loomlint, root, warm_env)  # fill both caches
        warm = [_measure(loomlint, root, warm_env) for _ in range(runs)]
        _report_absolute("warm, nothing changed", warm, limit=1.0)

        edited = _edit_target(root / package)
        original = edited.read_text(encoding="utf-8")
        mypy_env = {"MYPY_CACHE_DIR": str(caches / "warm-mypy")}
        _measure(mypy, root, mypy_env)  # fill plain mypy's own cache
        body_l: list[Measurement] = []
        body_m: list[Measurement] = []
        interface_edits: list[Measurement] = []
        try:
            for run in range(runs):
                # The common edit: a function's body changes, its module's interface doesn't.
                # Each tool sees the edit once: a run before the other would warm its cache.
                edited.write_text(_edit_a_body(original, run), encoding="utf-8")
                body_l.append(_measure(loomlint, root, warm_env))
                body_m.append(_measure(mypy, root, mypy_env))
            for run in range(runs):
                # A new public function: every module importing this one may see new types.
                edited.write_text(
                    original + f"\n\ndef _bench_edit_{run}() -> int:\n    return {run}\n",
                    encoding="utf-8",
                )
                interface_edits.append(_measure(loomlint, root, warm_env))
        finally:
            edited.write_text(original, encoding="utf-8")
        name = edited.relative_to(root)
        _report_absolute(f"after editing a function body in {name}", body_l, limit=3.0)
        print(
            f"    (plain mypy re-checking the same edit: {_median(body_m):.2f} s; mypy re-checks "
            f"the edited module's whole import cycle, and loomlint's build with it)"
        )
        print(
            f"  after adding a function to {name} (its dependents are re-analysed): "
            f"{_median(interface_edits):.2f} s (median of {runs}; no target)"
        )

        nt_l, nt_f = _alternate(
            runs,
            lambda i: _measure([*loomlint, "--no-types", "--no-cache"], root, {}),
            lambda i: _measure(fixit, root, {}),
        )
        speed_l = lines / _median(nt_l)
        speed_f = lines / _median(nt_f)
        print(
            f"  no-types throughput: loomlint {speed_l:,.0f} lines/s, Fixit {speed_f:,.0f} "
            f"lines/s: {speed_l / speed_f:.1f}x (target >= 10x) "
            f"{'MET' if speed_l >= 10 * speed_f else 'NOT MET'}"
        )


def _sanity_check(python: Path, root: Path, package: str) -> None:
    """Fail loudly if loomlint would check nothing (an ignored tree benchmarks nothing)."""
    result = subprocess.run(
        [
            str(python.parent / "loomlint"),
            "check",
            package,
            "--no-types",
            "--no-cache",
            "--statistics",
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if "no Python files found" in result.stderr or result.returncode not in (0, 1):
        raise SystemExit(f"loomlint checked nothing in {root}: {result.stderr.strip()}")
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else "no findings"
    print(f"  (sanity: --no-types reports: {summary})")


def _alternate(
    runs: int,
    first: Callable[[int], Measurement],
    second: Callable[[int], Measurement],
) -> tuple[list[Measurement], list[Measurement]]:
    a: list[Measurement] = []
    b: list[Measurement] = []
    for run in range(runs):
        a.append(first(run))
        b.append(second(run))
    return a, b


def _report(
    scenario: str,
    name: str,
    ours: list[Measurement],
    peer: str,
    theirs: list[Measurement],
    *,
    limit: float,
) -> None:
    mine, other = _median(ours), _median(theirs)
    ratio = mine / other
    print(
        f"  {scenario}: {name} {mine:.2f} s, {peer} {other:.2f} s (medians of {len(ours)}): "
        f"{ratio:.2f}x (target <= {limit}x) {'MET' if ratio <= limit else 'NOT MET'}"
    )


def _report_memory(ours: list[Measurement], theirs: list[Measurement], *, limit: float) -> None:
    mine = statistics.median(m.peak_rss_mb for m in ours)
    other = statistics.median(m.peak_rss_mb for m in theirs)
    ratio = mine / other
    print(
        f"  peak memory: loomlint {mine:.0f} MB, mypy {other:.0f} MB: {ratio:.2f}x "
        f"(target <= {limit}x) {'MET' if ratio <= limit else 'NOT MET'}"
    )


def _report_absolute(scenario: str, runs: list[Measurement], *, limit: float) -> None:
    median = _median(runs)
    print(
        f"  {scenario}: {median:.2f} s (median of {len(runs)}; target < {limit} s) "
        f"{'MET' if median < limit else 'NOT MET'}"
    )


def _median(runs: list[Measurement]) -> float:
    return statistics.median(m.seconds for m in runs)


# --- measuring -----------------------------------------------------------------------------------


def _measure(
    command: list[str], cwd: Path, env: dict[str, str], *, sample_memory: bool = False
) -> Measurement:
    """Wall time of one run; with ``sample_memory``, also its process tree's peak RSS."""
    environment = {**os.environ, **env}
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _tree_rss(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    if sample_memory:
        sampler.start()
    code = process.wait()
    elapsed = time.perf_counter() - started
    done.set()
    if sample_memory:
        sampler.join()
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed with exit status {code}")
    return Measurement(elapsed, peak[0] / 1024, code)


def _tree_rss(pid: int) -> int:
    """Resident memory (KB) of a process and all its descendants, from /proc."""
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += next(
                int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")
            )
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                pending.extend(int(child) for child in children)
        except (OSError, StopIteration, ValueError):
            continue
    return total


# --- workspace -----------------------------------------------------------------------------------


def _workspace() -> Path:
    python = VENV / "bin" / "python"
    installed = VENV / ".installed"
    if not installed.exists():
        print("creating the benchmark venv (once)...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        _pip(python, "install", "--quiet", "-e", str(REPO), "fixit", LANGCHAIN_CORE)
        installed.write_text("ok\n")
    return python


def _langchain_core(python: Path) -> Path:
    root = WORK / "langchain-core"
    if not (root / "langchain_core").is_dir():
        downloads = WORK / "downloads"
        _pip(python, "download", "--quiet", "--no-deps", LANGCHAIN_CORE, "-d", str(downloads))
        wheel = next(downloads.glob("langchain_core-*.whl"))
        root.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as archive:
            members = [m for m in archive.namelist() if m.startswith("langchain_core/")]
            archive.extractall(root, members)
    return root


def _synthetic() -> Path:
    """A generated tree of SYNTHETIC_LINES lines: services that pass messages around, some of
    them reading content safely, some coercing it, most not touching it at all."""
    root = WORK / "synthetic"
    package = root / "app"
    if package.is_dir():
        return root
    generator = random.Random(20261129)
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    written = 0
    index = 0
    while written < SYNTHETIC_LINES:
        text = _synthetic_module(index, generator)
        (package / f"module_{index:04d}.py").write_text(text)
        written += text.count("\n")
        index += 1
    return root


def _synthetic_module(index: int, generator: random.Random) -> str:
    lines = [
        f'"""Synthetic service module {index}."""',
        "",
        "from __future__ import annotations",
        "",
        "import logging",
        "from dataclasses import dataclass",
        "",
    ]
    uses_messages = generator.random() < 0.3
    if uses_messages:
        lines += ["from loomlint.content import LlmMessage, text_of", ""]
    lines += ["log = logging.getLogger(__name__)", ""]
    for number in range(12):
        lines += [
            "",
            "@dataclass",
            f"class Record{number}:",
            "    name: str",
            "    count: int = 0",
            "",
            "    def label(self) -> str:",
            "        return f'{self.name}:{self.count}'",
            "",
            "",
            f"def handle_{number}(records: list[Record{number}], limit: int) -> list[str]:",
            "    result: list[str] = []",
            "    for record in records:",
            "        if record.count > limit:",
            "            result.append(record.label())",
            "        else:",
            "            log.debug('skipped %s', record.name)",
            "    return sorted(result)",
        ]
        if uses_messages and number % 4 == 0:
            lines += [
                "",
                "",
                f"def render_{number}(message: LlmMessage) -> str:",
                "    if isinstance(message.content, str):",
                "        return message.content.strip()",
                "    return text_of(message.content)",
                "",
                "",
                f"def leak_{number}(message: LlmMessage) -> str:",
                "    log.info('message: %s', message.content)",
                "    return f'[{message.role}] {message.content}'",
            ]
    return "\n".join(lines) + "\n"


def _edit_target(package: Path) -> Path:
    """A mid-sized module that reads content and has a function body to edit."""
    candidates = sorted(
        (
            p
            for p in package.rglob("*.py")
            if "content" in (text := p.read_text(encoding="utf-8"))
            and _RETURN.search(text) is not None
        ),
        key=lambda p: p.stat().st_size,
    )
    return candidates[len(candidates) // 2]


_RETURN = re.compile(r"^(?P<indent>[ \t]+)return\b", re.MULTILINE)


def _edit_a_body(text: str, run: int) -> str:
    """Insert a local assignment before the first return: a body edit, nothing more."""
    match = _RETURN.search(text)
    assert match is not None
    indent = match.group("indent")
    return text[: match.start()] + f"{indent}_bench_edit = {run}\n" + text[match.start() :]


def _count_lines(package: Path) -> int:
    return sum(path.read_bytes().count(b"\n") for path in package.rglob("*.py"))


def _pip(python: Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", *args], check=True)


if __name__ == "__main__":
    sys.exit(main())
