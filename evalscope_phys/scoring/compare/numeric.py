"""Numeric checks that can tell functions apart: sampling two expressions at many points.

Why not a few points in [0.3, 1.7] (the old check): ``|y-3|`` and ``3-y``, ``\\max(y, 3)`` and ``3``
agree there. Here every symbol is sampled log-uniformly over four decades (1e-2..1e2), plus points
just below and above every constant the expressions contain, and every point is evaluated (the
early exit uses the caller's tolerance). The points come from one fixed seed, so the verdict does not
depend on symbol names, on the worker, or on what it scored before.

A point counts when both sides are finite there; where both are complex (outside the physical
domain, e.g. ``\\sqrt{1 - v^2/c^2}`` with ``v > c``) the principal branches may legitimately differ
between equivalent forms, so such points are skipped rather than counted as a difference. A point
that seems to differ by no more than its rounding could explain (its terms' magnitudes, tracked while
evaluating) is re-evaluated with 30 digits before it counts: ``\\cosh^2 x - \\sinh^2 x`` at x = 100 is
1, not the 1e70 of noise doubles give. Points where only one side can be evaluated are counted: when
they are many (:data:`ONE_SIDED_FACTOR`) the sample is too thin to call the two equal, and the check
is undecided rather than an accidental match.
"""
from __future__ import annotations

import cmath
import math
import random
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import sympy

SEED = 20261201
"""The one seed every point set is drawn from."""
RANDOM_POINTS = 10
"""Log-uniform random points per comparison."""
LOG_RANGE = (-2.0, 2.0)
"""Decades the random points span (1e-2 .. 1e2)."""
NARROW_POINTS = 6
"""Points in [0.5, 2] tried when too few wide points are defined (exponentials of products overflow)."""
CONSTANT_OFFSETS = (0.9, 1.1)
"""Points at these multiples of each constant (every symbol near it), on both sides of it."""
MAX_CONSTANTS = 6
"""Constants bracketed per comparison (the smallest and largest first)."""
MIN_VALID_POINTS = 4
"""Points that must be defined on both sides for the check to count."""
ONE_SIDED_FACTOR = 2
"""Points defined on both sides must outnumber those defined on one side only this many times over, or the
check is undecided: ``\\sin x + \\sin^{40}(x^{40})`` cannot be evaluated exactly where it differs from ``\\sin x``
(the narrow points are then tried too)."""
EQUAL_RTOL = 1e-9
"""Agreement at every point closer than this counts as equivalence."""
EVAL_DIGITS = 30
"""Working precision of the re-evaluation of a point that seems to differ."""
DOUBLE_EPSILON = 2.2e-16
ROUNDING_MARGIN = 1e4
"""A differing point whose error is within this many ulps of its rounding scale is re-evaluated exactly."""
COMPLEX_TOL = 1e-12
"""Imaginary parts below this (relative) are round-off: the value is real."""


@dataclass(frozen=True)
class Sampled:
    """The outcome of sampling: the worst relative error over the valid points, and how many there were."""

    worst: float
    valid: int


def _fast_functions():
    return {
        sympy.sin: cmath.sin, sympy.cos: cmath.cos, sympy.tan: cmath.tan, sympy.exp: cmath.exp,
        sympy.sinh: cmath.sinh, sympy.cosh: cmath.cosh, sympy.tanh: cmath.tanh,
        sympy.asin: cmath.asin, sympy.acos: cmath.acos, sympy.atan: cmath.atan,
        sympy.asinh: cmath.asinh, sympy.acosh: cmath.acosh, sympy.atanh: cmath.atanh,
        sympy.Abs: abs,
        sympy.cot: lambda z: 1 / cmath.tan(z), sympy.sec: lambda z: 1 / cmath.cos(z),
        sympy.csc: lambda z: 1 / cmath.sin(z), sympy.acot: lambda z: cmath.atan(1 / z),
        sympy.asec: lambda z: cmath.acos(1 / z), sympy.acsc: lambda z: cmath.asin(1 / z),
    }


_FAST = _fast_functions()


class _NoFastPath(Exception):
    pass


def _unsigned_zero(z: complex) -> complex:
    # -0.0 imaginary parts would put a negative number on the other side of the branch cut
    return complex(z.real, 0.0) if z.imag == 0 else z


_GROWING = frozenset({sympy.exp, sympy.sinh, sympy.cosh})


def _fast(expr, values: Dict) -> Tuple[complex, float]:
    """(double-precision value, rounding scale) of ``expr`` by walking its tree (no code generation).

    The scale bounds the magnitudes that went into the value: a sum whose terms reach 1e20 but whose
    value is 1 has scale 1e20, so its double-precision value is only good to about 1e20 * 1e-16.
    """
    if expr.is_Symbol:
        v = values[expr]
        return v, abs(v)
    if expr.is_Number:
        v = complex(float(expr))
        return v, abs(v)
    if expr is sympy.pi:
        return complex(math.pi), math.pi
    if expr is sympy.E:
        return complex(math.e), math.e
    if expr.is_Add:
        total, scale = 0j, 0.0
        for a in expr.args:
            v, sa = _fast(a, values)
            total += v
            scale += sa
        return total, scale
    if expr.is_Mul:
        out, scale = 1 + 0j, 1.0
        for a in expr.args:
            v, sa = _fast(a, values)
            out *= v
            scale *= sa
        return out, scale
    if expr.is_Pow:
        base, exponent = expr.args
        b, sb = _fast(base, values)
        condition = sb / abs(b) if b else float('inf')
        if exponent.is_Integer and abs(int(exponent)) < 10_000:
            n = int(exponent)
            v = b ** n
            return v, abs(v) * condition ** abs(n) if condition != float('inf') else float('inf')
        b = _unsigned_zero(b)
        if exponent == sympy.S.Half:
            v = cmath.sqrt(b)
        else:
            e, se = _fast(exponent, values)
            v = b ** e
            condition = max(condition * abs(e), se * abs(cmath.log(b)) if b else 0.0, 1.0)
            return v, abs(v) * condition
        return v, abs(v) * max(1.0, condition)
    if isinstance(expr, sympy.log) and len(expr.args) == 1:
        a, sa = _fast(expr.args[0], values)
        v = cmath.log(_unsigned_zero(a))
        return v, max(abs(v), sa / abs(a) if a else float('inf'))
    if isinstance(expr, (sympy.Max, sympy.Min)):
        pairs = [_fast(a, values) for a in expr.args]
        if any(abs(a.imag) > COMPLEX_TOL * (1 + abs(a)) for a, _ in pairs):
            raise ValueError('complex max/min')
        pick = max if isinstance(expr, sympy.Max) else min
        return complex(pick(a.real for a, _ in pairs)), max(sa for _, sa in pairs)
    function = _FAST.get(expr.func)
    if function is not None and len(expr.args) == 1:
        a, sa = _fast(expr.args[0], values)
        v = complex(function(_unsigned_zero(a)))
        if expr.func in _GROWING:
            return v, abs(v) * max(1.0, sa)
        if expr.func is sympy.Abs:
            return v, sa
        return v, max(abs(v), sa) * (1.0 + abs(v) ** 2)
    raise _NoFastPath(type(expr).__name__)


def exact_value(expr: sympy.Expr, values: Optional[Dict] = None) -> Optional[complex]:
    """``expr`` (at ``values``) with 30 digits, or None where it is undefined."""
    try:
        subs = {k: sympy.Float(v.real, EVAL_DIGITS) for k, v in values.items()} if values else None
        value = expr.evalf(EVAL_DIGITS, subs=subs) if subs else expr.evalf(EVAL_DIGITS)
        if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            return None
        number = complex(value)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, RecursionError,
            AttributeError, NotImplementedError, ArithmeticError):
        return None
    return _finite(number)


def fast_value(expr: sympy.Expr, values: Dict) -> Optional[complex]:
    """``expr`` at ``values`` in double precision; None where undefined; 30 digits when unsupported."""
    found = _fast_with_scale(expr, values)
    return None if found is None else found[0]


def _fast_with_scale(expr: sympy.Expr, values: Dict) -> Optional[Tuple[complex, float]]:
    try:
        number, scale = _fast(expr, values)
    except _NoFastPath:
        exact = exact_value(expr, values)
        return None if exact is None else (exact, 0.0)  # exact: no rounding to fear
    except (ZeroDivisionError, OverflowError, ValueError, KeyError, TypeError, RecursionError, ArithmeticError):
        return None
    if _finite(number) is None or scale != scale:
        return None
    return number, scale


def _finite(number: complex) -> Optional[complex]:
    if number != number or abs(number) == float('inf'):
        return None
    return number


def relative_error(a: complex, b: complex) -> float:
    scale = max(abs(a), abs(b))
    if scale == 0:
        return 0.0
    return abs(a - b) / scale


def _is_complex(z: complex) -> bool:
    return abs(z.imag) > COMPLEX_TOL * max(1.0, abs(z.real))


def constants_of(*exprs: sympy.Expr) -> List[float]:
    """Positive numeric constants the expressions contain (``3`` in ``|y - 3|``), smallest and largest first."""
    found = set()
    for expr in exprs:
        for atom in expr.atoms(sympy.Number):
            try:
                value = abs(float(atom))
            except (TypeError, ValueError, OverflowError):
                continue
            if 1e-6 < value < 1e6 and value != 1.0:
                found.add(value)
    ordered = sorted(found)
    picked: List[float] = []
    while ordered and len(picked) < MAX_CONSTANTS:
        picked.append(ordered.pop(0))
        if ordered:
            picked.append(ordered.pop())
    return picked


def sample_points(symbols: Sequence[sympy.Symbol], constants: Sequence[float]) -> List[Dict]:
    """The points to compare at: log-uniform random ones, then both sides of every constant."""
    rng = random.Random(SEED)
    low, high = LOG_RANGE
    points = [{s: complex(10 ** rng.uniform(low, high)) for s in symbols} for _ in range(RANDOM_POINTS)]
    for constant in constants:
        for factor in CONSTANT_OFFSETS:
            points.append({s: complex(constant * factor * rng.uniform(0.97, 1.03)) for s in symbols})
    return points


def narrow_points(symbols: Sequence[sympy.Symbol]) -> List[Dict]:
    rng = random.Random(SEED + 1)
    return [{s: complex(rng.uniform(0.5, 2.0)) for s in symbols} for _ in range(NARROW_POINTS)]


def sample(reference: sympy.Expr, answer: sympy.Expr, rtol: float) -> Optional[Sampled]:
    """Worst relative error between two expressions over the sample points; None when too few are defined.

    Stops as soon as one point differs by more than ``rtol`` (the caller's lenient tolerance):
    nothing after it can change either verdict.
    """
    symbols = sorted(reference.free_symbols | answer.free_symbols, key=lambda s: s.name)
    worst, valid, one_sided = 0.0, 0, 0
    point_sets = (sample_points(symbols, constants_of(reference, answer)), narrow_points(symbols))
    for index, points in enumerate(point_sets):
        if index == 1 and valid >= MIN_VALID_POINTS and not one_sided:
            break
        for point in points:
            fa, fb = _fast_with_scale(reference, point), _fast_with_scale(answer, point)
            if fa is None or fb is None:
                one_sided += (fa is None) != (fb is None)
                continue
            (a, scale_a), (b, scale_b) = fa, fb
            if _is_complex(a) and _is_complex(b):
                continue
            error = relative_error(a, b)
            rounding = ROUNDING_MARGIN * DOUBLE_EPSILON * max(scale_a, scale_b) / max(abs(a), abs(b), 1e-300)
            if EQUAL_RTOL < error <= max(rounding, EQUAL_RTOL * 10):  # maybe round-off: 30 digits decide
                a, b = exact_value(reference, point), exact_value(answer, point)
                if a is None or b is None or (_is_complex(a) and _is_complex(b)):
                    continue
                error = relative_error(a, b)
            valid += 1
            worst = max(worst, error)
            if worst > rtol:
                return Sampled(worst, valid)
    if one_sided and valid < ONE_SIDED_FACTOR * one_sided:
        return None  # where they differ, one side cannot be evaluated: agreement elsewhere proves nothing
    return Sampled(worst, valid) if valid >= MIN_VALID_POINTS else None


def proportional(reference: sympy.Expr, answer: sympy.Expr, positive: bool,
                 rtol: Optional[float] = None) -> Optional[Sampled]:
    """Is ``reference / answer`` one nonzero constant at every point (``positive``: a positive one)?

    Two equations ``f = 0`` and ``g = 0`` are the same when ``f = c g``; two inequalities ``f > 0``
    and ``g > 0`` when ``c > 0``. Returns the worst relative spread of the ratio (inf when the sign
    is wrong), or None when too few points are defined.

    ``rtol`` is the largest spread the caller accepts: once enough points are defined (so the answer
    cannot be None) and the spread exceeds it, the other points are not evaluated -- most relations
    compared differ, and the spread found is then a lower bound that already decides every verdict.
    """
    symbols = sorted(reference.free_symbols | answer.free_symbols, key=lambda s: s.name)
    ratios: List[complex] = []
    worst = 0.0
    for points in (sample_points(symbols, constants_of(reference, answer)), narrow_points(symbols)):
        for point in points:
            a, b = fast_value(reference, point), fast_value(answer, point)
            if a is None or b is None or _is_complex(a) or _is_complex(b) or abs(a) < 1e-12 or abs(b) < 1e-12:
                continue
            ratios.append(a / b)
            worst = max(worst, relative_error(ratios[-1], ratios[0]))
            if rtol is not None and len(ratios) >= MIN_VALID_POINTS and \
                    (worst > rtol or (positive and ratios[0].real <= 0)):
                return Sampled(float('inf') if positive and ratios[0].real <= 0 else worst, len(ratios))
        if len(ratios) >= MIN_VALID_POINTS:
            break
    if len(ratios) < MIN_VALID_POINTS:
        return None
    if positive and ratios[0].real <= 0:
        worst = float('inf')
    return Sampled(worst, len(ratios))
