"""Optimal matching of several answers to several references (unordered lists, sets, ``\\pm`` branches).

Why optimal: a greedy matcher takes the closest pair first and can leave the rest unmatched
(references ``[1, 1.012]`` against answers ``1.005, 0.995``: greedy pairs 1 with 1.005 and then
1.012 with 0.995 fails, although 1 - 0.995 and 1.012 - 1.005 are both within 1%). Strict and
lenient are separate questions -- is there an assignment under which every pair is strictly
equal, is there one under which every pair is leniently equal -- so each is answered by its own
maximum matching (:mod:`.assignment`, SciPy's ``linear_sum_assignment``), rectangular when the counts differ.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

Pair = Tuple[int, int]


def best_assignment(table: Dict[Pair, object], rows: int, cols: int,
                    value: Callable[[object], float]) -> List[Pair]:
    """The assignment of rows to columns maximising the sum of ``value`` over matched pairs."""
    if rows == 0 or cols == 0:
        return []
    from .assignment import linear_sum_assignment  # SciPy's pairs without importing scipy.optimize (~0.8 s)

    weights = [[0.0] * cols for _ in range(rows)]
    for (i, j), outcome in table.items():
        weights[i][j] = float(value(outcome))
    return linear_sum_assignment(weights, maximize=True)


def closeness(error: Optional[float]) -> float:
    """A tie-breaker in (0, 1]: closer pairs are preferred among equally good ones."""
    if error is None or error != error:
        return 0.0
    return 1.0 / (1.0 + min(error, 1e6))


def assignments(table: Dict[Pair, object], rows: int, cols: int, strict: Callable[[object], bool],
                lenient: Callable[[object], bool], error: Callable[[object], Optional[float]],
                ordered: bool) -> Tuple[List[Pair], bool, bool]:
    """(assignment to report, every row strictly matched, every row leniently matched).

    Ordered: row i against column i. Unordered: the lenient-maximal assignment is reported unless a
    strict-complete one exists (then that one is).
    """
    if ordered:
        pairs = [(i, i) for i in range(min(rows, cols))]
        complete = rows == cols
        return pairs, complete and all(strict(table[p]) for p in pairs), \
            complete and all(lenient(table[p]) for p in pairs)
    big = float(rows * cols + 1)
    strict_pairs = best_assignment(table, rows, cols, lambda o: big * strict(o) + closeness(error(o)))
    all_strict = rows == cols and len(strict_pairs) == rows and all(strict(table[p]) for p in strict_pairs)
    if all_strict:
        return strict_pairs, True, True
    lenient_pairs = best_assignment(
        table, rows, cols, lambda o: big * big * lenient(o) + big * strict(o) + closeness(error(o)))
    all_lenient = rows == cols and len(lenient_pairs) == rows and all(lenient(table[p]) for p in lenient_pairs)
    return lenient_pairs, False, all_lenient


def unmatched_rows(pairs: Sequence[Pair], rows: int) -> List[int]:
    matched = {i for i, _ in pairs}
    return [i for i in range(rows) if i not in matched]
