"""loomlint on public LLM codebases it was not shaped on: precision per codebase and mode,
measured against judgements a person made by reading the code, and the misses searched for.

Not a test. Run from the repository root:

    python3 benchmarks/corpus/run.py                       # every codebase, both modes
    python3 benchmarks/corpus/run.py --half tuning         # the half the fixes were shaped on
    python3 benchmarks/corpus/run.py --half judging        # the other: judged once, at the end
    python3 benchmarks/corpus/run.py --only smolagents --only llm
    python3 benchmarks/corpus/run.py --no-types-only       # no mypy: seconds, not minutes
    python3 benchmarks/corpus/run.py --save-findings /tmp/before.json
    python3 benchmarks/corpus/run.py --compare /tmp/before.json
    python3 benchmarks/corpus/run.py --loomlint /tmp/loomlint-at-main   # another commit's code
    python3 benchmarks/corpus/run.py --unjudged-tsv /tmp/todo.tsv --misses-tsv /tmp/misses.tsv

The corpus has two halves (HALVES). The tuning half is the code whose findings shaped the
engine's fixes, so its figures say how loomlint does on what it was fitted to. The judging half
is code nobody here looked at: its findings are judged once, at the end of a round, after every
fix has landed, and no engine change is made for one of them in the same change; a run counts
them but lists them one by one only when asked for that half (`--half judging`) or codebase
(`--only`). Each half is printed in a table of its own, with its total.

Each codebase is a PyPI sdist pinned by version and sha256 (CODEBASES below). The script keeps
its workspace outside the repository, in $LOOMLINT_CORPUS_DIR (default
<tmp>/loomlint-corpus): the sdists (fetched with pip, checked against their sha256), each one
unpacked, and one venv per codebase with its dependencies and loomlint's, so that mypy
resolves the codebase's imports as its developers' mypy would. Both are made once and reused;
loomlint itself always runs from this checkout (first on PYTHONPATH). Each run writes loomlint's
raw output to a folder of its own, $LOOMLINT_CORPUS_DIR/results/<time>-<pid>/, so that runs at
once never overwrite each other's.

Per codebase it runs `loomlint check --format json .` (or the paths the codebase names) from the
unpacked sdist's root, as a user would, so that the project's own configuration (its mypy
configuration and plugins included) applies; once with types and once with `--no-types`, and
reads the verdicts from `judgements.tsv` beside this script. Every typed finding is judged; of
the `--no-types` findings, a sample of `--sample` (40) drawn by seeded hash, so that a change
adding or removing findings leaves the rest of the sample as it was. A judgement is keyed by the
codebase, the file, the code, the column, the text of the flagged line and a digest of the two
lines before it (whitespace collapsed; the `before` column), never by the line number, so it
survives unrelated line moves and tells identical lines apart; its verdict is about the code,
not the mode, so a finding judged in one mode counts in the other (and a true finding that only
`--no-types` reports is one the typed run misses: listed, and counted in the table). *True*
means a real bug or a real repr/crash hazard on part-message content; *false* everything else.

Misses: every line that reads content (`.content`, `["content"]`, `.get("content")`,
`getattr(x, "content")`, or a local named `content`) in `str(`, an f-string, `+`,
`.strip(`/`.split(`/`.lower(`, `json.dumps(` or `len(`, and that neither mode flags, is a
candidate; `misses.tsv` holds their judgements (verdict `miss`: a real bug loomlint should
report, and why it does not yet; `safe`: not one, and why). A judged miss that either mode now
flags counts as found.

The closing tables are the ones docs/corpus.md quotes; unjudged findings and candidates are
listed (with the lines before them), and `--unjudged-tsv` / `--misses-tsv` write them as rows
to fill in and append to the TSVs.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
JUDGEMENTS = HERE / "judgements.tsv"
MISSES = HERE / "misses.tsv"
WORK = Path(os.environ.get("LOOMLINT_CORPUS_DIR", Path(tempfile.gettempdir()) / "loomlint-corpus"))
MODES = ("types", "no-types")
# Each run writes loomlint's raw output in a folder of its own, so that two runs at once (two
# checkouts measured side by side) never overwrite each other's results.
RESULTS = WORK / "results" / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
CONTEXT_LINES = 6

sys.path.insert(0, str(REPO))
from loomlint.report.fingerprint import finding_fingerprint  # noqa: E402  (this checkout's)


@dataclass(frozen=True)
class Codebase:
    name: str
    requirement: str
    """The pinned sdist, `name==version`."""
    sha256: str
    kind: str
    """What makes it part of the corpus (for the table)."""
    half: str
    """`tuning`: the engine was shaped on its findings; `judging`: judged once, after the
    fixes, and never a reason for an engine change in the same change (HALVES)."""
    extras: tuple[str, ...] = ()
    """What its venv needs besides the release itself and loomlint's dependencies."""
    paths: tuple[str, ...] = (".",)
    """What `loomlint check` is given, from the unpacked sdist's root (whose configuration,
    mypy's included, applies as it does for the project's developers)."""
    mypy_ini: str | None = None
    """The mypy configuration its users would add where the sdist has none and mypy cannot
    type it without one: written as `mypy.ini` at the unpacked root (configure)."""
    dependencies_from: str | None = None
    """Where pip cannot resolve the release's own dependencies (one of them is not on the
    index), the release whose dependencies the venv gets instead; the pinned release is then
    installed over them without its own."""


TUNING = "tuning"
JUDGING = "judging"
HALVES = {
    TUNING: "the codebases whose findings shaped the engine's fixes",
    JUDGING: "code nobody here looked at: judged once, after the fixes landed",
}

CODEBASES = (
    Codebase(
        "autogen-core",
        "autogen-core==0.7.5",
        "70c2871389f1d0a7f6db8ef78717a51b7ce877ff4a08a836b7758d604dece203",
        "own message classes (a union with text-only members)",
        TUNING,
        ("pytest",),
    ),
    Codebase(
        "smolagents",
        "smolagents[openai]==1.26.0",
        "4ec92313265f9cfbcabfc88e192b4bc4505f8475dc5f33dc872062fc567037bd",
        "own ChatMessage, multi-provider",
        TUNING,
        ("pytest",),
    ),
    Codebase(
        "aisuite",
        "aisuite[openai,anthropic]==0.2.0",
        "fe82891e025101416d58c0b7bc32a1613937bf2021e2f03c237c040fcc4d53f1",
        "multi-provider, OpenAI dicts",
        TUNING,
        ("pytest",),
    ),
    Codebase(
        "llm",
        "llm==0.36",
        "e59ad30875a99be2eea0c880543b1ebfe40eea24ae55d4008eb1e12c77964626",
        "own prompt/response classes, OpenAI dicts",
        TUNING,
        ("pytest",),
    ),
    Codebase(
        "claude-agent-sdk",
        "claude-agent-sdk==0.2.189",
        "1d859a142ee6cd97aef972215ed7ab5c09f623018194a6577c7dafbbfa481216",
        "Anthropic content blocks, own message classes",
        TUNING,
        ("pytest",),
    ),
    Codebase(
        "langchain-anthropic",
        "langchain-anthropic==1.7.10",
        "72869686960b3d6665f99e7c91c9f6dd4a1d9ccf73d23edd8702eb603cc2e498",
        "LangChain messages to Anthropic dicts",
        TUNING,
        # Its tests build agents with langchain's create_agent (its test dependency group).
        ("pytest", "langchain"),
    ),
    Codebase(
        "langchain-mcp-adapters",
        "langchain-mcp-adapters==0.3.2",
        "61cd1a09597adb619a9bafb0642938ffc2a9463d699a753f7af0420ea46c381a",
        "LangChain user (tools, MCP content)",
        TUNING,
        ("pytest", "langgraph"),
    ),
    Codebase(
        "marvin",
        "marvin==3.2.7",
        "b65dd6eb50e34431b95fe473938b036ec8cf23c63e50476192af27bea197f8ee",
        "pydantic-ai user",
        TUNING,
        ("pytest",),
    ),
    Codebase(
        "langchain-core",
        "langchain-core==1.8.4",
        "af8976d6df0b3338dc7c830ebf1c505c0fc05a0e3eb564f4901ed7546a418ab6",
        "the LangChain SPI itself (its message classes and their users)",
        TUNING,
        # Its typing dependency group, as its developers' mypy runs. What mypy still cannot
        # find (numpy, jinja2, grandalf) defines no message: `Any` either way, so
        # `ignore_missing_imports` would only silence mypy, and gives the same findings.
        ("types-pyyaml", "types-requests", "langchain-text-splitters"),
        # The library, not its tests: the findings issue 27 judged.
        paths=("langchain_core",),
        # 1.8.4 requires langchain-protocol>=0.0.22, which the index does not have; 1.8.3's
        # dependencies (langchain-protocol 0.0.20) define every name 1.8.4 imports from it.
        dependencies_from="langchain-core==1.8.3",
    ),
    Codebase(
        "langchain-google-genai",
        "langchain-google-genai==4.4.2",
        "0872df6de1ebf031c4dad59aead504f168ff31a4d73ea74e52bb1fcdb8f4ab91",
        "LangChain integration: LangChain messages to Gemini's typed parts",
        TUNING,
        ("pytest",),
    ),
    Codebase(
        "kani",
        "kani[openai,anthropic,google,mcp]==1.10.0",
        "16ce3a1b09c283c1ee248804ce589d720208611c9174ad004376221c99b71849",
        "own ChatMessage (str | list[MessagePart | str] | None), no preset",
        TUNING,
        ("pytest",),
    ),
    Codebase(
        "opentelemetry-instrumentation-anthropic",
        "opentelemetry-instrumentation-anthropic[instruments]==0.62.4",
        "861d893c0e20022fa5bee6134cc36c1b5bf847cf831ec0d8b78b0a8267e2a21b",
        "Anthropic request dicts read into spans (tracing)",
        TUNING,
        # Its test dependency group.
        ("pytest", "pytest-asyncio", "opentelemetry-sdk", "vcrpy"),
        # Its package lies in namespace folders (opentelemetry/instrumentation/ have no
        # __init__.py): without this, mypy names opentelemetry/instrumentation/anthropic/*.py
        # `anthropic.*`, finds each file twice, and stops (LML904 on every file of it).
        mypy_ini="[mypy]\nexplicit_package_bases = True\n",
    ),
    Codebase(
        "instructor",
        "instructor==1.17.0",
        "aeab1e7f21f5214deedf60e8e264951408057ce21d9589743f533580dc0d6bfb",
        "OpenAI message dicts, rewritten for other providers",
        TUNING,
        # Anthropic is in its dev group (its tests and Anthropic mode import it).
        ("pytest", "anthropic"),
        # The library and its tests, as a mypy user checks them: examples/ holds scripts named
        # alike (run.py, main.py) in folders that are no packages, on which mypy stops.
        paths=("instructor", "tests"),
    ),
    # Issue 27's second judging half, judged once after that round's fixes and tuned on since.
    Codebase(
        "langchain-mistralai",
        "langchain-mistralai==1.1.6",
        "c2694828adee61a497c571e25eaba1472095cd1d1f260a7fe15a6e60f9ece039",
        "LangChain integration: LangChain messages to Mistral's chat dicts",
        TUNING,
        # Its test dependency group (the standard tests its unit tests subclass).
        ("pytest", "pytest-asyncio", "langchain-tests"),
    ),
    Codebase(
        "mirascope",
        "mirascope[openai,anthropic,google,gemini,groq,mistral,cohere,mcp,bedrock,azure]==1.25.7",
        "f301f9c69adb047f23346a7abe9738caa636c1a322cbc8722bda36070c9f85ca",
        "own BaseMessageParam (str | Sequence[parts]), turned into each provider's messages",
        TUNING,
        # The SDKs its providers' conversions import, but Vertex's and LiteLLM's (two of its
        # dozen providers, each a very large install).
        ("pytest", "pytest-asyncio"),
    ),
    Codebase(
        "llm-anthropic",
        "llm-anthropic==0.30",
        "40a3f94f76d393f0101d3aac649000944396b5c8ce4dfd4b36df54e4418c63d0",
        "Anthropic message dicts built from llm's prompts, and Anthropic responses read",
        TUNING,
        # Its dev dependency group (its tests replay recorded API calls).
        ("pytest", "pytest-asyncio", "pytest-recording", "inline-snapshot"),
    ),
    Codebase(
        "dspy",
        "dspy[mcp]==3.4.1",
        "6803449c11818efd10537da22e509a87af1bd30796053d1a6c82421f2afaa461",
        "OpenAI chat dicts built by its adapters (text, image and file parts)",
        TUNING,
        # Its sdist ships two tests only. LiteLLM is an extra it no longer needs (its vendored
        # lm15 engine calls the providers); mcp is the one whose types its tools read.
        ("pytest",),
    ),
    Codebase(
        "mem0ai",
        "mem0ai==2.2.1",
        "099a7d58368908d0a05a633c5da3920f607a57db00d4f168800de05966b2a4a8",
        "an app's OpenAI message dicts (text or vision parts) turned into memories",
        TUNING,
        # Its sdist has no tests. Its `llms` extra (LiteLLM, Vertex and five other SDKs) is not
        # installed: OpenAI, its default and a dependency of its own, is. Of its `extras` extra
        # (torch among them), the LangChain messages its LangChain LLM reads.
        ("pytest", "langchain-core>=0.3.85,<1.0.0"),
    ),
    # Issue 27's third judging half, judged once after that round's fixes and tuned on since.
    Codebase(
        "langchain-aws",
        "langchain-aws[anthropic,openai,tools]==1.9.1",
        "e594476409f7fd41ae0989179866758338f7e5a9abbee93c0b2cff528aee2bb8",
        "LangChain integration: LangChain messages to Bedrock Converse blocks and Anthropic dicts",
        TUNING,
        # Its test dependency group, and its typing and dev groups' stubs (its developers' mypy).
        (
            "pytest",
            "pytest-asyncio",
            "syrupy",
            "langchain-tests",
            "langchain",
            "langchain-classic",
            "langgraph-checkpoint",
            "types-requests",
            "boto3-stubs[essential]",
            "botocore-stubs",
        ),
    ),
    Codebase(
        "magentic",
        "magentic[anthropic]==0.41.1",
        "91e9fde3455c53891d43301cc15ca6dfd5bb5670a1e9ebb173c0ec880187fbad",
        "own generic messages (UserMessage: str | Sequence[str | parts]) to OpenAI/Anthropic",
        TUNING,
        # Its dev group's test libraries. LiteLLM (an extra, a very large install) is not: its
        # own mypy configuration ignores the missing import.
        ("pytest", "pytest-asyncio", "pytest-mock", "inline-snapshot", "vcrpy", "pytest-recording"),
    ),
    Codebase(
        "mcp-agent",
        "mcp-agent[anthropic,bedrock,openai,azure,google,cohere,langchain]==0.2.6",
        "609cf6195517d0741dac130b294bff7eb426e6217ca63839d957c79f22e6db09",
        "Anthropic MessageParam dicts built from MCP content, read back and traced",
        TUNING,
        # Its dev group's test libraries and stubs. Not its temporal, crewai or Vertex extras
        # (no message conversion of their own; crewai and Vertex are very large installs). It
        # requires mcp>=1.20 and imports mcp.server.fastmcp, which mcp 2 renamed: its users pin
        # mcp<2, or its app does not import.
        ("mcp<2", "pytest", "pytest-asyncio", "boto3-stubs[bedrock-runtime]", "trio"),
        # It ships no mypy configuration, and its examples (examples/ and, as package data,
        # src/mcp_agent/data/examples/) are scripts named alike (main.py, client.py) in folders
        # that are no packages: plain mypy stops with "Duplicate module named". Named from their
        # folders (its package from src/), each is a module of its own.
        mypy_ini="[mypy]\nexplicit_package_bases = True\nmypy_path = src\n",
        paths=("src", "examples"),
    ),
    Codebase(
        "openai-agents",
        "openai-agents[any-llm,voice,realtime]==0.24.0",
        "4b4b285f4fed81fdf1b4ac426a9101658d9cd29b4fb1aaeee18f639b77e704e3",
        "OpenAI Responses input items (content str | list) and Chat Completions dicts",
        TUNING,
        ("pytest", "pytest-asyncio", "pytest-mock", "inline-snapshot"),
        # The library: its tests are 300,000 lines, more than twice the library's.
        paths=("src",),
    ),
    Codebase(
        "browser-use",
        "browser-use[aws,oci]==0.13.14",
        "9bb2f3d7ea215bf67b415c8e6e546413a3712ac5ea775b223b452189f4582d9d",
        "own messages (UserMessage: str | list[parts]) serialized for a dozen providers",
        TUNING,
        # Its sdist has no tests. Its aws and oci extras: the Bedrock and OCI serializers.
        ("pytest",),
    ),
    # Issue 27's fourth judging half, judged once after that round's fixes and tuned on since.
    Codebase(
        "langchain-ollama",
        "langchain-ollama==1.1.0",
        "f776f56f6782ae4da7692579b94a6575906118318d1023b455d7207f9d059811",
        "LangChain integration: LangChain messages to Ollama's (string content, images apart)",
        TUNING,
        # Its test dependency group (the standard tests its unit tests subclass).
        ("pytest", "pytest-asyncio", "pytest-socket", "syrupy", "langchain-tests"),
    ),
    Codebase(
        "inspect-ai",
        "inspect-ai==0.3.285",
        "78b927ddb6bf959f00cb9baffc5081eb4872067961000463696a92134c8d2025",
        "own ChatMessage (content: str | list[Content]) turned into each provider's requests",
        TUNING,
        # The SDKs of the providers whose conversions it ships (its dev requirements), not the
        # local-model ones (torch, transformers, vLLM: very large installs) nor inspect-sentinel.
        (
            "pytest",
            "openai>=3.4.0",
            "anthropic>=2.0.0",
            "google-genai>=2.14.0",
            "mistralai>=3.0.0",
            "groq>=0.28.0",
            "azure-ai-inference",
            "together>=2.0.0",
            "xai-sdk>=1.18.0",
            "mcp>=1.10.0",
        ),
        # The library: its sdist ships no tests, and its own mypy configuration excludes the
        # sandbox tools' packages beside it in src/ and most of its examples.
        paths=("src/inspect_ai",),
    ),
    Codebase(
        "anthropic-bridge",
        "anthropic-bridge==0.1.41",
        "a4ef68bf1c1a89a9c8fd9b97578c4c6d006b39a45c4866c1056064ebbee67189",
        "a proxy: Anthropic Messages requests received, translated to OpenAI-style providers",
        TUNING,
        # Its test extra and its dev extra's stubs.
        ("pytest", "pytest-asyncio", "types-aiofiles"),
    ),
    Codebase(
        "ag2",
        "ag2[openai,anthropic,mistral,groq,ollama,cohere,bedrock,cerebras,together,mcp]==0.14.0",
        "19e9d8609ca8e2e616b6262a964d8cd2242b1292988b2607e5e3bf2b351a5c70",
        "agents exchanging OpenAI message dicts (content str | list | None), per provider",
        TUNING,
        # Its sdist ships no tests. The extras of the providers whose clients convert the
        # dicts, not Gemini's (Vertex: a very large install) nor those of its tools, code
        # executors and protocols.
        ("pytest",),
        # The library (the classic `autogen` package): beside it, the sdist holds a CLI project
        # of its own, examples, templates and the website's scripts.
        paths=("autogen",),
    ),
    Codebase(
        "strands-agents",
        "strands-agents[a2a,anthropic,gemini,llamaapi,mistral,ollama,openai,sagemaker,writer]==1.62.0",
        "8732c87f9c1ceb6ef4c5c4bd6d96b4cdf1bbfde095f1537ec2ac6fddb8d5a066",
        "own Message TypedDicts whose content is a list of blocks only, to each provider's",
        TUNING,
        # Its test environment's libraries and its static-analysis stubs. Not its litellm extra
        # (a very large install), bidi's (Python 3.12 and later, PortAudio), nor otel (an
        # exporter and a span processor, with which the venv's pip backtracked for over ten
        # minutes).
        (
            "pytest",
            "pytest-asyncio",
            "moto",
            "boto3-stubs[bedrock-agent,bedrock-agent-runtime,s3]",
        ),
    ),
    # Issue 27's fifth judging half, judged once after that round's fixes and tuned on since.
    Codebase(
        "langchain-cohere",
        "langchain-cohere==0.6.0",
        "5e45b56d0a5cc6f3de9f61bcd4fd449b9f3ece85e6b569c3d7c304992808bb0c",
        "LangChain integration: LangChain messages to Cohere's chat history and rendered prompts",
        TUNING,
        # Its sdist ships no tests. What its SQL agent imports (its test group's
        # langchain-classic, its typing group's langchain-community).
        ("pytest", "langchain-classic", "langchain-community"),
    ),
    Codebase(
        "haystack-ai",
        "haystack-ai==3.4.1",
        "95b57e672264584a9c437857e4ca4c89bf2137dab80fc972553df491349d811b",
        "own ChatMessage (a list of typed parts behind accessors) to and from OpenAI dicts",
        TUNING,
        # Its sdist ships no tests. Its chat generators (OpenAI's two APIs, Azure's) need only
        # its own dependencies; the converters' and embedders' optional libraries define no
        # message, and its mypy configuration ignores their missing imports.
        ("pytest",),
    ),
    Codebase(
        "gptme",
        "gptme[server,tui,acp]==0.35.1",
        "fa0c94fd63533d0828ce202c62c8fa9c3b57934ea7180f2f333a3769cbdacfb9",
        "an agent's text messages turned into Anthropic (and OpenAI) dicts, blocks added",
        TUNING,
        # Its sdist ships no tests. Its server, TUI and ACP extras (modules that read its
        # messages); not its browser (Playwright), datascience, eval or telemetry extras (no
        # message conversion of their own; dspy, sentence-transformers and SWE-bench are very
        # large installs).
        ("pytest",),
    ),
    Codebase(
        "openai-guardrails",
        "openai-guardrails[examples]==0.3.6",
        "a732f09623f8e127a2b880e992fef5ebf90de60c2c605c5026e52095d1e8a153",
        "a drop-in OpenAI client reading the user's Chat Completions / Responses messages",
        TUNING,
        # Its dev group's test libraries and stubs, and its examples extra (what the examples
        # import); not its benchmark extra (scikit-learn, matplotlib: its evals, which its own
        # mypy configuration excludes).
        ("pytest", "pytest-asyncio", "hypothesis", "types-tqdm"),
    ),
    Codebase(
        "qwen-agent",
        "qwen-agent[mcp]==0.0.34",
        "ee47a31bf0e75c3ed870fdd903c6d348d68b73ca6e2b9f3d99b55e792d0a4b2c",
        "own Message (content: str | list[ContentItem]), read alike as a dict, to OpenAI/DashScope",
        TUNING,
        # Its sdist ships no tests. Its mcp extra (its MCP manager reads MCP tool results' content
        # into the text its tools return); not rag, code_interpreter, python_executor (no
        # messages of their own) nor gui (Gradio pins an older pydantic).
        ("pytest",),
    ),
    # The judging half (issue 27, sixth round): none of these was used anywhere in the
    # repository before, and nobody fixing the engine reads their findings (HALVES).
    Codebase(
        "langchain-nvidia-ai-endpoints",
        "langchain-nvidia-ai-endpoints==1.5.0",
        "9c76d5507fd6a4905073611b03127b3423b88d2692af8bfce04b20c4ec161ed5",
        "LangChain integration: LangChain messages to NVIDIA's dicts, images as asset ids or tags",
        JUDGING,
        # Its sdist ships no tests; its own dependencies are all its code imports.
        ("pytest",),
    ),
    Codebase(
        "agentscope",
        "agentscope[a2a,gemini,ollama]==1.0.21",
        "e73392ac446932fc4fe480eda6918525320b9a5701a18b2d197311d140d6d183",
        "own Msg (content: str | Sequence[ContentBlock]) formatted for each provider",
        JUDGING,
        # Its sdist ships no tests. The extras of its Gemini and Ollama models and its A2A
        # formatter (OpenAI, Anthropic and DashScope are dependencies of its own); not `tokens`
        # (transformers, a very large install, for its Hugging Face token counter), nor its
        # memory, RAG, readers' or realtime extras (no message conversion of their own).
        ("pytest",),
    ),
    Codebase(
        "claudette",
        "claudette==0.3.15",
        "e5b582b4e28779600d5d3d65059166a9c480f17c082ee3cfd2c9f4b30f411ff7",
        "Anthropic messages= history of dicts and SDK blocks, unannotated (fastcore)",
        JUDGING,
        # Its sdist ships no tests (its notebooks are); not its dev extra (the notebooks').
        ("pytest",),
    ),
    Codebase(
        "mini-swe-agent",
        "mini-swe-agent==2.4.6",
        "0532c8193a763409fa52bb2b5a5d7ac9052dcb1c2cae43945b14b1b7f6ba869a",
        "an agent's OpenAI dicts (text expanded into parts by a regex), Responses items too",
        JUDGING,
        # Its dev extra's test libraries and Portkey's SDK (its Portkey models); LiteLLM is a
        # dependency of its own. Not its sandbox extras (Modal, SWE-ReX, contree: environments
        # that run commands, no messages).
        ("pytest", "pytest-asyncio", "portkey-ai"),
    ),
    Codebase(
        "shell-gpt",
        "shell-gpt==1.5.1",
        "1c528f960b1c515c882eec351ba3ac78ba6f306cece9cbe554d3ad350c8b5bfe",
        "a CLI's OpenAI dicts whose content is text only, kept as JSON chat sessions",
        JUDGING,
        # Its test extra's test libraries and stubs, not its pinned linters (mypy 1.1.1, black);
        # not its litellm extra (a very large install: the one module importing it is typed
        # without it).
        ("pytest", "requests-mock", "types-requests"),
    ),
    Codebase(
        "autogen-agentchat",
        "autogen-agentchat==0.7.5",
        "8d9c718db52ef24a518806b3a0ef848f0e4c1902877675dc0abed73a8e6e7755",
        "own chat messages, one content branch per class, turned into autogen-core's",
        JUDGING,
        # autogen-core is its one dependency. What its tests import: autogen-ext's OpenAI,
        # Anthropic and MCP extras (the model clients and workbench they run its agents with, the
        # replay client and local code executor) and the test libraries; not autogen-ext's
        # Docker, Ollama or other extras (named in docstrings only).
        ("autogen-ext[openai,anthropic,mcp]==0.7.5", "pytest", "pytest-asyncio"),
    ),
    Codebase(
        "mistral-common",
        "mistral-common[sentencepiece,audio,guidance,hf-hub,server]==1.13.1",
        "ad8d5b7e866e907925e31274c314fdaa7f7c45a0a43e7d2f543fd7fe65ddcea9",
        "own request and message classes tokenized into prompts, OpenAI dicts converted in",
        JUDGING,
        # The extras its tokenizers, audio, guidance and server import, and what its tests import
        # of its `dev` group (pytest, OpenAI's SDK, stubs); not `opencv` (a large binary that its
        # own mypy configuration ignores) nor `test-integrations` (transformers). Checked as
        # `src`: its sdist ships part of its tests, without `tests/__init__.py` (nor the
        # `tests/utils.py` they import), and some import others as `tests.<module>`, the same
        # files under a second name, on which mypy stops.
        ("pytest", "openai", "types-requests", "types-jsonschema"),
        paths=("src",),
    ),
    Codebase(
        "open-interpreter",
        "open-interpreter[server]==0.4.3",
        "cd81d0a6bc5bc9bed6a3f35010da71421b435dc9479f4ac867db80fdc29fa11b",
        "own LMC messages (typed text, code, images) to OpenAI dicts and Anthropic blocks",
        JUDGING,
        # Its sdist ships no tests. Its server extra (its async server reads the messages it
        # streams); not `os` or `local` (torch, transformers, OpenCV: very large installs, for
        # its computer's vision and local models) nor `safe` (semgrep: no messages).
        ("pytest",),
    ),
    Codebase(
        "chainlit",
        "chainlit==2.12.0",
        "53ca71c66fd98d417039ca5fa9c68349eb8eda771b7e0235a7da531f610fe5d0",
        "a chat UI's own text messages and steps, fed by OpenAI, LangChain, LlamaIndex and others",
        JUDGING,
        # Of its `tests` extra, what its OpenAI, LangChain and LlamaIndex integrations, its Slack
        # and Discord apps and its tests import, and its `mypy` extra's stubs. Not Semantic
        # Kernel's SDK nor the Bot Framework's (Teams): with them, the venv's pip backtracked for
        # over fifteen minutes; not transformers (a very large install that none of its shipped
        # code imports), the dataframe and plotting libraries (its elements', no messages) nor
        # its custom-data extra (its data layers' databases and blob stores).
        (
            "pytest",
            "pytest-asyncio",
            "openai",
            "langchain-core",
            "llama-index-core",
            "slack-bolt",
            "discord",
            "types-aiofiles",
            "types-requests",
        ),
    ),
)


# --- the workspace -------------------------------------------------------------------------------


def project_name(requirement: str) -> str:
    return re.split(r"[\[=]", requirement, maxsplit=1)[0]


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def version_of(requirement: str) -> str:
    return requirement.split("==", 1)[1]


def fetch(codebase: Codebase) -> Path:
    """The unpacked sdist's root, fetched and checked against its sha256 the first time."""
    root = WORK / "src" / codebase.name
    if root.is_dir():
        return root
    downloads = WORK / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    name = project_name(codebase.requirement)
    version = version_of(codebase.requirement)
    suffix = f"-{version}.tar.gz"

    def sdists() -> list[Path]:
        return [
            p
            for p in downloads.iterdir()
            if p.name.endswith(suffix)
            and normalized(p.name.removesuffix(suffix)) == normalized(name)
        ]

    if not sdists():
        print(f"downloading {name}=={version} (sdist, once)...", flush=True)
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        pip += ["--no-binary", ":all:", f"{name}=={version}", "-d", str(downloads)]
        subprocess.run(pip, check=True)
    found = sdists()
    if len(found) != 1:
        sys.exit(f"expected one sdist of {name}=={version} in {downloads}, found {found}")
    digest = hashlib.sha256(found[0].read_bytes()).hexdigest()
    if digest != codebase.sha256:
        sys.exit(
            f"{found[0]}: sha256 {digest}, but {codebase.name} is pinned to {codebase.sha256}; "
            "the release changed or the download is damaged (delete it to fetch it again)"
        )
    staging = root.with_name(root.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    with tarfile.open(found[0]) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/", 1)
            if len(parts) == 2 and parts[1] and (member.isfile() or member.isdir()):
                member.name = parts[1]
                archive.extract(member, staging, filter="data")
    staging.rename(root)
    return root


MYPY_CONFIGS = ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg")
ADDED_BY_RUN = "# Added by loomlint's benchmarks/corpus/run.py (the codebase's mypy_ini)."


def configure(codebase: Codebase, root: Path) -> None:
    """Writes the mypy configuration the codebase names (`mypy_ini`), refusing to shadow one
    of its own."""
    if codebase.mypy_ini is None:
        return
    written = root / "mypy.ini"
    text = f"{ADDED_BY_RUN}\n{codebase.mypy_ini}"
    if written.is_file():
        existing = written.read_text(encoding="utf-8")
        if existing == text:
            return
        if existing.startswith(ADDED_BY_RUN):
            written.unlink()
    for name in MYPY_CONFIGS:
        path = root / name
        if not path.is_file():
            continue
        own = path.read_text(encoding="utf-8")
        if name.endswith(".ini") or re.search(r"^\[(mypy|tool\.mypy)[\].]", own, re.MULTILINE):
            sys.exit(f"{path}: {codebase.name} has a mypy configuration of its own")
    written.write_text(text, encoding="utf-8")


def loomlint_dependencies() -> list[str]:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return list(project["dependencies"])


def environment(codebase: Codebase, root: Path | None = None) -> Path:
    """The codebase's venv: the release with its dependencies, and loomlint's."""
    root = root if root is not None else WORK / "venvs" / codebase.name
    python = root / "bin" / "python"
    release = codebase.dependencies_from or codebase.requirement
    wanted = [release, *codebase.extras, *loomlint_dependencies()]
    over = [codebase.requirement] if codebase.dependencies_from else []
    marker = root / ".installed"
    recorded = wanted + [f"--no-deps {requirement}" for requirement in over]
    if marker.exists() and marker.read_text(encoding="utf-8").splitlines() == recorded:
        return python
    print(f"creating {codebase.name}'s venv (once)...", flush=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(root)
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, *wanted], check=True)
    if over:
        subprocess.run([*pip, "--no-deps", *over], check=True)
    marker.write_text("\n".join(recorded) + "\n", encoding="utf-8")
    return python


def without_optional_sdks(codebase: Codebase, root: Path) -> tuple[Path, Path]:
    """The codebase as a user has it who installed none of its optional SDKs: the release
    without its extras (and without the test dependencies that bring SDKs), in a venv and a copy
    of the source of their own, so that neither mypy's cache nor loomlint's mixes with the full
    venv's. Returns the copy's root and the venv's Python."""
    base = dataclasses.replace(
        codebase,
        requirement=f"{project_name(codebase.requirement)}=={version_of(codebase.requirement)}",
        extras=("pytest",),
    )
    copy = WORK / "src-without-optional-sdks" / codebase.name
    if not copy.is_dir():
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".mypy_cache", ".loomlint_cache"))
    return copy, environment(base, WORK / "venvs-without-optional-sdks" / codebase.name)


def run_loomlint(
    codebase: Codebase,
    root: Path,
    python: Path,
    mode: str,
    *,
    cache: bool,
    checkout: Path,
) -> tuple[list[Finding], float]:
    command = [
        str(python),
        "-c",
        "from loomlint.cli import console_main; console_main()",
    ]
    command += ["check", "--format", "json"]
    if mode == "no-types":
        command.append("--no-types")
    if not cache:
        command.append("--no-cache")
    command += ["--", *codebase.paths]
    env = dict(os.environ, PYTHONPATH=str(checkout), LOOMLINT_NO_DAEMON="1")
    started = time.perf_counter()
    result = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{codebase.name}.{mode}.stderr").write_text(result.stderr, encoding="utf-8")
    # 2 with a report: some files could not be analysed (LML9xx, reported below), the rest were.
    if result.returncode not in (0, 1, 2) or not result.stdout.startswith("["):
        sys.exit(
            f"loomlint {mode} on {codebase.name} exited {result.returncode}:\n"
            f"{result.stderr[-4000:]}"
        )
    (RESULTS / f"{codebase.name}.{mode}.json").write_text(result.stdout, encoding="utf-8")
    lines = SourceCache(root)
    findings = []
    for raw in json.loads(result.stdout):
        if str(raw["code"]).startswith("LML9"):
            # Not a content finding: a file loomlint could not analyse (or not with types).
            print(f"   {raw['path']}:{raw['line']}: {raw['code']} {raw['message']}")
        else:
            findings.append(Finding.of(codebase.name, mode, raw, lines))
    return findings, seconds


# --- findings and judgements ---------------------------------------------------------------------

# codebase, fingerprint (file, code, line text), column, the digest of the two lines before
Key = tuple[str, str, int, str]


class SourceCache:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self.files:
            data = (self.root / path).read_bytes().decode("utf-8", errors="replace")
            self.files[path] = data.splitlines()
        return self.files[path]

    def text(self, path: str, line: int) -> str:
        lines = self.lines(path)
        return " ".join(lines[line - 1].split()) if 0 < line <= len(lines) else ""

    def before(self, path: str, line: int) -> str:
        """A digest of the two lines before `line` (whitespace collapsed): it tells apart
        identical lines of one file (`assert len(message.content) == 1` after an isinstance
        test of one message class or another) and moves with them."""
        lines = self.lines(path)
        previous = lines[max(0, line - 3) : max(0, line - 1)]
        text = "\n".join(" ".join(each.split()) for each in previous)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Finding:
    codebase: str
    mode: str
    path: str
    line: int
    column: int
    code: str
    message: str
    text: str
    before: str

    @classmethod
    def of(cls, codebase: str, mode: str, raw: dict[str, object], lines: SourceCache) -> Finding:
        path = str(raw["path"])
        line = int(str(raw["line"]))
        return cls(
            codebase,
            mode,
            path,
            line,
            int(str(raw["column"])),
            str(raw["code"]),
            str(raw["message"]),
            lines.text(path, line),
            lines.before(path, line),
        )

    @property
    def key(self) -> Key:
        fingerprint = finding_fingerprint(self.path, self.code, self.text)
        return (self.codebase, fingerprint, self.column, self.before)


@dataclass(frozen=True)
class Judgement:
    verdict: bool
    reason: str


def read_tsv(path: Path) -> Iterator[dict[str, str]]:
    if not path.exists():
        return
    with path.open(encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)


def load_judgements() -> dict[Key, Judgement]:
    judgements: dict[Key, Judgement] = {}
    for number, row in enumerate(read_tsv(JUDGEMENTS), start=2):
        if row["verdict"] not in ("true", "false"):
            sys.exit(f"{JUDGEMENTS}:{number}: verdict must be true or false: {row['verdict']!r}")
        fingerprint = finding_fingerprint(row["path"], row["code"], row["text"])
        key = (row["codebase"], fingerprint, int(row["column"]), row["before"])
        judgements[key] = Judgement(row["verdict"] == "true", row["reason"])
    return judgements


def sample_of(findings: list[Finding], seed: int, size: int) -> list[Finding]:
    """The `size` findings whose hash with `seed` is lowest (one per key)."""
    unique = {f.key: f for f in findings}

    def draw(finding: Finding) -> str:
        return hashlib.sha256(f"{seed}\t{finding.key}".encode()).hexdigest()

    return sorted(unique.values(), key=draw)[:size]


# --- misses --------------------------------------------------------------------------------------

# A read of a content field, or a local named `content` (the commonest name for one; not a
# keyword argument or an assignment's target).
CONTENT_READ = re.compile(
    r"""\.content\b|\[\s*["']content["']\s*\]|\.get\(\s*["']content["']"""
    r"""|getattr\([^)]*["']content["']|(?<![.\w"'])content\b(?!["'-])(?!\s*=[^=])"""
)
SINK = re.compile(
    r"""\bstr\(|\bf["']|\+|\.(?:strip|lstrip|rstrip|split|lower|upper)\(|json\.dumps\(|\blen\("""
)
SKIPPED_DIRS = {".venv", "venv", ".git", ".mypy_cache", "node_modules", "__pycache__"}


@dataclass(frozen=True)
class Candidate:
    codebase: str
    path: str
    line: int
    text: str
    before: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.codebase, self.path, self.text, self.before)


def python_files(root: Path, paths: Iterable[str] = (".",)) -> Iterator[Path]:
    """The `.py` files under `paths` (relative to `root`): those a check of them reads."""
    for top in paths:
        if (root / top).is_file():
            yield root / top
            continue
        for directory, folders, files in os.walk(root / top):
            folders[:] = sorted(
                f for f in folders if f not in SKIPPED_DIRS and not f.startswith(".")
            )
            for name in sorted(files):
                if name.endswith(".py"):
                    yield Path(directory) / name


def miss_candidates(
    codebase: Codebase, root: Path, flagged: set[tuple[str, int]]
) -> list[Candidate]:
    found: list[Candidate] = []
    source = SourceCache(root)
    for file in python_files(root, codebase.paths):
        path = file.relative_to(root).as_posix()
        for number, line in enumerate(source.lines(path), start=1):
            if line.lstrip().startswith("#") or (path, number) in flagged:
                continue
            if CONTENT_READ.search(line) and SINK.search(line):
                text = " ".join(line.split())
                found.append(
                    Candidate(codebase.name, path, number, text, source.before(path, number))
                )
    return found


def load_misses() -> dict[tuple[str, str, str, str], Judgement]:
    judged: dict[tuple[str, str, str, str], Judgement] = {}
    for number, row in enumerate(read_tsv(MISSES), start=2):
        if row["verdict"] not in ("miss", "safe"):
            sys.exit(f"{MISSES}:{number}: verdict must be miss or safe: {row['verdict']!r}")
        judged[(row["codebase"], row["path"], row["text"], row["before"])] = Judgement(
            row["verdict"] == "miss", row["reason"]
        )
    return judged


# --- the run -------------------------------------------------------------------------------------


@dataclass
class Figures:
    half: str
    lines: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    counts: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    """mode -> (findings, judged, true, measured-over)"""
    misses: tuple[int, int, int, int] = (0, 0, 0, 0)
    """candidates, unjudged candidates, judged misses, of them found"""
    typed_misses: int | None = None
    """findings judged true that `--no-types` reports and the typed run does not"""


def show(root: Path, path: str, line: int) -> str:
    lines = SourceCache(root).lines(path)
    start = max(0, line - CONTEXT_LINES)
    return "\n".join(f"   {n + 1:>6}: {lines[n]}" for n in range(start, min(line, len(lines))))


def precision(true: int, judged: int) -> str:
    return f"{true / judged:.1%}" if judged else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=[c.name for c in CODEBASES])
    parser.add_argument(
        "--half",
        choices=list(HALVES),
        help="run one half of the corpus (default: both, each in a table of its own); the "
        "judging half's findings are listed one by one only with --half judging or --only",
    )
    parser.add_argument("--no-types-only", action="store_true", help="skip the typed runs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample", type=int, default=40, help="no-types findings judged")
    parser.add_argument("--no-cache", action="store_true", help="loomlint's --no-cache")
    parser.add_argument("--quiet", action="store_true", help="the table only")
    parser.add_argument("--unjudged-tsv", type=Path, help="write unjudged findings as rows")
    parser.add_argument("--misses-tsv", type=Path, help="write unjudged miss candidates as rows")
    parser.add_argument("--save-findings", type=Path, help="keep this run's findings (JSON)")
    parser.add_argument(
        "--loomlint",
        type=Path,
        default=REPO,
        help="run the loomlint of this checkout (e.g. an older commit's `git archive`)",
    )
    parser.add_argument("--compare", type=Path, help="list findings changed since a saved run")
    parser.add_argument(
        "--without-optional-sdks",
        action="store_true",
        help="run each codebase in a venv of its own with its release only, none of its extras "
        "(the provider SDKs a user may not install): what a typed run says when they are missing",
    )
    args = parser.parse_args()
    judgements = load_judgements()
    judged_misses = load_misses()
    modes = ("no-types",) if args.no_types_only else MODES
    table: dict[str, Figures] = {}
    everything: list[Finding] = []
    unjudged_rows: list[list[str]] = []
    miss_rows: list[list[str]] = []
    unlisted: set[str] = set()
    for codebase in CODEBASES:
        if args.only and codebase.name not in args.only:
            continue
        if args.half and codebase.half != args.half:
            continue
        # The judging half is judged once, after the fixes: a run made while fixing counts its
        # findings but does not show them, unless it was asked for that half or codebase.
        listed = codebase.half == TUNING or args.half == JUDGING or bool(args.only)
        if not listed:
            unlisted.add(codebase.name)
        root = fetch(codebase)
        configure(codebase, root)
        if args.without_optional_sdks:
            root, python = without_optional_sdks(codebase, root)
        else:
            python = environment(codebase)
        figures = table[codebase.name] = Figures(codebase.half)
        figures.lines = sum(
            len(p.read_bytes().splitlines()) for p in python_files(root, codebase.paths)
        )
        by_mode: dict[str, list[Finding]] = {}
        for mode in modes:
            print(f"== {codebase.name}: loomlint check {mode}...", flush=True)
            findings, seconds = run_loomlint(
                codebase,
                root,
                python,
                mode,
                cache=not args.no_cache,
                checkout=args.loomlint,
            )
            by_mode[mode] = findings
            figures.seconds[mode] = seconds
            everything += findings
            measured = findings if mode == "types" else sample_of(findings, args.seed, args.sample)
            measured.sort(key=lambda f: (f.path, f.line, f.column))
            true = judged = 0
            for finding in measured:
                judgement = judgements.get(finding.key)
                if judgement is not None:
                    judged += 1
                    true += judgement.verdict
                    continue
                if not listed:
                    continue
                unjudged_rows.append(
                    [
                        codebase.name,
                        finding.path,
                        str(finding.line),
                        str(finding.column),
                        finding.code,
                        mode,
                        finding.text,
                        finding.before,
                        "",
                        "",
                    ]
                )
                if not args.quiet:
                    print(
                        f"unjudged ({mode}): {finding.path}:{finding.line}:{finding.column} "
                        f"{finding.code} {finding.message}"
                    )
                    print(show(root, finding.path, finding.line))
            figures.counts[mode] = (len(findings), judged, true, len(measured))
        if len(by_mode) == 2:
            typed = {f.key for f in by_mode["types"]}
            missed = {
                f.key: f
                for f in by_mode["no-types"]
                if f.key not in typed and (j := judgements.get(f.key)) is not None and j.verdict
            }
            figures.typed_misses = len(missed)
            for finding in sorted(missed.values(), key=lambda f: (f.path, f.line)):
                print(
                    f"true, found without types only: {finding.path}:{finding.line}:"
                    f"{finding.column} {finding.code} ({judgements[finding.key].reason})"
                )
        flagged = {(f.path, f.line) for findings in by_mode.values() for f in findings}
        candidates = miss_candidates(codebase, root, flagged)
        open_candidates = [c for c in candidates if c.key not in judged_misses]
        for candidate in open_candidates if listed else ():
            miss_rows.append(
                [
                    codebase.name,
                    candidate.path,
                    str(candidate.line),
                    candidate.text,
                    candidate.before,
                    "",
                    "",
                ]
            )
            if not args.quiet:
                print(f"unjudged miss candidate: {candidate.path}:{candidate.line}")
                print(show(root, candidate.path, candidate.line))
        real = [key for key, j in judged_misses.items() if key[0] == codebase.name and j.verdict]
        found = [key for key in real if (key[1], _line_of(root, *key[1:])) in flagged]
        for key in real:
            if key not in found:
                print(f"miss not found: {key[1]}: {key[2]}  ({judged_misses[key].reason})")
        figures.misses = (len(candidates), len(open_candidates), len(real), len(found))
    if args.save_findings:
        args.save_findings.write_text(
            json.dumps([f.__dict__ for f in everything], indent=1), encoding="utf-8"
        )
    if args.compare:
        compare(args.compare, everything, judgements, set(table), unlisted, modes)
    if args.unjudged_tsv:
        write_rows(args.unjudged_tsv, JUDGEMENTS, unjudged_rows)
    if args.misses_tsv:
        write_rows(args.misses_tsv, MISSES, miss_rows)
    if unlisted:
        print(
            f"\nthe judging half's findings and miss candidates ({', '.join(sorted(unlisted))}) "
            "are counted, not listed: it is judged once, after the fixes (--half judging)"
        )
    print_table(table, modes, args)
    return 0


def _line_of(root: Path, path: str, text: str, before: str) -> int:
    """The line (1-based) of a file whose collapsed text is `text` after the lines whose digest
    is `before`; 0 when there is none."""
    lines = SourceCache(root)
    try:
        for number, line in enumerate(lines.lines(path), start=1):
            if " ".join(line.split()) == text and lines.before(path, number) == before:
                return number
    except OSError:
        pass
    return 0


def write_rows(path: Path, header_from: Path, rows: Iterable[list[str]]) -> None:
    with header_from.open(encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
    # Plain tab-separated lines, quotes kept as they are: the texts are collapsed lines of code
    # (no tab, no line break), read back with csv.QUOTE_NONE.
    with path.open("w", encoding="utf-8") as handle:
        for row in [header, *rows]:
            handle.write("\t".join(row) + "\n")


def compare(
    saved: Path,
    now: list[Finding],
    judgements: dict[Key, Judgement],
    codebases: set[str],
    unlisted: set[str],
    measured: tuple[str, ...],
) -> None:
    before = [Finding(**raw) for raw in json.loads(saved.read_text(encoding="utf-8"))]
    # Only what both runs measured: a codebase or mode the saved run did not have is no change.
    # This run's modes are the ones it ran, whether or not they found anything.
    saved_codebases = {f.codebase for f in before}
    compared = codebases & saved_codebases
    modes = set(measured) & {f.mode for f in before}
    old = {(f.mode, f.key): f for f in before if f.codebase in compared and f.mode in modes}
    new = {(f.mode, f.key): f for f in now if f.codebase in compared and f.mode in modes}
    print(f"\nchanged since {saved}:")
    if codebases - saved_codebases:
        print(f"  (not in it: {', '.join(sorted(codebases - saved_codebases))})")
    hidden: dict[str, int] = {}
    for label, gone, side in (
        ("gone", old.keys() - new.keys(), old),
        ("new", new.keys() - old.keys(), new),
    ):
        for mode, key in sorted(gone, key=lambda k: (side[k].codebase, side[k].path, side[k].line)):
            finding = side[(mode, key)]
            if finding.codebase in unlisted:
                hidden[finding.codebase] = hidden.get(finding.codebase, 0) + 1
                continue
            judgement = judgements.get(key)
            verdict = (
                "unjudged" if judgement is None else ("true" if judgement.verdict else "false")
            )
            print(
                f"  {label:4} {mode:8} {finding.codebase} {finding.path}:{finding.line}:"
                f"{finding.column} {finding.code} [{verdict}] "
                f"{judgement.reason if judgement else finding.message}"
            )
    for name, count in sorted(hidden.items()):
        print(f"  {name} (judging half): {count} changed, not listed")


def print_table(
    table: dict[str, Figures], modes: tuple[str, ...], args: argparse.Namespace
) -> None:
    """One table per half, each closed by its total: the tuning half says how the engine does on
    the code that shaped it, the judging half how it does on code nobody looked at."""
    for half, about in HALVES.items():
        rows = {name: figures for name, figures in table.items() if figures.half == half}
        if rows:
            print(f"\n{half} half ({about}):")
            print_half(half, rows, modes, args)
    seconds = "; ".join(
        f"{name} " + ", ".join(f"{mode} {s:.0f} s" for mode, s in f.seconds.items())
        for name, f in table.items()
    )
    print(f"\nrun times: {seconds}")
    print(f"loomlint's raw output: {RESULTS}")


def print_half(
    half: str, table: dict[str, Figures], modes: tuple[str, ...], args: argparse.Namespace
) -> None:
    print(
        f"\n| codebase | lines | typed findings (judged) | typed precision | no-types findings "
        f"| sample of {args.sample} (seed {args.seed}) judged | no-types precision "
        f"| true findings the typed run misses | miss candidates (unjudged) | misses found |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    total = Figures(half)
    for name, figures in table.items():
        print(row(name, figures))
        total.lines += figures.lines
        for mode, counts in figures.counts.items():
            before = total.counts.get(mode, (0, 0, 0, 0))
            total.counts[mode] = tuple_sum(before, counts)
        total.misses = tuple_sum(total.misses, figures.misses)
        if figures.typed_misses is not None:
            total.typed_misses = (total.typed_misses or 0) + figures.typed_misses
    print(row(f"**{half}**", total))
    summary = []
    for mode in modes:
        count, judged, true, _ = total.counts.get(mode, (0, 0, 0, 0))
        summary.append(
            f"{mode}: {true}/{judged} true ({precision(true, judged)}) of {count} findings"
        )
    print(f"{half}: " + "; ".join(summary))


def tuple_sum(
    left: tuple[int, int, int, int], right: tuple[int, int, int, int]
) -> tuple[int, int, int, int]:
    return (left[0] + right[0], left[1] + right[1], left[2] + right[2], left[3] + right[3])


def row(name: str, figures: Figures) -> str:
    cells = [name, f"{figures.lines:,}"]
    for mode in MODES:
        if mode not in figures.counts:
            cells += ["-", "-"] if mode == "types" else ["-", "-", "-"]
            continue
        count, judged, true, measured = figures.counts[mode]
        if mode == "types":
            cells += [f"{count} ({judged})", f"{precision(true, judged)} ({true}/{judged})"]
        else:
            cells += [
                str(count),
                f"{judged}/{measured}",
                f"{precision(true, judged)} ({true}/{judged})",
            ]
    candidates, unjudged, real, found = figures.misses
    typed_misses = "-" if figures.typed_misses is None else str(figures.typed_misses)
    cells += [typed_misses, f"{candidates} ({unjudged})", f"{found}/{real}"]
    return "| " + " | ".join(cells) + " |"


if __name__ == "__main__":
    raise SystemExit(main())
