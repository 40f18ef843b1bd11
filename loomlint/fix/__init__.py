"""Fixes: the findings' edits applied to a source, and written back.

- ``edits``: a source with the fixes of its findings applied (``apply_fixes``);
  ``imports``: the import an accessor needs, placed where isort and Ruff would;
- ``meaning``: the last check before any write: the rewrite kept what the code means;
- ``files``: one file rewritten on disk (for ``fix`` and ``--add-noqa``), or refused: inside
  the project, its bytes still those analysed (checked again just before the write).

May import ``run`` and the wings below it; not ``report``.
"""
