"""engine.constructors on its own: which classes store the content they are given, as given."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from loomlint.engine.constructors import own_constructor, stores_content_as_given

FIELDS = frozenset({"content"})


def _class(source: str) -> cst.ClassDef:
    (statement,) = cst.parse_module(textwrap.dedent(source)).body
    assert isinstance(statement, cst.ClassDef)
    return statement


@pytest.mark.parametrize(
    ("source", "stores"),
    [
        ("class M:\n    content: str\n", True),
        (
            """
            class M(Base):
                def __init__(self, role, content=None, **kwargs):
                    if content is None:
                        content = ""
                    super().__init__(role=role, content=content, **kwargs)

                @field_validator("role")
                def known_role(cls, value):
                    return value
            """,
            True,
        ),
        (
            """
            class M:
                def __init__(self, content):
                    self.content = content
            """,
            True,
        ),
        (
            """
            class M:
                def __init__(self, content):
                    if not content:
                        content = ""
                    self.content = content
            """,
            False,
        ),
        (
            """
            class M:
                def __init__(self, content):
                    content = ""
                    self.content = content
            """,
            False,
        ),
        (
            """
            class M:
                def __init__(self, text):
                    self.content = [text]
            """,
            False,
        ),
        (
            """
            class M:
                def __init__(self, content):
                    super().__init__(content=convert(content))
            """,
            False,
        ),
        (
            """
            class M:
                def __init__(self, content):
                    self.content = content
                    self.content = list(self.content)
            """,
            False,
        ),
        (
            """
            class M:
                def __init__(self, content):
                    self.content = content
                    self.preview = lambda: content
            """,
            False,
        ),
        ('class M:\n    @field_validator("content")\n    def v(cls, c): return c\n', False),
        ('class M:\n    @field_validator("*")\n    def v(cls, c): return c\n', False),
        ("class M:\n    @model_validator(mode='before')\n    def v(cls, d): return d\n", False),
        ("class M:\n    @root_validator\n    def v(cls, d): return d\n", False),
        ("class M:\n    def __post_init__(self): pass\n", False),
        ("class M:\n    def model_post_init(self, context): pass\n", False),
    ],
)
def test_a_class_stores_its_content_as_given_only_when_every_use_hands_it_on(
    source: str, stores: bool
) -> None:
    assert stores_content_as_given(_class(source), FIELDS) is stores


def test_the_own_constructor_names_the_positional_parameters() -> None:
    init = own_constructor(_class("class M:\n    def __init__(self, role, content): pass\n"))
    assert init is not None
    assert [p.name.value for p in init.params.params] == ["self", "role", "content"]
    assert own_constructor(_class("class M:\n    content: str\n")) is None
