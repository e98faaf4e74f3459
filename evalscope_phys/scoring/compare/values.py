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
from .aliases import with_aliases
from .conventions import problem_names
from ..answer import Unit, Value
from ..read.canonical_parser import has_vector
from ..read.latex import LatexError, read_latex
from ..read.normalize import VECTOR, is_opaque_name, is_vector_name
from ..read.notation import compact
from .outcome import Options, Outcome, ReferenceUnreadable, STRICT_RTOL, UNDECIDED, accepted, rejected
from .pending_eed import PendingEed
from .rounding import agreement, stated_number
from .signed import compare_bars

SYMBOLIC_PROOF_MAX_OPS = 60
"""Matches this small are also proven with ``expand`` (reason ``equivalent``)."""
SIMPLIFY_MAX_OPS = 80
"""``simplify`` is tried only on differences this small, when no sample point is defined."""
EED_MAX_NODES = 1500
"""Trees larger than this get no edit distance (it is cubic): EED 0 with the detail ``too_large_for_eed``."""
EED_SIMPLIFY_MAX_OPS = 400
"""Expressions with more operations enter EED without ``together``."""


def read_expression(latex: str, reference: bool = False) -> sympy.Expr:
    """A reference value's expression; raises :class:`ReferenceUnreadable` (malformed) or
    :class:`LatexError` (meaningful but unsupported)."""
    expr, error = read_latex(latex)
    if expr is not None:
        return expr
    if error.unsupported:
        raise error
    raise ReferenceUnreadable(('too_large: ' if error.too_large else '') + str(error))


def read_expression_safely(latex: str) -> Tuple[Optional[sympy.Expr], str]:
    expr, error = read_latex(latex)
    return expr, '' if error is None else str(error)


def written(value: Value) -> str:
    """A value as its text says it (a unit the dataset gives apart is not part of the text)."""
    return value.latex if value.unit is None or value.unit.apart else value.text


def compare_values(reference: Value, answer: Value, options: Options) -> Outcome:
    """Two values, each with an optional unit: units converted with pint, then :func:`expressions`;
    failing that, once more with aliased symbols spelt alike (:mod:`.aliases`)."""
    outcome = _compare_values(reference, answer, options)
    if outcome.strict or outcome.reason in ('answer_too_large', 'dimension_mismatch'):
        return outcome
    aliased = with_aliases(reference.latex, answer.latex, options.givens.question_text if options.givens else '')
    if aliased is None:
        return outcome
    again = _compare_values(replace(reference, latex=aliased[0]), replace(answer, latex=aliased[1]), options)
    return again if (again.strict, again.lenient) > (outcome.strict, outcome.lenient) else outcome


def _compare_values(reference: Value, answer: Value, options: Options) -> Outcome:
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
    ans_expr, error = read_latex(answer.latex)
    if ans_expr is not None and options.givens is not None and options.givens.question:
        by_values = _by_problem_values(reference, ref_expr, answer, ans_expr, options)
        if by_values is not None:
            return by_values
    if ans_expr is not None and answer.unit is not None and answer.unit.plain and ref_expr.free_symbols:
        joined, _ = read_latex(answer.text)  # "4 mg" against a symbolic reference: m times g
        if joined is not None:
            ans_expr, answer = joined, Value(answer.text)
    if reference.unit is not None and reference.unit.plain and ans_expr is not None and ans_expr.free_symbols:
        joined, _ = read_latex(reference.text)
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
    in_light_speed = _in_units_of_c(reference, ref_expr, answer, ans_expr)
    if in_light_speed is not None:
        ans_expr, answer = in_light_speed
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
            unit_reason = 'unit_converted' if other.strict else unit_reason  # 0.6 for 60 %: a pure number
    if not outcome.strict and options.tolerance is None:
        outcome = _as_rounded(reference, answer, ref_expr, ans_expr, converted, outcome)
        if not outcome.strict and alternative is not None:  # 0.1573 for 16 %: the number as a percentage
            other = _as_rounded(reference, answer, ref_expr, ans_expr, ans_expr * sympy.Float(alternative), outcome)
            if other.strict:
                outcome, unit_reason = other, 'unit_converted'
    texts = reference.latex + ' ' + answer.latex
    if not outcome.strict and (options.givens is not None or _THERMAL_RE.search(texts)):
        from .givens import with_definitions
        outcome = with_definitions(ref_expr, converted, options, unit_reason, outcome)
    if not outcome.strict and outcome.reason != 'dimension_mismatch' and _may_write_constants(texts):
        outcome = _in_natural_units(ref_expr, converted, reference.unit is not None or answer.unit is not None,
                                    options, unit_reason, outcome)
    if not outcome.strict and options.givens is not None:
        from .renamed import renamed
        outcome = renamed(ref_expr, converted, options, outcome)
    if unit_reason == 'missing_unit' and outcome.lenient:
        return Outcome(False, True, 'missing_unit', 0.0, 'right number, no unit', outcome.error)
    if unit_reason == 'extra_unit' and outcome.lenient and not ref_expr.free_symbols \
            and not _dimensionless(answer.unit):
        # the reference gives no unit to check the answer's against: the number may be in another one
        if outcome.strict and _in_offered_unit(ref_expr, answer.unit, options):
            return replace(outcome, detail='in the unit of the choices the question offers')
        return Outcome(False, True, 'extra_unit', outcome.eed, 'a unit the reference does not state', outcome.error)
    return outcome


def _as_rounded(reference: Value, answer: Value, ref_expr: sympy.Expr, ans_expr: sympy.Expr, converted: sympy.Expr,
                outcome: Outcome) -> Outcome:
    """A number that agrees with the reference to the digits it states (:mod:`.rounding`): a written decimal,
    or an exact value (``\\frac{512}{729}`` for ``0.702``); the reverse (``0.14`` for ``\\frac{1}{7}``) is lenient."""
    if ref_expr.free_symbols or converted.free_symbols or outcome.reason in (UNDECIDED, 'dimension_mismatch'):
        return outcome
    try:
        value = float(converted)
    except (TypeError, ValueError, OverflowError):
        return outcome
    how = agreement(reference.latex, answer.latex, value, answer_exact=_is_exact(ans_expr),
                    measured=reference.unit is not None and not reference.unit.apart,
                    exact_reference=_exact_decimal(ref_expr))
    if how == 'strict':
        # the edit distance stays the official one's (9.81 against 9.8 scores EED 0 there): EED measures
        # expression distance, not rounding
        return replace(accepted('numeric_match', "agrees to the digits the reference states", error=outcome.error),
                       eed=outcome.eed)
    if how == 'lenient' and not outcome.lenient:
        return Outcome(False, True, 'within_tolerance', outcome.eed, 'the same number at the fewer digits stated',
                       outcome.error)
    return outcome


EXACT_MAX_OPS = 40
"""Exact values larger than this are not evaluated for rounding (cost)."""


def _is_exact(expr: sympy.Expr) -> bool:
    """A value written without decimals (``\\frac{512}{729}``, ``96\\sqrt{2}``, ``\\pi/6``): it states every figure."""
    return not expr.free_symbols and not expr.atoms(sympy.Float) and not expr.is_Integer \
        and sympy.count_ops(expr) <= EXACT_MAX_OPS and expr.is_real is True


def _exact_decimal(expr: sympy.Expr):
    """The value of an exact reference (``\\frac{1}{7}``) as a Decimal of 20 figures, else None."""
    if not _is_exact(expr):
        return None
    from decimal import Decimal, InvalidOperation
    try:
        return Decimal(str(sympy.N(expr, 20)))
    except (InvalidOperation, TypeError, ValueError):
        return None


_THERMAL_RE = re.compile(r'\\(?:beta|tau)(?![A-Za-z])')
_COMMAND_RE = re.compile(r'\\[A-Za-z]+')
"""Cheap gates on the text: the thermal and natural-unit readings cost a walk of both expressions."""


def _may_write_constants(text: str) -> bool:
    """Whether ``c`` or ``\\hbar`` may occur (a ``c`` outside command names: ``mc^2``, not ``\\frac``)."""
    return '\\hbar' in text or 'c' in _COMMAND_RE.sub(' ', text)


def _in_natural_units(ref_expr: sympy.Expr, ans_expr: sympy.Expr, has_units: bool, options: Options,
                      unit_reason: str, outcome: Outcome) -> Outcome:
    """``outcome``, or the comparison with ``c = \\hbar = 1`` where :mod:`.natural_units` allows it."""
    from .natural_units import in_natural_units
    pair = in_natural_units(ref_expr, ans_expr, has_units, options.givens)
    if pair is None:
        return outcome
    again = expressions(pair[0], pair[1], options, unit_reason)
    if (again.strict, again.lenient) > (outcome.strict, outcome.lenient):
        return replace(again, detail='in natural units (c = hbar = 1)')
    return outcome


def _by_problem_values(reference: Value, ref_expr: sympy.Expr, answer: Value, ans_expr: sympy.Expr,
                       options: Options) -> Optional[Outcome]:
    """A number against a formula, the formula evaluated with the problem's values (:mod:`.compare_givens`);
    None to compare as before. A unit written as a bare word (``2.14 eV``, ``4 mg``) may be symbols: then
    only an agreement is taken."""
    if _in_units_of_c(reference, ref_expr, answer, ans_expr) is not None:
        return None
    from .natural_units import in_natural_units
    if _may_write_constants(reference.latex + ' ' + answer.latex) and \
            in_natural_units(ref_expr, ans_expr, reference.unit is not None or answer.unit is not None, options.givens):
        return None  # 0.95 c for 0.955 "in units of c": natural units decide, below
    from .givens import with_problem_values
    outcome = with_problem_values(reference, ref_expr, answer, ans_expr, options)
    plain = any(v.unit is not None and v.unit.plain for v in (reference, answer))
    return None if outcome is None or (plain and not outcome.lenient) else outcome


def _in_units_of_c(reference: Value, ref_expr: sympy.Expr, answer: Value, ans_expr: sympy.Expr):
    """``v = \\frac{2\\sqrt2}{5}c`` against ``1.7\\times10^{10}\\,\\text{cm/s}``: the answer's number of
    light speeds in the reference's unit, as ``(expression, Value)``, or None.

    Only when the reference is a bare number with a unit pint converts light speed into and the
    answer's one symbol is ``c`` with no unit of its own: then ``c`` can only be the speed of light.
    """
    if ref_expr.free_symbols or reference.unit is None or answer.unit is not None \
            or {s.name for s in ans_expr.free_symbols} != {'c'}:
        return None
    from .units import parse_unit, registry
    unit = parse_unit(reference.unit.text)
    if unit is None:
        return None
    try:
        light = float(registry().Quantity(1.0, 'speed_of_light').to(unit).magnitude)
        value = ans_expr.subs(next(iter(ans_expr.free_symbols)), sympy.Float(light))
    except Exception:  # other dimensions: c is not a speed here
        return None
    if value.free_symbols:
        return None
    stated = stated_number(re.sub(r'\\[,;!]|\\cdot|\\times|\s', '', answer.latex)[:-1]) \
        if answer.latex.rstrip().endswith('c') else None
    digits = f'{float(value):.{stated[1] - 1}e}' if stated else repr(float(value))  # 0.6c states one figure
    return value, Value(digits, reference.unit)


def _in_offered_unit(ref_expr: sympy.Expr, unit: Unit, options: Options) -> bool:
    """Whether the answer's unit is the one the question's list of choices gives the reference's value in."""
    if options.givens is None or not options.givens.question:
        return False
    from .choices import is_offered_unit
    try:
        value = float(ref_expr)
    except (TypeError, ValueError, OverflowError):
        return False
    return is_offered_unit(options.givens.question_text, value, unit.text)


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
        per_mole = _for_one_mole(ans_text, ref_text, options)
        if per_mole is not None:
            return per_mole, 0.0, 'unit_converted', None
        return rejected('dimension_mismatch', f'{ans_text} is not {ref_text}', eed=0.0)
    return comparison.factor, comparison.offset, comparison.reason, comparison.alternative


_ONE_MOLE_RE = re.compile(r'\b(?:1|one|a)\s+mol(?:e|es)?\s+of\b', re.IGNORECASE)
_SEVERAL_MOLES_RE = re.compile(r'\b(?:\d*\.\d+|[02-9]\d*|1\d+|two|three|four|five|ten|several|n)\s+mol(?:e|es)?\b', re.IGNORECASE)


def _for_one_mole(ans_text: str, ref_text: str, options: Options) -> Optional[float]:
    """The factor for a molar quantity against the total for the one mole the question names
    (``22.0 J/(mol K)`` for ``5.26 cal/K`` when "1 mole of ice is melted"), the reverse too; else None."""
    if options.givens is None or not options.givens.question:
        return None
    question = options.givens.question_text
    if not _ONE_MOLE_RE.search(question) or _SEVERAL_MOLES_RE.search(question):
        return None
    from .units import molar_factor
    return molar_factor(ans_text, ref_text)


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
    signed = compare_bars(reference, answer, options, lambda r, a, o: expressions(r, a, o, unit_reason))
    if signed is not None:
        return signed
    outcome = _expressions(reference, answer, options)
    if outcome.strict and matched and outcome.reason in ('equivalent', 'numeric_match', 'equivalent_numerically'):
        outcome = replace(outcome, reason=matched)
    if not outcome.strict:
        ref_special, ans_special = special_symbols(reference), special_symbols(answer)
        if ref_special != ans_special and outcome.reason != UNDECIDED:
            kinds = sorted({s.name.split(':')[0] for s in ref_special ^ ans_special})
            outcome = replace(outcome, strict=False, lenient=False, reason=UNDECIDED,
                              detail='different values the engine cannot look inside: ' + ', '.join(kinds))
    if not outcome.strict and outcome.reason != UNDECIDED and _direction_on_one_side(reference, answer, options):
        outcome = replace(outcome, lenient=False, reason=UNDECIDED,
                          detail='the same magnitude, a direction on one side only')
    if not outcome.strict and outcome.reason != UNDECIDED and _azimuth_renamed(reference, answer, options):
        outcome = replace(outcome, lenient=False, reason=UNDECIDED,
                          detail='the same vector along e_theta on one side and e_phi on the other')
    if not outcome.strict and outcome.reason != UNDECIDED:
        convention = _equal_by_convention(reference, answer, options)
        if convention is not None:
            outcome = convention
    if not outcome.strict and outcome.reason != UNDECIDED and _equal_if_e_is_euler(reference, answer, options):
        outcome = replace(outcome, lenient=False, reason=UNDECIDED,
                          detail="equal only if the bare e on one side is Euler's number, not the elementary charge")
    if outcome.eed is None:
        outcome = replace(outcome, eed=100.0 if outcome.strict else PendingEed(reference, answer))
    return outcome


def _unit_vectors(expr: sympy.Expr) -> frozenset:
    return frozenset(s for s in expr.free_symbols if s.name.startswith(VECTOR + 'e_'))


def _direction_on_one_side(reference: sympy.Expr, answer: sympy.Expr, options: Options) -> bool:
    """``X e_z`` against ``X``: one side states a direction the other leaves out. Whether the plain side
    means the magnitude of that vector is the judge's call; a different magnitude stays wrong."""
    ref_units, ans_units = _unit_vectors(reference), _unit_vectors(answer)
    units = ref_units | ans_units
    if bool(ref_units) == bool(ans_units) or len(units) != 1:
        return False
    (unit,) = tuple(units)
    directed, plain = (reference, answer) if ref_units else (answer, reference)
    magnitude, direction = directed.as_independent(unit, as_Add=False)
    if direction != unit or has_vector(magnitude) or has_vector(plain):
        return False
    pair = (magnitude, plain) if ref_units else (plain, magnitude)  # the reference first
    return _expressions(*pair, options).strict


_AZIMUTH = frozenset({VECTOR + 'e_theta', VECTOR + 'e_phi'})  # the reader spells vartheta theta, varphi phi


def _azimuth_renamed(reference: sympy.Expr, answer: sympy.Expr, options: Options) -> bool:
    """Cylindrical coordinates name the azimuth theta in some books and phi in others: one vector along
    e_theta against the same along e_phi may be right or wrong (spherical theta is not phi): the judge's call."""
    ref_units, ans_units = _unit_vectors(reference), _unit_vectors(answer)
    if len(ref_units) != 1 or len(ans_units) != 1:
        return False
    (ref_unit,), (ans_unit,) = tuple(ref_units), tuple(ans_units)
    if {ref_unit.name, ans_unit.name} != _AZIMUTH:
        return False
    return _expressions(reference, answer.xreplace({ans_unit: ref_unit}), options).strict


_CONVENTION_WORDS = {'h': 'h is 2 pi hbar', 'mu_0': 'mu_0 is 1/(epsilon_0 c^2)', 'i': 'a bare i is the imaginary unit'}
"""What each substitution of :func:`_equal_by_convention` says in the verdict's detail."""
CONVENTION_MAX_OPS = 200
"""Values larger than this are not compared again under the h/hbar and i conventions (cost)."""


def _equal_by_convention(reference: sympy.Expr, answer: sympy.Expr, options: Options) -> Optional[Outcome]:
    """The two values equal once ``h`` is written as ``2\\pi\\hbar`` (only when one side writes
    ``\\hbar`` and the other ``h``, never both), ``\\mu_0`` as ``1/(\\varepsilon_0 c^2)``
    (:func:`_vacuum_permeability`) or a bare ``i`` as the imaginary unit (when the other side has the
    imaginary unit, or both write ``i``); None otherwise.

    Why: ``\\frac{h}{4\\pi}`` and ``\\frac{\\hbar}{2}`` are one value to a physicist, as are
    ``e^{i\\omega t}`` and ``\\cos\\omega t + i\\sin\\omega t``; the parser keeps ``h`` and ``i`` as plain
    symbols because they are also a height and an index.
    """
    names = [{s.name: s for s in side.free_symbols} for side in (reference, answer)]
    substitutions = {}
    uses_h = ['h' in n for n in names]
    uses_hbar = ['hbar' in n for n in names]
    if uses_h[0] != uses_h[1] and uses_hbar[0] != uses_hbar[1] and uses_h[0] == uses_hbar[1]:
        hbar = next(n['hbar'] for n in names if 'hbar' in n)
        substitutions['h'] = 2 * sympy.pi * hbar
    vacuum = _vacuum_permeability(names, options)
    if vacuum is not None:
        substitutions['mu_0'] = vacuum
    uses_i = ['i' in n for n in names]
    has_unit = [side.has(sympy.I) for side in (reference, answer)]
    if (all(uses_i) and not any(has_unit)) or (uses_i[0] != uses_i[1] and has_unit[uses_i.index(False)]):
        substitutions['i'] = sympy.I
    if not substitutions:
        return None
    if sympy.count_ops(reference) + sympy.count_ops(answer) > CONVENTION_MAX_OPS:
        return None
    sides = [side.subs({n[k]: v for k, v in substitutions.items() if k in n}) for side, n in zip((reference, answer), names)]
    detail = 'equal once ' + ', '.join(_CONVENTION_WORDS[k] for k in substitutions)
    if sides[0] == sides[1] or _expand_proof(sides[0], sides[1]):
        return accepted('equivalent', detail)
    if 'i' in substitutions:  # complex sides: only the cheap proofs (sampling them costs seconds)
        return accepted('equivalent', detail) if _complex_proof(sides[0], sides[1]) else None
    sampled = numeric.sample(sides[0], sides[1], options.rtol)
    if sampled is not None and sampled.worst <= numeric.EQUAL_RTOL:
        return accepted('equivalent_numerically', detail, error=sampled.worst)
    return None


def _vacuum_permeability(names, options: Options) -> Optional[sympy.Expr]:
    """``\\mu_0`` as ``1/(\\varepsilon_0 c^2)`` on both sides (the SI identity ``\\mu_0\\varepsilon_0 c^2 = 1``)
    when one side writes ``\\mu_0`` and one writes ``c``, and the two sides do not write the same of them;
    None otherwise.

    Why: ``\\mu_0\\varepsilon_0\\,\\partial E/\\partial t`` and ``\\frac{1}{c^2}\\partial E/\\partial t`` are one
    term of Maxwell's equations. Never where the question defines or gives ``c``, ``\\mu_0`` or
    ``\\varepsilon_0`` itself (then they are its own quantities)."""
    uses_mu, uses_c = ['mu_0' in n for n in names], ['c' in n for n in names]
    if not any(uses_mu) or not any(uses_c) or (uses_mu[0] == uses_mu[1] and uses_c[0] == uses_c[1]):
        return None
    if problem_names(options.givens) & {'c', 'mu_0', 'epsilon_0'}:
        return None
    epsilon = next((n['epsilon_0'] for n in names if 'epsilon_0' in n), sympy.Symbol('epsilon_0', positive=True))
    return 1 / (epsilon * next(n['c'] for n in names if 'c' in n) ** 2)


def _complex_proof(reference: sympy.Expr, answer: sympy.Expr) -> bool:
    """``e^{i x}`` against ``\\cos x + i \\sin x``: equal once sines and cosines are written as exponentials."""
    try:
        difference = reference - answer
        return sympy.count_ops(difference) <= SYMBOLIC_PROOF_MAX_OPS and \
            sympy.expand(difference.rewrite(sympy.exp)) == 0
    except Exception:
        return False


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
def one_fraction(expr: sympy.Expr) -> sympy.Expr:
    """``sympy.together``, once per expression: the EED's tree and a cross-multiplied equation
    (:mod:`.relations`) both need it, for the same reference against many pieces."""
    return sympy.together(expr)


@lru_cache(maxsize=4096)
def eed_form(expr: sympy.Expr) -> sympy.Expr:
    """The tree EED compares: ``together`` (one fraction), not the official full ``simplify``.

    The official scorer runs ``simplify`` (0.1-100 s per answer); ``together`` gives the official
    trees on most answers at a fraction of the cost (see the EED trade-off figures in docs/scoring.md).
    """
    try:
        if sympy.count_ops(expr) > EED_SIMPLIFY_MAX_OPS:
            return expr
        return one_fraction(expr)
    except Exception:
        return expr
