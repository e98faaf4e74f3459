"""A comparison's edit distance, computed only where a verdict asks for it.

Why: whether a comparison is strict or lenient never depends on its distance, yet the distance (a tree
edit distance over ``together`` forms) is much of a comparison's cost. A job compares many pairs it
then discards -- the pairing table compares every reference part with every piece, a definition is
also compared as an equation -- and keeps a few. So every comparison records the two expressions its
distance is between (:class:`PendingEed`) and is computed once per job whether or not a distance is
asked for (:mod:`.memo`); :func:`settled` computes the distances of the outcome a caller keeps, or
drops them when no EED was asked for.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Optional, Tuple

from .memo import remembered
from .outcome import Outcome


@dataclass(frozen=True)
class PendingEed:
    """The distance between two expressions (``reference``, ``answer``), or the sum of ``terms``
    (numbers or other pending distances) over ``count``: a list's mean over its parts."""

    reference: Any = None
    answer: Any = None
    terms: Tuple[Any, ...] = ()
    count: int = 0


def mean(terms, count: int):
    """``sum(terms) / count``, pending while a term is."""
    if any(isinstance(t, PendingEed) for t in terms):
        return PendingEed(terms=tuple(terms), count=count)
    return sum(terms) / count


def settled(outcome: Outcome, eed: bool) -> Outcome:
    """``outcome`` with its distances (and its parts') computed when ``eed``, else with none."""
    parts = tuple(settled(p, eed) for p in outcome.parts)
    value = _value(outcome.eed) if eed else None
    if value is outcome.eed and all(p is q for p, q in zip(parts, outcome.parts)):
        return outcome
    return replace(outcome, eed=value, parts=parts)


def _value(eed: Any) -> Optional[float]:
    if not isinstance(eed, PendingEed):
        return eed
    if eed.count:
        return sum(_value(t) for t in eed.terms) / eed.count
    return remembered(_distance, eed.reference, eed.answer)


def _distance(reference, answer) -> float:
    from ..eed.eed import eed_score
    from ..eed.tree import expression_tree
    from .values import EED_MAX_NODES, eed_form
    ref, ans = eed_form(reference), eed_form(answer)
    if expression_tree(ref).size() > EED_MAX_NODES or expression_tree(ans).size() > EED_MAX_NODES:
        return 0.0
    return float(eed_score(ref, ans).score)
