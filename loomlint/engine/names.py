"""Qualified names without a type checker: imports, builtins and the module's own definitions.

Used where no type oracle answers (``--no-types``, unannotated functions, or a file mypy
failed on): which callable a call names, and which class an annotation names. Deliberately
flow-insensitive and cheap: one walk over the module's imports and top-level definitions.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field

import libcst as cst

from loomlint.engine.syntax import dotted_name

_BUILTINS = frozenset(dir(builtins))


@dataclass(slots=True)
class ModuleNames:
    """What names mean in one module."""

    imports: dict[str, str] = field(default_factory=dict[str, str])
    functions: dict[str, cst.FunctionDef | None] = field(
        default_factory=dict[str, "cst.FunctionDef | None"]
    )
    classes: dict[str, cst.ClassDef | None] = field(
        default_factory=dict[str, "cst.ClassDef | None"]
    )
    # Module-level names bound by assignment (they shadow builtins).
    assigned: set[str] = field(default_factory=set[str])
    # The modules of ``from module import *``, in order (``.main`` for a relative one).
    star_imports: list[str] = field(default_factory=list[str])

    def qualified(self, node: cst.BaseExpression) -> str | None:
        """``json.dumps`` for ``dumps`` after ``from json import dumps``; None when unknown."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        suffix = f".{rest}" if rest else ""
        if head in self.imports:
            return self.imports[head] + suffix
        if head in self.functions or head in self.classes or head in self.assigned:
            return None
        if head in _BUILTINS:
            return f"builtins.{dotted}"
        return None

    def local_function(self, node: cst.BaseExpression) -> cst.FunctionDef | None:
        """The one function this module defines under that plain name, if exactly one."""
        if isinstance(node, cst.Name):
            return self.functions.get(node.value)
        return None

    def local_class(self, node: cst.BaseExpression) -> cst.ClassDef | None:
        if isinstance(node, cst.Name):
            return self.classes.get(node.value)
        return None


def record_import(names: ModuleNames, node: cst.Import) -> None:
    for alias in node.names:
        dotted = dotted_name(alias.name)
        if dotted is None:
            continue
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            names.imports[alias.asname.name.value] = dotted
        else:
            head = dotted.split(".", 1)[0]
            names.imports[head] = head


def record_import_from(names: ModuleNames, node: cst.ImportFrom) -> None:
    module = dotted_name(node.module) if node.module is not None else None
    base = "." * len(node.relative) + (module or "")
    if isinstance(node.names, cst.ImportStar):
        names.star_imports.append(base)
        return
    for alias in node.names:
        name = dotted_name(alias.name)
        if name is None:
            continue
        bound = name
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            bound = alias.asname.name.value
        names.imports[bound] = f"{base}.{name}" if base and not base.endswith(".") else base + name


def record_function(names: ModuleNames, node: cst.FunctionDef) -> None:
    name = node.name.value
    # A name defined twice is ambiguous without flow: remember that, not either def.
    names.functions[name] = None if name in names.functions else node


def record_class(names: ModuleNames, node: cst.ClassDef) -> None:
    name = node.name.value
    names.classes[name] = None if name in names.classes else node
