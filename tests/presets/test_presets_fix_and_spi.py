"""Attribute-style accessors end to end: `loomlint fix --preset langchain` reads `msg.text`
instead of coercing `msg.content`, messages name the preset's accessor, and a user-declared
SPI (`[tool.loomlint.spi.<name>]`) works the same way."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

LANGCHAIN_BEFORE = textwrap.dedent(
    """\
    from langchain_core.messages import AIMessage, BaseMessage


    def show(msg: BaseMessage, reply: AIMessage, history: list[BaseMessage]) -> str:
        print(msg.content)
        last = history[-1].content
        return str(msg.content) + f"said {reply.content}" + str(last) + repr(msg.content)
    """
)

LANGCHAIN_AFTER = textwrap.dedent(
    """\
    from langchain_core.messages import AIMessage, BaseMessage


    def show(msg: BaseMessage, reply: AIMessage, history: list[BaseMessage]) -> str:
        print(msg.text)
        last = history[-1].content
        return msg.text + f"said {reply.text}" + str(last) + repr(msg.content)
    """
)

CHATLIB = textwrap.dedent(
    """\
    from __future__ import annotations

    from dataclasses import dataclass


    @dataclass(frozen=True)
    class Chunk:
        text: str


    @dataclass(frozen=True)
    class ChatMessage:
        content: str | list[Chunk]

        @property
        def text(self) -> str:
            if isinstance(self.content, str):
                return self.content
            return "".join(chunk.text for chunk in self.content)


    @dataclass(frozen=True)
    class Note:
        content: str | list[Chunk]


    def flatten(content: str | list[Chunk]) -> str:
        return content if isinstance(content, str) else "".join(c.text for c in content)
    """
)

APP_BEFORE = textwrap.dedent(
    """\
    from chatlib import ChatMessage, Note, flatten


    def render(m: ChatMessage, n: Note) -> str:
        safe = m.text.upper() + flatten(m.content) + flatten(n.content)
        return str(m.content) + f"{n.content}" + safe
    """
)

APP_AFTER = APP_BEFORE.replace("str(m.content)", "m.text")

SPI_CONFIG = textwrap.dedent(
    """\
    [tool.loomlint]
    preset = ["chat"]

    [tool.loomlint.spi.chat]
    modules = ["chatlib"]
    content-fields = ["content"]
    message-types = ["chatlib.ChatMessage", "chatlib.Note"]
    part-types = ["chatlib.Chunk"]
    accessors = ["chatlib.flatten"]
    attribute-accessors = ["text"]

    [tool.loomlint.spi.chat.fix]
    attribute = "text"
    """
)


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _findings(stdout: str) -> list[tuple[int, int, str, str, bool]]:
    return [
        (d["line"], d["column"], d["code"], d["message"], d["fix"] is not None)
        for d in json.loads(stdout)
    ]


@pytest.fixture
def langchain_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lc_app.py").write_text(LANGCHAIN_BEFORE, encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_langchain_fix_reads_text_instead(langchain_project: Path) -> None:
    code, _, err = _run("fix", "--preset", "langchain", "lc_app.py")
    assert (langchain_project / "lc_app.py").read_text(encoding="utf-8") == LANGCHAIN_AFTER
    # `str(last)` (a local: no receiver to read `.text` from) and `repr()` stay reported.
    assert code == 1, err
    assert err.endswith("Fixed 3 findings in 1 file; 2 findings remaining.\n")


@pytest.mark.slow
def test_no_preset_configured_langchain_code_gets_its_own_fix(langchain_project: Path) -> None:
    """No preset configured: the import of langchain_core chooses the preset, and says so."""
    code, _, err = _run("fix", "lc_app.py")
    assert (langchain_project / "lc_app.py").read_text(encoding="utf-8") == LANGCHAIN_AFTER
    assert code == 1, err
    assert err == (
        "note: no preset configured; using langchain (from the imports of the checked files)\n"
        "Fixed 3 findings in 1 file; 2 findings remaining.\n"
    )


@pytest.mark.slow
def test_the_reference_accessor_is_never_inserted_into_langchain_code(
    langchain_project: Path,
) -> None:
    """With the reference SPI active too, LangChain reads get `.text` (with types), and no fix
    at all without types: `text_of` is not LangChain's, and its import is not added."""
    code, _, err = _run("fix", "--preset", "loom", "--preset", "langchain", "lc_app.py")
    assert (langchain_project / "lc_app.py").read_text(encoding="utf-8") == LANGCHAIN_AFTER
    assert code == 1, err
    (langchain_project / "lc_app.py").write_text(LANGCHAIN_BEFORE, encoding="utf-8")
    code, out, err = _run(
        "check", "--no-types", "--format", "json", "--preset", "loom", "--preset", "langchain"
    )
    assert code == 1, err
    assert [(line, column, fixable) for line, column, _, _, fixable in _findings(out)] == [
        (5, 11, False),
        (7, 16, False),
        (7, 39, False),
        (7, 61, False),
        (7, 74, False),
    ]
    assert {message.rpartition("; ")[2] for *_, message, _ in _findings(out)} == {"use .text"}
    code, _, err = _run("fix", "--no-types", "--preset", "loom", "--preset", "langchain")
    assert (langchain_project / "lc_app.py").read_text(encoding="utf-8") == LANGCHAIN_BEFORE
    assert "Fixed 0 findings" in err


@pytest.mark.slow
def test_langchain_messages_name_the_property(langchain_project: Path) -> None:
    code, out, _ = _run("check", "--format", "json", "--preset", "langchain", "lc_app.py")
    assert code == 1
    findings = _findings(out)
    assert [f[:3] for f in findings] == [
        (5, 11, "LML003"),
        (7, 16, "LML003"),
        (7, 39, "LML003"),
        (7, 61, "LML003"),
        (7, 74, "LML003"),
    ]
    assert all(message.endswith("; use .text") for *_, message, _ in findings)
    assert [fixable for *_, fixable in findings] == [True, True, True, False, False]


@pytest.mark.slow
def test_a_preset_without_accessor_says_to_narrow(tmp_path: Path, mypy_cache_dir: Path) -> None:
    # Checked from the repository, whose [tool.mypy] mypy reads: its cache holds OpenAI's types.
    (tmp_path / "oa_app.py").write_text(
        "from openai.types.chat import ChatCompletionUserMessageParam\n\n\n"
        "def show(m: ChatCompletionUserMessageParam) -> str:\n"
        '    return str(m["content"]) + m["content"].upper()\n',
        encoding="utf-8",
    )
    code, out, _ = _run("check", "--format", "json", "--preset", "openai", str(tmp_path))
    assert code == 1
    assert [(line, column, code, fixable) for line, column, code, _, fixable in _findings(out)] == [
        (5, 16, "LML003", False),
        (5, 32, "LML001", False),
    ]
    messages = [message for *_, message, _ in _findings(out)]
    assert messages[0].endswith("; narrow it with isinstance(..., str) first")
    assert messages[1].endswith("; narrow it with isinstance() first")


@pytest.fixture
def spi_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(SPI_CONFIG, encoding="utf-8")
    (tmp_path / "chatlib.py").write_text(CHATLIB, encoding="utf-8")
    (tmp_path / "spi_app.py").write_text(APP_BEFORE, encoding="utf-8")
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_a_user_declared_spi_is_checked(spi_project: Path, types: bool) -> None:
    args = ["check", "--format", "json", "spi_app.py", *([] if types else ["--no-types"])]
    code, out, _ = _run(*args)
    assert code == 1
    # The accessor function and the `.text` property are sanctioned; both coercions found.
    assert [f[:3] for f in _findings(out)] == [(6, 16, "LML003"), (6, 32, "LML003")]


@pytest.mark.slow
def test_a_user_declared_spi_fixes_with_its_attribute(spi_project: Path) -> None:
    code, out, _ = _run("check", "--format", "json", "spi_app.py")
    assert code == 1
    findings = _findings(out)
    assert all(message.endswith("; use .text") for *_, message, _ in findings)
    # Only the receiver that declares `.text` (ChatMessage, not Note) gets the rewrite.
    assert [fixable for *_, fixable in findings] == [True, False]
    code, _, err = _run("fix", "spi_app.py")
    assert code == 1, err
    assert (spi_project / "spi_app.py").read_text(encoding="utf-8") == APP_AFTER


TEXT_FILTER_APP = textwrap.dedent(
    """\
    from chatlib import ChatMessage, Chunk


    def texts(m: ChatMessage) -> list[str]:
        return [c.text for c in m.content if isinstance(c, Chunk)]
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
@pytest.mark.parametrize("declared", [True, False], ids=["text-part", "none"])
def test_a_user_declared_spi_names_its_text_part(
    spi_project: Path, declared: bool, types: bool
) -> None:
    """Issue 29: the text part is the SPI's data. With `[text-part]`, a loop that picks a
    `Chunk` loses a text message's text (advised the SPI's `.text`); without, no SPI says which
    part is text, and the loop is a filter like any other."""
    if declared:
        with (spi_project / "pyproject.toml").open("a", encoding="utf-8") as config:
            config.write('\n[tool.loomlint.spi.chat.text-part]\nclasses = ["chatlib.Chunk"]\n')
    (spi_project / "text_app.py").write_text(TEXT_FILTER_APP, encoding="utf-8")
    args = ["check", "--format", "json", "text_app.py", *([] if types else ["--no-types"])]
    code, out, _ = _run(*args)
    lost = (
        "content of `m` is iterated for its text parts, but it may be a string, whose "
        "characters are not parts: its text is lost; use .text, or narrow it with isinstance() "
        "first"
    )
    assert (code, _findings(out)) == (
        (1, [(5, 29, "LML001", lost, False)]) if declared else (0, [])
    )


def test_a_malformed_text_part_is_a_configuration_error(spi_project: Path) -> None:
    with (spi_project / "pyproject.toml").open("a", encoding="utf-8") as config:
        config.write('\n[tool.loomlint.spi.chat.text-part]\ntype-key = "kind"\n')
    code, _, err = _run("check", "--no-types", "spi_app.py")
    assert code == 2
    assert "[text-part]: give 'type-key' and 'types' together" in err
