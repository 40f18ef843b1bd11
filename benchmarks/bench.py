"""loomlint against its peers, side by side in one run: medians of several rounds, and ratios.

Not a test. Run from the repository root:

    python3 benchmarks/bench.py --pydantic-ai-checkout DIR      # every codebase below
    python3 benchmarks/bench.py --rounds 5 --only deepagents

It builds its own workspace outside the repository (in $LOOMLINT_BENCH_DIR, default
<tmp>/loomlint-bench, so that neither this repository's configuration nor its .gitignore
applies): per codebase, a venv with loomlint (this checkout, editable), mypy, Fixit and that
codebase's own dependencies, so that mypy resolves its imports as its developers' mypy would.

Codebases, each at a pinned version:
  langchain-core   langchain-core 1.8.4, the library (its PyPI wheel), with
                   ignore_missing_imports = true (its optional integrations)
  pydantic-ai      pydantic-ai v2.33.0: pydantic_ai_slim's sources and the repository's tests.
                   PyPI ships no tests, so this one needs a clone of
                   github.com/pydantic/pydantic-ai (--pydantic-ai-checkout; a bare clone is
                   fine); it is skipped, saying so, without one
  deepagents       deepagents 0.7.32 (its PyPI sdist): an agent application built on LangChain
                   and LangGraph, reading message content throughout
  llama-index-core llama-index-core 0.14.25 (its PyPI sdist) with its own pyproject.toml,
                   whose mypy configuration names the pydantic.mypy plugin
  camel-ai         camel-ai 0.2.90 (its PyPI sdist) with its own pyproject.toml: a multi-agent
                   framework over many model providers (camel/models), 150k lines
  synthetic        a generated 300k-line tree (scale, no dependencies)

Every scenario alternates the two tools round by round, so that machine noise hits both
alike, and reports medians with the spread (lowest-highest). Peak memory is the largest sum of
RSS over the process tree (loomlint's workers included), sampled every 20 ms in cold runs of
their own (the sampling's CPU would skew the timed runs). One more cold run with
LOOMLINT_TIMINGS=1 shows where loomlint's time went.

Scenarios and their targets (issue 14):
  cold        type-aware `loomlint check`, no caches, vs plain `mypy` on the same files and
              configuration                                       target: <= 1.10x
  after-mypy  `loomlint check` right after a plain `mypy` run on the same cache, vs that
              mypy run (cold)                                     target: <= 0.3x (issue 19)
  warm        `loomlint check` again, nothing changed              target: < 0.5 s
  edit        `loomlint check` after editing a function body      (vs plain mypy's re-check)
              and, for information, after adding a function (dependents re-analysed)
  no-types    `loomlint check --no-types` vs `fixit lint`, lines/s target: >= 20x Fixit
  plugin      `mypy` with loomlint's plugin added to the codebase's mypy configuration, cold,
              vs plain `mypy` cold                                target: <= 1.10x, RSS <= 1.3x
              and `loomlint check` right after it (its recorded results) target: < 1 s
  memory      peak RSS of the cold run vs mypy's                  target: <= 1.3x
              (and, for information, of `loomlint check` right after plain mypy)
The table at the end is the one docs/performance.md quotes.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import venv
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = Path(os.environ.get("LOOMLINT_BENCH_DIR", Path(tempfile.gettempdir()) / "loomlint-bench"))
SYNTHETIC_LINES = 300_000
PYDANTIC_AI_TAG = "v2.33.0"
SCENARIOS = ("cold", "after-mypy", "plugin", "memory", "warm", "edit", "no-types")
PYDANTIC_AI_TREES = ("pydantic_ai_slim/pydantic_ai", "tests")


@dataclass(frozen=True)
class Measurement:
    seconds: float
    peak_rss_mb: float
    exit_code: int


@dataclass(frozen=True)
class Codebase:
    name: str
    requirements: tuple[str, ...]
    """What its venv needs besides loomlint, mypy and Fixit: its own dependencies."""
    targets: tuple[str, ...]
    """Paths under its root that both tools check."""
    unpack: Callable[[Path, argparse.Namespace], str | None]
    """Lays the source out under the root given; returns why it cannot, or None."""
    without_deps: tuple[str, ...] = ()
    """Installed after ``requirements``, without their dependencies: the release checked, where
    the package index lacks a dependency it pins (the previous release's stand in for them)."""


@dataclass
class Row:
    """One codebase's figures, for the closing table."""

    name: str
    lines: int
    cells: dict[str, str] = field(default_factory=dict)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds per scenario (>= 5)")
    parser.add_argument(
        "--only",
        choices=[c.name for c in CODEBASES],
        action="append",
        help="benchmark this codebase only (repeatable)",
    )
    parser.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help=f"comma-separated subset of {','.join(SCENARIOS)} (default: all)",
    )
    parser.add_argument(
        "--pydantic-ai-checkout",
        type=Path,
        help=f"a clone of github.com/pydantic/pydantic-ai (holds tag {PYDANTIC_AI_TAG})",
    )
    args = parser.parse_args(argv)
    scenarios = set(args.scenarios.split(","))
    if unknown := scenarios - set(SCENARIOS):
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}")
    if args.rounds < 5:
        print(f"note: {args.rounds} rounds; issue 14's figures need at least 5")
    print(
        f"machine: {os.cpu_count()} cores, {platform.platform()}, Python "
        f"{platform.python_version()}"
    )
    rows: list[Row] = []
    for codebase in CODEBASES:
        if args.only and codebase.name not in args.only:
            continue
        root = WORK / codebase.name
        if not root.is_dir():
            staging = WORK / f"{codebase.name}.partial"
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            reason = codebase.unpack(staging, args)
            if reason is not None:
                shutil.rmtree(staging, ignore_errors=True)
                print(f"\n== {codebase.name}: skipped: {reason}")
                continue
            staging.rename(root)
        python = _venv(codebase)
        lines = sum(_count_lines(root / target) for target in codebase.targets)
        print(f"\n== {codebase.name}: {lines:,} lines in {', '.join(codebase.targets)}")
        _sanity_check(python, root, codebase.targets)
        row = Row(codebase.name, lines)
        _bench_tree(python, root, codebase.targets, row, args.rounds, scenarios)
        rows.append(row)
    _print_table(rows)
    return 0


# --- codebases -----------------------------------------------------------------------------------


def _unpack_langchain_core(root: Path, _args: argparse.Namespace) -> str | None:
    wheel = _download("langchain-core==1.8.4", binary=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(root, [m for m in archive.namelist() if m.startswith("langchain_core/")])
    # The wheel has no configuration: as a new user would, skip its optional integrations.
    (root / "pyproject.toml").write_text("[tool.mypy]\nignore_missing_imports = true\n")
    return None


def _unpack_deepagents(root: Path, _args: argparse.Namespace) -> str | None:
    sdist = _download("deepagents==0.7.32", binary=False)
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/", 1)
            if len(parts) == 2 and parts[1].startswith("deepagents/") and member.isfile():
                member.name = parts[1]
                archive.extract(member, root, filter="data")
    return None


def _unpack_sdist_with_config(
    requirement: str, package: str
) -> Callable[[Path, argparse.Namespace], str | None]:
    """Lays out ``package`` from the sdist of ``requirement`` beside the sdist's own
    pyproject.toml, whose mypy configuration both tools then read, as its developers' do."""

    def unpack(root: Path, _args: argparse.Namespace) -> str | None:
        sdist = _download(requirement, binary=False)
        with tarfile.open(sdist) as archive:
            for member in archive.getmembers():
                parts = member.name.split("/", 1)
                if len(parts) != 2 or not member.isfile():
                    continue
                if parts[1] == "pyproject.toml" or parts[1].startswith(f"{package}/"):
                    member.name = parts[1]
                    archive.extract(member, root, filter="data")
        return None

    return unpack


def _unpack_pydantic_ai(root: Path, args: argparse.Namespace) -> str | None:
    checkout: Path | None = args.pydantic_ai_checkout
    if checkout is None:
        return "no --pydantic-ai-checkout given (PyPI ships pydantic-ai's sources, not its tests)"
    git_dir = checkout / ".git" if (checkout / ".git").exists() else checkout
    git = ["git", f"--git-dir={git_dir}"]
    # Python files only: a partial clone may lack the large test cassettes, which no tool reads.
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "--name-only", PYDANTIC_AI_TAG, "--", *PYDANTIC_AI_TREES],
        capture_output=True,
        text=True,
    )
    if listing.returncode != 0:
        return f"git ls-tree {PYDANTIC_AI_TAG} failed: {listing.stderr.strip()}"
    files = [name for name in listing.stdout.splitlines() if name.endswith((".py", ".pyi"))]
    archive = subprocess.run(
        [*git, "archive", "--format=tar", PYDANTIC_AI_TAG, "--", *files], capture_output=True
    )
    if archive.returncode != 0:
        return f"git archive {PYDANTIC_AI_TAG} failed: {archive.stderr.decode().strip()}"
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(root, filter="data")
    return None


def _unpack_synthetic(root: Path, _args: argparse.Namespace) -> str | None:
    """A generated tree of SYNTHETIC_LINES lines: services that pass messages around, some of
    them reading content safely, some coercing it, most not touching it at all."""
    package = root / "app"
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
    return None


CODEBASES = (
    Codebase(
        "langchain-core",
        # 1.8.4 needs langchain-protocol>=0.0.22, which the package index here lacks: 1.8.3's
        # dependencies (langchain-protocol 0.0.20), then 1.8.4 itself.
        ("langchain-core==1.8.3",),
        ("langchain_core",),
        _unpack_langchain_core,
        without_deps=("langchain-core==1.8.4",),
    ),
    Codebase(
        "pydantic-ai",
        (
            "pydantic-ai-slim[openai,anthropic,groq,mistral,google,cohere,mcp,evals]==2.33.0",
            "pytest",
            "inline-snapshot",
            "dirty-equals",
            "pytest-mock",
        ),
        PYDANTIC_AI_TREES,
        _unpack_pydantic_ai,
    ),
    Codebase("deepagents", ("deepagents==0.7.32",), ("deepagents",), _unpack_deepagents),
    Codebase(
        "llama-index-core",
        ("llama-index-core==0.14.25",),
        ("llama_index",),
        _unpack_sdist_with_config("llama-index-core==0.14.25", "llama_index"),
    ),
    Codebase(
        "camel-ai",
        ("camel-ai==0.2.90",),
        ("camel",),
        _unpack_sdist_with_config("camel-ai==0.2.90", "camel"),
    ),
    Codebase("synthetic", (), ("app",), _unpack_synthetic),
)


# --- scenarios -----------------------------------------------------------------------------------


def _bench_tree(
    python: Path, root: Path, targets: tuple[str, ...], row: Row, rounds: int, scenarios: set[str]
) -> None:
    bin_dir = python.parent

    def loomlint(*flags: str) -> list[str]:
        # Paths after "--": a file named like an option is never read as one.
        return [str(bin_dir / "loomlint"), "check", "--quiet", *flags, "--", *targets]

    mypy = [str(bin_dir / "mypy"), "--", *targets]
    fixit = [str(bin_dir / "fixit"), "lint", *targets]
    with tempfile.TemporaryDirectory() as scratch:
        caches = Path(scratch)

        def fresh(tool: str, run: int) -> dict[str, str]:
            cache = caches / f"{tool}-{run}"
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
            return {"MYPY_CACHE_DIR": str(cache)}

        def fresh_kept(tool: str, run: int) -> dict[str, str]:
            """The mypy cache ``fresh`` gave that run, as the run left it."""
            shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
            return {"MYPY_CACHE_DIR": str(caches / f"{tool}-{run}")}

        warm_env = {"MYPY_CACHE_DIR": str(caches / "warm")}
        if "cold" in scenarios:
            cold_l, cold_m = _alternate(
                rounds,
                lambda i: _measure(loomlint("--no-cache"), root, fresh("loomlint", i)),
                lambda i: _measure(mypy, root, fresh("mypy", i)),
            )
            row.cells["cold"] = _report(
                "cold, types", "loomlint check", cold_l, "mypy", cold_m, limit=1.10
            )
            _report_timings(loomlint("--no-cache"), root, fresh("loomlint", rounds))
        if "after-mypy" in scenarios:
            # A CI job that runs plain mypy, then loomlint check on the cache it left.
            mypy_first, after = _alternate(
                rounds,
                lambda i: _measure(mypy, root, fresh("after-mypy", i)),
                lambda i: _measure(loomlint("--no-cache"), root, fresh_kept("after-mypy", i)),
            )
            row.cells["after-mypy"] = _report(
                "right after plain mypy",
                "loomlint check",
                after,
                "that mypy run",
                mypy_first,
                limit=0.3,
            )
            _measure(mypy, root, fresh("after-mypy", rounds))
            _report_timings(loomlint("--no-cache"), root, fresh_kept("after-mypy", rounds))
        if "plugin" in scenarios:
            _bench_plugin(root, mypy, loomlint("--format", "sarif"), row, rounds, fresh)
        if "memory" in scenarios:
            # Sampling /proc every 20 ms takes CPU from the run it watches (more from loomlint's
            # several processes than from mypy's one): memory is measured in runs of its own.
            memory_l, memory_m = _alternate(
                rounds,
                lambda i: _measure(
                    loomlint("--no-cache"), root, fresh("loomlint", i), sample_memory=True
                ),
                lambda i: _measure(mypy, root, fresh("mypy", i), sample_memory=True),
            )
            row.cells["memory"] = _report_memory(memory_l, memory_m, limit=1.3)
            # Right after that mypy run, on the cache it left.
            memory_after = [
                _measure(loomlint("--no-cache"), root, fresh_kept("mypy", i), sample_memory=True)
                for i in range(rounds)
            ]
            row.cells["after-mypy-memory"] = _report_memory(
                memory_after, memory_m, limit=None, label="right after plain mypy"
            )

        if "warm" in scenarios:
            shutil.rmtree(root / ".loomlint_cache", ignore_errors=True)
            _measure(loomlint(), root, warm_env)  # fill both caches
            warm = [_measure(loomlint(), root, warm_env) for _ in range(rounds)]
            row.cells["warm"] = _report_absolute("warm, nothing changed", warm, limit=0.5)

        if "edit" in scenarios:
            if "warm" not in scenarios:
                _measure(loomlint(), root, warm_env)  # fill both caches
            edited = _edit_target([root / target for target in targets])
            original = edited.read_text(encoding="utf-8")
            mypy_env = {"MYPY_CACHE_DIR": str(caches / "warm-mypy")}
            _measure(mypy, root, mypy_env)  # fill plain mypy's own cache
            body_l: list[Measurement] = []
            body_m: list[Measurement] = []
            interface_edits: list[Measurement] = []
            try:
                for run in range(rounds):
                    # The common edit: a function's body changes, its module's interface doesn't.
                    # Each tool sees the edit once: a run before the other would warm its cache.
                    edited.write_text(_edit_a_body(original, run), encoding="utf-8")
                    body_l.append(_measure(loomlint(), root, warm_env))
                    body_m.append(_measure(mypy, root, mypy_env))
                for run in range(rounds):
                    # A new public function: every module importing this one may see new types.
                    edited.write_text(
                        original + f"\n\ndef _bench_edit_{run}() -> int:\n    return {run}\n",
                        encoding="utf-8",
                    )
                    interface_edits.append(_measure(loomlint(), root, warm_env))
            finally:
                edited.write_text(original, encoding="utf-8")
            name = edited.relative_to(root)
            print(
                f"  after editing a function body in {name}: loomlint {_spread(body_l)}, "
                f"plain mypy {_spread(body_m)}"
            )
            row.cells["edit"] = f"{_median(body_l):.2f} s (mypy {_median(body_m):.2f} s)"
            print(
                f"  after adding a function to {name} (its dependents are re-analysed): "
                f"{_spread(interface_edits)}"
            )
            row.cells["add"] = f"{_median(interface_edits):.2f} s"

        if "no-types" in scenarios:
            nt_l, nt_f = _alternate(
                rounds,
                lambda i: _measure(loomlint("--no-types", "--no-cache"), root, {}),
                lambda i: _measure(fixit, root, {}),
            )
            speed_l = row.lines / _median(nt_l)
            speed_f = row.lines / _median(nt_f)
            verdict = "MET" if speed_l >= 20 * speed_f else "NOT MET"
            print(
                f"  no-types: loomlint {_spread(nt_l)}, Fixit {_spread(nt_f)}; throughput "
                f"{speed_l:,.0f} vs {speed_f:,.0f} lines/s: {speed_l / speed_f:.1f}x "
                f"(target >= 20x) {verdict}"
            )
            row.cells["no-types"] = (
                f"{speed_l:,.0f} vs {speed_f:,.0f} lines/s: {speed_l / speed_f:.1f}x"
            )


def _bench_plugin(
    root: Path,
    mypy: list[str],
    check: list[str],
    row: Row,
    rounds: int,
    fresh: Callable[[str, int], dict[str, str]],
) -> None:
    """A CI job that gates on mypy with loomlint's plugin, then reports with `loomlint check`:
    per round, plain mypy and mypy with the plugin (alternating which goes first), each cold,
    then `loomlint check` on what the plugin's run left. Peak memory is sampled in every run
    here (both mypy runs alike)."""
    config = root / "pyproject.toml"
    original = config.read_text(encoding="utf-8") if config.exists() else None
    with_plugin = _with_loomlint_plugin(original)

    def configure(text: str | None) -> None:
        if text is None:
            config.unlink(missing_ok=True)
        else:
            config.write_text(text, encoding="utf-8")

    plain: list[Measurement] = []
    plugin: list[Measurement] = []
    after: list[Measurement] = []
    try:
        for run in range(rounds):
            for variant in ("plain", "plugin") if run % 2 == 0 else ("plugin", "plain"):
                if variant == "plain":
                    configure(original)
                    plain.append(_measure(mypy, root, fresh("plain", run), sample_memory=True))
                else:
                    configure(with_plugin)
                    env = fresh("plugin", run)
                    plugin.append(_measure(mypy, root, env, sample_memory=True))
                    after.append(_measure(check, root, env, sample_memory=True))
    finally:
        configure(original)
    row.cells["plugin"] = _report(
        "cold, mypy with the plugin", "mypy + plugin", plugin, "plain mypy", plain, limit=1.10
    )
    row.cells["plugin-memory"] = _report_memory(
        plugin, plain, limit=1.3, label="mypy with the plugin", names=("mypy + plugin", "mypy")
    )
    row.cells["after-plugin"] = _report_absolute(
        "`loomlint check --format sarif` right after mypy + plugin", after, limit=1.0
    )
    job = statistics.median(
        p.seconds + a.seconds for p, a in zip(plugin, after, strict=True)
    ) / _median(plain)
    print(f"  CI job mypy + plugin, then loomlint check: {job:.2f}x plain mypy (target <= 1.15x)")
    row.cells["plugin-job"] = f"{job:.2f}x"


def _with_loomlint_plugin(pyproject: str | None) -> str:
    """The codebase's pyproject.toml with ``loomlint.mypy_plugin`` added to mypy's plugins."""
    import tomllib

    ours = "loomlint.mypy_plugin"
    if pyproject is None:
        return f'[tool.mypy]\nplugins = ["{ours}"]\n'
    section = tomllib.loads(pyproject).get("tool", {}).get("mypy")
    if section is None:
        return f'{pyproject}\n[tool.mypy]\nplugins = ["{ours}"]\n'
    named = section.get("plugins", [])
    plugins = [named] if isinstance(named, str) else list(named)
    line = f"plugins = {json.dumps([*plugins, ours])}"
    if "plugins" not in section:
        return pyproject.replace("[tool.mypy]\n", f"[tool.mypy]\n{line}\n", 1)
    edited, count = re.subn(r"^plugins\s*=.*$", line, pyproject, count=1, flags=re.M)
    if count != 1 or tomllib.loads(edited)["tool"]["mypy"]["plugins"] != [*plugins, ours]:
        raise SystemExit("cannot add loomlint's plugin to this pyproject.toml's [tool.mypy]")
    return edited


def _sanity_check(python: Path, root: Path, targets: tuple[str, ...]) -> None:
    """Fail loudly if loomlint would check nothing (an ignored tree benchmarks nothing)."""
    result = subprocess.run(
        [
            str(python.parent / "loomlint"),
            "check",
            "--no-types",
            "--no-cache",
            "--statistics",
            "--",
            *targets,
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
    rounds: int,
    first: Callable[[int], Measurement],
    second: Callable[[int], Measurement],
) -> tuple[list[Measurement], list[Measurement]]:
    a: list[Measurement] = []
    b: list[Measurement] = []
    for run in range(rounds):
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
) -> str:
    ratio = _median(ours) / _median(theirs)
    verdict = "MET" if ratio <= limit else "NOT MET"
    print(
        f"  {scenario}: {name} {_spread(ours)}, {peer} {_spread(theirs)}: {ratio:.2f}x "
        f"(target <= {limit}x) {verdict}"
    )
    return f"{_median(ours):.2f} s vs {_median(theirs):.2f} s: {ratio:.2f}x"


def _report_timings(command: list[str], cwd: Path, env: dict[str, str]) -> None:
    """Where one cold run's time went: loomlint's own phase marks, and its analysis totals."""
    result = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **env, "LOOMLINT_TIMINGS": "1"},
        capture_output=True,
        text=True,
    )
    marks = [line for line in result.stderr.splitlines() if line.startswith("loomlint timings")]
    print("  where a cold run's time went (LOOMLINT_TIMINGS=1):")
    for line in marks:
        print(f"    {line.removeprefix('loomlint timings:').strip()}")


def _report_memory(
    ours: list[Measurement],
    theirs: list[Measurement],
    *,
    limit: float | None,
    label: str = "cold",
    names: tuple[str, str] = ("loomlint", "mypy"),
) -> str:
    mine = statistics.median(m.peak_rss_mb for m in ours)
    other = statistics.median(m.peak_rss_mb for m in theirs)
    ratio = mine / other
    verdict = (
        "" if limit is None else f" (target <= {limit}x) {'MET' if ratio <= limit else 'NOT MET'}"
    )
    figures = f"{names[0]} {mine:.0f} MB, {names[1]} {other:.0f} MB: {ratio:.2f}x"
    print(f"  peak memory, {label}: {figures}{verdict}")
    return f"{mine:.0f} vs {other:.0f} MB: {ratio:.2f}x"


def _report_absolute(scenario: str, runs: list[Measurement], *, limit: float) -> str:
    median = _median(runs)
    print(
        f"  {scenario}: {_spread(runs)} (target < {limit} s) "
        f"{'MET' if median < limit else 'NOT MET'}"
    )
    return f"{median:.2f} s"


def _print_table(rows: list[Row]) -> None:
    if not rows:
        return
    scenarios = [
        ("cold", "cold, with types, vs plain `mypy`", "<= 1.10x"),
        ("after-mypy", "`loomlint check` right after plain `mypy`, vs that mypy run", "<= 0.3x"),
        ("plugin", "`mypy` with loomlint's plugin, cold, vs plain `mypy`", "<= 1.10x"),
        ("plugin-memory", "peak memory of `mypy` with the plugin vs plain `mypy`", "<= 1.3x"),
        ("after-plugin", "`loomlint check --format sarif` right after `mypy` + plugin", "< 1 s"),
        (
            "plugin-job",
            "the CI job (`mypy` + plugin, then `loomlint check`) vs plain `mypy`",
            "<= 1.15x",
        ),
        ("memory", "peak memory (process tree) vs `mypy`", "<= 1.3x"),
        ("after-mypy-memory", "peak memory right after plain `mypy`, vs that mypy run", "none"),
        ("warm", "warm, nothing changed", "< 0.5 s"),
        ("edit", "after editing a function body", "none"),
        ("add", "after adding a function", "none"),
        ("no-types", "`--no-types` vs Fixit", ">= 20x"),
    ]
    print(f"\n| scenario | {' | '.join(f'{r.name} ({r.lines:,} lines)' for r in rows)} | target |")
    print(f"| --- | {' | '.join('---' for _ in rows)} | --- |")
    for key, label, target in scenarios:
        print(f"| {label} | {' | '.join(r.cells.get(key, '') for r in rows)} | {target} |")


def _median(runs: list[Measurement]) -> float:
    return statistics.median(m.seconds for m in runs)


def _spread(runs: list[Measurement]) -> str:
    seconds = [m.seconds for m in runs]
    return f"{statistics.median(seconds):.2f} s [{min(seconds):.2f}-{max(seconds):.2f}]"


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


def _venv(codebase: Codebase) -> Path:
    """The codebase's own venv: loomlint (this checkout), mypy, Fixit and its dependencies."""
    root = WORK / "venvs" / codebase.name
    python = root / "bin" / "python"
    installed = root / ".installed"
    if not installed.exists():
        print(f"creating {codebase.name}'s benchmark venv (once)...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(root)
        _pip(python, "install", "--quiet", "-e", str(REPO), "fixit", *codebase.requirements)
        if codebase.without_deps:
            _pip(python, "install", "--quiet", "--no-deps", *codebase.without_deps)
        installed.write_text("ok\n")
    _measure_this_checkout(python)
    _byte_compile(python)
    return python


def _measure_this_checkout(python: Path) -> None:
    """The venv's loomlint is this checkout's: a venv built from another checkout (a worktree
    sharing the work folder) keeps its editable install, and would be measured instead."""
    found = subprocess.run(
        [str(python), "-c", "import loomlint; print(loomlint.__file__)"],
        cwd=python.parent,  # not this checkout's folder, which would shadow the venv's install
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if Path(found).resolve().parent != (REPO / "loomlint").resolve():
        venv_name = python.parent.parent.name
        print(f"{venv_name}: its loomlint was {found or 'missing'}; installing this checkout")
        _pip(python, "install", "--quiet", "--no-deps", "-e", str(REPO))


def _byte_compile(python: Path) -> None:
    """Compile this checkout's loomlint to bytecode, as installing a wheel does.

    The venv's install is editable: Python writes a module's bytecode at its first import,
    unless PYTHONDONTWRITEBYTECODE is set (it is on the machines this was written on), and then
    every run compiles loomlint's source again, in mypy's process and in the plugin's worker:
    half a second of a cold ``mypy`` run with the plugin on langchain-core, a cost no installed
    loomlint has. Bytecode is read whatever that variable says."""
    subprocess.run(
        [str(python), "-m", "compileall", "-q", str(REPO / "loomlint")],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _download(requirement: str, *, binary: bool) -> Path:
    downloads = WORK / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    kind = ["--only-binary", ":all:"] if binary else ["--no-binary", ":all:"]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            *kind,
            requirement,
            "-d",
            str(downloads),
        ],
        check=True,
    )
    name = requirement.split("==")[0].replace("-", "_")
    version = requirement.split("==")[1]
    found = [p for p in downloads.iterdir() if p.name.lower().startswith(f"{name}-{version}")]
    if not found:
        raise SystemExit(f"pip downloaded nothing for {requirement} into {downloads}")
    return found[0]


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


def _edit_target(trees: list[Path]) -> Path:
    """A mid-sized module that reads content and has a function body to edit."""
    candidates = sorted(
        (
            p
            for tree in trees
            for p in tree.rglob("*.py")
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
