"""The CPython-parser screen: which files may hold a content origin, and which surely don't."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from loomlint.analysis.engine import analyze_source
from loomlint.analysis.prescreen import names_content
from loomlint.config import CliOverrides, load_settings

WORDS = frozenset({"content", "Content"})


@pytest.mark.parametrize(
    "source",
    [
        "print(m.content)\n",
        "x = m['content']\n",
        "x = m.get('content')\n",
        "x = getattr(m, 'content')\n",
        "match m:\n    case Message(content=c):\n        pass\n",
        "match m:\n    case {'content': c}:\n        pass\n",
        "from loomlint.content import Content as Body\n",
        "import spi.Content\n",
        "def f(c: 'list[Content] | None') -> None: ...\n",
        "def f(c: spi.Content) -> None: ...\n",
        "log(f'{m.content!r}')\n",
    ],
    ids=[
        "attribute",
        "subscript",
        "get",
        "getattr",
        "class-pattern",
        "mapping-pattern",
        "aliased-import",
        "dotted-import",
        "string-annotation",
        "qualified-annotation",
        "f-string",
    ],
)
def test_a_possible_origin_is_seen(source: str) -> None:
    assert names_content(source.encode(), WORDS) is True


@pytest.mark.parametrize(
    "source",
    [
        '"""Return the content of the message."""\nx = 1\n',
        "def f():\n    '''The content.'''\n    return 1\n",
        "# the content is parsed below\nx = 1\n",
        "x = m.content_blocks\n",
        "contents = load()\n",
        "x = {'contents': 1}\n",
        "class ContentBlock: ...\n",
        "",
    ],
    ids=[
        "module-docstring",
        "function-docstring",
        "comment",
        "longer-attribute",
        "longer-name",
        "longer-key",
        "longer-class-name",
        "empty",
    ],
)
def test_a_file_without_origins_is_cleared(source: str) -> None:
    assert names_content(source.encode(), WORDS) is False


@pytest.mark.parametrize(
    "source",
    [b"def f(:\n    '''content'''\n", b"x = '\xff'\n", b"x = (" * 300 + b")" * 300 + b"\n"],
    ids=["syntax-error", "undecodable", "too-deep-for-cpython"],
)
def test_what_cpython_cannot_parse_goes_to_the_full_analysis(source: bytes) -> None:
    assert names_content(source, WORDS) is True


def test_no_words_means_nothing_to_find() -> None:
    assert names_content(b"x = m.content\n", frozenset()) is False


def test_a_file_cpython_cannot_parse_is_still_reported(tmp_path: Path) -> None:
    # Not parsable by CPython either, so the screen passes it on: LML901, not silence.
    source = textwrap.dedent(
        """\
        '''Mentions content only here.'''
        def broken(:
            pass
        """
    ).encode()
    settings = load_settings(tmp_path, overrides=CliOverrides(no_types=True))
    result = analyze_source("broken.py", source, settings)
    assert [(d.code, d.line, d.column) for d in result.diagnostics] == [("LML901", 2, 12)]
