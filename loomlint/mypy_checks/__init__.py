"""The wiring behind loomlint's mypy plugin (``loomlint.mypy_plugin``); it judges nothing itself.

- ``codes``: the plugin's mypy error codes, named by the rule catalog;
- ``config``: ``[tool.loomlint]`` read once, and its fingerprint for mypy's cache;
- ``support``: the refusal of an unsupported mypy or a bad configuration, as a mypy error;
- ``checked``: the tree, types, options and text of a module mypy has just checked;
- ``analysis``: that module judged by ``loomlint check``'s engine, its findings reported;
- ``suppressions``: the plugin's codes in ``# type: ignore[...]`` and ``warn_unused_ignores``.
"""
