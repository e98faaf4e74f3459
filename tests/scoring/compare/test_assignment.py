"""Our assignment solver returns SciPy's very pairs, ties included, on random and tie-heavy tables."""
from __future__ import annotations

import math
import random

import pytest
from scipy.optimize import linear_sum_assignment as scipy_assignment

from evalscope_phys.scoring.compare.assignment import linear_sum_assignment


def _scipy_pairs(table, maximize):
    rows, cols = scipy_assignment(table, maximize=maximize)
    return sorted(zip(rows.tolist(), cols.tolist()))


def _tables(rng: random.Random):
    for _ in range(1500):
        rows, cols = rng.randint(1, 6), rng.randint(1, 6)
        kind = rng.random()
        if kind < 0.4:  # few distinct values: ties everywhere
            values = [0.0, 1.0, 2.0] if kind < 0.2 else [0.0, 1.0, 0.5, 1.5, 1.0 + 1 / 3]
            yield [[rng.choice(values) for _ in range(cols)] for _ in range(rows)]
        elif kind < 0.7:  # what matching.py builds: 0, or strict/lenient weight plus a closeness in (0, 1]
            yield [[rng.choice((0.0, 1.0, 2.0, 3.0)) + rng.choice((0.0, 1.0, 0.5, 1 / (1 + rng.random())))
                    for _ in range(cols)] for _ in range(rows)]
        else:
            yield [[rng.uniform(-5, 5) for _ in range(cols)] for _ in range(rows)]


@pytest.mark.parametrize('maximize', [True, False])
def test_same_pairs_as_scipy_on_random_tables(maximize):
    rng = random.Random(11 if maximize else 12)
    for table in _tables(rng):
        assert linear_sum_assignment(table, maximize=maximize) == _scipy_pairs(table, maximize), table


@pytest.mark.parametrize('table, maximize, expected', [
    ([[1.0, 1.0], [1.0, 1.0]], True, [(0, 0), (1, 1)]),     # a constant table: the identity
    ([[0.0, 3.0], [3.0, 0.0]], True, [(0, 1), (1, 0)]),
    ([[5.0], [1.0], [7.0]], True, [(2, 0)]),                 # tall: the best row for the one column
    ([[5.0, 1.0, 7.0]], False, [(0, 1)]),                    # wide, minimising
])
def test_known_assignments(table, maximize, expected):
    assert linear_sum_assignment(table, maximize=maximize) == expected


def test_empty_and_invalid_tables():
    assert linear_sum_assignment([]) == []
    assert linear_sum_assignment([[]]) == []
    with pytest.raises(ValueError):
        linear_sum_assignment([[math.nan, 1.0]])
    with pytest.raises(ValueError):
        linear_sum_assignment([[math.inf, 1.0]], maximize=True)
    with pytest.raises(ValueError):
        linear_sum_assignment([[1.0, 2.0], [1.0]])
    with pytest.raises(ValueError):
        linear_sum_assignment([[math.inf], [math.inf]])  # no finite assignment
