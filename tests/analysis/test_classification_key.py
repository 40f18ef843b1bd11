"""``content_types.classification_key``: types with one key are classified alike.

Fact collection classifies each key once per file, so a key that left out something
``classify`` or ``classify_shape`` reads would give one type the verdict of another. Checked
here over every expression mypy types in the analysis fixtures (the reference SPI's messages,
parts and their dict forms, unions, tuples, literals, TypedDicts and callables)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from expectations import REPO
from mypy import build
from mypy.main import process_options
from mypy.nodes import Expression, NameExpr
from mypy.types import Type
from mypy_caches import SDKS, MypyCaches, mypy_table

from loomlint.engine import content_types
from loomlint.engine.typefacts import ContentKind
from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings


def _expression_types(files: list[Path], cache: Path) -> dict[Expression, Type]:
    """The type of every expression of ``files``, checked under the repository's mypy
    configuration with ``cache``."""
    config = REPO / "pyproject.toml"
    sources, options = process_options(
        [*map(str, files), "--config-file", str(config), "--cache-dir", str(cache)]
    )
    options.export_types = True
    return build.build(sources, options).types


@pytest.fixture
def cache(mypy_caches: MypyCaches, tmp_path: Path) -> Path:
    """The session's template of the repository's configuration (``conftest.mypy_cache_dir``
    builds it too): typeshed comes from the cache, so only the files asked for are typed."""
    mypy = mypy_table(REPO / "pyproject.toml")
    return mypy_caches.copy(tmp_path / "mypy-cache", mypy=mypy, modules=SDKS)


def test_types_with_one_key_are_classified_alike(cache: Path) -> None:
    files = sorted((REPO / "fixtures" / "analysis").glob("*.py"))
    types = _expression_types(files, cache)
    spi = load_settings(REPO, overrides=CliOverrides(presets=("loom",))).spi
    verdicts: dict[object, set[tuple[ContentKind, ContentKind]]] = defaultdict(set)
    for typ in types.values():
        key = content_types.classification_key(typ)
        verdicts[key].add((content_types.classify(typ, spi), content_types.classify_shape(typ)))
    split = {key: found for key, found in verdicts.items() if len(found) > 1}
    assert split == {}
    # The key is worth having: many of mypy's type objects share one (every reference to a
    # function, every ``list[str]``), and every verdict occurs.
    assert len(verdicts) < len(types) / 4
    kinds = {kind for found in verdicts.values() for kind, _ in found}
    assert kinds >= {ContentKind.CONTENT, ContentKind.TEXT, ContentKind.PARTS, ContentKind.PART}


PAIRS = [
    # (first type, second type, whether they share a key)
    ("list[str]", "list[str]", True),
    ("list[str]", "list[int]", False),
    ("str | list[Part]", "str | list[Part]", True),
    ("str | list[Part]", "str | list[Part] | None", False),
    ("tuple[Part, str]", "tuple[Part, str]", True),
    ("tuple[Part, str]", "tuple[str, Part]", False),
    ("Callable[[], str]", "Callable[[int], list[Part]]", True),
]


def test_a_key_follows_the_classes_and_arguments(tmp_path: Path, cache: Path) -> None:
    module = tmp_path / "shapes.py"
    lines = ["from typing import Callable", "from loomlint.content import TextPart as Part"]
    for index, (first, second, _) in enumerate(PAIRS):
        lines += [f"def first{index}() -> {first}: ...", f"def second{index}() -> {second}: ..."]
        lines += [f"a{index} = first{index}()", f"b{index} = second{index}()"]
    module.write_text("\n".join(lines) + "\n", encoding="utf-8")
    types = _expression_types([module], cache)
    by_name = {
        expression.name: typ
        for expression, typ in types.items()
        if isinstance(expression, NameExpr) and expression.name[0] in "ab"
    }
    shared = []
    for index in range(len(PAIRS)):
        first, second = by_name[f"a{index}"], by_name[f"b{index}"]
        assert first is not second
        shared.append(
            content_types.classification_key(first) == content_types.classification_key(second)
        )
    assert shared == [same for _, _, same in PAIRS]
