"""The linear assignment problem for the few answers of a list: the pairs SciPy would choose, without SciPy.

Why: :mod:`.matching` pairs a handful of answers with a handful of references. SciPy's
``linear_sum_assignment`` does that in microseconds, but importing ``scipy.optimize`` costs about
0.6-1 s of CPU in every scoring worker (SciPy's whole optimisation stack comes with it), paid by
the first list answer each worker sees. This is the same shortest-augmenting-path method (Crouse,
"On implementing 2D rectangular assignment algorithms", IEEE TAES 52(4), 2016), with the same
tie-breaking (the last unvisited column first; among equal path costs one that ends the path), the
same handling of tall matrices (transposed) and of maximisation (negated costs), and every float
computed in the same order, so it returns the very pairs SciPy returns, ties included
(``tests/scoring/compare/test_assignment.py`` checks this against SciPy on random tie-heavy matrices).
Pure Python: meant for the small tables of one answer (the cost is cubic in the side).
"""
from __future__ import annotations

import math
from typing import List, Sequence, Tuple


def linear_sum_assignment(weights: Sequence[Sequence[float]], maximize: bool = False) -> List[Tuple[int, int]]:
    """``(row, column)`` pairs of an optimal assignment of ``weights`` (rows x columns), sorted by row.

    As many pairs as the shorter side; raises ``ValueError`` on NaN, on -inf (+inf when
    maximising), or when no finite assignment exists.
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return []
    if any(len(row) != cols for row in weights):
        raise ValueError('weights must be a rectangular table')
    transpose = cols < rows
    if transpose:
        cost = [[float(weights[i][j]) for i in range(rows)] for j in range(cols)]
        rows, cols = cols, rows
    else:
        cost = [[float(value) for value in row] for row in weights]
    if maximize:
        cost = [[-value for value in row] for row in cost]
    for row in cost:
        for value in row:
            if value != value or value == -math.inf:
                raise ValueError('weights contain NaN or an infinite value of the wrong sign')
    col4row = _solve(rows, cols, cost)
    if transpose:
        return sorted((col4row[j], j) for j in range(rows))
    return [(i, col4row[i]) for i in range(rows)]


def _solve(rows: int, cols: int, cost: List[List[float]]) -> List[int]:
    """Column of each row (``rows <= cols``); the dual updates are SciPy's, term for term."""
    u = [0.0] * rows
    v = [0.0] * cols
    shortest = [math.inf] * cols
    path = [-1] * cols
    col4row = [-1] * rows
    row4col = [-1] * cols
    for current in range(rows):
        seen_rows = [False] * rows
        seen_cols = [False] * cols
        shortest = [math.inf] * cols
        remaining = list(range(cols - 1, -1, -1))  # reversed: a constant table gives the identity
        min_value = 0.0
        i = current
        sink = -1
        while sink == -1:
            index = -1
            lowest = math.inf
            seen_rows[i] = True
            cost_i, u_i = cost[i], u[i]
            for it, j in enumerate(remaining):
                r = min_value + cost_i[j] - u_i - v[j]
                if r < shortest[j]:
                    path[j] = i
                    shortest[j] = r
                if shortest[j] < lowest or (shortest[j] == lowest and row4col[j] == -1):
                    lowest = shortest[j]
                    index = it
            min_value = lowest
            if min_value == math.inf:
                raise ValueError('the weights admit no finite assignment')
            j = remaining[index]
            if row4col[j] == -1:
                sink = j
            else:
                i = row4col[j]
            seen_cols[j] = True
            remaining[index] = remaining[-1]
            remaining.pop()
        u[current] += min_value
        for k in range(rows):
            if seen_rows[k] and k != current:
                u[k] += min_value - shortest[col4row[k]]
        for j in range(cols):
            if seen_cols[j]:
                v[j] -= min_value - shortest[j]
        j = sink
        while True:
            k = path[j]
            row4col[j] = k
            col4row[k], j = j, col4row[k]
            if k == current:
                break
    return col4row
