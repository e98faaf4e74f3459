"""The pairing stage's assignment: one to one, keeping the written order, of greatest weight."""
import pytest

from evalscope_phys.scoring.pairing import ordered_assignment

# (weights, rows, cols, the pairs chosen)
CASES = [
    ({(0, 0): 1, (1, 1): 1}, 2, 2, [(0, 0), (1, 1)]),
    ({(0, 1): 9, (1, 0): 9, (0, 0): 1, (1, 1): 1}, 2, 2, [(0, 1)]),  # never crossing: one of the two
    ({(0, 0): 1, (0, 1): 9, (1, 1): 1, (1, 2): 9}, 2, 3, [(0, 1), (1, 2)]),  # an extra first item is skipped
    ({(0, 0): 1, (1, 0): 9, (2, 0): 1}, 3, 1, [(1, 0)]),  # one item answers one part only
    ({(0, 0): 9, (1, 0): 9}, 2, 1, [(1, 0)]),
    ({}, 2, 2, []),
    ({(0, 0): 1}, 0, 0, []),
]


@pytest.mark.parametrize('weights, rows, cols, pairs', CASES)
def test_ordered_assignment(weights, rows, cols, pairs):
    chosen = ordered_assignment(weights, rows, cols)
    assert len(chosen) == len(pairs)
    assert sum(weights[p] for p in chosen) == sum(weights[p] for p in pairs)
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(chosen, chosen[1:]))
    assert all(p in weights for p in chosen)
