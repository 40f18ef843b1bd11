"""The catalog: loomlint's rules and the SPIs it knows, as data read from ``rules/``.

- ``rules``: each rule (code, name, documentation, examples) and each preset (its content
  types, sinks, accessors and fixes), loaded and validated once;
- ``spi``: the presets in force turned into the model the engine asks ("is this type
  content?", "is this call an accessor?", "which fix does this value's SPI offer?").

``loomlint check`` and the mypy plugin read the same catalog. May import ``files`` and
``content``.
"""
