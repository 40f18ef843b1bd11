"""What a run reports and remembers about its findings.

- ``output/``: the formats (text, json, sarif, github, gitlab, junit), one module each;
- ``baseline``: findings accepted as they are, matched by ``fingerprint`` across line moves;
- ``add_noqa``: ``--add-noqa``, suppression comments written where the finding is;
- ``gitdiff``: ``--diff REV``, the lines changed since a git revision;
- ``docs``: each rule's page, generated from the catalog (``python -m loomlint.report.docs``).

May import ``run`` and the wings below it; not ``fix``.
"""
