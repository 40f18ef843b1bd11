"""The checks behind loomlint's mypy plugin (``loomlint.mypy_plugin`` only dispatches to them).

Each module answers one question, from mypy's own types and the shared catalog and SPI model:

- ``codes``: the plugin's mypy error codes, named by the rule catalog;
- ``config``: ``[tool.loomlint]`` read once, and its fingerprint for mypy's cache;
- ``values``: what an expression's type says about it, and how messages name it;
- ``calls``: calls to coercing, using or ordinary callables;
- ``operators``: iteration, indexing and ``%`` formatting (mypy checks them as dunder calls);
- ``casts``: ``typing.cast`` of content, found once a module is checked;
- ``reporting``: the one place that reports a finding, past mypy's speculative error filters.
"""
