"""``|x|`` against ``x``: equal only when ``x`` is positive, which the engine assumes of every symbol.

The reader keeps the bars of a symbolic scalar as the opaque ``abs:x``
(:func:`~evalscope_phys.scoring.read.canonical_parser.magnitude`). When the two sides hold different
barred values, they are compared twice: with every symbol a real of either sign (``|x|^2`` is
``x^2``: accepted), and with the bars dropped (every symbol positive). Different even then: the
ordinary verdict stands (``|x|`` is not ``y``). Equal only then: undecided, because a coordinate, a
charge or a work can be negative and the bars say so.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional

import sympy

from ..read.canonical_parser import BARS, barred_inside
from .outcome import Options, Outcome, UNDECIDED, accepted, rejected

MAX_SIGNED_OPS = 200
"""The real-valued reading is tried only on expressions this small (``expand`` of a difference)."""


def barred(expr: sympy.Expr) -> frozenset:
    """The barred values (``abs:..`` symbols) in ``expr``."""
    return frozenset(s for s in expr.free_symbols if s.name.startswith(BARS + ':'))


def compare_bars(reference: sympy.Expr, answer: sympy.Expr, options: Options,
                 compare: Callable[[sympy.Expr, sympy.Expr, Options], Outcome]) -> Optional[Outcome]:
    """The verdict when the two sides hold different barred values; None when they hold the same
    ones (then ``abs:x`` is one more symbol, and ``|x| + x`` is rightly not ``2|x|``)."""
    ref_bars, ans_bars = barred(reference), barred(answer)
    if ref_bars == ans_bars:
        return None
    insides = {s: barred_inside(s.name) for s in ref_bars | ans_bars}
    if any(inside is None for inside in insides.values()):
        return rejected(UNDECIDED, 'a value in bars on one side only')
    if _equal_for_either_sign(reference, answer, insides):
        return accepted('equivalent', 'equal for either sign of the values in bars')
    positive = compare(reference.xreplace(insides), answer.xreplace(insides), options)
    if not positive.strict:
        return positive
    return rejected(UNDECIDED, 'equal only if the value in bars is positive (|x| for x)', eed=positive.eed)


def _equal_for_either_sign(reference: sympy.Expr, answer: sympy.Expr, insides: Dict) -> bool:
    plain = (reference.free_symbols | answer.free_symbols) - set(insides)
    if any(s.name.count(':') for s in plain) or sympy.count_ops(reference - answer) > MAX_SIGNED_OPS:
        return False
    real = {s: sympy.Symbol(s.name, real=True) for s in plain | {f for v in insides.values() for f in v.free_symbols}}
    bars = {s: sympy.Abs(inside.xreplace(real)) for s, inside in insides.items()}
    return sympy.expand(reference.xreplace(real).xreplace(bars) - answer.xreplace(real).xreplace(bars)) == 0
