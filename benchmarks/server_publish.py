"""What the language server pays to turn a buffer's findings into LSP diagnostics (not a
test).

    python benchmarks/server_publish.py [--functions 20000]

It writes a buffer of FUNCTIONS functions, each with one LML003 (20,000 make 1.2 MB), checks
it once without types, and converts its findings, in one run, side by side:

- position by position against the live document (``documents.LspLinesDocument``, as
  pygls's documents do: each position splits the whole text into lines again; what the
  server did before);
- as the server does now, against a snapshot of the text split once (``lsp._Snapshot``).

It reports both times and their ratio, after checking that both give the same diagnostics.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from loomlint.server.convert import lsp_diagnostic
from loomlint.server.documents import LspLinesDocument
from loomlint.server.lsp import _converted, _Snapshot  # pyright: ignore[reportPrivateUsage]
from loomlint.server.project import Project


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=20000)
    arguments = parser.parse_args()
    functions = [
        f'def f{n}(m: LlmMessage) -> str:\n    return f"{{m.content}}"\n'
        for n in range(arguments.functions)
    ]
    text = "from loomlint.content import LlmMessage\n\n" + "\n".join(functions)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pyproject.toml").write_text("[tool.loomlint]\n")
        path = root / "big.py"
        result = Project(root).check_quick(str(path), text)
    document = LspLinesDocument(path.as_uri(), text, 1)
    print(f"{len(text.encode()) / 1e6:.2f} MB, {len(result.diagnostics)} findings")

    started = time.perf_counter()
    snapshot_diagnostics = _converted(_Snapshot(document), result)
    snapshot_seconds = time.perf_counter() - started

    started = time.perf_counter()
    live_diagnostics = [lsp_diagnostic(document, d) for d in result.diagnostics]
    live_seconds = time.perf_counter() - started

    assert live_diagnostics == snapshot_diagnostics
    print(f"position by position (live document): {live_seconds:.2f} s")
    print(f"snapshot split once (the server now): {snapshot_seconds:.3f} s")
    print(f"ratio: {live_seconds / snapshot_seconds:.0f}x")


if __name__ == "__main__":
    main()
