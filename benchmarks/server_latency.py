"""Time `loomlint server` from an edit to its diagnostics (not a test).

    python benchmarks/server_latency.py [--modules 200] [--edits 20] [PROJECT FILE]

Without arguments it writes a project of its own into a temporary folder: ``--modules``
modules that import each other in one cycle (mypy checks a cycle as one unit, so a plain
incremental run re-checks all of it after any edit), the last of which reads message
content the wrong way. With PROJECT and FILE it opens FILE of that project instead.

It reports, from the server's own stdio as an editor sees it:
- the first diagnostics after opening the file cold (the warm mypy's first build);
- didChange -> publishDiagnostics (for that version) for one-line edits in a function body,
  median and p95;
- the same for edits that add a function;
- the server's resident memory at the end (VmRSS).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

sys.path.insert(0, str(Path(__file__).parent))
from bench import _edit_a_body  # the same body edit as the CLI benchmark's

SERVER = (sys.executable, "-c", "from loomlint.cli import console_main; console_main()", "server")


def write_cycle(root: Path, modules: int) -> Path:
    (root / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    package = root / "cycle"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for index in range(modules):
        following = (index + 1) % modules
        (package / f"m{index}.py").write_text(
            "from __future__ import annotations\n\n"
            "from loomlint.content import LlmMessage\n\n"
            f"from cycle import m{following}\n\n\n"
            f"def f{index}(message: LlmMessage, depth: int) -> str:\n"
            f"    if depth <= 0:\n"
            f"        return str(message.content)\n"
            f"    return m{following}.f{following}(message, depth - 1)\n"
        )
    return package / f"m{modules - 1}.py"


async def run(root: Path, target: Path, edits: int) -> None:
    client = LanguageClient("loomlint-bench", "1")
    arrivals: dict[int | None, float] = {}
    first_any = asyncio.Event()
    uri = from_fs_path(str(target))
    assert uri is not None

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri and params.diagnostics:
            arrivals.setdefault(params.version, time.perf_counter())
            first_any.set()

    await client.start_io(*SERVER, cwd=str(root))
    await client.initialize_async(
        types.InitializeParams(
            process_id=None,
            root_uri=from_fs_path(str(root)),
            capabilities=types.ClientCapabilities(),
        )
    )
    client.initialized(types.InitializedParams())
    text = target.read_text()
    started = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=text
            )
        )
    )
    await first_any.wait()
    print(f"first diagnostics (no types, at once): {time.perf_counter() - started:6.2f} s")
    version = 1

    async def edit(new_text: str) -> float:
        nonlocal version
        version += 1
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=new_text)],
            )
        )
        while version not in arrivals:
            await asyncio.sleep(0.005)
        return arrivals[version] - sent

    # The first edit waits for the cold build; its time is the typed first diagnostics.
    cold = await edit(text + "\n")
    print(f"first typed diagnostics (cold build):  {cold:6.2f} s after the first edit")
    body: list[float] = []
    for index in range(edits):
        if "depth <= 0" in text:  # the project of its own
            body.append(await edit(text.replace("depth <= 0", f"depth <= {index % 3}")))
        else:  # a real file: a new local assignment before its first return
            body.append(await edit(_edit_a_body(text, index)))
    added: list[float] = []
    for index in range(edits):
        extra = f"\n\ndef added{index}(depth: int) -> int:\n    return depth + {index}\n"
        added.append(await edit(text + extra))
    for label, times in (("one-line edit in a body", body), ("adding a function", added)):
        ordered = sorted(times)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        print(
            f"didChange -> publishDiagnostics, {label}: median {statistics.median(times):.3f} s,"
            f" p95 {p95:.3f} s ({len(times)} edits; debounce included)"
        )
    process = client._server  # pygls keeps the subprocess here
    if process is not None:
        status = Path(f"/proc/{process.pid}/status")
        if status.exists():
            rss = next(line for line in status.read_text().splitlines() if line.startswith("VmRSS"))
            print(f"server resident memory: {rss.split(':', 1)[1].strip()}")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", type=int, default=200)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("project", nargs="?", type=Path)
    parser.add_argument("file", nargs="?", type=Path)
    arguments = parser.parse_args()
    if arguments.project is not None:
        asyncio.run(run(arguments.project.resolve(), arguments.file.resolve(), arguments.edits))
        return
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        target = write_cycle(root, arguments.modules)
        print(f"{arguments.modules} modules in one import cycle; editing {target.name}")
        asyncio.run(run(root, target, arguments.edits))


if __name__ == "__main__":
    main()
