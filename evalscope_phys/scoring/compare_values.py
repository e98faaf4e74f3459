"""Two values compared: units converted with pint, then symbolically, numerically or at sample points.

Also what the comparator refuses at the level of expressions (different opaque values, vectors
outside sums and dot products, unknown units) and the EED partial credit of a wrong expression.
"""
from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Optional, Tuple

import sympy

from . import numeric
from .answer import Unit, Value
from .canonical_parser import has_vector
from .latex import LatexError, to_sympy
from .normalize import is_opaque_name, is_vector_name
from .outcome import Options, Outcome, ReferenceUnreadable, STRICT_RTOL, UNDECIDED, accepted, rejected

SYMBOLIC_PROOF_MAX_OPS = 60
"""Matches this small are also proven with ``expand`` (reason ``equivalent``)."""
SIMPLIFY_MAX_OPS = 80
"""``simplify`` is tried only on differences this small, when no sample point is defined."""
EED_MAX_NODES = 1500
"""Trees larger than this get no edit distance (it is cubic): EED 0 with the detail ``too_large_for_eed``."""
EED_SIMPLIFY_MAX_OPS = 400
"""Expressions with more operations enter EED without ``together``."""


@lru_cache(maxsize=8192)
def read_cached(latex: str):
    try:
        return to_sympy(latex), None
    except LatexError as exc:
        return None, exc
    except RecursionError:
        return None, LatexError('too_deep')


def read_expression(latex: str, reference: bool = False) -> sympy.Expr:
    """A reference value's expression; raises :class:`ReferenceUnreadable` (malformed) or
    :class:`LatexError` (meaningful but unsupported)."""
    expr, error = read_cached(latex)
    if expr is not None:
        return expr
    if error.unsupported:
        raise error
    raise ReferenceUnreadable(('too_large: ' if error.too_large else '') + str(error))


def read_expression_safely(latex: str) -> Tuple[Optional[sympy.Expr], str]:
    expr, error = read_cached(latex)
    return expr, '' if error is None else str(error)


def compact(text: str) -> str:
    return re.sub(r'\s+|\\[,;:! ]|\\left|\\right|\\displaystyle', '', text)


def written(value: Value) -> str:
    """A value as its text says it (a unit the dataset gives apart is not part of the text)."""
    return value.latex if value.unit is None or value.unit.apart else value.text


def compare_values(reference: Value, answer: Value, options: Options) -> Outcome:
    """Two values, each with an optional unit: units converted with pint, then :func:`expressions`."""
    if reference.tolerance is not None:
        options = replace(options, tolerance=reference.tolerance)
    try:
        ref_expr = read_expression(reference.latex, reference=True)
    except LatexError as exc:  # a meaningful reference we cannot represent: only the same text matches
        if compact(written(reference)) == compact(written(answer)):
            return accepted('equivalent', 'identical text')
        return rejected(UNDECIDED, exc.reason, eed=None)
    except ReferenceUnreadable:  # a term symbol {}^{3}P_{0}, a matrix: the same text is still the same answer
        if compact(written(reference)) == compact(written(answer)):
            return accepted('equivalent', 'identical text')
        raise
    ans_expr, error = read_cached(answer.latex)
    if ans_expr is not None and answer.unit is not None and answer.unit.plain and ref_expr.free_symbols:
        joined, _ = read_cached(answer.text)  # "4 mg" against a symbolic reference: m times g
        if joined is not None:
            ans_expr, answer = joined, Value(answer.text)
    if reference.unit is not None and reference.unit.plain and ans_expr is not None and ans_expr.free_symbols:
        joined, _ = read_cached(reference.text)
        if joined is not None:
            ref_expr, reference = joined, Value(reference.text)
    if ans_expr is None:
        if compact(written(reference)) == compact(written(answer)) and not error.too_large:
            return accepted('equivalent', 'identical text')
        if error.too_large and error.reason not in ('nul_byte', 'not_text'):
            return rejected('answer_too_large', str(error))
        if error.unsupported:
            return rejected(UNDECIDED, error.reason, eed=0.0)
        return rejected('undefined_value' if error.reason == 'undefined_value' else 'unparseable_answer',
                      str(error)[:120])
    if not vectors_are_polynomial(ref_expr, ans_expr) and compact(reference.latex) == compact(answer.latex):
        return accepted('equivalent', 'identical text')
    conversion = _convert(reference.unit, answer.unit, options)
    if isinstance(conversion, Outcome):
        return conversion
    factor, offset, unit_reason, alternative = conversion
    converted = ans_expr if (factor == 1.0 and offset == 0.0) else ans_expr * sympy.Float(factor) + offset
    outcome = expressions(ref_expr, converted, options, unit_reason)
    if alternative is not None and not outcome.strict:
        other = expressions(ref_expr, ans_expr * sympy.Float(alternative), options, 'unit_converted')
        if (other.strict, other.lenient) > (outcome.strict, outcome.lenient):
            outcome = other
    if unit_reason == 'missing_unit' and outcome.lenient:
        return Outcome(False, True, 'missing_unit', 0.0, 'right number, no unit', outcome.error)
    if unit_reason == 'extra_unit' and outcome.lenient and not ref_expr.free_symbols \
            and not _dimensionless(answer.unit):
        # the reference gives no unit to check the answer's against: the number may be in another one
        return Outcome(False, True, 'extra_unit', outcome.eed, 'a unit the reference does not state', outcome.error)
    return outcome


def _dimensionless(unit: Optional[Unit]) -> bool:
    from .units import parse_unit
    parsed = parse_unit(unit.text) if unit else None
    return parsed is not None and parsed.dimensionless


def _convert(reference_unit: Optional[Unit], answer_unit: Optional[Unit], options: Options):
    """(factor, offset, reason, alternative factor) turning answer values into reference units, or an Outcome."""
    from .units import compare_units, parse_unit
    ref_text = reference_unit.text if reference_unit else options.unit
    apart = reference_unit.apart if reference_unit else bool(options.unit)
    ans_text = answer_unit.text if answer_unit else ''
    if apart and not ans_text and parse_unit(ref_text) is None:
        return 1.0, 0.0, 'no_units', None  # the dataset's own unit label ("energy", \mu_B): a bare number is the form
    for text in (ref_text, ans_text):
        if text and parse_unit(text) is None and compact(ref_text) != compact(ans_text):
            return rejected('unknown_unit', f'unit {text!r} is not one the engine knows', eed=0.0)
    if ref_text and ans_text and compact(ref_text) == compact(ans_text):
        return 1.0, 0.0, 'same_unit', None
    comparison = compare_units(ans_text, ref_text)
    if comparison.reason == 'missing_unit' and apart:
        return 1.0, 0.0, 'no_units', None  # the unit is the question's: a bare number is the expected form
    if comparison.factor is None:
        return rejected('dimension_mismatch', f'{ans_text} is not {ref_text}', eed=0.0)
    return comparison.factor, comparison.offset, comparison.reason, comparison.alternative


def special_symbols(expr: sympy.Expr) -> frozenset:
    return frozenset(s for s in expr.free_symbols if is_opaque_name(s.name))


def _vector_degree(expr) -> int:
    """Highest number of vector factors in one term; raises ValueError where vectors are not polynomial."""
    if expr.is_Symbol:
        return 1 if is_vector_name(expr.name) else 0
    if expr.is_Number or not expr.free_symbols:
        return 0
    if expr.is_Add:
        return max(_vector_degree(a) for a in expr.args)
    if expr.is_Mul:
        return sum(_vector_degree(a) for a in expr.args)
    if expr.is_Pow:
        degree = _vector_degree(expr.base)
        if degree == 0:
            if _vector_degree(expr.exp):
                raise ValueError('vector exponent')
            return 0
        if not (expr.exp.is_Integer and expr.exp > 0):
            raise ValueError('vector in a denominator or a root')
        return degree * int(expr.exp)
    if any(_vector_degree(a) for a in expr.args):
        raise ValueError('vector inside a function')
    return 0


def vectors_are_polynomial(*exprs: sympy.Expr) -> bool:
    """Vectors may be sampled as numbers only in sums of terms with at most two vector factors
    (scaled vectors and dot products); anything else is compared structurally."""
    try:
        return all(_vector_degree(e) <= 2 for e in exprs if has_vector(e))
    except ValueError:
        return False


def expressions(reference: sympy.Expr, answer: sympy.Expr, options: Options, unit_reason: str = 'no_units') -> Outcome:
    """Two SymPy values: equal symbolically, numerically, at every sample point, or within tolerance."""
    matched = {'unit_converted': 'unit_converted'}.get(unit_reason)
    outcome = _expressions(reference, answer, options)
    if outcome.strict and matched and outcome.reason in ('equivalent', 'numeric_match', 'equivalent_numerically'):
        outcome = replace(outcome, reason=matched)
    if not outcome.strict:
        ref_special, ans_special = special_symbols(reference), special_symbols(answer)
        if ref_special != ans_special and outcome.reason != UNDECIDED:
            kinds = sorted({s.name.split(':')[0] for s in ref_special ^ ans_special})
            outcome = replace(outcome, strict=False, lenient=False, reason=UNDECIDED,
                              detail='different values the engine cannot look inside: ' + ', '.join(kinds))
    if not outcome.strict and outcome.reason != UNDECIDED and _equal_if_e_is_euler(reference, answer, options):
        outcome = replace(outcome, lenient=False, reason=UNDECIDED,
                          detail="equal only if the bare e on one side is Euler's number, not the elementary charge")
    if options.eed and outcome.eed is None:
        outcome = replace(outcome, eed=100.0 if outcome.strict else eed_distance(reference, answer, options))
    return outcome


def _has_euler(expr: sympy.Expr) -> bool:
    return expr.has(sympy.E) or bool(expr.atoms(sympy.exp))


def _equal_if_e_is_euler(reference: sympy.Expr, answer: sympy.Expr, options: Options) -> bool:
    """True when the sides differ only in how a bare ``e`` was read (``e^{2}`` against ``\\exp(2)``).

    Why: the rule for ``e`` (a bare ``e`` to a positive integer power is the elementary charge) is a
    convention, not a certainty; when the other side writes Euler's number and reading this ``e`` as
    Euler's would make them equal, the engine cannot tell which was meant and says so (undecided).
    """
    for side, other in ((reference, answer), (answer, reference)):
        charge = [sym for sym in side.free_symbols if sym.name == 'e']
        if charge and _has_euler(other) and not any(sym.name == 'e' for sym in other.free_symbols):
            swapped = side.subs(charge[0], sympy.E)
            pair = (swapped, other) if side is reference else (other, swapped)
            return bool(_expressions(pair[0], pair[1], options).strict)
    return False


def _expressions(reference: sympy.Expr, answer: sympy.Expr, options: Options) -> Outcome:
    rtol = options.rtol
    if not vectors_are_polynomial(reference, answer):  # SymPy's products commute: (a.b)c would equal a(b.c)
        return rejected(UNDECIDED, 'vectors outside sums and dot products', eed=None)
    if reference == answer:
        return accepted('equivalent')
    if not reference.free_symbols and not answer.free_symbols:
        a, b = numeric.exact_value(reference), numeric.exact_value(answer)
        if a is None or b is None:
            return rejected('not_equivalent', 'a value that cannot be evaluated', eed=None)
        error = numeric.relative_error(a, b)
        if error <= STRICT_RTOL:
            exact = reference.is_Rational and answer.is_Rational
            return accepted('equivalent' if exact else 'numeric_match', error=error)
        if error <= rtol:
            return Outcome(False, True, 'within_tolerance', None, '', error)
        return Outcome(False, False, 'not_equivalent', None, '', error)
    sampled = numeric.sample(reference, answer, rtol)
    if sampled is None:
        if _expand_proof(reference, answer) or _simplify_proof(reference, answer):
            return accepted('equivalent')
        return rejected(UNDECIDED, 'no sample point is defined on both sides', eed=None)
    if sampled.worst <= numeric.EQUAL_RTOL:
        proven = _expand_proof(reference, answer)
        return accepted('equivalent' if proven else 'equivalent_numerically', error=sampled.worst)
    if sampled.worst <= rtol:
        return Outcome(False, True, 'within_tolerance', None, '', sampled.worst)
    return Outcome(False, False, 'not_equivalent', None, '', sampled.worst)


def _expand_proof(reference: sympy.Expr, answer: sympy.Expr) -> bool:
    try:
        difference = reference - answer
        if difference == 0:
            return True
        return sympy.count_ops(difference) <= SYMBOLIC_PROOF_MAX_OPS and sympy.expand(difference) == 0
    except Exception:  # SymPy raises many types on odd input; no proof is a safe answer
        return False


def _simplify_proof(reference: sympy.Expr, answer: sympy.Expr) -> bool:
    try:
        difference = reference - answer
        return sympy.count_ops(difference) <= SIMPLIFY_MAX_OPS and sympy.simplify(difference) == 0
    except Exception:
        return False


@lru_cache(maxsize=4096)
def _eed_form(expr: sympy.Expr) -> sympy.Expr:
    """The tree EED compares: ``together`` (one fraction), not the official full ``simplify``.

    The official scorer runs ``simplify`` (0.1-100 s per answer); ``together`` gives the official
    trees on most answers at a fraction of the cost (see the EED trade-off figures in docs/scoring.md).
    """
    try:
        if sympy.count_ops(expr) > EED_SIMPLIFY_MAX_OPS:
            return expr
        return sympy.together(expr)
    except Exception:
        return expr


def eed_distance(reference: sympy.Expr, answer: sympy.Expr, options: Options) -> Optional[float]:
    if not options.eed:
        return None
    from .eed import eed_score
    from .tree import expression_tree
    ref, ans = _eed_form(reference), _eed_form(answer)
    if expression_tree(ref).size() > EED_MAX_NODES or expression_tree(ans).size() > EED_MAX_NODES:
        return 0.0
    return float(eed_score(ref, ans).score)
