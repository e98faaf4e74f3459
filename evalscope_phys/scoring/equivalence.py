"""Strict and lenient equivalence of two parsed answers (runs inside a limited worker).

Strict: the expressions are equal after SymPy's automatic canonicalisation or a cheap symbolic
check (``expand``/``cancel`` of the difference), or -- for expressions with free symbols -- they agree
to ``SPOT_CHECK_RTOL`` at ``SPOT_CHECK_POINTS`` random positive points; numbers are equal within
relative ``STRICT_RTOL`` after unit conversion. Lenient: relative ``LENIENT_RTOL`` (or the
record's tolerance) at every point. A single point where both sides are finite, real and differ
proves the answers different, so the expensive ``simplify`` is needed only when the points say
nothing (every point undefined), which keeps most answers in the millisecond range.
"""
from __future__ import annotations

import cmath
import math
import random
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import sympy
from sympy.core.function import AppliedUndef

STRICT_RTOL = 1e-6
"""Numbers (after unit conversion) closer than this, relatively, are the same answer."""
LENIENT_RTOL = 1e-2
"""Default relative tolerance of the lenient verdict."""
SPOT_CHECK_POINTS = 6
"""Random points at which expressions with free symbols are compared."""
SPOT_CHECK_MIN_VALID = 3
"""Points that must evaluate to finite numbers on both sides for the spot check to count."""
SPOT_CHECK_RTOL = 1e-9
"""Agreement at every point closer than this (evaluated with 30 digits) counts as equivalence."""
EVAL_DIGITS = 30
"""Working precision of the exact re-evaluation of a point that seems to differ."""
CANCELLATION_SUSPECT = 1e-6
"""A differing point whose values are both this small is re-evaluated with 30 digits: it may be
a zero computed with round-off (long expanded forms); larger values are trusted in doubles."""
SYMBOLIC_PROOF_MAX_OPS = 60
"""Spot-check matches this small are also proven with ``expand`` (reason ``equivalent``)."""


@dataclass(frozen=True)
class Comparison:
    """The verdicts for one (reference, answer) pair."""

    strict: bool
    lenient: bool
    reason: str
    relative_error: Optional[float] = None


def _complex(value) -> Optional[complex]:
    try:
        if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            return None
        number = complex(value)
    except (TypeError, ValueError, OverflowError, AttributeError):
        return None
    if number != number or abs(number) == float('inf'):
        return None
    return number


def numeric_value(expr: sympy.Expr, subs: Optional[Dict] = None) -> Optional[complex]:
    """``expr`` as a complex number (evaluated with 30 digits), or None where it is undefined."""
    try:
        value = expr.evalf(EVAL_DIGITS, subs=subs) if subs else expr.evalf(EVAL_DIGITS)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, RecursionError,
            AttributeError, NotImplementedError):
        return None
    return _complex(value)


class _NoFastPath(Exception):
    pass


_FAST_FUNCTIONS = {
    sympy.sin: cmath.sin, sympy.cos: cmath.cos, sympy.tan: cmath.tan, sympy.exp: cmath.exp,
    sympy.sinh: cmath.sinh, sympy.cosh: cmath.cosh, sympy.tanh: cmath.tanh,
    sympy.asin: cmath.asin, sympy.acos: cmath.acos, sympy.atan: cmath.atan,
    sympy.asinh: cmath.asinh, sympy.acosh: cmath.acosh, sympy.atanh: cmath.atanh,
    sympy.Abs: abs,
    sympy.cot: lambda z: 1 / cmath.tan(z), sympy.sec: lambda z: 1 / cmath.cos(z),
    sympy.csc: lambda z: 1 / cmath.sin(z), sympy.acot: lambda z: cmath.atan(1 / z),
    sympy.asec: lambda z: cmath.acos(1 / z), sympy.acsc: lambda z: cmath.asin(1 / z),
}


def _unsigned_zero(z: complex) -> complex:
    # -0.0 imaginary parts (from real arithmetic on complex numbers) would put a negative number
    # on the other side of the branch cut: sqrt(complex(-4, -0.0)) is -2j, SymPy's is 2j.
    return complex(z.real, 0.0) if z.imag == 0 else z


def _fast(expr, values: Dict) -> complex:
    """Double-precision value of ``expr`` by walking its tree (no code generation, no eval)."""
    if expr.is_Symbol:
        return values[expr]
    if expr.is_Number:
        return complex(float(expr))
    if expr is sympy.pi:
        return complex(math.pi)
    if expr is sympy.E:
        return complex(math.e)
    if expr.is_Add:
        return sum((_fast(a, values) for a in expr.args), 0j)
    if expr.is_Mul:
        out = 1 + 0j
        for a in expr.args:
            out *= _fast(a, values)
        return out
    if expr.is_Pow:
        base, exponent = expr.args
        b = _fast(base, values)
        if exponent.is_Integer and abs(int(exponent)) < 10_000:
            return b ** int(exponent)
        b = _unsigned_zero(b)
        if exponent == sympy.S.Half:
            return cmath.sqrt(b)
        return b ** _fast(exponent, values)
    if isinstance(expr, sympy.log) and len(expr.args) == 1:
        return cmath.log(_unsigned_zero(_fast(expr.args[0], values)))
    function = _FAST_FUNCTIONS.get(expr.func)
    if function is not None and len(expr.args) == 1:
        return complex(function(_unsigned_zero(_fast(expr.args[0], values))))
    raise _NoFastPath(type(expr).__name__)


def fast_value(expr: sympy.Expr, values: Dict) -> Optional[complex]:
    """``expr`` at ``values`` in double precision; None where undefined; evalf when unsupported."""
    try:
        number = _fast(expr, values)
    except _NoFastPath:
        return numeric_value(expr, {k: sympy.Float(v.real, EVAL_DIGITS) for k, v in values.items()})
    except (ZeroDivisionError, OverflowError, ValueError, KeyError, TypeError, RecursionError):
        return None
    if number != number or abs(number) == float('inf'):
        return None
    return number


def relative_error(a: complex, b: complex) -> float:
    scale = max(abs(a), abs(b))
    if scale == 0:
        return 0.0
    return abs(a - b) / scale


def _spot_points(symbols: Sequence[sympy.Symbol], seed: int) -> List[Dict]:
    rng = random.Random(seed)
    return [{s: complex(rng.uniform(0.3, 1.7)) for s in symbols} for _ in range(SPOT_CHECK_POINTS)]


def _seed(symbols: Sequence[sympy.Symbol]) -> int:
    # deterministic across processes (str hashes are salted), so verdicts are reproducible
    total = 0
    for ch in ','.join(s.name for s in symbols):
        total = (total * 131 + ord(ch)) % 2_147_483_647
    return total


def spot_check(reference: sympy.Expr, answer: sympy.Expr) -> Optional[float]:
    """Worst relative error over the random points, or None when too few points are defined.

    Values are computed in double precision; a differing point whose values are both tiny is
    re-evaluated with 30 digits before it counts (it may be a zero lost to round-off).
    Complex values (a square root of a negative number at some point) compare as complex numbers,
    principal branches on both sides.
    """
    symbols = sorted(reference.free_symbols | answer.free_symbols, key=lambda s: s.name)
    worst, valid = 0.0, 0
    for point in _spot_points(symbols, _seed(symbols)):
        a = fast_value(reference, point)
        b = fast_value(answer, point)
        if a is None or b is None:
            continue
        error = relative_error(a, b)
        if error > SPOT_CHECK_RTOL and max(abs(a), abs(b)) < CANCELLATION_SUSPECT:
            exact = {k: sympy.Float(v.real, EVAL_DIGITS) for k, v in point.items()}
            a, b = numeric_value(reference, exact), numeric_value(answer, exact)
            if a is None or b is None:
                continue
            error = relative_error(a, b)
        valid += 1
        worst = max(worst, error)
        if worst > LENIENT_RTOL and valid >= 1:
            return worst  # one clear difference is proof enough
    return worst if valid >= SPOT_CHECK_MIN_VALID else None


def symbolically_equal(reference: sympy.Expr, answer: sympy.Expr, thorough: bool = False) -> bool:
    """A symbolic proof of equality: ``expand`` of the difference for small expressions, and
    with ``thorough`` (when the spot check could not decide) ``simplify``."""
    if reference == answer:
        return True
    try:
        difference = reference - answer
        if difference == 0:
            return True
        if sympy.count_ops(difference) <= SYMBOLIC_PROOF_MAX_OPS and sympy.expand(difference) == 0:
            return True
        if thorough and sympy.simplify(difference) == 0:
            return True
    except Exception:  # SymPy raises many types on odd input; no proof is a safe answer
        return False
    return False


def compare(reference: sympy.Expr, answer: sympy.Expr, *, factor: float = 1.0, offset: float = 0.0,
            tolerance: Optional[float] = None, unit_reason: str = 'no_units') -> Comparison:
    """Strict and lenient verdicts for ``answer`` (in its own unit) against ``reference``.

    ``factor``/``offset`` convert the answer into the reference's unit; ``unit_reason`` is
    :class:`~evalscope_phys.scoring.units.UnitComparison`'s reason and names the verdict when the
    values match (``unit_converted``). A missing unit is accepted by the lenient verdict only.
    """
    result = _compare_values(reference, answer, factor=factor, offset=offset, tolerance=tolerance,
                             unit_reason=unit_reason)
    if unit_reason == 'missing_unit' and result.strict:
        return Comparison(False, True, 'missing_unit', result.relative_error)
    return result


def _compare_values(reference: sympy.Expr, answer: sympy.Expr, *, factor: float, offset: float,
                    tolerance: Optional[float], unit_reason: str) -> Comparison:
    rtol = LENIENT_RTOL if tolerance is None else max(float(tolerance), STRICT_RTOL)
    if _is_container(reference) or _is_container(answer):
        return _compare_containers(reference, answer, factor, offset, tolerance, unit_reason)
    converted = answer if (factor == 1.0 and offset == 0.0) else answer * sympy.Float(factor) + offset
    match_reason = {'unit_converted': 'unit_converted', 'missing_unit': 'missing_unit'}.get(unit_reason)

    if not reference.free_symbols and not converted.free_symbols:
        a, b = numeric_value(reference), numeric_value(converted)
        if a is None or b is None:
            if reference == converted:
                return Comparison(True, True, match_reason or 'equivalent', 0.0)
            return Comparison(False, False, 'not_equivalent')
        error = relative_error(a, b)
        if error <= STRICT_RTOL:
            exact = reference == converted or (reference.is_Rational and converted.is_Rational)
            return Comparison(True, True, match_reason or ('equivalent' if exact else 'numeric_match'), error)
        if error <= rtol:
            return Comparison(False, True, 'within_tolerance', error)
        return Comparison(False, False, 'not_equivalent', error)

    if reference == converted:
        return Comparison(True, True, match_reason or 'equivalent', 0.0)
    error = spot_check(reference, converted)
    if error is None:
        if symbolically_equal(reference, converted, thorough=True):
            return Comparison(True, True, match_reason or 'equivalent', 0.0)
        return Comparison(False, False, 'not_equivalent')
    if error <= SPOT_CHECK_RTOL:
        proven = symbolically_equal(reference, converted)
        return Comparison(True, True, match_reason or ('equivalent' if proven else 'equivalent_numerically'), error)
    if error <= rtol:
        return Comparison(False, True, 'within_tolerance', error)
    return Comparison(False, False, 'not_equivalent', error)


def compare_equations(reference: sympy.Expr, answer: sympy.Expr, *,
                      tolerance: Optional[float] = None) -> Comparison:
    """``reference = 0`` against ``answer = 0``: the same equation when ``reference / answer`` is
    one nonzero constant at every spot-check point (a rearranged, negated or rescaled equation)."""
    rtol = LENIENT_RTOL if tolerance is None else max(float(tolerance), STRICT_RTOL)
    if reference == answer or reference == -answer:
        return Comparison(True, True, 'equivalent', 0.0)
    symbols = sorted(reference.free_symbols | answer.free_symbols, key=lambda s: s.name)
    ratios = []
    for point in _spot_points(symbols, _seed(symbols)):
        a, b = fast_value(reference, point), fast_value(answer, point)
        if a is None or b is None or abs(b) < 1e-12 or abs(a) < 1e-12:
            continue
        ratios.append(a / b)
    if len(ratios) < SPOT_CHECK_MIN_VALID:
        return Comparison(False, False, 'not_equivalent')
    worst = max(relative_error(r, ratios[0]) for r in ratios)
    if worst <= SPOT_CHECK_RTOL:
        return Comparison(True, True, 'equivalent_numerically', worst)
    if worst <= rtol:
        return Comparison(False, True, 'within_tolerance', worst)
    return Comparison(False, False, 'not_equivalent', worst)


def _is_container(expr) -> bool:
    # matrices and tuples arrive as undefined functions Matrix2x2(...) / Tuple(...) (latex.py)
    return isinstance(expr, AppliedUndef) and (expr.func.__name__.startswith('Matrix')
                                               or expr.func.__name__ == 'Tuple')


def _compare_containers(reference, answer, factor, offset, tolerance, unit_reason) -> Comparison:
    if not (_is_container(reference) and _is_container(answer)) or reference.func != answer.func \
            or len(reference.args) != len(answer.args):
        return Comparison(False, False, 'not_equivalent')
    parts = [compare(r, a, factor=factor, offset=offset, tolerance=tolerance, unit_reason=unit_reason)
             for r, a in zip(reference.args, answer.args)]
    strict = all(p.strict for p in parts)
    lenient = all(p.lenient for p in parts)
    if strict:
        reason = next((p.reason for p in parts if p.reason != 'equivalent'), 'equivalent')
    elif lenient:
        reason = 'within_tolerance'
    else:
        reason = 'not_equivalent'
    return Comparison(strict, lenient, reason)


def match_multiple(pairs: Dict[Tuple[int, int], Comparison], n_ref: int, n_ans: int,
                   ordered: bool) -> Tuple[List[Tuple[int, int]], bool, bool]:
    """Assign answers to references; returns (assignment, all strict, all lenient).

    Ordered: reference i against answer i. Unordered: the assignment maximising strict then
    lenient matches (greedy over the comparison table, exact for the small counts we see).
    """
    if n_ref != n_ans:
        return [], False, False
    if ordered:
        assignment = [(i, i) for i in range(n_ref)]
    else:
        assignment, used = [], set()
        ranked = sorted(pairs.items(), key=lambda kv: (not kv[1].strict, not kv[1].lenient,
                                                        kv[1].relative_error if kv[1].relative_error is not None else 1e9))
        taken_ref = set()
        for (i, j), _ in ranked:
            if i in taken_ref or j in used:
                continue
            assignment.append((i, j))
            taken_ref.add(i)
            used.add(j)
        assignment.sort()
    strict = all(pairs[p].strict for p in assignment)
    lenient = all(pairs[p].lenient for p in assignment)
    return assignment, strict, lenient
