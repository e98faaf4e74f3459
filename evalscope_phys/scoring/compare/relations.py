"""Relations and intervals compared: kind and direction first, then the sides, then ``lhs - rhs``.

``x < 1`` and ``-x > -1`` are one inequality (``lhs - rhs`` up to a *positive* factor); ``x^2 + y^2 = 1``
and ``1 - x^2 - y^2 = 0`` one equation (up to any nonzero factor); ``x \\neq 5`` is never ``x = 5``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, FrozenSet, Optional, Tuple

import sympy

from . import answers as compare
from . import numeric
from ..answer import Answer, Collection, Definition, Interval, Relation, Value, describe
from ..read.definitions import Givens
from .aliases import with_aliases
from .conventions import lorentz, problem_names, wave_number
from .pending_eed import PendingEed
from .values import one_fraction, read_expression, read_expression_safely, special_symbols
from ..read.latex import LatexError
from ..read.notation import particles
from .outcome import Options, Outcome, ReferenceUnreadable, UNDECIDED, accepted, rejected, strict_if_readable
from .quantity_names import differential_cross_sections, same_quantity_name
from .renamed import CONSTANTS, renamed
from ..read.relations import is_name

SYMMETRIC = frozenset({'=', '!=', 'approx', 'sim', 'equiv'})
"""Relations whose sides may be swapped."""
CANNOT_READ = frozenset({UNDECIDED, 'unparseable_answer'})
"""Side outcomes that say the engine could not read or decide a side, not that the sides differ."""
EQUALITY_LIKE = frozenset({'=', 'approx', 'sim'})
"""``=``, ``\\approx`` and ``\\sim`` between the same two sides state the same result: a physicist
writes ``\\Gamma_1/\\Gamma_2 \\approx 0`` for ``= 0``."""


def compare_relation(reference: Relation, answer: Answer, options: Options) -> Outcome:
    """Same kind and direction; the sides compared side by side, or (no units) ``lhs - rhs`` up to a
    constant factor (positive for inequalities: ``x < 1`` is ``-x > -1``, not ``x > 1``)."""
    if isinstance(answer, Definition):
        answer = Relation('approx' if answer.approximate else '=', Value(answer.name), answer.value) \
            if answer.name else answer.value
    if not isinstance(answer, Relation):
        if reference.kind in EQUALITY_LIKE and isinstance(answer, Value) and \
                strict_if_readable(lambda: compare.dispatch(reference.right, answer, options)):
            # 0.37 for N(J=0)/N(J=1) = 0.37: a ratio asked is answered by its value, a curve x^2 + y^2 = 1 is
            # not answered by 1; only the question tells them apart
            return rejected(UNDECIDED, 'the right side\'s value alone: a value asked or the relation', eed=None)
        return rejected('not_equivalent', 'not a relation' if reference.kind != '=' else 'not an equation')
    kind_matches = reference.kind == answer.kind or {reference.kind, answer.kind} <= EQUALITY_LIKE
    if not kind_matches:
        if {reference.kind, answer.kind} <= EQUALITY_LIKE | {'to'} and \
                strict_if_readable(lambda: _sides(reference, answer, options, swapped=False)):
            # v_f \to v_0 for v_f = v_0: right if the question asks for a limit, which the engine cannot tell
            return rejected(UNDECIDED, f'the same sides, {answer.kind} for {reference.kind}: a limit or a value', eed=None)
        if reference.kind == 'propto' and answer.kind in EQUALITY_LIKE:
            return _propto(reference, answer, options, equation=True)  # u = a T^4 for u \propto T^4
        return rejected('not_equivalent', f'{answer.kind} for {reference.kind}')
    side_by_side = _sides(reference, answer, options, swapped=False)
    if side_by_side.strict:
        return side_by_side
    if reference.kind in SYMMETRIC:
        swapped = _sides(reference, answer, options, swapped=True)
        if swapped.strict:
            return swapped
        side_by_side = swapped if swapped.lenient and not side_by_side.lenient else side_by_side
    if reference.kind == 'to':
        return _reaction(reference, answer, options) or side_by_side
    if reference.kind == 'propto':
        return _propto(reference, answer, options)
    difference = _difference(reference, answer, options)
    if difference is None:
        return side_by_side
    if difference.strict or (difference.lenient and not side_by_side.lenient):
        return difference
    if side_by_side.lenient:
        return side_by_side
    if difference.reason == UNDECIDED and reference.kind in EQUALITY_LIKE:
        return _same_left_side(reference, answer, options) or difference
    return difference


NATURAL_UNITS = frozenset({'c', 'hbar'})
"""Constants natural units set to 1: ``E = p`` may be ``E = pc``, so they are no symbol an equation needs."""


def as_equation_may_decide(reference: Definition, answer: Definition, options: Options) -> bool:
    """Whether comparing ``a = X`` and ``b = Y`` as equations (``b = a`` for ``a = b``) may find them strictly
    the same where comparing the names and then the values does not. Why: the equation route costs about
    half the comparisons of a multi-part answer, and it can only decide when the symbols allow it:

    * ``a - X`` depends on every symbol of ``a`` (a name not in its own value), so it can be a multiple of
      ``b - Y`` (as written, over a common denominator, or inverted), or its sides the other's, only if
      each name's symbols occur in the other equation: ``v_c = 2u`` is never ``v = 2u``'s equation;
    * with one name on both sides (not in the values), the two equations are one exactly when the values
      are, which the value route decides.

    ``c`` and ``\\hbar`` are left out of the symbols (natural units). True (try it) whenever another rule
    could rewrite them: a name in its own value (``x = 1 - x``), an alias (:mod:`.aliases`), a convention
    of :mod:`.conventions` (a Lorentz factor beside a speed, a thermal ``\\beta`` or ``\\tau``, a wave number
    beside a wavelength), a symbol the question or the answer defines or gives; and when a side cannot be
    read or has a unit that may be symbols (``4\\,mg``)."""
    symbols = _definition_symbols(reference, answer)
    if symbols is None:
        return True
    a, x, b, y = (s - NATURAL_UNITS for s in symbols)
    every = a | x | b | y
    if a & x or b & y or _convention_may_apply(every):
        return True
    if options.givens is not None and every & _defined(options.givens):
        return True
    question = options.givens.question_text if options.givens else ''
    if with_aliases(reference.name + _JOIN + reference.value.latex, answer.name + _JOIN + answer.value.latex,
                    question) is not None:
        return True
    if same_quantity_name(reference.name, answer.name):
        return bool((a | b) & (x | y))
    return b <= a | x and a <= b | y


def _convention_may_apply(symbols: FrozenSet[str]) -> bool:
    """Whether a rule of :mod:`.conventions` may rewrite one of ``symbols`` (see there for when each applies)."""
    if symbols & {'beta', 'tau'}:
        return True  # thermal: beta = 1/kT, tau = kT
    if 'k' in symbols and 'lambda' in symbols:
        return True  # the wave number
    return any(s.startswith('gamma') and 'beta' + s[len('gamma'):] in symbols for s in symbols)  # Lorentz


def _definition_symbols(reference: Definition, answer: Definition) -> Optional[Tuple[FrozenSet[str], ...]]:
    """The symbol names of ``a``, ``X``, ``b`` and ``Y`` (a value's number without its unit), or None when
    one cannot be read or has a plain unit (letters that may be read as symbols)."""
    out = []
    for text, is_reference in ((reference.name, True), (reference.value, True), (answer.name, False),
                               (answer.value, False)):
        if isinstance(text, Value):
            if text.unit is not None and text.unit.plain:
                return None
            text = text.latex
        elif not isinstance(text, str):
            return None
        if is_reference:
            try:
                expr = read_expression(text, reference=True)
            except (LatexError, ReferenceUnreadable):
                return None
        else:
            expr, _ = read_expression_safely(text)
            if expr is None:
                return None
        out.append(frozenset(s.name for s in expr.free_symbols))
    return tuple(out)


def _defined(givens: Givens) -> FrozenSet[str]:
    """Names the question or the answer defines, gives a value or gives two meanings."""
    return frozenset(problem_names(givens) | {n for n, _ in givens.answer})


def _same_left_side(reference: Relation, answer: Relation, options: Options) -> Optional[Outcome]:
    """``dP/dOmega = A`` against ``dP/dOmega = B``: the same left side, however opaque (a derivative, a
    function value), states the same result exactly when the right sides are equal, so the right sides
    decide -- when the engine can decide them. None when the left sides differ (``d\\bar P/d\\Omega``
    for ``dP/d\\Omega`` is for the quantity names to weigh), a right side is undecided, or the right
    sides differ in symbols that are not the same (notation the judge weighs)."""
    orientations = [(answer.left, answer.right)]
    if reference.kind in SYMMETRIC:
        orientations.append((answer.right, answer.left))
    for left, right in orientations:
        if not compare.dispatch(reference.left, left, options).strict and not (
                isinstance(reference.left, Value) and isinstance(left, Value)
                and differential_cross_sections(reference.left.latex, left.latex, options.givens)):
            continue
        outcome = compare.dispatch(reference.right, right, options)
        if outcome.reason in CANNOT_READ or outcome.reason == 'unknown_unit':
            return None
        if not outcome.strict and not _same_symbols(reference.right, right):
            return None  # Z_1 Z_2 e^2/4E for zZe^2/2mv^2: other notation, or another result? for the judge
        if outcome.strict:
            return outcome
        return replace(outcome, detail='the same left side, a different right side') if not outcome.lenient else outcome
    return None


def _sides(reference: Relation, answer: Relation, options: Options, swapped: bool) -> Outcome:
    left, right = (answer.right, answer.left) if swapped else (answer.left, answer.right)
    pairs = [(reference.left, left), (reference.right, right)]
    if len(describe(left)) + len(describe(reference.left)) > len(describe(right)) + len(describe(reference.right)):
        pairs.reverse()  # the shorter sides first: when they differ, the longer ones need not be compared
    first = compare.dispatch(*pairs[0], options)
    if not first.lenient and first.reason not in CANNOT_READ and _readable_reference(pairs[1][0]):
        return rejected('not_equivalent', 'different sides', eed=None)
    outcomes = [first, compare.dispatch(*pairs[1], options)]
    if pairs[0][0] is not reference.left:
        outcomes.reverse()  # the right side's outcome names an accepted pair's reason
    if all(o.strict for o in outcomes):
        return accepted(outcomes[1].reason)
    if all(o.lenient for o in outcomes):
        return Outcome(False, True, next(o.reason for o in outcomes if not o.strict), 0.0)
    if all(o.strict or o.reason in CANNOT_READ for o in outcomes):
        # (\partial S/\partial V)_T against \left(\frac{\partial S}{\partial V}\right)_T: no side is known to differ
        return rejected(UNDECIDED, 'a side the engine cannot read', eed=None)
    return rejected('not_equivalent', 'different sides', eed=None)


def _readable_reference(side: Answer) -> bool:
    """Whether a reference side is a plain value the engine reads: only then may its comparison be
    skipped (comparing a side it cannot read may raise, or read it another way: particles, ``\\Delta^{++}``)."""
    if not isinstance(side, Value) or side.unit is not None:
        return False
    try:
        read_expression(side.latex, reference=True)
    except (LatexError, ReferenceUnreadable):
        return False
    return True


def _side_expressions(relation: Relation, reference: bool) -> Optional[Tuple[sympy.Expr, sympy.Expr]]:
    sides = []
    for side in (relation.left, relation.right):
        if not isinstance(side, Value) or side.unit is not None:
            return None
        if reference:
            try:
                sides.append(read_expression(side.latex, reference=True))
            except (LatexError, ReferenceUnreadable):
                return None
        else:
            expr, _ = read_expression_safely(side.latex)
            if expr is None:
                return None
            sides.append(expr)
    return sides[0], sides[1]


def _difference(reference: Relation, answer: Relation, options: Options) -> Optional[Outcome]:
    outcome = _difference_as_written(reference, answer, options)
    if outcome is None or outcome.strict:
        return outcome
    aliased = _with_aliases(reference, answer, options)
    again = _difference_as_written(*aliased, options) if aliased else None
    if again is not None and again.strict:
        return again
    for convention in (lorentz, wave_number):
        again = _difference_as_written(reference, answer, options, convention)
        if again is not None and again.strict:
            return again
    if outcome.reason == 'not_equivalent' and options.givens is not None:  # U/V = aT^4 for U/V = AT^4: the judge's
        ref_sides, ans_sides = _side_expressions(reference, True), _side_expressions(answer, False)
        f, g = ref_sides[1] - ref_sides[0], ans_sides[1] - ans_sides[0]
        return renamed(f, g, options, outcome) if f != -g else outcome
    return outcome


_JOIN = ' ;; '
"""Between the two sides of a relation while :func:`~.aliases.with_aliases` reads them as one text."""


def _with_aliases(reference: Relation, answer: Relation, options: Options) -> Optional[Tuple[Relation, Relation]]:
    """Both relations with aliased symbols spelt alike (``k_B`` for ``k`` in ``n_1/n_2 = e^{\\Delta E/k_BT}``),
    each relation's two sides read as one text so that the alias sees all of it; None when none applies."""
    if not all(isinstance(side, Value) for side in (reference.left, reference.right, answer.left, answer.right)):
        return None
    texts = [r.left.latex + _JOIN + r.right.latex for r in (reference, answer)]
    if any(text.count(_JOIN) != 1 for text in texts):
        return None
    aliased = with_aliases(*texts, options.givens.question_text if options.givens else '')
    if aliased is None:
        return None
    out = []
    for relation, text in zip((reference, answer), aliased):
        left, right = text.split(_JOIN)
        out.append(Relation(relation.kind, Value(left), Value(right)))
    return out[0], out[1]


def _difference_as_written(reference: Relation, answer: Relation, options: Options,
                           convention: Optional[Callable] = None) -> Optional[Outcome]:
    """``lhs - rhs`` of both relations compared; with a notation ``convention`` of :mod:`.conventions`
    applied to all four sides first (None when it does not apply)."""
    ref_sides, ans_sides = _side_expressions(reference, True), _side_expressions(answer, False)
    if ref_sides is None or ans_sides is None:
        return None
    if convention is not None:
        rewritten = convention(sympy.Tuple(*ref_sides), sympy.Tuple(*ans_sides), options.givens)
        if rewritten is None:
            return None
        ref_sides, ans_sides = tuple(rewritten[0]), tuple(rewritten[1])
    f, g = ref_sides[1] - ref_sides[0], ans_sides[1] - ans_sides[0]
    positive = reference.kind in ('<', '<=', 'll')
    special = special_symbols(f) | special_symbols(g)
    if f == g or (not positive and f == -g):
        return accepted('equivalent', 'the same relation')
    if special:
        return rejected(UNDECIDED, 'relation between values the engine cannot look inside', eed=PendingEed(f, g))
    sampled = numeric.proportional(f, g, positive, rtol=options.rtol)
    if sampled is None:
        return rejected(UNDECIDED, 'no sample point defined', eed=PendingEed(f, g))
    if sampled.worst <= numeric.EQUAL_RTOL:
        return accepted('equivalent_numerically', 'the same relation, rearranged', sampled.worst)
    if sampled.worst <= options.rtol:
        return Outcome(False, True, 'within_tolerance', PendingEed(f, g), 'the same relation within tolerance',
                       sampled.worst)
    if positive and _positive_monomial_factor(f, g):
        return accepted('equivalent', 'the same inequality, multiplied by a positive quantity')
    if reference.kind in EQUALITY_LIKE and answer.kind in EQUALITY_LIKE:
        if _inverted(f, ans_sides):
            return accepted('equivalent_numerically', 'the same equation with both sides inverted')
        if _cross_multiplied(f, g):
            return accepted('equivalent_numerically', 'the same equation, multiplied out')
    return rejected('not_equivalent', 'a different relation', eed=PendingEed(f, g))


def _positive_monomial_factor(reference: sympy.Expr, answer: sympy.Expr) -> bool:
    """Whether ``reference = q \\cdot answer`` with ``q`` a positive number times powers of symbols both
    inequalities write: ``V_0 d > \\frac{\\hbar^2}{2m}`` is ``V_0 > \\frac{\\hbar^2}{2md}`` for a width ``d``
    (symbols are positive reals). A sum or a negative factor (``-d``) reverses or changes the inequality."""
    if sympy.count_ops(reference) + sympy.count_ops(answer) > MAX_NUMERATOR_OPS:
        return False
    try:
        factor = sympy.cancel(reference / answer)
    except Exception:  # (never seen) SymPy failing on a quotient: no proof
        return False
    coefficient, rest = factor.as_coeff_Mul()
    if not factor.free_symbols or not coefficient.is_positive or rest.is_Add:
        return False
    powers = sympy.Mul.make_args(rest)
    shared = reference.free_symbols & answer.free_symbols
    return all((p.is_Symbol or p.is_Pow and p.base.is_Symbol and p.exp.is_Rational) for p in powers) \
        and factor.free_symbols <= shared


def _inverted(reference: sympy.Expr, sides: Tuple[sympy.Expr, sympy.Expr]) -> bool:
    """Whether ``1/lhs = 1/rhs`` of the answer is the reference's equation ``reference = 0`` up to a constant.

    Why: ``n_1/n_2 = e^{\\Delta E/kT}`` states ``n_2/n_1 = e^{-\\Delta E/kT}``; inverting both sides is
    safe only when neither side is zero (``x = 0`` has no inverse)."""
    if any(side == 0 or side.is_zero for side in sides):
        return False
    sampled = numeric.proportional(reference, 1 / sides[1] - 1 / sides[0], positive=False, rtol=numeric.EQUAL_RTOL)
    return sampled is not None and sampled.worst <= numeric.EQUAL_RTOL


MAX_NUMERATOR_OPS = 80
"""Equations larger than this (SymPy operations) are not brought over a common denominator (cost)."""


def _cross_multiplied(reference: sympy.Expr, answer: sympy.Expr) -> bool:
    """Whether ``reference = 0`` and ``answer = 0`` have numerators equal up to a constant over a common
    denominator: ``a/b = c/d`` is ``ad = bc`` and ``I/I_0 = 0`` is ``I = 0``.

    Why numerators and not the quotient: ``xy = 0`` is not ``x = 0`` (the numerators ``xy`` and ``x``
    differ), and ``x^2 = x`` is not ``x = 1``; multiplying out by a denominator loses no solution."""
    if sympy.count_ops(reference) > MAX_NUMERATOR_OPS or sympy.count_ops(answer) > MAX_NUMERATOR_OPS:
        return False
    top_f, top_g = sympy.fraction(one_fraction(reference))[0], sympy.fraction(one_fraction(answer))[0]
    if not top_f.free_symbols or not top_g.free_symbols:
        return False
    sampled = numeric.proportional(top_f, top_g, positive=False, rtol=numeric.EQUAL_RTOL)
    return sampled is not None and sampled.worst <= numeric.EQUAL_RTOL


def _same_symbols(reference: Answer, answer: Answer) -> bool:
    """Both sides are values written in the same symbols (so a difference between them is a result's)."""
    if not isinstance(reference, Value) or not isinstance(answer, Value):
        return False
    try:
        ref_expr = read_expression(reference.latex, reference=True)
    except (LatexError, ReferenceUnreadable):
        return False
    ans_expr, _ = read_expression_safely(answer.latex)
    return ans_expr is not None and ref_expr.free_symbols == ans_expr.free_symbols


def _reaction(reference: Relation, answer: Relation, options: Options) -> Optional[Outcome]:
    """``\\phi \\to K^+ + K^-`` for ``\\phi \\to K^+K^-``: a side of particles (see ``notation.particles``)
    is the same side when it holds the same particles, however they are joined or ordered; None when
    no side is a side of particles (a limit ``x \\to 0`` is compared as written)."""
    sides = ((reference.left, answer.left), (reference.right, answer.right))
    if not all(isinstance(side, Value) for pair in sides for side in pair) or \
            not any(particles(ref_side.latex) is not None for ref_side, _ in sides):
        return None
    for ref_side, ans_side in sides:
        ref_particles, ans_particles = particles(ref_side.latex, alone=True), particles(ans_side.latex, alone=True)
        if ref_particles is None or ans_particles is None:
            return None
        if ref_particles != ans_particles:
            return rejected('not_equivalent', 'other particles')
    return accepted('equivalent', 'the same particles')


def _propto(reference: Relation, answer: Relation, options: Options, equation: bool = False) -> Outcome:
    """``X \\propto f`` against ``X' \\propto g`` (or, with ``equation``, ``X' = g``): the left sides name one
    quantity (``\\langle N\\rangle`` is ``\\overline{N}``; another name is the judge's when the rest holds) and
    ``g/f`` is a constant. A factor in symbols of the reference's ``f`` is another dependence; a factor in
    constants of nature (``u = \\frac{\\pi^2 k^4}{15\\hbar^3c^3} T^4``) states the proportionality with its
    constant; a factor in other symbols (``b T^4``, ``V T^4``) may or may not be constant: undecided."""
    different = '= for propto' if equation else 'a different proportionality'
    ref_sides, ans_sides = _side_expressions(reference, True), _side_expressions(answer, False)
    if ref_sides is None or ans_sides is None:
        return rejected('not_equivalent', different)
    renamed = ''
    if not compare.dispatch(reference.left, answer.left, options).strict:
        names = (reference.left.latex, answer.left.latex)
        if not all(is_name(n) for n in names):
            return rejected('not_equivalent', different)
        if not same_quantity_name(*names):
            renamed = f'{names[1]} for {names[0]}: another quantity named'
    f, g = ref_sides[1], ans_sides[1]
    sampled = numeric.proportional(f, g, positive=False, rtol=numeric.EQUAL_RTOL)
    if sampled is not None and sampled.worst <= numeric.EQUAL_RTOL and not (equation and g.free_symbols - f.free_symbols):
        if renamed:
            return rejected(UNDECIDED, renamed, eed=None)
        return accepted('equivalent_numerically', 'proportional to the same expression')
    factor = _factor(f, g)
    if factor is None or factor.free_symbols & f.free_symbols:
        return rejected('not_equivalent', 'proportional to another expression' if not equation else different)
    if renamed:
        return rejected(UNDECIDED, renamed, eed=None)
    if all(s.name in CONSTANTS for s in factor.free_symbols):
        return accepted('equivalent', 'the proportionality with its constant stated')
    return rejected(UNDECIDED, 'proportional up to a factor in other symbols: a constant or not, for the judge', eed=None)


def _factor(reference: sympy.Expr, answer: sympy.Expr) -> Optional[sympy.Expr]:
    """``answer / reference`` when it is a nonzero product (no sum), else None (small sides only: cost)."""
    if sympy.count_ops(reference) + sympy.count_ops(answer) > MAX_NUMERATOR_OPS or reference == 0:
        return None
    try:
        factor = sympy.cancel(answer / reference)
    except Exception:  # (never seen) SymPy failing on a quotient: no factor
        return None
    return None if factor == 0 or factor.is_Add or special_symbols(factor) else factor


def compare_intervals(reference: Interval, answer: Answer, options: Options) -> Outcome:
    if isinstance(answer, Definition):
        answer = answer.value
    if isinstance(answer, Collection) and answer.kind == 'tuple' and len(answer.items) == 2:
        answer = Interval(((False, answer.items[0], answer.items[1], False),))
    if not isinstance(answer, Interval):
        return rejected('not_equivalent', 'not an interval')
    if len(answer.pieces) != len(reference.pieces):
        return rejected('count_mismatch', f'{len(answer.pieces)} intervals for {len(reference.pieces)}')
    strict = lenient = True
    for (rl, ra, rb, rr), (al, aa, ab, ar) in zip(reference.pieces, answer.pieces):
        if (rl, rr) != (al, ar):
            return rejected('not_equivalent', 'different brackets')
        for ref_end, ans_end in ((ra, aa), (rb, ab)):
            outcome = compare.dispatch(ref_end, ans_end, options)
            strict, lenient = strict and outcome.strict, lenient and outcome.lenient
    if strict:
        return accepted('equivalent', 'the same interval')
    if lenient:
        return Outcome(False, True, 'within_tolerance', 0.0, 'end points within tolerance')
    return rejected('not_equivalent', 'different end points')
