"""The accessor's import lands where isort / Ruff's I001 puts it: Ruff itself checks every
layout after the import is added, and finds nothing to sort."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from loomlint.engine.analyze import analyze_source
from loomlint.fix.edits import apply_fixes
from loomlint.fix.imports import add_import
from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"

LAYOUTS = {
    "no imports, a function": (
        "def f(m):\n    return m\n",
        "from loomlint.content import text_of\n\n\ndef f(m):\n    return m\n",
    ),
    "no imports, a statement": ("x = 1\n", "from loomlint.content import text_of\n\nx = 1\n"),
    "empty file": ("", "from loomlint.content import text_of\n"),
    "docstring first": (
        '"""Doc."""\n\n\nclass A:\n    pass\n',
        '"""Doc."""\n\nfrom loomlint.content import text_of\n\n\nclass A:\n    pass\n',
    ),
    "docstring only": ('"""Doc."""\n', '"""Doc."""\nfrom loomlint.content import text_of\n'),
    "comment header": (
        "#!/usr/bin/env python\n# license\n\nx = 1\n",
        "#!/usr/bin/env python\n# license\n\nfrom loomlint.content import text_of\n\nx = 1\n",
    ),
    "stdlib only": (
        "import json\nimport os\n\n\ndef f():\n    pass\n",
        "import json\nimport os\n\nfrom loomlint.content import text_of\n\n\ndef f():\n    pass\n",
    ),
    "third-party block, sorted in": (
        "import os\n\nimport httpx\nfrom pydantic import BaseModel\n\nx = 1\n",
        "import os\n\nimport httpx\nfrom loomlint.content import text_of\n"
        "from pydantic import BaseModel\n\nx = 1\n",
    ),
    "third-party block, at its end": (
        "import os\n\nfrom attrs import define\n\nx = 1\n",
        "import os\n\nfrom attrs import define\nfrom loomlint.content import text_of\n\nx = 1\n",
    ),
    "before first-party": (
        "import os\n\nfrom myapp import models\n\nx = 1\n",
        "import os\n\nfrom loomlint.content import text_of\n\nfrom myapp import models\n\nx = 1\n",
    ),
    "from __future__": (
        "from __future__ import annotations\n\n\ndef f():\n    pass\n",
        "from __future__ import annotations\n\nfrom loomlint.content import text_of\n\n\n"
        "def f():\n    pass\n",
    ),
    "docstring, __future__ and stdlib": (
        '"""Doc."""\n\nfrom __future__ import annotations\n\nimport os\n\nx = os\n',
        '"""Doc."""\n\nfrom __future__ import annotations\n\nimport os\n\n'
        "from loomlint.content import text_of\n\nx = os\n",
    ),
    "joins its module's import": (
        "from loomlint.content import LlmMessage\n\nx = 1\n",
        "from loomlint.content import LlmMessage, text_of\n\nx = 1\n",
    ),
    "joins a parenthesized import": (
        "from loomlint.content import (\n    Content,\n    LlmMessage,\n)\n\nx = 1\n",
        "from loomlint.content import (\n    Content,\n    LlmMessage,\n    text_of,\n)\n\nx = 1\n",
    ),
    "wraps a joined import that gets too long": (
        "from loomlint.content import AudioPart, Content, FilePart, ImagePart, LlmMessage\n",
        "from loomlint.content import (\n    AudioPart,\n    Content,\n    FilePart,\n"
        "    ImagePart,\n    LlmMessage,\n    text_of,\n)\n",
    ),
    "comments above an import stay with it": (
        "import os\n\n# the HTTP client\nfrom zzz import get\n\nx = 1\n",
        "import os\n\nfrom loomlint.content import text_of\n\n# the HTTP client\n"
        "from zzz import get\n\nx = 1\n",
    ),
    "CRLF line endings": (
        "import os\r\n\r\nx = 1\r\n",
        "import os\r\n\r\nfrom loomlint.content import text_of\r\n\r\nx = 1\r\n",
    ),
}


def _ruff_isort(path: Path) -> str:
    result = subprocess.run(
        [RUFF, "check", "--isolated", "--select", "I", "--output-format", "concise", str(path)],
        capture_output=True,
        text=True,
        check=False,
        # Ruff takes packages found beside its working folder for first-party: not loomlint.
        cwd=path.parent,
    )
    return result.stdout + result.stderr


def _first_party(top: str) -> bool:
    return top == "myapp"


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_import_lands_where_ruff_puts_it(layout: str, tmp_path: Path) -> None:
    before, after = LAYOUTS[layout]
    fixed = add_import(before, "loomlint.content.text_of", is_first_party=_first_party)
    assert fixed == after
    path = tmp_path / "mod.py"
    path.write_bytes(before.encode())
    if "myapp" not in before:  # `--isolated` cannot know myapp is first-party
        assert _ruff_isort(path) == "All checks passed!\n"
    path.write_bytes(fixed.encode())
    if "myapp" not in before:
        assert _ruff_isort(path) == "All checks passed!\n"
    assert add_import(fixed, "loomlint.content.text_of", is_first_party=_first_party) == fixed


def test_the_stdlib_section_is_its_own(tmp_path: Path) -> None:
    fixed = add_import("import httpx\n\nx = 1\n", "json.dumps")
    assert fixed == "from json import dumps\n\nimport httpx\n\nx = 1\n"
    path = tmp_path / "mod.py"
    path.write_text(fixed, encoding="utf-8")
    assert _ruff_isort(path) == "All checks passed!\n"


def test_loomlint_fix_leaves_the_imports_sorted(tmp_path: Path) -> None:
    source = textwrap.dedent(
        """\
        \"\"\"Replies.\"\"\"

        from __future__ import annotations

        import logging

        import loomlint.content as lc
        from zzz_client import send


        def show(m: lc.LlmMessage) -> None:
            logging.info("said %s", m.content)
            send(str(m.content))
        """
    )
    settings = load_settings(tmp_path, overrides=CliOverrides(no_types=True))
    result = analyze_source("mod.py", source.encode(), settings)
    outcome = apply_fixes(source, result.diagnostics)
    assert len(outcome.fixed) == 2
    assert outcome.text == source.replace(
        "import loomlint.content as lc\n",
        "import loomlint.content as lc\nfrom loomlint.content import text_of\n",
    ).replace('%s", m.content', '%s", text_of(m.content)').replace(
        "str(m.content)", "text_of(m.content)"
    )
    path = tmp_path / "mod.py"
    path.write_text(outcome.text, encoding="utf-8")
    assert _ruff_isort(path) == "All checks passed!\n"
