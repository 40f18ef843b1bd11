"""Whether a finding is a guess, and why.

In a typed run a finding rests on a type (mypy's, of the message or of the value) or on the
presets' data (``Origin.grounded``: the receiver's class is an SPI's, or the read has one of
their shapes). A finding judged by syntax alone is a guess: left out unless the settings ask
for guesses (``report_guesses``), counted in the run's warnings with its remedy, and marked
when reported. Four things make a read syntax's to judge in a typed run, and a fifth every
read of a file checked without types:

- mypy could not find the module of the message's type (its SDK not installed where loomlint
  runs): ``Guess.MISSING_MODULE``;
- mypy checked the code and types the message ``Any``: a receiver declared ``Any`` or left
  unannotated in an annotated function, a value of ``dict[str, Any]``, an untyped library's
  return (``json.loads()``, ``model_dump()``), or a local that took one: ``Guess.TYPED_ANY``;
- mypy does not check the function the read is in (unannotated, with ``check_untyped_defs``
  off): ``Guess.UNCHECKED``. The read is judged as ``--no-types`` judges a file (with message
  evidence, ``TypeView.needs_evidence``), which on code nobody had tuned loomlint on was right
  too seldom for a default: such findings were 43 true of 107 (40%; instructor 16 of 40,
  llm-anthropic 0 of 19, mem0ai 3 of 10, mirascope 21 of 35, dspy 3 of 3), against three in
  four in functions mypy checks. The remedy is the user's: with ``check_untyped_defs = true``
  mypy types those functions, and their reads are judged by types. This reverses an earlier
  decision to report them as the user's mypy configuration chose, which had weighed the
  codebases loomlint was tuned on from the start: there the change leaves out 27 true findings
  and 2 false (smolagents' unannotated tests of its ``ChatMessage``: 24 true, 1 false; aisuite
  3 true; opentelemetry-instrumentation-anthropic 1 false), and over the whole corpus 70 true
  and 66 false (typed precision of the tuning half 73.5% to 85.1%, of the judging half 40.3%
  to 40.0%).

- mypy skips the code the read is in: a file whose first line is ``# type: ignore`` (mypy
  drops its whole body), a function of a module whose errors mypy ignores (``# mypy:
  ignore-errors``, ``ignore_errors = true``: it drops their bodies), or a branch mypy deems
  unreachable (``if sys.version_info < (3, 10):``): ``Guess.SKIPPED``. Nothing there is typed,
  so a typed run judged such reads by syntax and reported them as if typed: in langchain-aws's
  tests, whose files open with ``# type:ignore``, 25 typed findings of one file were 7 true
  and 18 false.

- the file is checked without types (``--no-types``, ``types = "none"``, or a file mypy could
  not check, LML904): every read is judged by its syntax, as a read of a message mypy types
  ``Any`` is, and a finding that nothing grounds is ``Guess.NO_TYPES`` (every node's
  footing is ``Footing.NO_TYPES`` there). Grounded there means the presets' data (an SPI's
  message class, one of their read shapes), a class of the project whose content field is
  declared as content and nothing else (``content: str | list[Part]``,
  ``Evidence.declares_content``), or a value declared as content. On the corpus's tuning
  half (``benchmarks/corpus``) the findings without types were true 219 times in a sample of
  635 (34.5%); those that rest on something, 58 in 71 (81.7%).

A read grounded in the presets' data stays reported in an unchecked function too. A finding on
a node whose line mypy's parser and LibCST's see differently (``Footing.UNKNOWN``) is no guess.
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
    Guess.UNCHECKED: " (a guess: mypy does not check this function, and no preset knows this read)",
    Guess.SKIPPED: " (a guess: mypy skips this code, and no preset knows this read)",
    Guess.NO_TYPES: " (a guess: checked without types, and no preset knows this read)",
}

_GUESS_OF_FOOTING = {
    Footing.MISSING_MODULE: Guess.MISSING_MODULE,
    Footing.TYPED_ANY: Guess.TYPED_ANY,
    Footing.UNCHECKED: Guess.UNCHECKED,
    Footing.SKIPPED: Guess.SKIPPED,
    Footing.NO_TYPES: Guess.NO_TYPES,
}

# Which guess a value read in more than one way counts as: the first whose remedy applies, for
# after it the others' reads may be typed (an installed SDK types a read mypy typed `Any` for
# want of it; a checked function may type what its reads took).
_FIRST_REMEDY = (
    Guess.MISSING_MODULE,
    Guess.SKIPPED,
    Guess.UNCHECKED,
    Guess.TYPED_ANY,
    Guess.NO_TYPES,
)


def guess_of(finding: Footing, origins: Iterable[tuple[Origin, Footing]]) -> Guess | None:
    """Why a finding is a guess, or None when it rests on a type or preset data.

    Without types every footing is ``Footing.NO_TYPES``: a finding rests only on an origin
    grounded in the presets' data or declared as content. ``finding`` is what mypy's types say
    of the flagged value; ``origins`` pairs each of the
    value's origins with what they say of the read (for a ``case`` capture, of the flagged
    value). A value mypy gives a type of its own (a ``str | list[...]`` annotation, a
    TypedDict's field) rests on it; so does one with an origin that is typed, grounded in the
    presets' data, or judged by syntax for a reason other than the three above. A value from
    reads of more than one kind counts as the kind whose remedy comes first (``_FIRST_REMEDY``).
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
    return next((guess for guess in _FIRST_REMEDY if guess in found), None)
