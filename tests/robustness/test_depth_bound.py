"""The depth screen (``compilecheck._deeper_than``) skips a one-line expression whose text is too
short to hold the levels left: it must find exactly the node the whole walk finds, whatever the
expression and the limit."""

from __future__ import annotations

import ast
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loomlint.engine.compilecheck import _deeper_than


def _deeper_than_walking_everything(tree: ast.AST, limit: int) -> int | None:
    stack: list[tuple[ast.AST, int, int]] = [(tree, 1, 1)]
    while stack:
        node, depth, line = stack.pop()
        line = getattr(node, "lineno", line)
        if depth > limit:
            return line
        stack.extend((child, depth + 1, line) for child in ast.iter_child_nodes(node))
    return None


# An expression's text with its precedence, from 0 (a lambda) to 9 (an atom, a call, an
# attribute, a subscript): an operand of lower precedence than its place takes goes in
# parentheses, so that every text generated parses.
Expression = tuple[str, int]
_ATOMS: st.SearchStrategy[Expression] = st.sampled_from(
    [("x", 9), ("m", 9), ("'s'", 9), ("b''", 9), ("...", 9), ("None", 9), ("[]", 9)]
)


def _at_least(expression: Expression, precedence: int) -> str:
    text, own = expression
    return text if own >= precedence else f"({text})"


def _unary(template: str, operand: int, result: int) -> Callable[[Expression], Expression]:
    return lambda e: (template.format(_at_least(e, operand)), result)


def _binary(
    template: str, left: int, right: int, result: int
) -> Callable[[tuple[Expression, Expression]], Expression]:
    return lambda p: (template.format(_at_least(p[0], left), _at_least(p[1], right)), result)


def _in_fstring(e: Expression) -> Expression:
    # Python 3.11's f-strings take no backslash, line break or quote of their own inside a
    # replacement field, and read a colon outside brackets as a format spec.
    text = _at_least(e, 1)
    return (f'f"{{ {text} }}"', 9) if not set(text) & set('\\\n"') else e


def _compound(inner: st.SearchStrategy[Expression]) -> st.SearchStrategy[Expression]:
    # The ways an expression nests another in the fewest characters, with line breaks inside
    # brackets (an expression over several lines is walked, one on a line judged by its text).
    pair = st.tuples(inner, inner)
    return st.one_of(
        inner.map(_unary("-{}", 7, 7)),
        inner.map(_unary("not {}", 4, 4)),
        inner.map(_unary("{}.a", 9, 9)),
        inner.map(_unary("{}()", 9, 9)),
        inner.map(_unary("{}[0]", 9, 9)),
        inner.map(_unary("[{}]", 1, 9)),
        inner.map(_unary("(\n{}\n)", 0, 9)),
        inner.map(_unary("lambda: {}", 0, 0)),
        inner.map(_unary("[a for a in {}]", 2, 9)),
        inner.map(_unary("(y := {})", 1, 9)),
        inner.map(_unary("f(k={})", 1, 9)),
        inner.map(_in_fstring),
        pair.map(_binary("{} + {}", 6, 7, 6)),
        pair.map(_binary("{} if {} else 0", 2, 2, 1)),
        pair.map(_binary("{{{}: {}}}", 1, 1, 9)),
        pair.map(_binary("{}[{}]", 9, 1, 9)),
    )


_EXPRESSIONS = st.recursive(_ATOMS, _compound, max_leaves=15).map(lambda e: e[0])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_EXPRESSIONS, st.integers(min_value=1, max_value=40), st.booleans())
def test_the_screen_finds_what_walking_everything_finds(
    expression: str, limit: int, in_a_function: bool
) -> None:
    body = f"async def g():\n    return {expression}\n" if in_a_function else f"v = {expression}\n"
    tree = ast.parse(body)
    assert _deeper_than(tree, limit) == _deeper_than_walking_everything(tree, limit)


def test_a_long_chain_on_one_line_is_still_found() -> None:
    tree = ast.parse("v = " + " + ".join(["m.role"] * 300) + "\n")
    assert _deeper_than(tree, 250) == 1
    assert _deeper_than(tree, 400) is None
