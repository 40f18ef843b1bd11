"""Whether a finding of a typed run is a guess, and why.

In a typed run a finding rests on a type (mypy's, of the message or of the value) or on the
presets' data (``Origin.grounded``: the receiver's class is an SPI's, or the read has one of
their shapes). A finding judged by syntax alone is a guess: left out unless the settings ask
for guesses (``report_guesses``), counted in the run's note, and marked when reported. Two
things make a read syntax's to judge in a typed run:

- mypy could not find the module of the message's type (its SDK not installed where loomlint
  runs): ``Guess.MISSING_MODULE``;
- mypy checked the code and types the message ``Any``: a receiver declared ``Any`` or left
  unannotated in an annotated function, a value of ``dict[str, Any]``, an untyped library's
  return (``json.loads()``, ``model_dump()``), or a local that took one: ``Guess.TYPED_ANY``.

A read in a function mypy does not check at all (unannotated, with ``check_untyped_defs``
off) is neither: mypy was not asked about it, so the read is judged as ``--no-types`` judges
the whole file (with message evidence, ``TypeView.needs_evidence``) and reported, as the
user's mypy configuration chose. There the messages are often of a class mypy would type,
had it checked the function (a project's ``ChatMessage`` in its unannotated tests): on the
corpus, making those findings guesses too would have dropped 27 true findings and 1 false on
the tuning half, 16 true and 25 false on the judging half. Nor is a finding on a node whose
line mypy's parser and LibCST's see differently (``Footing.UNKNOWN``).
"""

from __future__ import annotations

from collections.abc import Iterable

from loomlint.engine.diagnostics import Guess
from loomlint.engine.flow import Origin
from loomlint.engine.typefacts import Footing

# What a guess reported on request says of itself, by why it is one.
GUESS_NOTES = {
    Guess.MISSING_MODULE: (
        " (a guess: mypy could not read this message's type, and no preset knows this read)"
    ),
    Guess.TYPED_ANY: " (a guess: mypy types this message `Any`, and no preset knows this read)",
}

_GUESS_OF_FOOTING = {
    Footing.MISSING_MODULE: Guess.MISSING_MODULE,
    Footing.TYPED_ANY: Guess.TYPED_ANY,
}


def guess_of(finding: Footing, origins: Iterable[tuple[Origin, Footing]]) -> Guess | None:
    """Why a typed run's finding is a guess, or None when it rests on a type or preset data.

    ``finding`` is what mypy's types say of the flagged value; ``origins`` pairs each of the
    value's origins with what they say of the read (for a ``case`` capture, of the flagged
    value). A value mypy gives a type of its own (a ``str | list[...]`` annotation, a
    TypedDict's field) rests on it; so does one with an origin that is typed, grounded in the
    presets' data, or judged by syntax for a reason other than the two above. A value from
    reads of both kinds is counted with the missing modules: installing them is the remedy.
    """
    if finding is Footing.TYPED:
        return None
    found: set[Guess] = set()
    for origin, footing in origins:
        if origin.grounded or origin.how == "typed":
            return None
        guess = _GUESS_OF_FOOTING.get(footing)
        if guess is None:
            return None
        found.add(guess)
    if not found:
        return None
    return Guess.MISSING_MODULE if Guess.MISSING_MODULE in found else Guess.TYPED_ANY
