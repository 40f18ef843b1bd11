"""The baseline: keys, the file format, reading errors, and matching findings."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.baseline import (
    Baseline,
    BaselineError,
    BaselineKey,
    FindingKeys,
    build_baseline,
    compare,
    dump_baseline,
    load_baseline,
    parse_baseline,
    write_baseline,
)
from loomlint.report.fingerprint import finding_fingerprint

ROOT = Path("/project")

SOURCES = {
    "src/app.py": ["import x", "print(m.content)", "", "print(m.content)", "  print(m.content)"],
    "src/other.py": ["s = str(m.content)"],
}


def finding(path: str, line: int, code: str = "LML003") -> Diagnostic:
    return Diagnostic(path, line, 1, line, 2, code, "content-coercion", f"at {line}")


def keys(cwd: Path = ROOT, sources: dict[str, list[str]] | None = None) -> FindingKeys:
    texts = SOURCES if sources is None else sources
    return FindingKeys(ROOT, cwd, read_lines=lambda path: texts.get(path, []))


def key(path: str, code: str, text: str) -> BaselineKey:
    return BaselineKey(path, code, finding_fingerprint(path, code, text))


def test_keys_are_path_code_and_the_line_text() -> None:
    compute = keys()
    assert compute(finding("src/app.py", 2)) == key("src/app.py", "LML003", "print(m.content)")
    # Identical lines (up to whitespace) share a key; the line number is not part of it.
    assert compute(finding("src/app.py", 2)) == compute(finding("src/app.py", 4))
    assert compute(finding("src/app.py", 5)) == compute(finding("src/app.py", 4))
    assert compute(finding("src/app.py", 2)) != compute(finding("src/app.py", 2, "LML001"))
    # A line the file does not have (or an unreadable file) fingerprints the empty line.
    assert compute(finding("src/app.py", 99)) == key("src/app.py", "LML003", "")
    assert compute(finding("missing.py", 1)) == key("missing.py", "LML003", "")


def test_paths_are_relative_to_the_project_root() -> None:
    sub = keys(ROOT / "src", {"app.py": SOURCES["src/app.py"]})
    assert sub(finding("app.py", 2)) == keys()(finding("src/app.py", 2))
    assert sub.path_of("../../elsewhere/x.py") == "/elsewhere/x.py"
    assert sub.path_of("/project/src/app.py") == "src/app.py"


def test_the_file_format_is_exact() -> None:
    compute = keys()
    baseline = build_baseline(
        [finding("src/other.py", 1), finding("src/app.py", 4), finding("src/app.py", 2)], compute
    )
    app = key("src/app.py", "LML003", "print(m.content)")
    other = key("src/other.py", "LML003", "s = str(m.content)")
    assert dump_baseline(baseline) == (
        "{\n"
        '  "version": 1,\n'
        '  "tool": "loomlint",\n'
        '  "findings": [\n'
        "    {\n"
        '      "path": "src/app.py",\n'
        '      "code": "LML003",\n'
        f'      "fingerprint": "{app.fingerprint}",\n'
        '      "count": 2\n'
        "    },\n"
        "    {\n"
        '      "path": "src/other.py",\n'
        '      "code": "LML003",\n'
        f'      "fingerprint": "{other.fingerprint}",\n'
        '      "count": 1\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )
    assert dump_baseline(Baseline(counts={})) == (
        '{\n  "version": 1,\n  "tool": "loomlint",\n  "findings": []\n}\n'
    )


def test_write_and_load_round_trip(tmp_path: Path) -> None:
    baseline = build_baseline([finding("src/app.py", 2), finding("src/app.py", 4)], keys())
    target = tmp_path / "baseline.json"
    write_baseline(target, baseline)
    assert target.read_bytes() == dump_baseline(baseline).encode()
    assert load_baseline(target) == baseline
    assert [p.name for p in tmp_path.iterdir()] == ["baseline.json"]  # no temporary left
    write_baseline(target, Baseline(counts={}))
    assert load_baseline(target).total == 0


def test_write_errors_name_the_file(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "baseline.json"
    with pytest.raises(BaselineError) as raised:
        write_baseline(target, Baseline(counts={}))
    assert str(raised.value) == (
        f"baseline '{target}': cannot write the file: No such file or directory"
    )
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(BaselineError, match=r"cannot write the file: Is a directory$"):
        write_baseline(folder, Baseline(counts={}))
    assert [p.name for p in tmp_path.iterdir()] == ["a-folder"]


def test_load_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BaselineError) as raised:
        load_baseline(tmp_path / "nope.json")
    assert str(raised.value) == (
        f"baseline '{tmp_path / 'nope.json'}': cannot read the file: No such file or directory"
    )


HINT = " (write a new one with `loomlint check --write-baseline FILE`)"
ENTRY = '{"path": "a.py", "code": "LML003", "fingerprint": "f", "count": 1}'


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "not valid JSON: Expecting value (line 1, column 1)"),
        (b'{"version": 1,\n "findings": [}', "not valid JSON: Expecting value (line 2, column 15)"),
        (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
        (b"[" * 100_000 + b"]" * 100_000, "not a loomlint baseline: nested too deeply"),
        (b"[]", "not a loomlint baseline: expected a JSON object, got a list"),
        (b"null", "not a loomlint baseline: expected a JSON object, got null"),
        (b'{"findings": []}', "not a loomlint baseline: no 'version' field"),
        (
            b'{"version": 2, "findings": []}',
            "unsupported version 2 (this loomlint reads version 1)",
        ),
        (
            b'{"version": "1", "findings": []}',
            'unsupported version "1" (this loomlint reads version 1)',
        ),
        (
            b'{"version": true, "findings": []}',
            "unsupported version true (this loomlint reads version 1)",
        ),
        (b'{"version": 1}', "not a loomlint baseline: no 'findings' field"),
        (b'{"version": 1, "findings": {}}', "'findings' must be a list, got an object"),
        (b'{"version": 1, "findings": [3]}', "findings[0]: expected an object, got 3"),
        (
            ('{"version": 1, "findings": [' + ENTRY + ', {"code": "LML003"}]}').encode(),
            "findings[1]: 'path' must be a non-empty string, got null",
        ),
        (
            b'{"version": 1, "findings": [{"path": "a.py", "code": "", "fingerprint": "f"}]}',
            "findings[0]: 'code' must be a non-empty string, got \"\"",
        ),
        (
            b'{"version": 1, "findings": [{"path": "a.py", "code": "X", "fingerprint": 7}]}',
            "findings[0]: 'fingerprint' must be a non-empty string, got 7",
        ),
        (
            (
                '{"version": 1, "findings": [' + ENTRY.replace('"count": 1', '"count": 0') + "]}"
            ).encode(),
            "findings[0]: 'count' must be a positive integer, got 0",
        ),
        (
            (
                '{"version": 1, "findings": [' + ENTRY.replace('"count": 1', '"count": 1.5') + "]}"
            ).encode(),
            "findings[0]: 'count' must be a positive integer, got 1.5",
        ),
        (
            (
                '{"version": 1, "findings": [' + ENTRY.replace('"count": 1', '"count": true') + "]}"
            ).encode(),
            "findings[0]: 'count' must be a positive integer, got true",
        ),
        (
            ('{"version": 1, "findings": [' + ENTRY.replace(', "count": 1', "") + "]}").encode(),
            "findings[0]: 'count' must be a positive integer, got null",
        ),
    ],
)
def test_corrupt_files_are_refused_with_the_reason(data: bytes, problem: str) -> None:
    with pytest.raises(BaselineError) as raised:
        parse_baseline(data, "ci/baseline.json")
    assert str(raised.value) == f"baseline 'ci/baseline.json': {problem}{HINT}"


def test_an_absurd_number_is_an_error_not_a_crash() -> None:
    # Python refuses to convert integers this long (since 3.10.7/3.11): a ValueError that is
    # not a JSONDecodeError. Either way the file is refused with a message.
    with pytest.raises(BaselineError, match=r"^baseline 'b\.json': (not valid JSON|unsupported)"):
        parse_baseline(b'{"version": ' + b"9" * 5000 + b', "findings": []}', "b.json")


def test_tolerated_variations() -> None:
    data = (
        "\ufeff"
        + json.dumps(
            {
                "version": 1,
                "findings": [
                    {"path": "a.py", "code": "lml003", "fingerprint": "f", "count": 1},
                    {"path": "a.py", "code": "LML003", "fingerprint": "f", "count": 2, "x": 1},
                ],
                "comment": "extra keys are ignored",
            }
        )
    ).encode()
    assert parse_baseline(data, "b.json") == Baseline(
        counts=Counter({BaselineKey("a.py", "LML003", "f"): 3})
    )


def test_compare_counts_occurrences() -> None:
    compute = keys()
    recorded = build_baseline([finding("src/app.py", 2), finding("src/other.py", 1)], compute)
    # Now two identical lines: one is recorded, the later one is new; other.py was fixed.
    match = compare([finding("src/app.py", 4), finding("src/app.py", 2)], recorded, compute)
    assert match.new == [finding("src/app.py", 4)]
    assert match.known == 1
    assert match.unmatched == Counter({key("src/other.py", "LML003", "s = str(m.content)"): 1})
    everything = compare([], recorded, compute)
    assert (everything.new, everything.known, everything.unmatched.total()) == ([], 0, 2)
