"""Python sources that hold what ``str.splitlines()`` takes for line breaks and Python does not,
for the tests of every writer: a Hypothesis strategy, and what a writer must keep.

Python ends a line at ``\\r\\n``, ``\\r`` or ``\\n`` only; the eight odd separators below are
ordinary characters in its comments and strings (``\\x0c`` also in indentation).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from hypothesis import strategies as st

ODD_SEPARATORS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
NEWLINES = ("\n", "\r\n", "\r")
BOM = "\ufeff"

HEADER = "import logging\nfrom loomlint.content import LlmMessage\n{s}\n"

# Functions with findings (LML003 fixable, LML001 not) where an odd separator sits in a
# comment or string before, on or after the finding's line. ``{s}`` is a separator, ``{i}``
# one level of indentation, ``{k}`` the function's number.
FUNCTIONS = (
    # A comment with a separator on the finding's line.
    "def f{k}(m: LlmMessage) -> str:\n{i}return str(m.content)  # a{s}b\n",
    # A string spanning lines before the finding.
    'def f{k}(m: LlmMessage) -> str:\n{i}doc = """\n{s}x\n"""\n{i}return doc + str(m.content)\n',
    # The finding on the line a string spanning lines ends on.
    'def f{k}(m: LlmMessage) -> str:\n{i}return """\nx{s}\n""" + str(m.content)\n',
    # The finding inside an f-string spanning lines: no comment can end its line.
    'def f{k}(m: LlmMessage) -> str:\n{i}return f"""{{m.content}}\n{s}y"""\n',
    # A separator in a one-line string on the finding's line, and a statement after `;`.
    "def f{k}(m: LlmMessage) -> str:\n{i}x = 'a{s}b'; return x + str(m.content)\n",
    # The finding on a line continued with a backslash.
    "def f{k}(m: LlmMessage) -> str:\n{i}return str(m.content) + \\\n{i}{i}'{s}'\n",
    # A form feed on a line of its own and in indentation.
    "\x0c\ndef f{k}(m: LlmMessage) -> str:\n\x0c{i}return '%s' % m.content\n",
    # Another tool's noqa to extend, and a separator in a comment line above.
    "# {s}\ndef f{k}(m: LlmMessage) -> str:\n{i}return str(m.content)  # noqa: E501\n",
    # A finding without a fix (LML001), and logging.
    "def f{k}(m: LlmMessage) -> str:\n"
    "{i}logging.info('%s{s}', m.content)\n{i}return m.content.strip()\n",
    # A character beyond the BMP (two UTF-16 units) before the finding on its line.
    "def f{k}(m: LlmMessage) -> str:\n{i}return '\U0001f60b{s}' + str(m.content)\n",
    # Separators in a docstring and after the finding.
    'def f{k}(m: LlmMessage) -> str:\n{i}"""Doc{s}string."""\n'
    '{i}print(m.content, "{s}")\n{i}return ""\n',
)


@dataclass(frozen=True)
class OddSource:
    text: str  # without the BOM
    bom: bool

    @property
    def data(self) -> bytes:
        return (BOM if self.bom else "").encode() + self.text.encode("utf-8")


@st.composite
def odd_sources(draw: st.DrawFn) -> OddSource:
    """A module of a few functions with findings, odd separators, one newline style (or a mix),
    tabs or spaces, with or without a BOM."""
    indent = draw(st.sampled_from(("\t", "    ")))
    chosen = draw(st.lists(st.sampled_from(FUNCTIONS), min_size=1, max_size=4))
    parts = [HEADER.format(s="# " + draw(st.sampled_from(ODD_SEPARATORS)))]
    for number, template in enumerate(chosen):
        separator = draw(st.sampled_from(ODD_SEPARATORS))
        parts.append(template.format(s=separator, i=indent, k=number))
    text = "".join(parts)
    style = draw(st.sampled_from((*NEWLINES, "mixed")))
    if style == "mixed":
        lines = text.split("\n")
        breaks = draw(
            st.lists(st.sampled_from(NEWLINES), min_size=len(lines) - 1, max_size=len(lines) - 1)
        )
        text = "".join(line + end for line, end in zip(lines, breaks, strict=False)) + lines[-1]
    else:
        text = text.replace("\n", style)
    return OddSource(text, draw(st.booleans()))


def string_literals(text: str) -> list[str]:
    """Every str and bytes literal's value (f-strings' literal parts too), in a stable order;
    raises SyntaxError when ``text`` does not parse."""
    tree = ast.parse(text.removeprefix(BOM))
    return sorted(
        repr(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
    )


def code_without_comments(text: str) -> str:
    """The module's syntax tree, without positions: the same for two texts that differ only
    in comments and in where lines break outside the code."""
    return ast.dump(ast.parse(text.removeprefix(BOM)))
