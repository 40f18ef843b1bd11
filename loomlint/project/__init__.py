"""What a run checks, and how: the user's project seen from its configuration.

- ``config``: ``[tool.loomlint]`` (or ``loomlint.toml``, ``setup.cfg``, ``mypy.ini``) found,
  read and validated into ``Settings``; a bad key is named;
- ``settings``: the settings a front end runs with: the configuration, plus the presets the
  project's imports name when none is configured (``preset_inference``);
- ``discovery``, ``globs``, ``shard``: the files to check (``.gitignore``, ``exclude``, RE2
  patterns, ``--shard K/N``); ``selection``: the rules selected and ignored.

May import ``catalog``, ``files`` and ``content``.
"""
