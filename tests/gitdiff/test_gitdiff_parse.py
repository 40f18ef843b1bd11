"""Parsing `git diff --unified=0` output into changed lines of the new side."""

from __future__ import annotations

from loomlint.report.gitdiff import parse_unified_diff


def test_added_and_changed_lines() -> None:
    patch = (
        b"diff --git a/app.py b/app.py\n"
        b"index 3f53d5a..ef0ab83 100644\n"
        b"--- a/app.py\n"
        b"+++ b/app.py\n"
        b"@@ -2 +2 @@\n"
        b"-old\n"
        b"+new\n"
        b"@@ -5,0 +6,3 @@\n"
        b"+a\n"
        b"+b\n"
        b"+c\n"
        b"@@ -9,2 +12,0 @@\n"
        b"-gone\n"
        b"-gone too\n"
    )
    assert parse_unified_diff(patch) == {"app.py": {2, 6, 7, 8}}


def test_hunk_bodies_are_never_read_as_headers() -> None:
    # An added line "++ y" is printed "+++ y"; a removed "-- x" is "--- x".
    patch = (
        b"diff --git a/plus.py b/plus.py\n"
        b"--- a/plus.py\n"
        b"+++ b/plus.py\n"
        b"@@ -1 +1,2 @@\n"
        b"--- x\n"
        b"+++ y\n"
        b"+@@ -1 +100,50 @@\n"
    )
    assert parse_unified_diff(patch) == {"plus.py": {1, 2}}


def test_no_newline_markers_do_not_count() -> None:
    patch = (
        b"diff --git a/a.py b/a.py\n"
        b"--- a/a.py\n"
        b"+++ b/a.py\n"
        b"@@ -3 +3 @@\n"
        b"-x\n"
        b"\\ No newline at end of file\n"
        b"+y\n"
        b"\\ No newline at end of file\n"
        b"diff --git a/b.py b/b.py\n"
        b"--- a/b.py\n"
        b"+++ b/b.py\n"
        b"@@ -0,0 +1 @@\n"
        b"+z\n"
    )
    assert parse_unified_diff(patch) == {"a.py": {3}, "b.py": {1}}


def test_new_deleted_and_binary_files() -> None:
    patch = (
        b"diff --git a/new.py b/new.py\n"
        b"new file mode 100644\n"
        b"--- /dev/null\n"
        b"+++ b/new.py\n"
        b"@@ -0,0 +1,2 @@\n"
        b"+one\n"
        b"+two\n"
        b"diff --git a/old.py b/old.py\n"
        b"deleted file mode 100644\n"
        b"--- a/old.py\n"
        b"+++ /dev/null\n"
        b"@@ -1 +0,0 @@\n"
        b"-one\n"
        b"diff --git a/logo.png b/logo.png\n"
        b"Binary files a/logo.png and b/logo.png differ\n"
        b"diff --git a/from.py b/to.py\n"
        b"similarity index 100%\n"
        b"rename from from.py\n"
        b"rename to to.py\n"
    )
    assert parse_unified_diff(patch) == {"new.py": {1, 2}}


def test_quoted_and_odd_paths() -> None:
    patch = (
        b'diff --git "a/tab\\tx.py" "b/tab\\tx.py"\n'
        b'--- "a/tab\\tx.py"\n'
        b'+++ "b/tab\\tx.py"\n'
        b"@@ -1 +1 @@\n"
        b"-a\n"
        b"+b\n"
        b"diff --git a/sp ace.py b/sp ace.py\n"
        b"--- a/sp ace.py\t\n"
        b"+++ b/sp ace.py\t\n"
        b"@@ -1 +1 @@\n"
        b"-a\n"
        b"+b\n"
        b'diff --git "a/\\303\\251.py" "b/\\303\\251.py"\n'
        b'--- "a/\\303\\251.py"\n'
        b'+++ "b/\\303\\251.py"\n'
        b"@@ -1 +4 @@\n"
        b"-a\n"
        b"+b\n"
        b"diff --git a/\xc3\xa9t\xc3\xa9.py b/\xc3\xa9t\xc3\xa9.py\n"
        b"--- a/\xc3\xa9t\xc3\xa9.py\n"
        b"+++ b/\xc3\xa9t\xc3\xa9.py\n"
        b"@@ -1 +2 @@\n"
        b"-a\n"
        b"+b\n"
        b'diff --git "a/q\\"uote.py" "b/q\\"uote.py"\n'
        b'+++ "b/q\\"uote.py"\n'
        b"@@ -1 +3 @@\n"
        b"-a\n"
        b"+b\n"
    )
    assert parse_unified_diff(patch) == {
        "tab\tx.py": {1},
        "sp ace.py": {1},
        "\u00e9.py": {4},
        "\u00e9t\u00e9.py": {2},
        'q"uote.py': {3},
    }


def test_garbage_is_ignored() -> None:
    assert parse_unified_diff(b"") == {}
    assert parse_unified_diff(b"@@ -1 +1 @@\n+no file header\n") == {}
    assert parse_unified_diff(b'+++ "b/unterminated\n@@ -1 +1 @@\n+x\n') == {}
    assert parse_unified_diff(b'+++ "b/bad\\qescape"\n@@ -1 +1 @@\n+x\n') == {}
    # A truncated hunk (fewer body lines than announced) ends with the input.
    assert parse_unified_diff(b"+++ b/a.py\n@@ -1 +1,5 @@\n+x\n") == {"a.py": {1, 2, 3, 4, 5}}
