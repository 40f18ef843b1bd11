"""Iteration over content, judged by what a string's characters and a text part would do in it.

``for part in m.content:`` sees parts when the content is a list, and characters when it is a
string. Such a loop is right on both branches only if, for a text message, the string's
characters do what the list's text part would do: nothing. ``ElementGuards.verdict(loop)``
follows the two through the loop's body (a ``for`` statement, or a comprehension clause and
what it produces) and answers:

- ``CHARACTERS``: a character reaches a use of the element, a statement that does something
  (an assignment, a call, ``return``, ``break``, a comprehension's value), or an exception a
  text part would not raise: the loop works on characters. So does a loop that tests its
  element nowhere (no ``isinstance``, no key test), or assigns it.
- ``TEXT_LOST``: a text part that a test on the way named reaches a statement that does
  something, and a character does not. The loop picks the text part (``if isinstance(p,
  TextPart): n += 1``, ``[b for b in c if "text" in b]``, ``isinstance(b, dict) and b["type"]
  == "text"``): a text message's characters pass no such test, so its text counts for
  nothing. A loop over every block (``if isinstance(b, dict): out.append(b)``) names no text
  part: it is code for the list branch, which a string's characters rightly skip.
- ``SAFE``: neither. ``for p in m.content: if isinstance(p, ToolUsePart): ...`` does nothing
  for a text message, as it should: a string holds no tool call.

The tests that steer them (on the element, by name; combined with ``not``, ``and``, ``or``, in
``if``, ``elif``, ``assert``, a comprehension's condition or a conditional expression):

- ``isinstance(p, C)`` (``C`` a class, a tuple or a ``|`` of classes). A character passes it
  when some class may hold a string (``str``, ``object``, a protocol of ``typing`` or
  ``collections.abc``, a subclass of ``str``, a class the module cannot name), and fails it
  unless a class is ``str`` or ``object``. A text part passes it when a class is one of its
  own (``[text-part] classes`` of the active presets: ``TextPart``, a tuple holding it), which
  names it, or what it is an instance of at run time (``bases``: ``dict`` for a TypedDict
  part), which lets it through with every other part; and it may fail it whatever the
  classes (``TextPart`` is not the wire form's ``TextPartDict``).
- ``"key" in p``, for a key of two or more characters, which no character contains: a
  character fails it. A text part passes it, named, when the key is the one of its text
  (``[text-part] keys``): ``"text" in block`` picks it; ``"type" in block`` (every block's),
  ``"thinking" in block`` or ``"image_url" in block`` do not.
- ``p["type"] == "text"``, ``p.get("type") == "text"``, ``p.type == "text"`` (or ``!=``,
  ``in (...)``, ``not in (...)`` with string literals; the key and its values from
  ``[text-part] type-key`` and ``types``): a character reaching one is a use (it has no such
  key). A test naming one of the text part's values sends it, named, to its true branch only;
  one naming none of them, to its false branch only.

A condition whose value is produced (``any(isinstance(p, TextPart) for p in ...)``) loses the
text when a named text part may come out other than the characters do:
``all(isinstance(b, dict) for b in ...)`` names none (it asks what every part is, which a
string rightly fails).

``continue`` and ``pass`` do nothing, and neither does an exception (a failed ``assert``, a
``raise``) that both a character and a text part reach, or only a text part: a loop that fails
alike for a text message and its list form, or only for the list's parts, is the code's own
choice. What follows ``if not isinstance(p, C): continue`` or ``assert isinstance(p, C)`` is
reached only by what passed. So ``assert isinstance(part, str) or isinstance(part, Image)``
lets characters through: it holds for each character of a string as for a list of strings and
images, so a loop that only asserts it does nothing for a text message (safe), while any use
of ``part`` after it is a use of a character. The same syntax decides with and without types.

Tests of the content itself are decided here too, for ``flow`` and ``sinks``:
``element_test`` (``isinstance(content[0], dict)``: where a character fails the classes, the
content is a list past the test, and the test is no use of one branch), ``named_element_test``
(the same test of ``part = content[0]``, made next), ``element_comparand`` (``content[0] ==
TextPart(...)``: what the element is compared with, which ``sinks`` asks whether it can be a
string) and ``tests_emptiness`` (``len(content) > 0``: the empty string and the empty list both
count none).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from loomlint.catalog.spi import TextParts
from loomlint.engine.index import ModuleIndex
from loomlint.engine.syntax import root_name, single_index, string_value, suite_body
from loomlint.engine.tree import child_nodes, names_no_variable

# Classes a one-character string is an instance of, or may be (protocols, generics).
_STRING_CLASSES = frozenset({"builtins.str", "builtins.object"})
_PROTOCOL_MODULES = ("collections.", "typing.", "typing_extensions.", "numbers.", "abc.")
_STR_SUBCLASS_BASES = frozenset({"builtins.str", "enum.StrEnum"})
_SILENT_STATEMENTS = (cst.Pass, cst.Global, cst.Nonlocal, cst.Import, cst.ImportFrom)
_DOCSTRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


class LoopVerdict(enum.Enum):
    SAFE = "safe"
    # A character of a string content reaches a use of the element or a statement with effect.
    CHARACTERS = "characters"
    # A text part reaches a statement with effect that no character reaches.
    TEXT_LOST = "text-lost"


@dataclass(frozen=True, slots=True)
class _Reach:
    """Which elements may reach a point of the loop: a character, a text part, and whether a
    test on the way named the text part (picked it, not merely let it through with every other
    part). Any other part may reach anywhere: what it does is the loop's business."""

    char: bool
    text: bool
    named: bool = False

    def __or__(self, other: _Reach) -> _Reach:
        return _Reach(self.char or other.char, self.text or other.text, self.named or other.named)

    def passing(self, *, char: bool, text: bool, names: bool) -> _Reach:
        """What passes a test a character passes if ``char``, the text part if ``text``;
        ``names``: the test names the text part."""
        passes = self.text and text
        return _Reach(self.char and char, passes, passes and (self.named or names))


_EVERY = _Reach(char=True, text=True)
_NONE = _Reach(char=False, text=False)


@dataclass(slots=True)
class _Scan:
    """What one pass over a loop found."""

    name: str
    guards: int = 0
    characters: bool = False
    text_lost: bool = False

    def acts(self, reach: _Reach) -> None:
        """A statement with effect (or a produced value) where ``reach`` arrives."""
        if reach.char:
            self.characters = True
        elif reach.named:
            self.text_lost = True

    def raises(self, reach: _Reach) -> None:
        """An exception raised where ``reach`` arrives: a text message's characters raise
        it where its text part would not (where both do, the loop fails alike on both)."""
        if reach.char and not reach.text:
            self.characters = True


@dataclass(frozen=True, slots=True)
class _TypeTest:
    """``p["type"] == "text"`` and its kin: the read of the element, the values tested."""

    read: cst.BaseExpression
    values: frozenset[str]
    text_values: frozenset[str]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class _Classes:
    """The classes of an ``isinstance`` test, as a character and a text part see them."""

    excludes_strings: bool
    surely_strings: bool
    # Whether a text part may pass: a class is one of its classes or what it is an instance of.
    text: bool
    # Whether a class is one of the text part's own (``TextPart``, not ``dict``).
    names_text: bool


class ElementGuards:
    def __init__(self, index: ModuleIndex, text_parts: TextParts) -> None:
        self._index = index
        self._text_parts = text_parts

    def verdict(self, loop: cst.For | cst.CompFor) -> LoopVerdict:
        target: cst.BaseExpression = loop.target
        iterated = loop.iter
        if (
            isinstance(iterated, cst.Call)
            and self._index.names.qualified(iterated.func) == "builtins.enumerate"
            and isinstance(target, cst.Tuple)
            and len(target.elements) == 2
        ):
            target = target.elements[1].value  # for i, part in enumerate(m.content)
        if not isinstance(target, cst.Name):
            return LoopVerdict.CHARACTERS
        scan = _Scan(target.value)
        if isinstance(loop, cst.For):
            self._block(suite_body(loop.body), _EVERY, scan)
        else:
            reach = _EVERY
            for condition in loop.ifs:
                reach = self._branch(condition.test, reach, scan)[0]
            self._produce(loop, reach, scan)
        if scan.characters or scan.guards == 0:
            return LoopVerdict.CHARACTERS
        return LoopVerdict.TEXT_LOST if scan.text_lost else LoopVerdict.SAFE

    # --- comprehensions -------------------------------------------------------------------------

    def _produce(self, clause: cst.CompFor, reach: _Reach, scan: _Scan) -> None:
        """What a comprehension clause feeds: the clauses inside it, then the value produced."""
        inner = clause.inner_for_in
        while inner is not None:
            self._expression(inner.iter, reach, scan)
            for condition in inner.ifs:
                reach = self._branch(condition.test, reach, scan)[0]
            inner = inner.inner_for_in
        node: cst.CSTNode | None = clause
        while node is not None and not isinstance(node, _COMPREHENSIONS):
            node = self._index.parent(node)
        if isinstance(node, cst.DictComp):
            produced = [node.key, node.value]
        elif node is not None:
            produced = [node.elt]
        else:
            produced = []
        for value in produced:
            self._value(value, reach, scan)

    def _value(self, value: cst.BaseExpression, reach: _Reach, scan: _Scan) -> None:
        """A produced value. A condition (``any(isinstance(p, TextPart) for p in ...)``) is
        truthy or falsy: it differs for a text message when a named text part may come out
        other than its characters do (``all(isinstance(b, dict) for b in ...)`` names none: it
        asks what every part is, which a string rightly fails)."""
        if not _is_condition(value) and not self._is_test(value, scan.name):
            self._expression(value, reach, scan)
            scan.acts(reach)
            return
        true, false = self._branch(value, reach, scan)
        if (true.named and not true.char) or (false.named and not false.char and true.char):
            scan.text_lost = True

    # --- statements -----------------------------------------------------------------------------

    def _block(
        self,
        body: Sequence[cst.BaseStatement | cst.BaseSmallStatement],
        reach: _Reach,
        scan: _Scan,
    ) -> _Reach:
        """Scans a block; returns what reaches its end (nothing after ``continue``)."""
        for statement in body:
            reach = self._statement(statement, reach, scan)
        return reach

    def _statement(
        self, statement: cst.BaseStatement | cst.BaseSmallStatement, reach: _Reach, scan: _Scan
    ) -> _Reach:
        if isinstance(statement, cst.If):
            return self._if(statement, reach, scan)
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                reach = self._small(small, reach, scan)
            return reach
        if isinstance(statement, cst.BaseSmallStatement):
            return self._small(statement, reach, scan)
        if isinstance(statement, (cst.For, cst.While)):
            if isinstance(statement, cst.For):
                self._expression(statement.iter, reach, scan)
                if _binds(statement.target, scan.name):
                    scan.characters = True
            else:
                self._branch(statement.test, reach, scan)
            self._block(suite_body(statement.body), reach, scan)
            if statement.orelse is not None:
                self._block(suite_body(statement.orelse.body), reach, scan)
            return reach
        if isinstance(statement, cst.With):
            for item in statement.items:
                self._expression(item.item, reach, scan)
            return self._block(suite_body(statement.body), reach, scan)
        if isinstance(statement, (cst.Try, cst.TryStar)):
            for body in _try_bodies(statement):
                self._block(suite_body(body), reach, scan)
            return reach
        self._expression(statement, reach, scan)
        if not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            scan.acts(reach)
        return reach

    def _small(self, small: cst.BaseSmallStatement, reach: _Reach, scan: _Scan) -> _Reach:
        if isinstance(small, _SILENT_STATEMENTS):
            return reach
        if isinstance(small, cst.Continue):
            return _NONE
        if isinstance(small, cst.Raise):
            self._expression(small, reach, scan)
            scan.raises(reach)
            return _NONE
        if isinstance(small, cst.Assert):
            true, false = self._branch(small.test, reach, scan)
            if small.msg is not None:
                self._expression(small.msg, false, scan)
            scan.raises(false)
            return true
        if isinstance(small, cst.Expr) and isinstance(small.value, _DOCSTRINGS):
            return reach
        if _rebinds(small, scan.name):
            scan.characters = True
        self._expression(small, reach, scan)
        scan.acts(reach)
        return _NONE if isinstance(small, (cst.Return, cst.Break)) else reach

    def _if(self, statement: cst.If, reach: _Reach, scan: _Scan) -> _Reach:
        true, false = self._branch(statement.test, reach, scan)
        end = self._block(suite_body(statement.body), true, scan)
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            return end | self._if(orelse, false, scan)
        if isinstance(orelse, cst.Else):
            return end | self._block(suite_body(orelse.body), false, scan)
        return end | false

    # --- tests ----------------------------------------------------------------------------------

    def _branch(
        self, test: cst.BaseExpression, reach: _Reach, scan: _Scan
    ) -> tuple[_Reach, _Reach]:
        """What reaches the test's true and false outcomes (scanning its uses)."""
        name = scan.name
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            true, false = self._branch(test.expression, reach, scan)
            return false, true
        if isinstance(test, cst.BooleanOperation):
            left_true, left_false = self._branch(test.left, reach, scan)
            if isinstance(test.operator, cst.And):
                right_true, right_false = self._branch(test.right, left_true, scan)
                return right_true, left_false | right_false
            right_true, right_false = self._branch(test.right, left_false, scan)
            return left_true | right_true, right_false
        classes = self._isinstance(test, name)
        if classes is not None:
            scan.guards += 1
            true = reach.passing(
                char=not classes.excludes_strings, text=classes.text, names=classes.names_text
            )
            return true, reach.passing(char=not classes.surely_strings, text=True, names=False)
        key = _key_test(test, name)
        if key is not None:
            scan.guards += 1
            names = key[0] in self._text_parts.keys
            true = reach.passing(char=False, text=names, names=names)
            return (reach, true) if key[1] else (true, reach)
        typed = self._type_test(test, name)
        if typed is not None:
            self._expression(typed.read, reach, scan)  # a character has no such key
            picks = bool(typed.values & typed.text_values)
            true = reach.passing(char=True, text=picks, names=picks)
            false = reach.passing(char=True, text=not picks, names=False)
            return (false, true) if typed.negated else (true, false)
        self._expression(test, reach, scan)
        return reach, reach

    def _is_test(self, node: cst.BaseExpression, name: str) -> bool:
        """Whether ``node`` is one of the tests ``_branch`` follows, or a combination of them."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return self._is_test(node.expression, name)
        if isinstance(node, cst.BooleanOperation):
            return self._is_test(node.left, name) and self._is_test(node.right, name)
        return (
            self._isinstance(node, name) is not None
            or _key_test(node, name) is not None
            or self._type_test(node, name) is not None
        )

    def _isinstance(self, test: cst.BaseExpression, name: str) -> _Classes | None:
        if not (
            isinstance(test, cst.Call)
            and len(test.args) == 2
            and self._index.names.qualified(test.func) == "builtins.isinstance"
        ):
            return None
        subject = test.args[0].value
        if not (isinstance(subject, cst.Name) and subject.value == name):
            return None
        characters = character_classes(self._index, test.args[1].value)
        if characters is None:
            return None
        qualified = [
            self._index.names.qualified(member) for member in _class_members(test.args[1].value)
        ]
        return _Classes(
            excludes_strings=characters.excluded,
            surely_strings=characters.admitted,
            text=any(
                q is not None and (q in self._text_parts.classes or q in self._text_parts.bases)
                for q in qualified
            ),
            names_text=any(q is not None and q in self._text_parts.classes for q in qualified),
        )

    def _type_test(self, test: cst.BaseExpression, name: str) -> _TypeTest | None:
        """``p["type"] == "text"`` (or ``p.get("type")``, ``p.type``; ``!=``, ``in``,
        ``not in`` a display of strings), where an active SPI discriminates its text part by
        that key."""
        for read, values, negated in string_comparisons(test):
            key = _type_read(read, name)
            text_values = self._text_parts.type_values(key) if key is not None else None
            if text_values is not None:
                return _TypeTest(read, values, text_values, negated)
        return None

    # --- uses -----------------------------------------------------------------------------------

    def _expression(self, node: cst.CSTNode, reach: _Reach, scan: _Scan) -> None:
        """A use of the element under ``node`` where a character reaches is a use of a
        character; the tests inside it steer what reaches their operands."""
        if not reach.char or scan.characters:
            return
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Name) and current.value == scan.name:
                parent = self._index.parent(current)
                if parent is None or not names_no_variable(parent, current):
                    scan.characters = True
                    return
            elif isinstance(current, cst.If):
                self._if(current, reach, scan)
                continue
            elif isinstance(current, cst.IfExp):
                true, false = self._branch(current.test, reach, scan)
                self._expression(current.body, true, scan)
                self._expression(current.orelse, false, scan)
                continue
            elif isinstance(current, cst.BaseExpression) and (
                isinstance(current, cst.BooleanOperation) or self._is_test(current, scan.name)
            ):
                self._branch(current, reach, scan)
                continue
            stack.extend(child_nodes(current))


@dataclass(frozen=True, slots=True)
class CharacterClasses:
    """What the classes of an ``isinstance`` test do with a one-character string, as far as
    syntax can tell."""

    # No string is an instance of any of them (``dict``, a part class, ``int``): a character
    # fails the test.
    excluded: bool
    # One of them is ``str`` or ``object``: a character passes it.
    admitted: bool


def character_classes(index: ModuleIndex, classes: cst.BaseExpression) -> CharacterClasses | None:
    """The classes of ``isinstance(x, classes)`` (a class, a tuple or a ``|`` of classes) as a
    character meets them; None for no class at all."""
    members = tuple(_class_members(classes))
    if not members:
        return None
    return CharacterClasses(
        excluded=all(_excludes_strings(index, member) for member in members),
        admitted=any(index.names.qualified(member) in _STRING_CLASSES for member in members),
    )


def _excludes_strings(index: ModuleIndex, cls: cst.BaseExpression) -> bool:
    """Whether no string is an instance of ``cls``: a class of the module that is no subclass of
    ``str``, a builtin other than ``str`` and ``object``, an imported class that is no protocol
    (``typing``, ``collections.abc``). A class the module cannot name may be anything."""
    local = index.names.local_class(cls)
    if local is not None:
        return not any(
            index.names.qualified(base.value) in _STR_SUBCLASS_BASES for base in local.bases
        )
    qualified = index.names.qualified(cls)
    if qualified is None:
        return False
    if qualified.startswith("builtins."):
        return qualified not in _STRING_CLASSES
    return not qualified.startswith(_PROTOCOL_MODULES)


def _isinstance_arguments(
    index: ModuleIndex, test: cst.BaseExpression
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """``isinstance(subject, classes)`` with two positional arguments: its subject and its
    classes, else None."""
    if (
        isinstance(test, cst.Call)
        and len(test.args) == 2
        and not any(arg.keyword is not None or arg.star for arg in test.args)
        and index.names.qualified(test.func) == "builtins.isinstance"
    ):
        return test.args[0].value, test.args[1].value
    return None


def element_test(
    index: ModuleIndex, test: cst.BaseExpression
) -> tuple[cst.BaseExpression, CharacterClasses] | None:
    """``isinstance(content[0], dict)``: the indexed value (``content``) and what the classes
    do with a character. An item of a string is a one-character string (or the index raises),
    so a test whose classes exclude strings tells a list's element from a string's character:
    the value is a list where it passes. Any single index counts (``[0]``, ``[-1]``, ``[i]``);
    a string key or a slice does not."""
    arguments = _isinstance_arguments(index, test)
    if arguments is None:
        return None
    subject, classes = arguments
    if not isinstance(subject, cst.Subscript):
        return None
    item = single_index(subject)
    if item is None or string_value(item) is not None:
        return None
    characters = character_classes(index, classes)
    return (subject.value, characters) if characters is not None else None


def any_element_test(
    index: ModuleIndex, test: cst.BaseExpression
) -> tuple[cst.BaseExpression, CharacterClasses] | None:
    """``any(isinstance(b, dict) for b in content)``: the iterated value (``content``) and
    what the classes do with a character, as ``element_test`` gives them. Where it holds, one
    item is an instance of the classes; a string's items are characters, so where no string is
    one, the value is a list. Where it fails nothing follows (``""`` has no items either), so
    the classes are given as admitting no character."""
    if not (
        isinstance(test, cst.Call)
        and len(test.args) == 1
        and test.args[0].keyword is None
        and not test.args[0].star
        and index.names.qualified(test.func) == "builtins.any"
    ):
        return None
    generator = test.args[0].value
    if not isinstance(generator, (cst.GeneratorExp, cst.ListComp)):
        return None
    clause = generator.for_in
    if clause.inner_for_in is not None or not isinstance(clause.target, cst.Name):
        return None
    arguments = _isinstance_arguments(index, generator.elt)
    if arguments is None or not _is_name(arguments[0], clause.target.value):
        return None
    characters = character_classes(index, arguments[1])
    if characters is None:
        return None
    return clause.iter, CharacterClasses(excluded=characters.excluded, admitted=False)


def tells_element_from_character(index: ModuleIndex, subscript: cst.Subscript) -> bool:
    """Whether ``subscript`` (``content[0]``) is what an ``isinstance`` test asks of, with
    classes no string is an instance of: for a text message the item is a character and the
    test says no, as it should (the string holds no such element). The index is no use of one
    branch there; an empty string raises as an empty list does."""
    arg = index.parent(subscript)
    call = index.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or not call.args or call.args[0] is not arg:
        return False
    found = element_test(index, call)
    return found is not None and found[0] is subscript.value and found[1].excluded


def element_comparand(index: ModuleIndex, element: cst.Subscript) -> cst.BaseExpression | None:
    """What ``content[0]`` is compared with by ``==`` or ``!=`` (either way round, no chain):
    the other operand. An item of a string is a one-character string, so a comparison with a
    value that cannot be a string is simply false for a text message (an ``assert`` fails, as
    a test means it to): no use of one branch. Whether the other operand can be a string is the
    caller's question (``displays_no_text``, mypy's types, a class's construction)."""
    item = single_index(element)
    if item is None or string_value(item) is not None:
        return None
    parent = index.parent(element)
    if isinstance(parent, cst.ComparisonTarget):
        comparison = index.parent(parent)
        if not isinstance(comparison, cst.Comparison) or parent.comparator is not element:
            return None
        other = comparison.left
    elif isinstance(parent, cst.Comparison) and parent.left is element:
        comparison = parent
        other = comparison.comparisons[0].comparator
    else:
        return None
    if len(comparison.comparisons) != 1 or not isinstance(
        comparison.comparisons[0].operator, (cst.Equal, cst.NotEqual)
    ):
        return None
    return other


# Displays, comprehensions and number literals: what they make is never a string.
_NO_TEXT_DISPLAYS = (
    cst.Dict,
    cst.List,
    cst.Set,
    cst.Tuple,
    cst.DictComp,
    cst.ListComp,
    cst.SetComp,
    cst.GeneratorExp,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
)


def displays_no_text(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a display or comprehension of a container (``{"type": "text"}``,
    ``[...]``, ``(...)``) or a number: by its syntax alone, never a string."""
    return isinstance(node, _NO_TEXT_DISPLAYS)


# How many statements after ``part = content[0]`` are looked at for the test of ``part``: it
# follows at once in the code this is for, and a bound keeps a module of many such assignments
# linear.
_STATEMENTS_BEFORE_TEST = 8


def named_element_test(index: ModuleIndex, element: cst.Subscript) -> cst.BaseExpression | None:
    """``part = content[0]`` whose next use of ``part`` is a test that no character passes:
    ``assert isinstance(part, ToolCallPart)`` (alone, or first of an ``and``), ``assert
    type(part) is ToolCallPart``, or ``if not isinstance(part, ToolCallPart):`` (``type(part)
    is not ...``) whose body leaves (``raise``, ``return``, ``continue``, ``break``) and uses
    ``part`` only in what it raises. The element is then only tested before it is used, as in
    ``isinstance(content[0], ToolCallPart)``: the read is no use of one branch, and past the
    test the content is a list. Returns the test (the ``isinstance`` call, or the ``type()``
    comparison); None when the name is rebound or used first, when what ``content`` is read
    from is assigned on the way (the test would be of another message's element), or when a
    compound statement comes between."""
    item = single_index(element)
    if item is None or string_value(item) is not None:
        return None
    assign = index.parent(element)
    if not (
        isinstance(assign, cst.Assign)
        and assign.value is element
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
    ):
        return None
    name = assign.targets[0].target.value
    owner = root_name(element.value)
    for statement in _statements_after(index, assign):
        if _mentions(statement, name):
            return _test_of_element(index, statement, name)
        if not _leaves_bound(statement, owner):
            return None
    return None


def _statements_after(
    index: ModuleIndex, small: cst.BaseSmallStatement
) -> Iterator[cst.BaseStatement | cst.BaseSmallStatement]:
    """The statements that follow ``small`` in its block, simple statements one by one, at
    most ``_STATEMENTS_BEFORE_TEST`` of them."""
    line = index.parent(small)
    following: list[cst.BaseStatement | cst.BaseSmallStatement] = []
    if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        following.extend(_after(line.body, small))
    block = index.parent(line) if isinstance(line, cst.SimpleStatementLine) else None
    if isinstance(block, (cst.IndentedBlock, cst.Module)) and isinstance(
        line, cst.SimpleStatementLine
    ):
        for statement in _after(block.body, line):
            if len(following) >= _STATEMENTS_BEFORE_TEST:
                break
            if isinstance(statement, cst.SimpleStatementLine):
                following.extend(statement.body)
            else:
                following.append(statement)
    return iter(following[:_STATEMENTS_BEFORE_TEST])


def _after(
    body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], node: cst.CSTNode
) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    position = _position_in(body, node)
    return body[position + 1 :] if position is not None else ()


def _before(
    body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], node: cst.CSTNode
) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    position = _position_in(body, node)
    return body[:position] if position is not None else ()


def _position_in(
    body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], node: cst.CSTNode
) -> int | None:
    return next((position for position, statement in enumerate(body) if statement is node), None)


def _mentions(node: cst.CSTNode, name: str) -> bool:
    """Whether ``name`` is read or bound anywhere in ``node`` (an attribute's or a keyword's
    name is no variable)."""
    stack: list[tuple[cst.CSTNode | None, cst.CSTNode]] = [(None, node)]
    while stack:
        parent, current = stack.pop()
        if (
            isinstance(current, cst.Name)
            and current.value == name
            and (parent is None or not names_no_variable(parent, current))
        ):
            return True
        stack.extend((current, child) for child in child_nodes(current))
    return False


def _leaves_bound(statement: cst.BaseStatement | cst.BaseSmallStatement, owner: str | None) -> bool:
    """Whether a statement between the element's read and its test is a simple one that
    assigns nothing rooted at ``owner`` (``m = ...``, ``m.content = ...``, a walrus)."""
    if isinstance(statement, (cst.Expr, cst.Assert, cst.Pass)):
        targets: list[cst.BaseExpression] = []
    elif isinstance(statement, cst.Assign):
        targets = [target.target for target in statement.targets]
    elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
        targets = [statement.target]
    else:
        return False
    if owner is None:
        return True
    stack: list[cst.CSTNode] = [statement]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.NamedExpr):
            targets.append(current.target)
        stack.extend(child_nodes(current))
    return not any(_rooted_at(target, owner) for target in targets)


def _rooted_at(target: cst.BaseExpression, owner: str) -> bool:
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_rooted_at(element.value, owner) for element in target.elements)
    return root_name(target) == owner


def _test_of_element(
    index: ModuleIndex, statement: cst.BaseStatement | cst.BaseSmallStatement, name: str
) -> cst.BaseExpression | None:
    """The test of ``name`` that ``statement`` is, if it is one that only an element no
    character is passes on from (``named_element_test``)."""
    if isinstance(statement, cst.Assert):
        test = statement.test
        while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            test = test.left
        return _excluding_test(index, test, name, negated=False)
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return None
    if not _leaves(statement.body):
        return None
    body = suite_body(statement.body)
    if any(_mentions(s, name) for s in body if not _raises_only(s)):
        return None  # the element is used where it failed the test: a character may be
    test = statement.test
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _excluding_test(index, test.expression, name, negated=False)
    return _excluding_test(index, test, name, negated=True)


def _raises_only(statement: cst.BaseStatement | cst.BaseSmallStatement) -> bool:
    """A ``raise`` (what it shows is a diagnostic of the failed test)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return all(isinstance(small, cst.Raise) for small in statement.body)
    return isinstance(statement, cst.Raise)


def _excluding_test(
    index: ModuleIndex, test: cst.BaseExpression, name: str, *, negated: bool
) -> cst.BaseExpression | None:
    """``isinstance(name, C)`` (``negated``: never) or ``type(name) is C`` / ``== C``
    (``negated``: ``is not`` / ``!=``), where no character passes: the test, else None."""
    if not negated and isinstance(test, cst.Call):
        arguments = _isinstance_arguments(index, test)
        if arguments is not None and _is_name(arguments[0], name):
            characters = character_classes(index, arguments[1])
            return test if characters is not None and characters.excluded else None
        return None
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    operator = test.comparisons[0].operator
    wanted = (cst.IsNot, cst.NotEqual) if negated else (cst.Is, cst.Equal)
    if not isinstance(operator, wanted):
        return None
    for typed, cls in (
        (test.left, test.comparisons[0].comparator),
        (test.comparisons[0].comparator, test.left),
    ):
        if (
            isinstance(typed, cst.Call)
            and len(typed.args) == 1
            and index.names.qualified(typed.func) == "builtins.type"
            and _is_name(typed.args[0].value, name)
            and not isinstance(cls, (cst.Tuple, cst.BinaryOperation))
        ):
            characters = character_classes(index, cls)
            return test if characters is not None and characters.excluded else None
    return None


# ``count <op> bound`` that asks whether a count is zero, and whether it holds when it is
# (``== 0``) or when it is not (``> 0``).
_EMPTINESS_BOUNDS: dict[tuple[type[cst.BaseCompOp], str], bool] = {
    (cst.GreaterThan, "0"): False,
    (cst.NotEqual, "0"): False,
    (cst.Equal, "0"): True,
    (cst.LessThanEqual, "0"): True,
    (cst.GreaterThanEqual, "1"): False,
    (cst.LessThan, "1"): True,
}
# ``bound <op> count`` is ``count <mirrored op> bound``.
_MIRRORED: dict[type[cst.BaseCompOp], type[cst.BaseCompOp]] = {
    cst.GreaterThan: cst.LessThan,
    cst.LessThan: cst.GreaterThan,
    cst.GreaterThanEqual: cst.LessThanEqual,
    cst.LessThanEqual: cst.GreaterThanEqual,
    cst.Equal: cst.Equal,
    cst.NotEqual: cst.NotEqual,
}


def zero_comparison(comparison: cst.Comparison) -> tuple[cst.BaseExpression, bool] | None:
    """``count > 0``, ``count == 0``, ``count >= 1``, ``count < 1`` (either way round): the
    compared count, and whether the comparison holds when the count is zero. None for any
    other comparison (``== 2``, a chain)."""
    if len(comparison.comparisons) != 1:
        return None
    target = comparison.comparisons[0]
    operator = type(target.operator)
    for count, compared, bound in (
        (comparison.left, operator, target.comparator),
        (target.comparator, _MIRRORED.get(operator), comparison.left),
    ):
        if compared is not None and isinstance(bound, cst.Integer):
            holds_when_zero = _EMPTINESS_BOUNDS.get((compared, bound.value))
            if holds_when_zero is not None:
                return count, holds_when_zero
    return None


def tests_emptiness(index: ModuleIndex, count: cst.BaseExpression) -> bool:
    """Whether a count of items (``len(c)``) is only asked whether it is zero: compared with
    0 or 1 so that the answer is "empty or not" (``zero_comparison``), or taken for its truth
    (``if len(c)``, ``not len(c)``, ``bool(len(c))``, an operand of ``and``/``or`` that is
    itself a condition). The empty string and the empty list both count none, so such a test
    is right on both branches. Arithmetic, another bound (``== 2``) or a slice still use one
    branch's count."""
    parent = index.parent(count)
    if isinstance(parent, cst.ComparisonTarget):
        parent = index.parent(parent)
    if isinstance(parent, cst.Comparison):
        found = zero_comparison(parent)
        return found is not None and found[0] is count
    return _taken_for_truth(index, count)


def _taken_for_truth(index: ModuleIndex, node: cst.BaseExpression) -> bool:
    """Whether only the truth of ``node``'s value is used: the test of an ``if``, ``while``,
    ``assert``, conditional expression or comprehension clause, the operand of ``not`` or
    ``bool()``, or an operand of ``and``/``or`` that is itself taken for its truth."""
    parent = index.parent(node)
    while isinstance(parent, cst.BooleanOperation):
        node, parent = parent, index.parent(parent)
    if isinstance(parent, cst.UnaryOperation):
        return isinstance(parent.operator, cst.Not)
    if isinstance(parent, (cst.If, cst.While, cst.Assert, cst.IfExp, cst.CompIf)):
        return parent.test is node
    if isinstance(parent, cst.Arg):
        call = index.parent(parent)
        return (
            isinstance(call, cst.Call)
            and len(call.args) == 1
            and parent.keyword is None
            and not parent.star
            and index.names.qualified(call.func) == "builtins.bool"
        )
    return False


def _is_condition(node: cst.BaseExpression) -> bool:
    """``not x``, ``a and b``, ``a or b``: a value taken for its truth."""
    return isinstance(node, cst.BooleanOperation) or (
        isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not)
    )


def _class_members(classes: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The classes of ``C``, ``(A, B)`` or ``A | B``."""
    if isinstance(classes, cst.Tuple):
        for element in classes.elements:
            yield from _class_members(element.value)
    elif isinstance(classes, cst.BinaryOperation) and isinstance(classes.operator, cst.BitOr):
        yield from _class_members(classes.left)
        yield from _class_members(classes.right)
    else:
        yield classes


def _key_test(test: cst.BaseExpression, name: str) -> tuple[str, bool] | None:
    """``"type" in p`` (``("type", False)``) or ``"type" not in p`` (``("type", True)``): a key
    test of a block, which a character fails, since no string of two or more characters is in
    one."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    target = test.comparisons[0]
    key = string_value(test.left)
    if (
        isinstance(target.operator, (cst.In, cst.NotIn))
        and key is not None
        and len(key) >= 2
        and isinstance(target.comparator, cst.Name)
        and target.comparator.value == name
    ):
        return key, isinstance(target.operator, cst.NotIn)
    return None


def _type_read(node: cst.BaseExpression, name: str) -> str | None:
    """The key read in ``p["type"]``, ``p.get("type")`` (a default allowed) or ``p.type``."""
    if isinstance(node, cst.Subscript):
        index = single_index(node)
        return string_value(index) if index is not None and _is_name(node.value, name) else None
    if isinstance(node, cst.Attribute):
        return node.attr.value if _is_name(node.value, name) else None
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and _is_name(node.func.value, name)
        and 1 <= len(node.args) <= 2
        and node.args[0].keyword is None
    ):
        return string_value(node.args[0].value)
    return None


def string_comparisons(
    test: cst.BaseExpression,
) -> list[tuple[cst.BaseExpression, frozenset[str], bool]]:
    """The readings of a test that compares one expression with a string (``==``, ``!=``, the
    string on either side) or with a display of strings (``in``, ``not in``): each the
    expression compared, the strings, and whether the test holds where the expression is none
    of them (``!=``, ``not in``). Empty for any other test."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return []
    comparison = test.comparisons[0]
    operator = comparison.operator
    sides = [(test.left, comparison.comparator)]
    if isinstance(operator, (cst.Equal, cst.NotEqual)):
        sides.append((comparison.comparator, test.left))
    elif not isinstance(operator, (cst.In, cst.NotIn)):
        return []
    display = isinstance(operator, (cst.In, cst.NotIn))
    negated = isinstance(operator, (cst.NotEqual, cst.NotIn))
    found: list[tuple[cst.BaseExpression, frozenset[str], bool]] = []
    for read, tested in sides:
        values = _string_values(tested, display=display)
        if values is not None:
            found.append((read, values, negated))
    return found


def _string_values(node: cst.BaseExpression, *, display: bool) -> frozenset[str] | None:
    """The string literal (or, with ``display``, the tuple, list or set of them) ``node`` is."""
    if not display:
        value = string_value(node)
        return frozenset({value}) if value is not None else None
    if not isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return None
    values = [string_value(element.value) for element in node.elements]
    if not values or any(value is None for value in values):
        return None
    return frozenset(value for value in values if value is not None)


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _binds(target: cst.BaseExpression, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(element.value, name) for element in target.elements)
    return False


def _rebinds(small: cst.BaseSmallStatement, name: str) -> bool:
    """Whether a simple statement assigns ``name`` (what follows is no element any more)."""
    targets: list[cst.BaseExpression] = []
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        targets = [small.target]
    return any(isinstance(t, cst.Name) and t.value == name for t in targets)


def _try_bodies(statement: cst.Try | cst.TryStar) -> Iterator[cst.BaseSuite]:
    yield statement.body
    for handler in statement.handlers:
        yield handler.body
    if statement.orelse is not None:
        yield statement.orelse.body
    if statement.finalbody is not None:
        yield statement.finalbody.body


# What a test asks of a part's kind: ``isinstance(p, C)``, ``hasattr(p, "text")``, ``type(p)``.
_KIND_CALLS = frozenset(
    {"builtins.isinstance", "builtins.hasattr", "builtins.type", "builtins.getattr"}
)


def in_kind_fallback(index: ModuleIndex, part: cst.BaseExpression) -> bool:
    """Whether ``part`` (a part held in a name) is where the nearest test of that part's kind
    failed: the ``else`` (or ``elif``) after ``if isinstance(part, TextPart)``, ``if
    part.type == "text"``, ``if "text" in part``, ``if part.get("text")`` (or a name given
    such a read just before: ``text = part.get("text")``, ``if text:``), or of such a
    conditional expression; the body of ``if not ...`` one; or what follows such an ``if``
    whose every branch leaves (``return``, ``raise``, ``continue``, ``break``). That branch is
    a dispatch's catch-all, for the kinds the code does not know (``else: str(part)``).

    A branch a kind test leads into (``elif part.type == "image": str(part)``) is not one, nor
    a branch of a test that asks nothing of the kind (``if part is None``, ``if part``)."""
    if not isinstance(part, cst.Name):
        return False
    name = part.value
    child: cst.CSTNode = part
    parent = index.parent(part)
    while parent is not None and not isinstance(
        parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)
    ):
        if (
            isinstance(parent, (cst.If, cst.IfExp))
            and child is not parent.test
            and _asks_kind(
                index,
                parent.test,
                name,
                _read_of_kind(index, _statement_before(index, parent), name),
            )
        ):
            failed = child is parent.orelse
            test = parent.test
            while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                failed, test = not failed, test.expression
            return failed
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            earlier = _before(parent.body, child)
            kind_test = next(
                (
                    statement
                    for position, statement in reversed(list(enumerate(earlier)))
                    if isinstance(statement, cst.If)
                    and _asks_kind(
                        index,
                        statement.test,
                        name,
                        _read_of_kind(index, earlier[position - 1] if position else None, name),
                    )
                ),
                None,
            )
            if kind_test is not None:
                return _every_branch_leaves(kind_test)
        child, parent = parent, index.parent(parent)
    return False


def _statement_before(
    index: ModuleIndex, test: cst.If | cst.IfExp
) -> cst.BaseStatement | cst.BaseSmallStatement | None:
    """The statement just before ``test``, an ``if`` statement in a block (None for a
    conditional expression, or the block's first statement)."""
    block = index.parent(test)
    if not isinstance(test, cst.If) or not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None
    earlier = _before(block.body, test)
    return earlier[-1] if earlier else None


def _read_of_kind(
    index: ModuleIndex, previous: cst.BaseStatement | cst.BaseSmallStatement | None, name: str
) -> str | None:
    """The name that ``previous``, the statement just before a test, binds to a read of
    ``name``'s kind (``text = part.get("text")`` before ``if text:``), if it is one."""
    if not (isinstance(previous, cst.SimpleStatementLine) and len(previous.body) == 1):
        return None
    assign = previous.body[0]
    if (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and _asks_kind(index, assign.value, name, None)
    ):
        return assign.targets[0].target.value
    return None


def _every_branch_leaves(statement: cst.If) -> bool:
    """Whether no branch of ``statement`` (an ``if``, its ``elif``s, no ``else``) goes on to
    the statement after it."""
    current: cst.If | cst.Else | None = statement
    while isinstance(current, cst.If):
        if not _leaves(current.body):
            return False
        current = current.orelse
    return current is None


def _leaves(suite: cst.BaseSuite) -> bool:
    """Whether a block's last statement leaves it: ``return``, ``raise``, ``continue``,
    ``break``."""
    body = suite_body(suite)
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Raise, cst.Continue, cst.Break))


def _asks_kind(index: ModuleIndex, test: cst.BaseExpression, name: str, read: str | None) -> bool:
    """Whether ``test`` asks what kind of value ``name`` holds: a kind call on it
    (``_KIND_CALLS``), a read of its attributes or items (``p.type``, ``p["type"]``,
    ``p.get("type")``), a key looked for in it (``"text" in p``), or the value of ``read``, a
    name bound to such a read (``_read_of_kind``)."""
    stack: list[cst.CSTNode] = [test]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Lambda):
            continue
        if read is not None and isinstance(current, cst.Name) and current.value == read:
            return True
        if (
            isinstance(current, cst.Call)
            and current.args
            and _is_name(current.args[0].value, name)
            and index.names.qualified(current.func) in _KIND_CALLS
        ):
            return True
        if isinstance(current, (cst.Attribute, cst.Subscript)) and _is_name(current.value, name):
            return True
        if isinstance(current, cst.Comparison) and any(
            isinstance(target.operator, (cst.In, cst.NotIn)) and _is_name(target.comparator, name)
            for target in current.comparisons
        ):
            return True
        stack.extend(child_nodes(current))
    return False
