"""Where ``loomlint fix`` puts the import of an accessor: where isort and Ruff (``I001``) would.

The name joins an existing top-level ``from module import ...`` of its module, in member order;
otherwise a new ``from module import name`` line goes into the module's first import block,
in its section (future, standard library, third party, first party) and in module order, with
one blank line between sections; a module without imports gets a block after its docstring,
followed by the blank lines Ruff expects (two before a ``def`` or ``class``, else one). Only
the lines of that import change: an import block that was not sorted before stays as it was.

The rules are Ruff's defaults (``force-sort-within-sections = false``, ``order-by-type``,
case-insensitive natural module order, line length 88 before wrapping a merged import).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from loomlint.files.lines import source_lines

Positions = Mapping[cst.CSTNode, CodeRange]

# Ruff's default line length: a merged import longer than this is wrapped, as Ruff would.
LINE_LENGTH = 88

_FUTURE, _STDLIB, _THIRD_PARTY, _FIRST_PARTY, _LOCAL = range(5)


def add_import(
    text: str,
    qualified: str,
    *,
    is_first_party: Callable[[str], bool] = lambda top: False,
) -> str:
    """``text`` with ``name`` importable from ``module`` (``qualified`` is ``module.name``)."""
    module_name, _, name = qualified.rpartition(".")
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    module = wrapper.module
    lines = source_lines(text)
    newline = module.default_newline
    body = list(module.body)
    first = 1 if body and _is_docstring(body[0]) else 0
    block: list[_Import] = []
    for statement in body[first:]:
        imported = _import_of(statement, positions, is_first_party)
        if imported is None:
            break
        block.append(imported)
    existing = next(
        (i for i in block if i.is_from and i.module == module_name and i.mergeable), None
    )
    if existing is not None:
        if name in existing.names:
            return text
        merged = _render_from(
            module_name, [*existing.aliases, name], existing.parenthesized, existing.comment
        )
        return _replace_lines(lines, existing.first, existing.last, merged, newline)
    if any(i.is_from and i.module == module_name and name in i.names for i in block):
        return text
    new = _Import(
        section=_section(module_name, is_first_party),
        is_from=True,
        module=module_name,
        first=0,
        last=0,
        leading=0,
    )
    line = f"from {module_name} import {name}{newline}"
    if block:
        return _insert_into_block(lines, block, new, line, newline)
    return _insert_new_block(lines, body, first, positions, line, newline)


@dataclass(slots=True)
class _Import:
    section: int
    is_from: bool
    module: str
    # 1-based lines of the statement, and the first line of the comments right above it.
    first: int
    last: int
    leading: int
    names: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    parenthesized: bool = False
    comment: str = ""
    mergeable: bool = False

    @property
    def key(self) -> tuple[int, bool, tuple[object, ...]]:
        return (self.section, self.is_from, _module_key(self.module))


def _insert_into_block(
    lines: list[str], block: Sequence[_Import], new: _Import, line: str, newline: str
) -> str:
    after = next((i for i in block if i.key > new.key), None)
    same_section = [i for i in block if i.section == new.section]
    if after is not None and after.section == new.section:
        # Ruff keeps a blank line above the comments of an import.
        return _insert_lines(
            lines, after.leading, [line, newline] if after.leading < after.first else [line]
        )
    if same_section:  # after the last import of its section
        return _insert_lines(lines, same_section[-1].last + 1, [line])
    if after is not None:  # a new section before a later one
        return _insert_lines(lines, after.leading, [line, newline])
    return _insert_lines(lines, block[-1].last + 1, [newline, line])


def _insert_new_block(
    lines: list[str],
    body: Sequence[cst.BaseStatement],
    first: int,
    positions: Positions,
    line: str,
    newline: str,
) -> str:
    """A module without imports: the import goes after the docstring (else at the top), and
    before the first statement with Ruff's blank lines (two before a definition, else one)."""
    head = lines[: positions[body[0]].end.line] if first else []
    if head and not head[-1].endswith(("\n", "\r")):
        head[-1] += newline
    if first >= len(body):
        return "".join([*head, line, *lines[len(head) :]])
    following = body[first]
    comments = _comment_lead(following)
    leading = len(_leading_lines(following))
    blanks = leading - comments
    start = positions[following].start.line
    if not first:
        head = lines[: start - 1 - leading]
    gap = 2 if _is_definition(following) else 1
    before = [newline] if first and blanks else []
    return "".join([*head, *before, line, *[newline] * gap, *lines[start - 1 - comments :]])


def _import_of(
    statement: cst.BaseStatement, positions: Positions, is_first_party: Callable[[str], bool]
) -> _Import | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    where = positions[statement]
    leading = where.start.line - _comment_lead(statement)
    if isinstance(small, cst.Import):
        names = [cst.Module([]).code_for_node(alias.name) for alias in small.names]
        return _Import(
            section=_section(names[0], is_first_party),
            is_from=False,
            module=names[0],
            first=where.start.line,
            last=where.end.line,
            leading=leading,
        )
    if not isinstance(small, cst.ImportFrom):
        return None
    module = cst.Module([]).code_for_node(small.module) if small.module is not None else ""
    dots = "." * len(small.relative)
    section = _LOCAL if dots else _section(module, is_first_party)
    if isinstance(small.names, cst.ImportStar):
        return _Import(
            section=section,
            is_from=True,
            module=dots + module,
            first=where.start.line,
            last=where.end.line,
            leading=leading,
        )
    aliases = tuple(_alias_text(alias) for alias in small.names)
    bound = tuple(
        cst.Module([]).code_for_node(alias.asname.name)
        if alias.asname is not None
        else cst.Module([]).code_for_node(alias.name)
        for alias in small.names
    )
    comment = statement.trailing_whitespace.comment
    return _Import(
        section=section,
        is_from=True,
        module=dots + module,
        first=where.start.line,
        last=where.end.line,
        leading=leading,
        names=bound,
        aliases=aliases,
        parenthesized=small.lpar is not None,
        comment=comment.value if comment is not None else "",
        # Comments inside the parentheses would be lost by re-rendering the statement.
        mergeable=not dots and "#" not in cst.Module([]).code_for_node(small),
    )


def _alias_text(alias: cst.ImportAlias) -> str:
    name = cst.Module([]).code_for_node(alias.name)
    if alias.asname is None:
        return name
    return f"{name} as {cst.Module([]).code_for_node(alias.asname.name)}"


def _render_from(module: str, aliases: Sequence[str], parenthesized: bool, comment: str) -> str:
    ordered = sorted(dict.fromkeys(aliases), key=_member_key)
    suffix = f"  {comment}" if comment else ""
    single = f"from {module} import {', '.join(ordered)}"
    if not parenthesized and len(single) + len(suffix) <= LINE_LENGTH:
        return single + suffix
    inner = "".join(f"    {alias},\n" for alias in ordered)
    return f"from {module} import ({suffix}\n{inner})"


def _replace_lines(lines: list[str], first: int, last: int, new: str, newline: str) -> str:
    ending = lines[last - 1][len(lines[last - 1].rstrip("\r\n")) :] or ""
    rendered = new.replace("\n", newline) + (ending or "")
    return "".join([*lines[: first - 1], rendered, *lines[last:]])


def _insert_lines(lines: list[str], at: int, new: Sequence[str]) -> str:
    """Insert ``new`` before 1-based line ``at``."""
    head = lines[: at - 1]
    if head and not head[-1].endswith(("\n", "\r")):
        head[-1] += new[-1] if new else "\n"
    return "".join([*head, *new, *lines[at - 1 :]])


def _comment_lead(statement: cst.BaseStatement) -> int:
    """How many lines of comments sit right above the statement (after its blank lines)."""
    count = 0
    for empty in reversed(_leading_lines(statement)):
        if empty.comment is None:
            break
        count += 1
    return count


def _leading_lines(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    if isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        return statement.leading_lines
    return ()


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_definition(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, (cst.FunctionDef, cst.ClassDef))


def _section(module: str, is_first_party: Callable[[str], bool]) -> int:
    top = module.split(".", 1)[0]
    if top == "__future__":
        return _FUTURE
    if top in sys.stdlib_module_names:
        return _STDLIB
    return _FIRST_PARTY if is_first_party(top) else _THIRD_PARTY


_DIGITS = re.compile(r"(\d+)")


def _natural(text: str) -> tuple[object, ...]:
    return tuple(int(piece) if piece.isdigit() else piece for piece in _DIGITS.split(text))


def _module_key(module: str) -> tuple[object, ...]:
    return (_natural(module.lower()), _natural(module))


def _member_key(alias: str) -> tuple[int, tuple[object, ...], tuple[object, ...]]:
    name = alias.split(" as ", 1)[0]
    if len(name) > 1 and name.isupper():
        kind = 0  # CONSTANT
    elif name[:1].isupper():
        kind = 1  # Class
    else:
        kind = 2  # function or variable
    return (kind, _natural(name.lower()), _natural(alias))
