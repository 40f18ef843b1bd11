"""The language server: ``loomlint server``."""
