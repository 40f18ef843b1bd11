"""The engine: one source file and its type facts in, findings out. Every front end runs it.

``analyze.analyze_source`` is the entry. On the way:
- the LibCST tree and what it names: ``syntax``, ``tree``, ``names``, ``index``, ``positions``;
- the type facts taken from mypy's view of a module (``facts``, ``typefacts``, ``typeview``,
  ``content_types``, ``ownership``), or, without types, the evidence of names, imports and
  installed packages (``evidence``, ``imported``);
- where content values flow and end (``flow``, ``sinks``, ``guards``, ``callees``);
- the rules that judge each position, one class each with its examples (``checks/``); the
  advice they give (``advice``); suppressions (``suppress``); which findings of a typed run
  are guesses (``guesses``); the findings (``diagnostics``).

May import ``project``, ``catalog``, ``files`` and ``content``; never a front end.
"""
