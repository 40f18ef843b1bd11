"""benchmarks/corpus/run.py keeps its two halves apart (docs/corpus.md): a table and a total
per half, the judging half's findings counted but not listed unless asked for, and each
codebase checked with the paths and mypy configuration it names."""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

RUN_PY = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus" / "run.py"


@pytest.fixture(scope="module")
def run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corpus_run", RUN_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["corpus_run"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_halves_are_the_tuning_codebases_and_at_least_four_judging_ones(
    run: ModuleType,
) -> None:
    halves = {half: [c.name for c in run.CODEBASES if c.half == half] for half in run.HALVES}
    assert halves["tuning"] == [
        "autogen-core",
        "smolagents",
        "aisuite",
        "llm",
        "claude-agent-sdk",
        "langchain-anthropic",
        "langchain-mcp-adapters",
        "marvin",
        "langchain-core",
        # Issue 27's first judging half, judged once and then tuned on.
        "langchain-google-genai",
        "kani",
        "opentelemetry-instrumentation-anthropic",
        "instructor",
        # Its second judging half, judged once and then tuned on.
        "langchain-mistralai",
        "mirascope",
        "llm-anthropic",
        "dspy",
        "mem0ai",
        # Its third judging half, judged once and then tuned on.
        "langchain-aws",
        "magentic",
        "mcp-agent",
        "openai-agents",
        "browser-use",
        # Its fourth judging half, judged once and then tuned on.
        "langchain-ollama",
        "inspect-ai",
        "anthropic-bridge",
        "ag2",
        "strands-agents",
        # Its fifth judging half, judged once and then tuned on.
        "langchain-cohere",
        "haystack-ai",
        "gptme",
        "openai-guardrails",
        "qwen-agent",
    ]
    assert halves["judging"] == [
        "langchain-nvidia-ai-endpoints",
        "agentscope",
        "claudette",
        "mini-swe-agent",
        "shell-gpt",
        "autogen-agentchat",
        "mistral-common",
        "open-interpreter",
        "chainlit",
    ]
    assert sum(map(len, halves.values())) == len(run.CODEBASES)
    for codebase in run.CODEBASES:
        assert re.fullmatch(r"[0-9a-f]{64}", codebase.sha256), codebase.name
        assert re.fullmatch(r"[\w.\[\],-]+==[\w.]+", codebase.requirement), codebase.name


def test_no_other_benchmark_uses_a_codebase_of_the_judging_half(run: ModuleType) -> None:
    """A codebase of the judging half measured by another benchmark would be looked at, and
    tuned on, before its judging."""
    benchmarks = RUN_PY.parents[1]
    others = {
        path.relative_to(benchmarks).as_posix(): path.read_text(encoding="utf-8").lower()
        for path in sorted(benchmarks.rglob("*.py"))
        if path != RUN_PY
    }
    for codebase in run.CODEBASES:
        if codebase.half != "judging":
            continue
        name = run.project_name(codebase.requirement)
        spellings = {name, name.replace("-", "_")}
        used = [path for path, text in others.items() if any(s in text for s in spellings)]
        assert used == [], f"{name} is used by {used}"


def figures(run: ModuleType, half: str, typed: tuple[int, int, int], sample: int) -> object:
    result = run.Figures(half, lines=1000)
    result.counts = {
        "types": (typed[0], typed[1], typed[2], typed[0]),
        "no-types": (typed[0] + 1, typed[1], typed[2], sample),
    }
    result.misses = (3, 1, 0, 0)
    result.typed_misses = 1
    return result


def test_each_half_is_printed_in_a_table_of_its_own_with_its_total(
    run: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    table = {
        "a": figures(run, "tuning", (10, 10, 9), 11),
        "b": figures(run, "judging", (4, 0, 0), 5),
        "c": figures(run, "tuning", (2, 2, 1), 3),
    }
    args = argparse.Namespace(sample=40, seed=1)
    run.print_table(table, ("types", "no-types"), args)
    out = capsys.readouterr().out
    header = (
        "| codebase | lines | typed findings (judged) | typed precision | no-types findings "
        "| sample of 40 (seed 1) judged | no-types precision "
        "| true findings the typed run misses | miss candidates (unjudged) | misses found |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    )
    assert out.split("\nrun times:")[0] == (
        "\ntuning half (the codebases whose findings shaped the engine's fixes):\n\n"
        + header
        + "| a | 1,000 | 10 (10) | 90.0% (9/10) | 11 | 10/11 | 90.0% (9/10) | 1 | 3 (1) | 0/0 |\n"
        "| c | 1,000 | 2 (2) | 50.0% (1/2) | 3 | 2/3 | 50.0% (1/2) | 1 | 3 (1) | 0/0 |\n"
        "| **tuning** | 2,000 | 12 (12) | 83.3% (10/12) | 14 | 12/14 | 83.3% (10/12) | 2 "
        "| 6 (2) | 0/0 |\n"
        "tuning: types: 10/12 true (83.3%) of 12 findings; "
        "no-types: 10/12 true (83.3%) of 14 findings\n"
        "\njudging half (code nobody here looked at: judged once, after the fixes landed):\n\n"
        + header
        + "| b | 1,000 | 4 (0) | - (0/0) | 5 | 0/5 | - (0/0) | 1 | 3 (1) | 0/0 |\n"
        "| **judging** | 1,000 | 4 (0) | - (0/0) | 5 | 0/5 | - (0/0) | 1 | 3 (1) | 0/0 |\n"
        "judging: types: 0/0 true (-) of 4 findings; no-types: 0/0 true (-) of 5 findings\n"
    )


def finding(run: ModuleType, codebase: str, line: int) -> object:
    return run.Finding(codebase, "types", "m.py", line, 4, "LML003", "msg", f"x{line}", "b")


def test_compare_lists_the_tuning_half_and_only_counts_the_unlisted_judging_half(
    run: ModuleType, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "before.json"
    before = [finding(run, "tuned", 1), finding(run, "judged", 1), finding(run, "judged", 2)]
    saved.write_text(json.dumps([f.__dict__ for f in before]), encoding="utf-8")
    now = [finding(run, "tuned", 2), finding(run, "judged", 3), finding(run, "new", 1)]
    run.compare(saved, now, {}, {"tuned", "judged", "new"}, {"judged"}, ("types", "no-types"))
    assert capsys.readouterr().out == (
        f"\nchanged since {saved}:\n"
        "  (not in it: new)\n"
        "  gone types    tuned m.py:1:4 LML003 [unjudged] msg\n"
        "  new  types    tuned m.py:2:4 LML003 [unjudged] msg\n"
        "  judged (judging half): 3 changed, not listed\n"
    )


def test_compare_lists_what_went_from_a_mode_that_now_finds_nothing(
    run: ModuleType, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A mode the run measured is compared though it found nothing this time; a mode it did not
    run (``--no-types-only``) is no change."""
    saved = tmp_path / "before.json"
    untyped = run.Finding("tuned", "no-types", "m.py", 5, 4, "LML001", "msg", "x5", "b")
    before = [finding(run, "tuned", 1), untyped]
    saved.write_text(json.dumps([f.__dict__ for f in before]), encoding="utf-8")
    now = [finding(run, "tuned", 1)]
    run.compare(saved, now, {}, {"tuned"}, set(), ("types", "no-types"))
    assert capsys.readouterr().out == (
        f"\nchanged since {saved}:\n  gone no-types tuned m.py:5:4 LML001 [unjudged] msg\n"
    )
    run.compare(saved, [], {}, {"tuned"}, set(), ("no-types",))
    assert capsys.readouterr().out == (
        f"\nchanged since {saved}:\n  gone no-types tuned m.py:5:4 LML001 [unjudged] msg\n"
    )


def test_a_codebase_is_checked_with_the_paths_it_names(run: ModuleType, tmp_path: Path) -> None:
    for name in ("pkg/a.py", "pkg/sub/b.py", "tests/t.py", "examples/run.py", "pkg/.venv/c.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    found = [p.relative_to(tmp_path).as_posix() for p in run.python_files(tmp_path, ("pkg",))]
    assert found == ["pkg/a.py", "pkg/sub/b.py"]
    everything = [p.relative_to(tmp_path).as_posix() for p in run.python_files(tmp_path)]
    assert everything == ["examples/run.py", "pkg/a.py", "pkg/sub/b.py", "tests/t.py"]


def test_the_mypy_configuration_a_codebase_names_is_written_and_never_shadows_its_own(
    run: ModuleType, tmp_path: Path
) -> None:
    codebase = run.Codebase("x", "x==1", "0" * 64, "kind", "judging", mypy_ini="[mypy]\nA = 1\n")
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\n", encoding="utf-8")
    run.configure(codebase, tmp_path)
    written = (tmp_path / "mypy.ini").read_text(encoding="utf-8")
    assert written == f"{run.ADDED_BY_RUN}\n[mypy]\nA = 1\n"
    changed = run.Codebase("x", "x==1", "0" * 64, "kind", "judging", mypy_ini="[mypy]\nA = 2\n")
    run.configure(changed, tmp_path)
    assert (tmp_path / "mypy.ini").read_text(encoding="utf-8").endswith("A = 2\n")
    (tmp_path / "mypy.ini").unlink()
    (tmp_path / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="has a mypy configuration of its own"):
        run.configure(codebase, tmp_path)
    assert not (tmp_path / "mypy.ini").exists()
