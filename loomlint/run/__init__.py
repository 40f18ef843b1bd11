"""A run over many files: ``runner.run_check`` is what ``loomlint check``, ``fix``, the daemon
and the language server call.

- ``runner``: reads the files, screens them, asks for types, hands each file to the engine and
  gathers the results;
- ``oracle``: mypy's in-process build, the type oracle; ``checked_modules``: the hook that takes
  each module's tree and types as mypy finishes checking it (the mypy plugin uses it too);
  ``plugin_results``: the findings a configured mypy plugin hands to that build;
- ``workers``: the engine on worker processes; ``cache``: results kept between runs;
- ``interrupt``, ``progress``, ``deepstack``: signals, the progress line, deep trees.

May import ``engine`` and the wings below it.
"""
