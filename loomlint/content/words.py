"""Words in messages: the one place that decides "a" or "an" before a type's name."""

from __future__ import annotations

import re

# Letters whose name starts with a vowel sound ("an L", "an HTTPError").
_VOWEL_SOUND_LETTERS = frozenset("AEFHILMNORSX")
# The first word of a capitalised (camel-case) name: "Llm" of "LlmMessage", "H" of "HTTPError".
_FIRST_WORD = re.compile(r"[A-Z][a-z0-9]*")


# How English words may start with two consonants: "Str" is a word, "Llm" is letters.
_ONSETS = frozenset(
    {"bl", "br", "ch", "cl", "cr", "dr", "dw", "fl", "fr", "gl", "gr", "kl", "kn", "kr", "ph"}
    | {"pl", "pr", "ps", "sc", "sh", "sk", "sl", "sm", "sn", "sp", "sq", "st", "sw", "th", "tr"}
    | {"tw", "wh", "wr"}
)


def _read_as_letters(word: str) -> bool:
    if re.search(r"[aeiouyAEIOUY]", word):
        return False
    return len(word) == 1 or word[:2].lower() not in _ONSETS


def with_article(name: str) -> str:
    """``name`` (a type's) with its indefinite article: "an object", "a LlmMessage" was wrong.

    A capitalised name whose first word has no vowel and cannot start an English word is
    read letter by letter ("an LlmMessage", "an SDKClient", "a PDFPart", but "a Str"); "U"
    sounding "you" before a consonant and a vowel takes "a" ("a UserMessage", "an
    UpdateEvent"); otherwise a vowel takes "an".
    """
    first = _FIRST_WORD.match(name)
    if first is not None and _read_as_letters(first.group()):
        article = "an" if name[0] in _VOWEL_SOUND_LETTERS else "a"
    elif re.match(r"[Uu][^aeiouAEIOU][aeiouAEIOU]", name):
        article = "a"
    else:
        article = "an" if name[:1].lower() in ("a", "e", "i", "o", "u") else "a"
    return f"{article} {name}"
