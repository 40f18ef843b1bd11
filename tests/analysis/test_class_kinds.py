"""The classes of a build are classified once, whichever of its files reads them
(``facts.ClassKinds``): mypy gives most expressions a type object of their own, and an
instance of a class without type arguments is classified by its class alone."""

from __future__ import annotations

from collections import Counter

import pytest
from expectations import REPO
from mypy.test.typefixture import TypeFixture
from mypy.types import Instance, Type, UnionType

from loomlint.catalog.spi import SpiModel
from loomlint.engine import content_types
from loomlint.engine.facts import ClassKinds
from loomlint.engine.typefacts import ContentKind
from loomlint.project.settings import load_settings


def test_an_instance_of_a_class_is_classified_once_per_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spi = load_settings(REPO).spi
    fixture = TypeFixture()
    calls: Counter[str] = Counter()
    classify = content_types.classify

    def counting(typ: Type | None, spi: SpiModel) -> ContentKind:
        calls[str(typ)] += 1
        return classify(typ, spi)

    monkeypatch.setattr(content_types, "classify", counting)
    classes = ClassKinds(spi)
    # Two files' reads of str: two type objects, one class.
    first, second = Instance(fixture.str_type_info, []), Instance(fixture.str_type_info, [])
    assert classes.kind(first) is classes.kind(second) is ContentKind.TEXT
    assert classes.shape(first) is classes.shape(second) is ContentKind.TEXT
    assert calls == {"builtins.str": 1}
    # A union (or any type with arguments) is classified each time, as its own object.
    union = UnionType([Instance(fixture.str_type_info, []), fixture.nonet])
    classes.kind(union)
    classes.kind(union)
    assert calls["builtins.str | None"] == 2
