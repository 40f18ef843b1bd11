"""What the type oracle tells the LibCST pass about one file: plain, picklable data.

The oracle (mypy) and the LibCST pass parse the same file separately. They meet on
``NodeKey``: the node's start line, its *family* (``name:c``, ``attr:content``, ``call``, ...)
and its ordinal among the nodes of that family that start on that line, in source order.
Columns are deliberately not part of the key: mypy counts them in UTF-8 bytes or, with its
native parser, in its own way after non-ASCII text, while LibCST counts characters. Both sides
agree on the *order* of nodes within a line, and on how many there are; where the counts
differ (a construct one parser represents and the other does not), the pass treats the whole
(line, family) group as untyped instead of guessing.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

# (line, family, ordinal)
NodeKey = tuple[int, str, int]
FamilyKey = tuple[int, str]


class ContentKind(enum.Enum):
    """What a value's type says about it at one point of the program."""

    CONTENT = "content"  # the union itself: str | collection of parts
    TEXT = "text"  # narrowed to the string branch
    PARTS = "parts"  # narrowed to the collection branch
    PART = "part"  # a single part
    ANY = "any"  # typed Any: nothing is known
    OTHER = "other"  # known, and not content


class Footing(enum.Enum):
    """What mypy's types say of one expression (``TypeView.footing``)."""

    TYPED = "typed"  # mypy checked it and gives it a type other than ``Any``
    # mypy checked it and types it ``Any``: declared so, an unannotated parameter of an
    # annotated function, a value of ``dict[str, Any]``, an untyped library's return, or a
    # content read of a receiver typed so (``any_reads``).
    TYPED_ANY = "typed Any"
    # ``Any`` for want of a module mypy could not find (``untyped``).
    MISSING_MODULE = "missing module"
    # In a function mypy did not check (unannotated, ``check_untyped_defs`` off).
    UNCHECKED = "unchecked"
    # In code mypy skips: a file whose first line is ``# type: ignore``, a function of a module
    # whose errors mypy ignores, an unreachable branch.
    SKIPPED = "skipped"
    # The file is checked without types (``--no-types``, or a file mypy could not check).
    NO_TYPES = "no types"
    # Nothing known: mypy's parser and LibCST's disagree on the nodes of its line, or the node
    # is no expression.
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class ExprFact:
    """The oracle's knowledge of one expression."""

    kind: ContentKind
    # The kind by shape alone (any collection counts as parts): what the value is when it is
    # known to come from content (a field read, or a local the flow tracked from one).
    shape: ContentKind = ContentKind.OTHER
    # A read of a content field (``m.content``, ``m["content"]``, ``m.get("content")``,
    # ``getattr(m, "content")``) whose receiver declares that field as a content union.
    field_origin: bool = False
    # Whether the declared type of the position receiving this value (the parameter it is
    # passed to, the annotated variable or field it is stored in, the declared return type)
    # preserves the union. None: no declared receiving type is known there.
    receiver_accepts: bool | None = None
    receiver_desc: str = ""
    # Whether that declared type erases the value's type (``Any``, ``object``, unannotated):
    # not a use of one branch, but a place where the type is lost (see ``analysis.callees``).
    receiver_erases: bool = False
    # For an operand of ``+``, ``%`` or ``+=``: whether the other operand is a string.
    partner_is_text: bool | None = None
    # For the target of ``+=``: whether what is added is a list by its type (``m.content +=
    # parts``), which only a list takes.
    partner_is_list: bool = False
    # For an element read (``content[0]``) compared by ``==`` or ``!=``: whether the other
    # operand's type may hold a string (``content_types.may_be_text``). None: not so compared,
    # or its type says nothing (``Any``).
    comparand_may_be_text: bool | None = None
    # For a field origin ``m.content``: the SPI's attribute accessors (``text``) that the
    # receiver's type declares, so ``loomlint fix`` may read ``m.text`` instead.
    receiver_attributes: tuple[str, ...] = ()
    # For the operand of ``typing.cast``: whether the cast's target type is itself a content
    # union (``content_types.is_content_cast_target``). None: not a cast operand.
    cast_keeps_content: bool | None = None
    # Whether the value is plain JSON by its type (``content_types.is_json_content``): parts
    # typed as dicts or TypedDicts. None: the type says nothing.
    json_content: bool | None = None
    # With several SPIs active, the one this value belongs to (``analysis.ownership``): its
    # fix is the one messages advise.
    owner: str | None = None


@dataclass(frozen=True, slots=True)
class CalleeFact:
    """The oracle's knowledge of the callable of one call expression."""

    # Qualified names: the function, or ``Class.method`` for each class of the receiver's MRO.
    names: tuple[str, ...]
    # The callable is a TypeIs / TypeGuard function.
    narrows: bool = False
    # The callable is a method whose answer's content is text only, whichever class the
    # receiver is (``SpiModel.text_only_answers``).
    answers_text: bool = False


@dataclass(frozen=True, slots=True)
class FileTypes:
    """Everything the oracle knows about one file."""

    exprs: Mapping[NodeKey, ExprFact] = field(default_factory=dict[NodeKey, ExprFact])
    # Keyed by the call expression's own key (family ``call``).
    callees: Mapping[NodeKey, CalleeFact] = field(default_factory=dict[NodeKey, CalleeFact])
    # How many nodes of each family start on each line, as the oracle's parser saw them.
    family_counts: Mapping[FamilyKey, int] = field(default_factory=dict[FamilyKey, int])
    # Line ranges (inclusive) of function bodies mypy did not type-check (unannotated defs).
    unchecked: tuple[tuple[int, int], ...] = ()
    # Line ranges (inclusive) of code mypy skips altogether: a branch it deems unreachable,
    # the functions of a module whose errors it ignores (it drops their bodies), or the whole
    # file when a ``# type: ignore`` precedes its first statement.
    skipped: tuple[tuple[int, int], ...] = ()
    # Modules mypy could not find (not installed where loomlint runs, or a missing import)
    # that define the receiver of a content read: named in the run's warning. A name mypy
    # found no definition of in a module it read is ``module:name`` (``facts``
    # ``_unresolved_module``), which the warning words apart (a wrong import, not a missing
    # package).
    unresolved: tuple[str, ...] = ()
    # Of ``unresolved``, the modules installed where mypy looks that ship no type information
    # (no ``py.typed``, no stubs), which mypy skips unless told to follow them: asked of the
    # build's own module finder, so that the run's warning gives them their own remedy.
    unresolved_untyped: tuple[str, ...] = ()
    # Expressions mypy types ``Any`` for a name of such a module (a message, or what was read
    # from one): types say nothing of them, so they are judged as without types.
    untyped: frozenset[NodeKey] = frozenset()
    # Content reads (``m["content"]``, ``m.get("content")``, ``m.content``) whose receiver mypy
    # types ``Any`` (declared so, unannotated, a plain ``dict`` or ``Mapping[str, Any]``):
    # judged as without types, where syntax gives evidence that the receiver is a message.
    any_reads: frozenset[NodeKey] = frozenset()

    def is_unchecked(self, line: int) -> bool:
        return any(first <= line <= last for first, last in self.unchecked)

    def is_skipped(self, line: int) -> bool:
        return any(first <= line <= last for first, last in self.skipped)


def has_typed_content(types: FileTypes | None) -> bool:
    """Whether mypy types any expression of the file as the content union itself."""
    return types is not None and any(
        fact.kind is ContentKind.CONTENT for fact in types.exprs.values()
    )
