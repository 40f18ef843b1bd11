"""The CPython-parser screen: which files may hold a content origin, and which surely don't."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from loomlint.engine.analyze import analyze_source
from loomlint.engine.prescreen import names_content
from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings

WORDS = frozenset({"content", "Content"})


ORIGINS = {
    "attribute": "print(m.content)\n",
    "subscript": "x = m['content']\n",
    "get": "x = m.get('content')\n",
    "getattr": "x = getattr(m, 'content')\n",
    "class-pattern": "match m:\n    case Message(content=c):\n        pass\n",
    "mapping-pattern": "match m:\n    case {'content': c}:\n        pass\n",
    "aliased-import": "from loomlint.content import Content as Body\n",
    "dotted-import": "import spi.Content\n",
    "string-annotation": "def f(c: 'list[Content] | None') -> None: ...\n",
    "qualified-annotation": "def f(c: spi.Content) -> None: ...\n",
    "f-string": "log(f'{m.content!r}')\n",
}

NO_ORIGINS = {
    "module-docstring": '"""Return the content of the message."""\nx = 1\n',
    "function-docstring": "def f():\n    '''The content.'''\n    return 1\n",
    "comment": "# the content is parsed below\nx = 1\n",
    "longer-attribute": "x = m.content_blocks\n",
    "longer-name": "contents = load()\n",
    "longer-key": "x = {'contents': 1}\n",
    "longer-class-name": "class ContentBlock: ...\n",
    "empty": "",
}


@pytest.mark.parametrize("source", list(ORIGINS.values()), ids=list(ORIGINS))
def test_a_possible_origin_is_seen(source: str) -> None:
    assert names_content(source.encode(), WORDS) is True


@pytest.mark.parametrize("source", list(NO_ORIGINS.values()), ids=list(NO_ORIGINS))
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
