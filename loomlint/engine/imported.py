"""Classes of the project's other modules and of its installed dependencies, for the evidence
used without types.

``from .state import Note`` or ``from app.state import Note``: the module is looked for on disk,
beside the importing file for a relative import and in the folders above it for an absolute one
(as Python finds it from a source root), then among the installed packages (the import path of
the Python loomlint runs in, where a dependency's message classes are: ``content: str`` of a
response event says its ``.content`` is text). It is parsed once per process, its class read as
the importing module reads its own classes, and a name the module only re-exports
(``from ._events import Event as Event``, or ``from .main import *`` as pydantic's
``__init__`` does for type checkers) is followed to its definition. Nothing is imported or
run. The files read are recorded (``consulted``): a result judged with them stands only while
they are unchanged.
"""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from loomlint.engine.constructors import CONSTRUCTING_METHODS
from loomlint.engine.index import ModuleIndex, build_index
from loomlint.files.stamps import FileStamp, stat_files

# How many folders above the importing file an absolute import's package is looked for in.
_MAX_ANCESTORS = 8
_TYPE_ALIAS = re.compile(
    rb"^([ \t]*)type[ \t]+\w+[ \t]*(?:\[[^\n]*\])?[ \t]*=[^\n]*$", re.MULTILINE
)
# A module bigger than this is not read for its classes (generated code, data).
_MAX_BYTES = 2 << 20
# How many re-exports (``from ._x import Name as Name``) are followed to a class.
_MAX_REEXPORTS = 4
_PROPERTIES = frozenset({"property", "functools.cached_property", "cached_property"})


@dataclass(frozen=True, slots=True)
class ImportedClass:
    path: str
    index: ModuleIndex
    node: cst.ClassDef


@dataclass(slots=True)
class ImportedClasses:
    """Finds the classes a module imports from the project's other modules."""

    # The folder of the importing file; None: nothing is looked for (no file on disk).
    folder: Path | None
    consulted: set[str] = field(default_factory=set[str])

    @classmethod
    def of(cls, path: str | None) -> ImportedClasses:
        return cls(Path(os.path.abspath(path)).parent if path else None)

    def beside(self, path: str) -> ImportedClasses:
        """The finder for a module read on the way: its own imports, the same record."""
        return ImportedClasses(Path(path).parent, self.consulted)

    def find(
        self, qualified: str, depth: int = 0, *, installed: bool = True
    ) -> ImportedClass | None:
        """The class a qualified name (``app.state.Note``, ``.state.Note``) names in a module of
        the project or (``installed``) of an installed package, if that module is found and
        defines it (or re-exports it from a module that does)."""
        module, _, name = qualified.rpartition(".")
        if not module.strip(".") or self.folder is None:
            return None
        location = _located(self.folder, module)
        if location is None and installed and not module.startswith("."):
            location = _installed(module)
        if location is None:
            return None
        parsed = _parsed(location)
        if parsed is None:
            return None
        self.consulted.add(location)
        node = parsed.names.classes.get(name)
        if node is not None:
            return ImportedClass(location, parsed, node)
        if depth >= _MAX_REEXPORTS:
            return None
        exported = parsed.names.imports.get(name)
        if exported is not None:
            return self.beside(location).find(exported, depth + 1, installed=installed)
        # ``from .main import *`` (pydantic's ``__init__`` for type checkers): the name may
        # be any of those modules'.
        for module in parsed.names.star_imports:
            found = self.beside(location).find(f"{module}.{name}", depth + 1, installed=installed)
            if found is not None:
                return found
        return None


@functools.lru_cache(maxsize=4096)
def _located(folder: Path, module: str) -> str | None:
    """The file of a module imported from a file in ``folder``, if the project has it."""
    for candidate in _candidates(folder, module):
        if candidate.is_file():
            return str(candidate)
    return None


@functools.lru_cache(maxsize=4096)
def _installed(module: str) -> str | None:
    """The file of an installed module (a stub beside it preferred), found on the import path
    by the top-level package's location: nothing is imported."""
    top, _, rest = module.partition(".")
    try:
        spec = importlib.machinery.PathFinder.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    roots = list(spec.submodule_search_locations or [])
    if not roots:
        origin = spec.origin
        return origin if not rest and origin is not None and origin.endswith(".py") else None
    parts = rest.split(".") if rest else []
    for root in roots:
        target = Path(root).joinpath(*parts)
        for candidate in (
            target.with_name(target.name + ".pyi") if parts else target / "__init__.pyi",
            target.with_name(target.name + ".py") if parts else target / "__init__.py",
            target / "__init__.pyi",
            target / "__init__.py",
        ):
            if candidate.is_file():
                return str(candidate)
    return None


def _candidates(folder: Path, module: str) -> Iterator[Path]:
    dots = len(module) - len(module.lstrip("."))
    parts = module.lstrip(".").split(".")
    if dots:
        roots = [folder, *folder.parents][dots - 1 : dots]
    else:
        roots = [folder, *list(folder.parents)[:_MAX_ANCESTORS]]
    for root in roots:
        for base in (root, root / "src") if not dots else (root,):
            # A package under ``src/`` is imported by the project's tests, beside ``src/``.
            target = base.joinpath(*parts)
            yield target.with_name(target.name + ".py")
            yield target / "__init__.py"


@functools.lru_cache(maxsize=512)
def _parsed_at(path: str, stamp: FileStamp) -> ModuleIndex | None:
    """The index of a stub of the module: its imports and its classes' headers and annotated
    fields, which is all the evidence reads of it (parsing the whole module with LibCST would
    cost as much as analysing it)."""
    size = stamp[2]  # the whole stamp is the cache key: an edited module is read again
    if size > _MAX_BYTES:
        return None
    try:
        with open(path, "rb") as handle:
            source = handle.read(_MAX_BYTES + 1)
        # A ``type X = ...`` statement (Python 3.12) is nothing the stub needs, and an older
        # Python's parser refuses it.
        tree = ast.parse(_TYPE_ALIAS.sub(rb"\1pass", source))
        return build_index(cst.parse_module("\n".join(_stub_lines(tree.body)) + "\n"))
    except (OSError, SyntaxError, ValueError, cst.ParserSyntaxError, RecursionError):
        return None


def _stub_lines(body: list[ast.stmt]) -> list[str]:
    lines: list[str] = []
    for statement in body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            lines.append(ast.unparse(statement))
        elif isinstance(statement, ast.ClassDef):
            lines += _class_stub(statement)
        elif isinstance(statement, ast.If):  # if TYPE_CHECKING: imports
            lines += _stub_lines(statement.body) + _stub_lines(statement.orelse)
        elif isinstance(statement, ast.Try):
            lines += _stub_lines(statement.body)
    return lines


def _class_stub(cls: ast.ClassDef) -> list[str]:
    """``class Note(Base):`` with the fields annotated in its body, stored in a method from
    an annotated parameter (``self.content = content``) or read through a property with a
    return annotation, as class-level annotations; and its constructing methods and
    validators."""
    bases = [ast.unparse(b) for b in cls.bases]
    bases += [f"{k.arg}={ast.unparse(k.value)}" for k in cls.keywords if k.arg is not None]
    fields: dict[str, str] = {}
    for statement in cls.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            fields.setdefault(statement.target.id, ast.unparse(statement.annotation))
    for statement in cls.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for name, annotation in _stored_fields(statement):
                fields.setdefault(name, annotation)
            if statement.returns is not None and any(
                ast.unparse(d) in _PROPERTIES for d in statement.decorator_list
            ):
                # ``@property def content(self) -> list[Memory]``: read like a field.
                fields.setdefault(statement.name, ast.unparse(statement.returns))
    header = f"class {cls.name}({', '.join(bases)}):" if bases else f"class {cls.name}:"
    body = [f"    {name}: {annotation}" for name, annotation in fields.items()]
    # Its constructing methods and validators as they are: whether constructing the class
    # stores the content it is given (``constructors.stores_content_as_given``).
    for statement in cls.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            statement.name in CONSTRUCTING_METHODS
            or any("validator" in ast.unparse(d) for d in statement.decorator_list)
        ):
            body += ["    " + line for line in ast.unparse(statement).split("\n")]
    return [header, *(body or ["    pass"])]


def _stored_fields(method: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str]]:
    arguments = method.args
    params = {
        a.arg: ast.unparse(a.annotation)
        for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        if a.annotation is not None
    }
    stored: list[tuple[str, str]] = []
    for statement in method.body:
        if isinstance(statement, ast.AnnAssign) and _is_self_attribute(statement.target):
            assert isinstance(statement.target, ast.Attribute)
            stored.append((statement.target.attr, ast.unparse(statement.annotation)))
        elif (
            isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Name)
            and statement.value.id in params
        ):
            for target in statement.targets:
                if _is_self_attribute(target):
                    assert isinstance(target, ast.Attribute)
                    stored.append((target.attr, params[statement.value.id]))
    return stored


def _is_self_attribute(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _parsed(path: str) -> ModuleIndex | None:
    stamp = stat_files([path])[path]
    return None if stamp[2] < 0 else _parsed_at(path, stamp)
