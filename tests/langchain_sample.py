"""LangChain code that reads message content, and what loomlint says of it when mypy cannot find
``langchain_core`` (the package is not installed where loomlint runs): shared by the
unresolved-import tests and the pre-commit hook's test of the same situation."""

from __future__ import annotations

APP = (
    "from langchain_core.messages import AIMessage\n"
    "\n"
    "\n"
    "def show(reply: AIMessage) -> str:\n"
    '    return f"assistant said: {reply.content}"\n'
    "\n"
    "\n"
    "def words(reply: AIMessage) -> list[str]:\n"
    "    return reply.content.split()\n"
)

UNRESOLVED_WARNING = (
    "warning: mypy could not find langchain_core.messages, which defines the messages read in "
    "1 file: their reads there are judged by the presets' data where it knows them, and no "
    "finding there is a guess. Install the package where loomlint runs: in pre-commit, list it "
    "in the hook's additional_dependencies or use a `language: system` hook; otherwise install "
    "loomlint into the project's environment\n"
)


def findings(path: str) -> str:
    """The text report's lines for ``APP`` saved as ``path`` (the f-string's fix, ``.text``,
    needs types: no ``[*]`` here)."""
    return (
        f"{path}:5:31: LML003 content of `reply` is coerced to str by an f-string; use .text\n"
        f"{path}:9:12: LML001 content of `reply` is used as one branch by `.split()`, but it "
        "may be a list of parts; narrow it with isinstance() first, or use .text\n"
    )
