"""How many of `loomlint check --no-types`'s findings are true: a seeded sample for a person to
judge, and the figure recomputed from the judgements kept beside this script.

Not a test. Run from the repository root:

    python3 benchmarks/no_types_precision.py TREE --codebase NAME [--seed 1] [--size 40]
    python3 benchmarks/no_types_precision.py TREE --codebase NAME --typed-python PY
    python3 benchmarks/no_types_precision.py --fixtures

The first form runs `loomlint check --no-types --format json` on TREE (from TREE's parent, so
the paths start with TREE's name), draws `--size` findings (those whose hash with the seed is
lowest, so that a change adding or removing findings leaves the rest of the sample as it was),
and prints each with the lines before it and the judgement recorded for it in
`no_types_judgements.tsv` (codebase, path, line, column, code, verdict, reason). The sample's
precision is computed over the judged findings; unjudged ones are listed so they can be judged
and added. A finding is *true* when the value really may be the SPI's `str | list` content
(what a type-aware run with the SPI installed would report), *false* otherwise.

`--typed-python PY` checks recall instead: it runs the type-aware `loomlint check` with PY (a
Python whose environment has the tree's dependencies installed; this checkout is put first on
its path) and lists the typed findings that `--no-types` does not report.

`--fixtures` needs no judging: the fixtures' `# expect` comments say what each mode reports
(the tests hold both modes to them exactly), so precision is the share of the no-types
findings that the typed run also reports, and recall the share of the typed findings that
the no-types run also reports.

The codebases measured, and where their trees come from, are listed in docs/configuration.md
(section `types`).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
JUDGEMENTS = Path(__file__).resolve().parent / "no_types_judgements.tsv"
CONTEXT_LINES = 6

Key = tuple[str, str, int, int, str]  # codebase, path, line, column, code


@dataclass(frozen=True)
class Judgement:
    verdict: bool
    reason: str


def run_check(tree: Path, python: str, *, types: bool) -> list[dict[str, object]]:
    command = [python, "-c", "from loomlint.cli import console_main; console_main()"]
    command += ["check", "--format", "json", "--no-cache", tree.name]
    if not types:
        command.append("--no-types")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run(
        command, cwd=tree.parent, env=env, capture_output=True, text=True, check=False
    )
    if result.returncode not in (0, 1):
        sys.exit(f"loomlint failed ({result.returncode}):\n{result.stderr}")
    findings: list[dict[str, object]] = json.loads(result.stdout)
    return findings


def load_judgements() -> dict[Key, Judgement]:
    judgements: dict[Key, Judgement] = {}
    if not JUDGEMENTS.exists():
        return judgements
    with JUDGEMENTS.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            key = (row["codebase"], row["path"], int(row["line"]), int(row["column"]), row["code"])
            judgements[key] = Judgement(row["verdict"] == "true", row["reason"])
    return judgements


def key_of(codebase: str, finding: dict[str, object]) -> Key:
    return (
        codebase,
        str(finding["path"]),
        int(str(finding["line"])),
        int(str(finding["column"])),
        str(finding["code"]),
    )


def show(tree: Path, finding: dict[str, object]) -> str:
    path = tree.parent / str(finding["path"])
    line = int(str(finding["line"]))
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    start = max(0, line - CONTEXT_LINES)
    shown = [f"   {n + 1:>6}: {lines[n]}" for n in range(start, min(line, len(lines)))]
    return "\n".join(shown)


def _draw(seed: int, key: Key) -> str:
    return hashlib.sha256(f"{seed}\t{key}".encode()).hexdigest()


def precision(args: argparse.Namespace) -> None:
    tree = Path(args.tree).resolve()
    findings = run_check(tree, sys.executable, types=False)
    # The findings whose seeded hash is lowest: a change that adds or removes findings leaves
    # the rest of the sample (and its judgements) as it was.
    sample = sorted(findings, key=lambda f: _draw(args.seed, key_of(args.codebase, f)))
    sample = sample[: args.size]
    sample.sort(key=lambda f: (str(f["path"]), int(str(f["line"])), int(str(f["column"]))))
    judgements = load_judgements()
    true = false = 0
    unjudged: list[Key] = []
    for number, finding in enumerate(sample):
        key = key_of(args.codebase, finding)
        judgement = judgements.get(key)
        if judgement is None:
            unjudged.append(key)
            verdict = "UNJUDGED"
        else:
            verdict = f"{'true' if judgement.verdict else 'FALSE'}: {judgement.reason}"
            true += judgement.verdict
            false += not judgement.verdict
        if not args.quiet:
            where = "\t".join(map(str, key[1:]))
            print(f"#{number} {where}\t{finding['message']}")
            print(show(tree, finding))
            print(f"   -> {verdict}")
    judged = true + false
    print(
        f"{args.codebase}: {len(findings)} findings; sample of {len(sample)} (seed {args.seed}): "
        f"{true} true, {false} false, {len(unjudged)} unjudged"
        + (f"; precision {true / judged:.1%}" if judged else "")
    )
    for key in unjudged:
        print("unjudged:", "\t".join(map(str, key)), file=sys.stderr)


def recall(args: argparse.Namespace) -> None:
    tree = Path(args.tree).resolve()
    typed = run_check(tree, args.typed_python, types=True)
    untyped = {key_of(args.codebase, f) for f in run_check(tree, sys.executable, types=False)}
    missed = [f for f in typed if key_of(args.codebase, f) not in untyped]
    for finding in missed:
        print("missed:", "\t".join(map(str, key_of(args.codebase, finding))), finding["message"])
    print(
        f"{args.codebase}: {len(typed)} typed findings, {len(typed) - len(missed)} also found "
        f"without types, {len(missed)} missed"
    )


def fixtures() -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from expectations import expected_findings  # the tests' own reading of the comments

    groups = {
        "fixtures/analysis": sorted((REPO / "fixtures" / "analysis").glob("*.py")),
        "fixtures/presets": sorted((REPO / "fixtures" / "presets").rglob("*.py")),
    }
    for name, paths in groups.items():
        typed = set(expected_findings(paths, REPO, types=True))
        untyped = set(expected_findings(paths, REPO, types=False))
        both = len(typed & untyped)
        print(
            f"{name}: {len(untyped)} no-types findings, {both} true "
            f"(precision {both / len(untyped):.1%}); {len(typed)} typed findings, "
            f"{len(typed) - both} missed without types (recall {both / len(typed):.1%})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", help="the directory to check")
    parser.add_argument("--codebase", help="its name in the judgements file")
    parser.add_argument("--fixtures", action="store_true", help="the fixtures' figures")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=40)
    parser.add_argument("--quiet", action="store_true", help="only the summary")
    parser.add_argument("--typed-python", help="check recall against a typed run with this Python")
    args = parser.parse_args()
    if args.fixtures:
        fixtures()
    elif args.tree is None or args.codebase is None:
        parser.error("TREE and --codebase are needed, or --fixtures")
    elif args.typed_python:
        recall(args)
    else:
        precision(args)


if __name__ == "__main__":
    main()
