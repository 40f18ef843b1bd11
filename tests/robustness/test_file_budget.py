"""One file's budget: past its size or time, the file is LML903 and every other file is still
reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from loomlint.engine import budget
from loomlint.report.docs import rule_url
from robustness.cli_json import check_json
from robustness.lsp_wire import WireServer, initialize, notification

BAD_USE = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage

    def f(m: LlmMessage) -> str:
        return f"{m.content}"
    """
)


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_a_file_over_the_size_budget_is_refused_and_the_rest_reported(
    tmp_path: Path, types: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    filler = "# " + "x" * 98 + "\n"
    (tmp_path / "huge.py").write_text(BAD_USE + filler * (budget.FILE_BYTES // len(filler) + 1))
    (tmp_path / "good.py").write_text(BAD_USE)
    code, found = check_json(*([] if types else ["--no-types"]), ".")
    assert [(name, line, column, rule) for name, line, column, rule, _ in found] == [
        ("good.py", 4, 15, "LML003"),
        ("huge.py", 1, 1, "LML903"),
    ]
    assert found[1][4] == (
        "the file is larger than 10 MiB, the most one file may take to analyse; it was not checked"
    )
    assert code == 2


def test_a_file_over_the_time_budget_is_refused_and_the_rest_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No time at all: a file whose analysis takes more than a thousand steps is over it at
    # the first look at the clock; a small one finishes before the first look.
    monkeypatch.setattr(budget, "FILE_SECONDS", 0.0)
    monkeypatch.chdir(tmp_path)
    chain = " + ".join(["m.role"] * 900)
    (tmp_path / "long.py").write_text(
        BAD_USE + f"\n\ndef g(m: LlmMessage) -> str:\n    return {chain} + m.content\n"
    )
    (tmp_path / "good.py").write_text(BAD_USE)
    code, found = check_json("--no-types", ".")
    assert found == [
        ("good.py", 4, 15, "LML003", found[0][4]),
        (
            "long.py",
            1,
            1,
            "LML903",
            "the analysis of this file took more than its 0 s budget; it was not checked",
        ),
    ]
    assert code == 2


def open_in_server(server: WireServer, root: Path, path: Path, text: str) -> None:
    server.send(initialize(1, root))
    server.response(1)
    server.send(notification("initialized", {}))
    document = {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": text}
    server.send(notification("textDocument/didOpen", {"textDocument": document}))


def published_codes(server: WireServer) -> list[tuple[str, int, int, str]]:
    params = server.notification("textDocument/publishDiagnostics", timeout=60)["params"]
    return [
        (d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"], d["message"])
        for d in params["diagnostics"]
    ]


def test_the_servers_over_budget_notice_gives_way_to_the_findings(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.loomlint]\n")
    small = tmp_path / "small.py"
    # No time at all: the notice comes at once; the small file's analysis (fewer steps than
    # one look at the clock) still ends, and its findings replace the notice.
    server = WireServer(
        tmp_path, prelude="import loomlint.engine.budget as b; b.FILE_SECONDS = 0.0; "
    )
    try:
        open_in_server(server, tmp_path, small, BAD_USE)
        assert published_codes(server) == [
            (
                "LML903",
                0,
                0,
                "the check of this file has taken more than its 0 s budget; its findings "
                "replace this when it ends",
            )
        ]
        assert published_codes(server) == [
            (
                "LML003",
                3,
                14,
                "content of `m` is coerced to str by an f-string; use text_of(...)",
            )
        ]
    finally:
        server.close()


def test_a_buffer_past_its_budget_gets_lml903_from_the_server(tmp_path: Path) -> None:
    """The language server gives a buffer the same budget: a 1.2 MB one whose first check
    takes longer gets LML903 at the budget's end, not nothing for minutes."""
    (tmp_path / "pyproject.toml").write_text("[tool.loomlint]\n")
    big = tmp_path / "big.py"
    functions = [
        f'def f{n}(m: LlmMessage) -> str:\n    return f"{{m.content}}"\n' for n in range(20000)
    ]
    text = "from loomlint.content import LlmMessage\n\n" + "\n".join(functions)
    assert 1_200_000 <= len(text.encode()) <= 1_300_000
    # One second: no machine parses 1.2 MB in it (analysed in worker processes, which keep
    # the 60 s analysis budget; the server's own watch is what is tested).
    server = WireServer(
        tmp_path, prelude="import loomlint.engine.budget as b; b.FILE_SECONDS = 1.0; "
    )
    try:
        open_in_server(server, tmp_path, big, text)
        published = server.notification("textDocument/publishDiagnostics", timeout=60)
        assert published["params"] == {
            "uri": big.as_uri(),
            "version": 1,
            "diagnostics": [
                {
                    "range": {
                        "start": {"line": 0, "character": 0},
                        "end": {"line": 0, "character": 1},
                    },
                    "message": "the check of this file has taken more than its 1 s budget; "
                    "its findings replace this when it ends",
                    "severity": 1,
                    "code": "LML903",
                    "codeDescription": {"href": rule_url("LML903")},
                    "source": "loomlint",
                }
            ],
        }
    finally:
        server.close()
