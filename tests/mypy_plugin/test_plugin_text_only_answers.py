"""With types, the answer of a method whose content is text only (a preset's or an SPI's
``text-only-answers``, the ``langchain`` preset's ChatOllama) is text: read from the message a
call returns, from each chunk a loop (or a comprehension) takes from it, or from chunks added
up. Where the receiver may be another class (a union, a base class) it is not. ``loomlint
check`` and mypy with the plugin report exactly the same findings. Without types only a model
the code made names the receiver's class (``llm = ChatOllama(...)``, imported from the
package that re-exports it): a parameter's or another class's answer is reported, a guess
where nothing grounds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from mypy_runs import PLUGIN_STRICT, run_project, write_project

from loomlint.cli import main

LOOMLINT = """\
preset = ["loom", "chat"]

[tool.loomlint.spi.chat]
content-fields = ["content"]
text-only-answers = ["models.Plain.invoke", "models.Plain.stream"]
"""
MODELS = """\
from collections.abc import Iterator

from loomlint.content import LlmMessage


class Chat:
    def invoke(self, prompt: str) -> LlmMessage:
        return LlmMessage(role="assistant", content=prompt)

    def stream(self, prompt: str) -> Iterator[LlmMessage]:
        yield self.invoke(prompt)


class Plain(Chat):
    pass


class Parts(Chat):
    pass


class Mine(Plain):
    pass
"""
APP = """\
from models import Chat, Mine, Parts, Plain


def answered(plain: Plain, mine: Mine, chat: Chat, either: Plain | Parts) -> str:
    reply = plain.invoke("hi")
    own = mine.invoke("hi")
    other = chat.invoke("hi")
    mixed = either.invoke("hi")
    told = reply.content.strip() + own.content.strip() + plain.invoke("x").content.strip()
    return told + other.content.strip() + mixed.content.strip()


def streamed(plain: Plain) -> str:
    total = None
    for chunk in plain.stream("hi"):
        print(chunk.content.upper())
        if total is None:
            total = chunk
            continue
        total += chunk
    assert total is not None
    return total.content.strip()


def rebound(plain: Plain, chat: Chat) -> str:
    reply = plain.invoke("hi")
    if len(reply.content) > 3:
        reply = chat.invoke("hi")
    return reply.content.strip()


def listed(plain: Plain) -> list[str]:
    return [c.content.upper() for c in plain.stream("hi")]
"""
TYPED = [(10, 19, "LML001"), (10, 43, "LML001"), (29, 12, "LML001")]
UNTYPED = [
    (9, 12, "LML001"),
    (9, 36, "LML001"),
    (9, 58, "LML001"),
    *TYPED[:2],
    (16, 15, "LML001"),
    (22, 12, "LML001"),
    (27, 12, "LML001"),
    (29, 12, "LML001"),
    (33, 13, "LML001"),
]


@pytest.mark.slow
def test_a_text_only_answer_is_text_in_check_and_in_mypy(
    tmp_path: Path, mypy_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_project(
        tmp_path, mypy=PLUGIN_STRICT, loomlint=LOOMLINT, files={"models.py": MODELS, "app.py": APP}
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MYPY_CACHE_DIR", str(mypy_cache))
    # Without types nothing names the answers' class: their reads are guesses, asked for.
    _check_then_mypy(config, mypy_cache, {(): TYPED, ("--no-types", "--report-guesses"): UNTYPED})


Expected = list[tuple[int, int, str]]


def _check_then_mypy(
    config: Path, mypy_cache: Path, by_mode: dict[tuple[str, ...], Expected]
) -> None:
    """``loomlint check app.py`` gives exactly the findings expected of each mode, and mypy with
    the plugin exactly the typed ones (``()``)."""
    for mode, expected in by_mode.items():
        result = CliRunner().invoke(main, ["check", "--format", "json", *mode, "app.py"])
        assert result.exit_code == (1 if expected else 0), result.output + result.stderr
        found = [(d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)]
        assert found == expected, mode
    run = run_project(config, mypy_cache, "app.py", cwd=config.parent)
    # mypy's own errors aside: `.strip()` of the declared union (union-attr) and `+=` of two
    # messages, which the SPI's class does not define (operator).
    reported = [(e.line, e.column, e.code) for e in run.errors if e.code.startswith("loom-")]
    assert reported == [(line, column, "loom-content-use") for line, column, _ in by_mode[()]], (
        run.stdout + run.stderr
    )


LOOMLINT_PACKAGE = LOOMLINT.replace('"models.', '"chatpkg.models.')
MADE = """\
from chatpkg import Chat, Plain


def made_here() -> str:
    llm = Plain()
    reply = llm.invoke("hi")
    told = reply.content.strip() + Plain().invoke("x").content.strip()
    for chunk in llm.stream("hi"):
        told += chunk.content.upper()
    return told


def made_as_another() -> str:
    llm = Chat()
    return llm.invoke("hi").content.strip()


def rebound(flag: bool) -> str:
    llm: Chat = Plain()
    if flag:
        llm = Chat()
    return llm.invoke("hi").content.strip()


def passed(llm: Plain) -> str:
    return llm.invoke("hi").content.strip()
"""


@pytest.mark.slow
def test_without_types_a_model_made_here_answers_text(
    tmp_path: Path, mypy_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "chatpkg").mkdir()
    config = write_project(
        tmp_path,
        mypy=PLUGIN_STRICT,
        loomlint=LOOMLINT_PACKAGE,
        files={
            "chatpkg/__init__.py": "from chatpkg.models import Chat, Plain\n",
            "chatpkg/models.py": MODELS.replace("class Parts", "class Unused"),
            "app.py": MADE,
        },
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MYPY_CACHE_DIR", str(mypy_cache))
    typed = [(15, 12, "LML001"), (22, 12, "LML001")]
    _check_then_mypy(
        config,
        mypy_cache,
        {
            (): typed,
            ("--no-types", "--report-guesses"): [*typed, (26, 12, "LML001")],
            ("--no-types",): [],
        },
    )


MADE_OTHER_METHOD = """\
from chatpkg import Plain


def streamed_from_a_model_answering_text_by_invoke_only() -> str:
    llm = Plain()
    told = llm.invoke("hi").content.strip()
    for chunk in llm.stream("hi"):
        told += chunk.content.upper()
    return told
"""


@pytest.mark.slow
def test_a_model_made_here_answers_text_only_by_the_methods_named_for_its_class(
    tmp_path: Path, mypy_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its class's `invoke` is named, its `stream` is not (another class's is): the chunks
    are judged, by types and without."""
    (tmp_path / "chatpkg").mkdir()
    config = write_project(
        tmp_path,
        mypy=PLUGIN_STRICT,
        loomlint=LOOMLINT_PACKAGE.replace("models.Plain.stream", "models.Parts.stream"),
        files={
            "chatpkg/__init__.py": "from chatpkg.models import Chat, Parts, Plain\n",
            "chatpkg/models.py": MODELS,
            "app.py": MADE_OTHER_METHOD,
        },
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MYPY_CACHE_DIR", str(mypy_cache))
    chunk = [(8, 17, "LML001")]
    _check_then_mypy(config, mypy_cache, {(): chunk, ("--no-types", "--report-guesses"): chunk})
