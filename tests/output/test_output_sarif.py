"""SARIF 2.1.0: valid against the official schema, and what GitHub code scanning reads."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from loomlint import __version__
from loomlint.catalog.rules import load_catalog
from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.docs import render_rule_page
from loomlint.report.output.sarif import build_sarif, finding_fingerprint, render_sarif

SCHEMA_PATH = Path(__file__).parent.parent / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def sarif(
    diagnostics: Sequence[Diagnostic], root: Path, files: dict[str, str] | None = None
) -> Any:
    texts = {path: text.split("\n") for path, text in (files or {}).items()}
    rendered = render_sarif(
        diagnostics, source_root=root, cwd=root, read_lines=lambda path: texts.get(path, [])
    )
    return json.loads(rendered)


def test_valid_against_the_sarif_schema(
    validator: jsonschema.Draft4Validator, diagnostics: list[Diagnostic], tmp_path: Path
) -> None:
    log = sarif(diagnostics, tmp_path)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert [f"{list(e.absolute_path)}: {e.message}" for e in errors] == []
    empty = sarif([], tmp_path)
    assert list(validator.iter_errors(empty)) == []
    assert empty["runs"][0]["results"] == []
    warned = build_sarif(diagnostics, source_root=tmp_path, cwd=tmp_path, warnings=["no types"])
    assert list(validator.iter_errors(warned)) == []
    assert warned["runs"][0]["invocations"][0]["toolExecutionNotifications"] == [
        {"level": "warning", "message": {"text": "no types"}}
    ]


def test_driver_describes_every_rule(diagnostics: list[Diagnostic], tmp_path: Path) -> None:
    log = sarif(diagnostics, tmp_path)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["informationUri"]) == (
        "loomlint",
        __version__,
        "https://github.com/loomlint/loomlint",
    )
    catalog = load_catalog()
    assert [rule["id"] for rule in driver["rules"]] == sorted(catalog.rules)
    lml003 = driver["rules"][2]
    rule = catalog.rules["LML003"]
    assert lml003 == {
        "id": "LML003",
        "name": "content-coercion",
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.what},
        "help": {
            "text": f"{rule.summary}\n\n{rule.what}\n\n{rule.why}",
            "markdown": render_rule_page(rule),
        },
        "helpUri": "https://github.com/loomlint/loomlint/blob/main/docs/rules/LML003.md",
        "defaultConfiguration": {"level": "error"},
    }
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in driver["rules"]}
    assert (levels["LML100"], levels["LML904"], levels["LML901"]) == ("warning", "warning", "error")
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}


def test_results(diagnostics: list[Diagnostic], tmp_path: Path) -> None:
    files = {"src/app.py": "\n" * 11 + "    return str(m.content)\n"}
    results = sarif(diagnostics, tmp_path, files)["runs"][0]["results"]
    assert [(r["ruleId"], r["ruleIndex"], r["level"]) for r in results] == [
        ("LML901", 7, "error"),  # the catalog's rules in order: LML001-LML006, LML100, LML901
        ("LML001", 0, "error"),
        ("LML003", 2, "error"),
    ]
    coercion = results[2]
    fingerprint = finding_fingerprint("src/app.py", "LML003", "    return str(m.content)")
    assert coercion == {
        "ruleId": "LML003",
        "ruleIndex": 2,
        "level": "error",
        "message": {
            "text": "content of `m` (read at line 12) is coerced to str by str(); use text_of(...)"
        },
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": "src/app.py", "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": 12, "startColumn": 14, "endLine": 12, "endColumn": 23},
                }
            }
        ],
        "partialFingerprints": {"loomlint/v1": f"{fingerprint}:1"},
        "fixes": [
            {
                "description": {
                    "text": "Wrap in text_of(...) (adds an import of loomlint.content.text_of)"
                },
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": "src/app.py", "uriBaseId": "%SRCROOT%"},
                        "replacements": [
                            {
                                "deletedRegion": {
                                    "startLine": 12,
                                    "startColumn": 10,
                                    "endLine": 12,
                                    "endColumn": 24,
                                },
                                "insertedContent": {"text": "text_of(m.content)"},
                            }
                        ],
                    }
                ],
            }
        ],
    }
    # A path with a space is percent-encoded; no fix, no "fixes".
    syntax = results[0]
    assert syntax["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%20file.py"
    assert "fixes" not in syntax


def test_fingerprints_survive_line_shifts_and_reindentation(tmp_path: Path) -> None:
    def finding(line: int) -> Diagnostic:
        return Diagnostic("a.py", line, 5, line, 9, "LML003", "content-coercion", "m")

    before = sarif([finding(2)], tmp_path, {"a.py": "import x\nprint(m.content)\n"})
    after = sarif(
        [finding(5)], tmp_path, {"a.py": "import x\n\n\nif y:\n        print(m.content)\n"}
    )
    key = "loomlint/v1"
    assert (
        before["runs"][0]["results"][0]["partialFingerprints"][key]
        == after["runs"][0]["results"][0]["partialFingerprints"][key]
    )


def test_identical_lines_get_distinct_occurrence_numbers(tmp_path: Path) -> None:
    findings = [
        Diagnostic("a.py", line, 1, line, 5, "LML003", "content-coercion", "m") for line in (1, 2)
    ]
    results = sarif(findings, tmp_path, {"a.py": "print(m.content)\nprint(m.content)\n"})
    prints = [r["partialFingerprints"]["loomlint/v1"] for r in results["runs"][0]["results"]]
    assert prints[0].rsplit(":", 1)[0] == prints[1].rsplit(":", 1)[0]
    assert [p.rsplit(":", 1)[1] for p in prints] == ["1", "2"]


def test_paths_outside_the_source_root_are_file_uris(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    outside = Diagnostic(
        (tmp_path / "other" / "x.py").as_posix(), 1, 1, 1, 2, "LML001", "unsafe-content-use", "m"
    )
    location = sarif([outside], root)["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"] == {
        "uri": (tmp_path / "other" / "x.py").as_uri()
    }


def test_reads_the_flagged_line_from_disk_by_default(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"\xef\xbb\xbfx = 1\r\nprint(m.content)\r\n")
    finding = Diagnostic("a.py", 2, 1, 2, 5, "LML003", "content-coercion", "m")
    log = json.loads(render_sarif([finding], source_root=tmp_path, cwd=tmp_path))
    expected = finding_fingerprint("a.py", "LML003", "print(m.content)")
    assert log["runs"][0]["results"][0]["partialFingerprints"]["loomlint/v1"] == f"{expected}:1"
    missing = Diagnostic("gone.py", 2, 1, 2, 5, "LML003", "content-coercion", "m")
    log = json.loads(render_sarif([missing], source_root=tmp_path, cwd=tmp_path))
    assert log["runs"][0]["results"][0]["partialFingerprints"]["loomlint/v1"] == (
        f"{finding_fingerprint('gone.py', 'LML003', '')}:1"
    )


def test_fingerprints_do_not_depend_on_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("print(m.content)\n")

    def fingerprint(cwd: Path, path: str) -> str:
        finding = Diagnostic(path, 1, 1, 1, 5, "LML003", "content-coercion", "m")
        log = json.loads(render_sarif([finding], source_root=tmp_path, cwd=cwd))
        return str(log["runs"][0]["results"][0]["partialFingerprints"]["loomlint/v1"])

    assert fingerprint(tmp_path, "pkg/a.py") == fingerprint(tmp_path / "pkg", "a.py")
