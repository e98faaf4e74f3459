"""Two values compared once more with what the problem gives: its definitions, its numbers, constants.

Why apart from :mod:`.compare_values`: these are the only comparisons that read the question, and each
is a second chance after the plain comparison failed, with its own refusals (:mod:`.definitions`,
:mod:`.problem_values`). They never turn a plain strict verdict into anything else.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

import sympy

from ..answer import Value
from .conventions import lorentz, thermal, wave_number
from .values import expressions, special_symbols
from ..read.definitions import substituted, unresolved_conflict
from .outcome import Options, Outcome, STRICT_RTOL, UNDECIDED, accepted, rejected
from .problem_values import missing_values, value_in
from .question_spelling import respelt
from .rounding import round_to, stated_number


def with_definitions(reference: sympy.Expr, answer: sympy.Expr, options: Options, unit_reason: str,
                     outcome: Outcome) -> Outcome:
    """``outcome`` improved by substituting the problem's and the answer's definitions (or the thermal
    convention, :mod:`.conventions`), or undecided when a name defined twice keeps the sides apart."""
    givens = options.givens
    if outcome.strict or outcome.reason == UNDECIDED:
        return outcome
    for pair, how in ((substituted(reference, answer, givens) if givens is not None else None, 'as defined'),
                      (thermal(reference, answer, givens), 'by the thermal convention (beta = 1/kT, tau = kT)'),
                      (lorentz(reference, answer, givens), 'as the Lorentz factor 1/sqrt(1 - beta^2)'),
                      (wave_number(reference, answer, givens), 'as the wave number 2 pi/lambda'),
                      (respelt(reference, answer, givens), 'as the question spells it')):
        if pair is None:
            continue
        again = expressions(pair[0], pair[1], options, unit_reason)
        if (again.strict, again.lenient) > (outcome.strict, outcome.lenient):
            return replace(again, detail=(again.detail + '; ' if again.detail else '') +
                           'once ' + ', '.join(pair[2]) + ' is substituted ' + how)
    conflict = unresolved_conflict(reference, answer, givens) if givens is not None else None
    if conflict is not None:
        return rejected(UNDECIDED, f'{conflict} is defined twice; which one applies is for the judge', eed=outcome.eed)
    return outcome


def with_problem_values(reference: Value, ref_expr: sympy.Expr, answer: Value, ans_expr: sympy.Expr,
                        options: Options) -> Optional[Outcome]:
    """A number against a formula (either way round), the formula evaluated with the problem's values;
    None when the pair is not one number and one formula or no question was given."""
    givens = options.givens
    if givens is None or not givens.question:
        return None
    ref_free, ans_free = bool(ref_expr.free_symbols), bool(ans_expr.free_symbols)
    if ref_free == ans_free:
        return None
    number, number_expr, formula, formula_expr = (answer, ans_expr, reference, ref_expr) if ref_free \
        else (reference, ref_expr, answer, ans_expr)
    if formula.unit is not None or special_symbols(formula_expr):
        return None  # "4 mg" with a unit of its own, or opaque values: not a formula to evaluate here
    if formula is answer and formula_expr.is_Symbol:
        return None  # "r" for the radius the question gives: a restatement, not an answer
    from .units import parse_unit
    unit = parse_unit(number.unit.text) if number.unit is not None else None
    if number.unit is not None and unit is None:
        return rejected('unknown_unit', f'unit {number.unit.text!r} is not one the engine knows', eed=0.0)
    try:
        target = float(number_expr)
    except (TypeError, ValueError):
        return None
    missing = missing_values(formula_expr, givens)
    if missing and not all(givens.mentions(name) for name in missing):
        return None  # symbols the question never writes ("and", a unit read as letters): compare as before
    value, why = value_in(formula_expr, givens, unit)
    if value is None:
        return rejected(UNDECIDED, f'a formula for a number: {why}', eed=None)
    detail = 'the formula evaluated with the values the problem gives'
    error = abs(value - target) / max(abs(target), 1e-300)
    if error <= STRICT_RTOL or _rounds_to(value, number.latex):
        return accepted('numeric_match', detail, error=error)
    if error <= options.rtol:
        return Outcome(False, True, 'within_tolerance', 0.0, detail, error)
    return Outcome(False, False, 'not_equivalent', 0.0, detail, error)


def _rounds_to(value: float, written: str) -> bool:
    """The computed value rounds to the number as written, which states at least two figures."""
    stated = stated_number(written)
    if stated is None or stated[1] < 2:
        return False
    from decimal import Decimal, InvalidOperation
    try:
        return round_to(Decimal(repr(value)), stated[1]) == stated[0]
    except (InvalidOperation, ValueError):
        return False
