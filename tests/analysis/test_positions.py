"""The lean position pass records exactly what LibCST's PositionProvider records."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from loomlint.engine.positions import _WANTED, compute_positions
from loomlint.run.deepstack import deep_stack

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    (
        path
        for path in [*(REPO / "loomlint").rglob("*.py"), *(REPO / "fixtures").rglob("*.py")]
        if path.read_bytes().strip()
    ),
    key=lambda p: p.as_posix(),
)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_positions_equal_position_provider(path: Path) -> None:
    def compare() -> tuple[int, list[str]]:
        module = cst.parse_module(path.read_bytes())
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        computed = compute_positions(module)
        wanted = {n: r for n, r in expected.items() if type(n) in _WANTED}
        differing = [
            f"{type(n).__name__} {r} != {computed.get(n)}"
            for n, r in wanted.items()
            if computed.get(n) != r
        ]
        return len(wanted), differing

    checked, differing = deep_stack(compare)
    assert checked > 0
    assert differing == []
