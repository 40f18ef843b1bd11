"""``--shard K/N``: the stable K-th of N parts of a run's files, for a CI matrix.

A file belongs to shard ``hash(path) mod N``, where ``path`` is its path relative to the
project root, so a file stays in its shard when others are added, removed or renamed: each
matrix job's caches (mypy's and loomlint's) stay warm for the files it keeps checking.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_SHAPE = re.compile(r"\s*(?P<index>[0-9]+)\s*/\s*(?P<count>[0-9]+)\s*")


class ShardError(ValueError):
    """``--shard`` is not ``K/N`` with 1 <= K <= N."""


@dataclass(frozen=True, slots=True)
class Shard:
    index: int  # 1-based
    count: int

    def holds(self, relative_path: str) -> bool:
        digest = hashlib.sha256(relative_path.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1


def parse_shard(text: str) -> Shard:
    match = _SHAPE.fullmatch(text)
    if match is None:
        raise ShardError(f"--shard: expected K/N (e.g. 2/4), got '{text}'")
    index, count = int(match["index"]), int(match["count"])
    if not 1 <= index <= count:
        raise ShardError(f"--shard: K must be between 1 and N, got '{text}'")
    return Shard(index, count)
