"""The one comparator: a reference :class:`~.answer.Answer` against a model's, strict and lenient.

**A strict verdict is a promise.** ``strict`` is True only when the two answers are the same to a
physicist: the same relation in the same direction, the same set of ``\\pm`` branches, the same value
(symbolically, numerically within relative 1e-6 after unit conversion, or at every sample point of
:mod:`.numeric`). Where the engine cannot represent what an answer means it refuses instead of
guessing: a derivative, a cross product, an expectation or a function value it cannot look inside
is one opaque value, and when the two sides hold different opaque values the reason is
``undecided`` (a judge decides when one is configured); an unknown unit is ``unknown_unit``; an
undefined value (``x/0``) is never equal to anything. Lenient allows relative 1e-2 (or the
record's tolerance) and a missing unit.

Reasons: see :data:`~.verdict.REASONS`. A reference the engine cannot read raises
:class:`ReferenceUnreadable` (the caller reports the answer unscored, never as 0).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

import sympy

from . import numeric
from .answer import (Alternatives, Answer, Choice, Collection, Definition, Empty, Interval, Relation, Text, Truth,
                     Unit, Unreadable, Value, describe)
from .canonical_parser import has_vector
from .extract import is_numeric, read_answer
from .latex import LatexError, to_sympy
from .matching import assignments, unmatched_rows
from .normalize import is_opaque_name, is_vector_name

STRICT_RTOL = 1e-6
"""Numbers (after unit conversion) closer than this, relatively, are the same answer."""
LENIENT_RTOL = 1e-2
"""Default relative tolerance of the lenient verdict."""
SYMBOLIC_PROOF_MAX_OPS = 60
"""Matches this small are also proven with ``expand`` (reason ``equivalent``)."""
SIMPLIFY_MAX_OPS = 80
"""``simplify`` is tried only on differences this small, when no sample point is defined."""
EED_MAX_NODES = 1500
"""Trees larger than this get no edit distance (it is cubic): EED 0 with the detail ``too_large_for_eed``."""
EED_SIMPLIFY_MAX_OPS = 400
"""Expressions with more operations enter EED without ``together``."""
SYMMETRIC = frozenset({'=', '!=', 'approx', 'sim', 'equiv'})
"""Relations whose sides may be swapped."""


class ReferenceUnreadable(Exception):
    """The reference cannot be read: the answer is unscored (reason ``unparseable_reference``)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class Options:
    """How to compare: the record's tolerance, a unit given apart, list order, whether to compute EED."""

    tolerance: Optional[float] = None
    unit: str = ''
    ordered: bool = False
    eed: bool = True

    @property
    def rtol(self) -> float:
        return LENIENT_RTOL if self.tolerance is None else max(float(self.tolerance), STRICT_RTOL)


@dataclass(frozen=True)
class Outcome:
    """The verdict on one (reference, answer) pair; ``parts`` holds the per-reference outcomes of a list."""

    strict: bool
    lenient: bool
    reason: str
    eed: Optional[float] = None
    detail: str = ''
    error: Optional[float] = None
    parts: Tuple['Outcome', ...] = ()
    answer: str = ''
    """The answer part this outcome judged (for the parts of a list)."""


def _wrong(reason: str, detail: str = '', eed: Optional[float] = 0.0) -> Outcome:
    return Outcome(False, False, reason, eed, detail)


def _right(reason: str, detail: str = '', error: float = 0.0) -> Outcome:
    return Outcome(True, True, reason, 100.0, detail, error)


UNDECIDED = 'undecided'
UNSUPPORTED_STRUCTURES = frozenset({'piecewise', 'determinant', 'relation_chain'})
"""Structures the extractor recognises but the comparator does not represent: undecided, not wrong."""


# --------------------------------------------------------------------------- entry

def compare(reference: Answer, answer: Answer, options: Options = Options()) -> Outcome:
    """Strict and lenient verdicts for ``answer`` against ``reference`` (see the module docstring)."""
    if isinstance(reference, Unreadable) and reference.why in UNSUPPORTED_STRUCTURES:
        if isinstance(answer, Unreadable) and _compact(answer.raw) == _compact(reference.raw):
            return _right('equivalent', 'identical text')
        return _wrong(UNDECIDED, f'the reference is a {reference.why.replace("_", " ")}', eed=None)
    if isinstance(reference, (Empty, Unreadable)):
        raise ReferenceUnreadable(getattr(reference, 'why', 'empty reference'))
    if isinstance(answer, Empty):
        return _wrong('no_answer')
    if isinstance(answer, Unreadable) and answer.why in UNSUPPORTED_STRUCTURES:
        return _wrong(UNDECIDED, f'the answer is a {answer.why.replace("_", " ")}', eed=0.0)
    if isinstance(answer, Unreadable):
        return _wrong('answer_too_large' if answer.why in ('answer_too_large', 'too_many_parts', 'too_deep')
                      else 'unparseable_answer', answer.why)
    outcome = _dispatch(reference, answer, options)
    if not options.eed:
        outcome = replace(outcome, eed=None, parts=tuple(replace(p, eed=None) for p in outcome.parts))
    return outcome


def _dispatch(reference: Answer, answer: Answer, options: Options) -> Outcome:
    several = _items(reference)
    if several is not None:
        return _several(reference, several, answer, options)
    if isinstance(reference, Alternatives):
        return _alternatives(reference, answer, options)
    # one reference answer from here on
    if isinstance(answer, Collection) and answer.kind == 'boxes':
        return _dispatch(reference, answer.items[-1], options)  # the last box is the final answer
    if isinstance(answer, Alternatives):
        outcomes = [_dispatch(reference, option, options) for option in answer.options]
        if all(o.strict for o in outcomes):
            return outcomes[-1]
        return _wrong('hedged', f'{len(answer.options)} alternatives offered for one answer')
    if isinstance(answer, Collection) and answer.kind == 'list':
        chosen = _one_of_list(reference, answer)
        if chosen is None:
            return _wrong('count_mismatch', f'{len(answer.items)} answers for one')
        return _dispatch(reference, chosen, options)
    if isinstance(reference, Truth):
        return _truth(reference, answer)
    if isinstance(reference, Choice):
        return _choice(reference, answer)
    if isinstance(reference, Text):
        return _text_reference(reference, answer)
    if isinstance(answer, Text):
        return _wrong(UNDECIDED, 'the answer is words, the reference is not', eed=0.0)
    if isinstance(reference, Definition):
        return _definition(reference, answer, options)
    if isinstance(answer, Definition) and not isinstance(reference, Relation):
        return _with_steps(reference, answer, options)
    if isinstance(reference, Relation):
        defined = _defined_value(reference)
        if defined is not None and isinstance(answer, (Value, Definition)):
            return _with_steps(defined, answer, options) if isinstance(answer, Definition) \
                else _dispatch(defined, answer, options)
        return _relation(reference, answer, options)
    if isinstance(answer, Relation):
        if answer.kind in ('=', 'approx'):  # "a + b = 5" for a value: the value it states
            return _dispatch(reference, answer.right, options)
        return _wrong('not_equivalent', 'a relation for a value')
    if isinstance(reference, Interval):
        return _interval(reference, answer, options)
    if isinstance(reference, Collection):
        return _ordered_object(reference, answer, options)
    if isinstance(reference, Value):
        if isinstance(answer, Value):
            return compare_values(reference, answer, options)
        return _wrong('not_equivalent', f'{type(answer).__name__.lower()} for a value')
    return _wrong('not_equivalent')


def _items(answer: Answer) -> Optional[Tuple[Answer, ...]]:
    """The items of a reference that lists several answers (a list, several boxes, a set)."""
    if isinstance(answer, Collection) and answer.kind in ('list', 'boxes', 'set'):
        return answer.items
    return None


def _one_of_list(reference: Answer, answer: Collection) -> Optional[Answer]:
    """The item of an answer list that answers a single reference, or None (several candidates).

    Words beside one formula are commentary; a definition of the reference's quantity is the one.
    """
    formulas = [i for i in answer.items if not isinstance(i, Text)]
    if len(formulas) == 1:
        return formulas[0]
    if isinstance(reference, Definition) and reference.name:
        named = [i for i in formulas if isinstance(i, Definition) and i.name == reference.name]
        if len(named) == 1:
            return named[0]
    return None


# --------------------------------------------------------------------------- several answers

def _several(reference: Answer, items: Tuple[Answer, ...], answer: Answer, options: Options) -> Outcome:
    ordered = options.ordered and not (isinstance(reference, Collection) and reference.kind == 'set')
    given = _answer_items(answer, len(items))
    if isinstance(answer, Collection) and answer.kind == 'boxes' and len(given) > len(items):
        given = given[-len(items):]  # boxed intermediate results first, the final answers last
    return match_items(items, given, options, ordered)


def _answer_items(answer: Answer, wanted: int = 0) -> Tuple[Answer, ...]:
    """The answers a list offers; words beside the formulas are commentary when dropping them leaves
    exactly as many answers as the reference wants."""
    if isinstance(answer, Collection) and answer.kind in ('list', 'boxes', 'set', 'tuple'):
        formulas = tuple(i for i in answer.items if not isinstance(i, Text))
        return formulas if formulas and (len(formulas) == wanted or len(answer.items) != wanted) else answer.items
    if isinstance(answer, Alternatives):
        return answer.options
    return (answer,)


def match_items(references: Tuple[Answer, ...], answers: Tuple[Answer, ...], options: Options,
                ordered: bool) -> Outcome:
    """Several references against several answers: ordered pairs, or the optimal assignment."""
    pairs = [(i, i) for i in range(min(len(references), len(answers)))] if ordered else \
        [(i, j) for i in range(len(references)) for j in range(len(answers))]
    table: Dict[Tuple[int, int], Outcome] = {(i, j): compare(references[i], answers[j], options) for i, j in pairs}
    chosen, strict, lenient = assignments(table, len(references), len(answers), lambda o: o.strict,
                                          lambda o: o.lenient, lambda o: o.error, ordered)
    parts: List[Optional[Outcome]] = [None] * len(references)
    for i, j in chosen:
        parts[i] = replace(table[(i, j)], answer=describe(answers[j]))
    for i in unmatched_rows(chosen, len(references)):
        parts[i] = _wrong('no_answer', 'no answer for this part')
    done = [p for p in parts if p is not None]
    eeds = [p.eed for p in done if p.eed is not None]
    eed = sum(eeds) / len(references) if eeds else None
    if len(references) != len(answers):
        return Outcome(False, False, 'count_mismatch', eed, f'{len(answers)} answers for {len(references)}',
                       parts=tuple(done))
    if strict:
        reason = next((p.reason for p in done if p.reason != 'equivalent'), 'equivalent')
    elif lenient:
        reason = next((p.reason for p in done if not p.strict), 'within_tolerance')
    else:
        reason = next(p.reason for p in done if not p.lenient)
    detail = next((p.detail for p in done if p.reason == reason and p.detail), '')
    return Outcome(strict, lenient, reason, eed, detail, parts=tuple(done))


def _alternatives(reference: Alternatives, answer: Answer, options: Options) -> Outcome:
    """``\\pm`` branches or ``or`` values: the answer must give the same set of values."""
    given = _answer_items(answer, len(reference.options))
    if len(given) == 1:
        return _wrong('count_mismatch', f'one value for {len(reference.options)} alternatives')
    return match_items(reference.options, given, options, ordered=False)


def _ordered_object(reference: Collection, answer: Answer, options: Options) -> Outcome:
    """A tuple, ratio or matrix: one object whose entries keep their order."""
    if reference.kind == 'ratio':
        return _ratio(reference, answer, options)
    if isinstance(answer, Interval) and reference.kind == 'tuple' and len(reference.items) == 2:
        (lc, a, b, rc), = answer.pieces if len(answer.pieces) == 1 else ((True, None, None, True),)
        if a is not None and not lc and not rc:
            answer = Collection('tuple', (a, b))
    if not isinstance(answer, Collection) or answer.kind not in (reference.kind, 'list') \
            or (reference.kind == 'matrix' and answer.shape != reference.shape):
        return _wrong('not_equivalent', f'not a {reference.kind}')
    if len(answer.items) != len(reference.items):
        return _wrong('count_mismatch', f'{len(answer.items)} entries for {len(reference.items)}')
    return match_items(reference.items, answer.items, options, ordered=True)


def _ratio(reference: Collection, answer: Answer, options: Options) -> Outcome:
    """``1 : 4`` against ``2 : 8``: the entries divided by the first one compare as values."""
    if not (isinstance(answer, Collection) and answer.kind in ('ratio', 'tuple', 'list')) \
            or len(answer.items) != len(reference.items):
        return _wrong('not_equivalent', 'not a ratio of as many terms')
    ref_values, ans_values = [_plain_value(i) for i in reference.items], [_plain_value(i) for i in answer.items]
    if None in ref_values or None in ans_values:
        return match_items(reference.items, answer.items, options, ordered=True)
    try:
        refs = [read_expression(v, reference=True) for v in ref_values]
    except LatexError:
        return match_items(reference.items, answer.items, options, ordered=True)
    answers = []
    for value in ans_values:
        expr, error = read_expression_safely(value)
        if expr is None:
            return _wrong('unparseable_answer', error)
        answers.append(expr)
    if refs[0] == 0 or answers[0] == 0:
        return match_items(reference.items, answer.items, options, ordered=True)
    outcomes = [expressions(r / refs[0], a / answers[0], options) for r, a in zip(refs[1:], answers[1:])]
    if all(o.strict for o in outcomes):
        return _right('equivalent', 'same ratio')
    if all(o.lenient for o in outcomes):
        return Outcome(False, True, 'within_tolerance', 0.0, 'same ratio within tolerance')
    return _wrong('not_equivalent', 'a different ratio')


def _plain_value(answer: Answer) -> Optional[str]:
    return answer.latex if isinstance(answer, Value) and answer.unit is None else None


# --------------------------------------------------------------------------- words, yes/no, letters

def _text_reference(reference: Text, answer: Answer) -> Outcome:
    if isinstance(answer, Text) and answer.words == reference.words:
        return _right('equivalent', 'same words')
    if isinstance(answer, Value) and re.sub(r'[^a-z]', '', answer.latex.lower()) == reference.words.replace(' ', ''):
        return _right('equivalent', 'same word')
    return _wrong(UNDECIDED, 'text answer: different words', eed=0.0)


def _truth(reference: Truth, answer: Answer) -> Outcome:
    read = answer if isinstance(answer, Truth) else read_answer(describe(answer), 'TF')
    if not isinstance(read, Truth):
        return _wrong('unparseable_answer', 'not yes/no')
    return _right('equivalent') if read.value == reference.value else _wrong('not_equivalent')


def _choice(reference: Choice, answer: Answer) -> Outcome:
    read = answer if isinstance(answer, Choice) else read_answer(describe(answer), 'MC')
    if not isinstance(read, Choice):
        return _wrong('unparseable_answer', 'no option letter')
    return _right('equivalent') if read.letters == reference.letters else _wrong('not_equivalent')


# --------------------------------------------------------------------------- definitions and relations

def _definition(reference: Definition, answer: Answer, options: Options) -> Outcome:
    """``T = 2mg``: the value is compared; an equation answer (``2T = 4mg``) as an equation."""
    if isinstance(answer, Relation) and answer.kind in ('=', 'approx') and reference.name:
        as_equation = Relation('=', Value(reference.name), reference.value)
        return _relation(as_equation, answer, options)
    if isinstance(answer, Definition):
        return _with_steps(reference.value, answer, options)
    return _dispatch(reference.value, answer, options)


def _with_steps(reference: Answer, answer: Definition, options: Options) -> Outcome:
    """A chain ``v = \\sqrt{2gh} = 4.4\\,\\text{m/s}`` is judged by its final value; an earlier member
    counts only when the final one is a bare number and the reference is symbolic."""
    outcome = _dispatch(reference, answer.value, options)
    if outcome.strict or not answer.steps or not _is_symbolic(reference) or _is_symbolic(answer.value):
        return outcome
    for step in reversed(answer.steps):
        candidate = _dispatch(reference, step, options)
        if candidate.strict:
            return candidate
    return outcome


def _defined_value(relation: Relation) -> Optional[Value]:
    """The value of an equation that defines a quantity (``y^2 = f(x)``, ``S_D - S_A = f(p, V, T)``,
    ``t'_1 - t'_0 = 3.7\\times10^3\\,\\text{s}``), or None for a true equation: the sides share a
    symbol, the right side is 0, or a sum equals a bare constant (``x + y = 1``)."""
    if relation.kind not in ('=', 'approx') or not isinstance(relation.left, Value) \
            or not isinstance(relation.right, Value):
        return None
    if relation.right.unit is not None:
        return relation.right  # a value with a unit measures the left side
    try:
        lhs = read_expression(relation.left.latex, reference=True)
        rhs = read_expression(relation.right.latex, reference=True)
    except (LatexError, ReferenceUnreadable):
        return None
    if rhs == 0 or not lhs.free_symbols or (lhs.free_symbols & rhs.free_symbols) \
            or (lhs.is_Add and not rhs.free_symbols):
        return None
    return relation.right


def _is_symbolic(answer: Answer) -> bool:
    return isinstance(answer, Value) and not is_numeric(answer.latex) and bool(re.search(r'[A-Za-z]', answer.latex))


def _relation(reference: Relation, answer: Answer, options: Options) -> Outcome:
    """Same kind and direction; the sides compared side by side, or (no units) ``lhs - rhs`` up to a
    constant factor (positive for inequalities: ``x < 1`` is ``-x > -1``, not ``x > 1``)."""
    if isinstance(answer, Definition):
        answer = Relation('approx' if answer.approximate else '=', Value(answer.name), answer.value) \
            if answer.name else answer.value
    if not isinstance(answer, Relation):
        return _wrong('not_equivalent', 'not a relation' if reference.kind != '=' else 'not an equation')
    if {reference.kind, answer.kind} <= {'=', 'approx'} and reference.kind != answer.kind:
        kind_matches = False
    else:
        kind_matches = reference.kind == answer.kind
    if not kind_matches:
        return _wrong('not_equivalent', f'{answer.kind} for {reference.kind}')
    side_by_side = _sides(reference, answer, options, swapped=False)
    if side_by_side.strict:
        return side_by_side
    if reference.kind in SYMMETRIC:
        swapped = _sides(reference, answer, options, swapped=True)
        if swapped.strict:
            return swapped
        side_by_side = swapped if swapped.lenient and not side_by_side.lenient else side_by_side
    if reference.kind in ('to', 'propto'):
        return _propto(reference, answer, options) if reference.kind == 'propto' else side_by_side
    difference = _difference(reference, answer, options)
    if difference is None:
        return side_by_side
    if difference.strict or (difference.lenient and not side_by_side.lenient):
        return difference
    return side_by_side if side_by_side.lenient else difference


def _sides(reference: Relation, answer: Relation, options: Options, swapped: bool) -> Outcome:
    left, right = (answer.right, answer.left) if swapped else (answer.left, answer.right)
    outcomes = [_dispatch(reference.left, left, options), _dispatch(reference.right, right, options)]
    if all(o.strict for o in outcomes):
        return _right(outcomes[1].reason)
    if all(o.lenient for o in outcomes):
        return Outcome(False, True, next(o.reason for o in outcomes if not o.strict), 0.0)
    return _wrong('not_equivalent', 'different sides', eed=None)


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
    ref_sides, ans_sides = _side_expressions(reference, True), _side_expressions(answer, False)
    if ref_sides is None or ans_sides is None:
        return None
    f, g = ref_sides[1] - ref_sides[0], ans_sides[1] - ans_sides[0]
    positive = reference.kind in ('<', '<=', 'll')
    special = _special_symbols(f) | _special_symbols(g)
    if f == g or (not positive and f == -g):
        return _right('equivalent', 'the same relation')
    if special:
        return _wrong(UNDECIDED, 'relation between values the engine cannot look inside', eed=_eed(f, g, options))
    sampled = numeric.proportional(f, g, positive)
    eed = _eed(f, g, options)
    if sampled is None:
        return _wrong(UNDECIDED, 'no sample point defined', eed=eed)
    if sampled.worst <= numeric.EQUAL_RTOL:
        return _right('equivalent_numerically', 'the same relation, rearranged', sampled.worst)
    if sampled.worst <= options.rtol:
        return Outcome(False, True, 'within_tolerance', eed, 'the same relation within tolerance', sampled.worst)
    return _wrong('not_equivalent', 'a different relation', eed=eed)


def _propto(reference: Relation, answer: Relation, options: Options) -> Outcome:
    left = _dispatch(reference.left, answer.left, options)
    ref_sides, ans_sides = _side_expressions(reference, True), _side_expressions(answer, False)
    if not left.strict or ref_sides is None or ans_sides is None:
        return _wrong('not_equivalent', 'a different proportionality')
    sampled = numeric.proportional(ref_sides[1], ans_sides[1], positive=False)
    if sampled is not None and sampled.worst <= numeric.EQUAL_RTOL:
        return _right('equivalent_numerically', 'proportional to the same expression')
    return _wrong('not_equivalent', 'proportional to another expression')


def _interval(reference: Interval, answer: Answer, options: Options) -> Outcome:
    if isinstance(answer, Definition):
        answer = answer.value
    if isinstance(answer, Collection) and answer.kind == 'tuple' and len(answer.items) == 2:
        answer = Interval(((False, answer.items[0], answer.items[1], False),))
    if not isinstance(answer, Interval):
        return _wrong('not_equivalent', 'not an interval')
    if len(answer.pieces) != len(reference.pieces):
        return _wrong('count_mismatch', f'{len(answer.pieces)} intervals for {len(reference.pieces)}')
    strict = lenient = True
    for (rl, ra, rb, rr), (al, aa, ab, ar) in zip(reference.pieces, answer.pieces):
        if (rl, rr) != (al, ar):
            return _wrong('not_equivalent', 'different brackets')
        for ref_end, ans_end in ((ra, aa), (rb, ab)):
            outcome = _dispatch(ref_end, ans_end, options)
            strict, lenient = strict and outcome.strict, lenient and outcome.lenient
    if strict:
        return _right('equivalent', 'the same interval')
    if lenient:
        return Outcome(False, True, 'within_tolerance', 0.0, 'end points within tolerance')
    return _wrong('not_equivalent', 'different end points')


# --------------------------------------------------------------------------- values

@lru_cache(maxsize=8192)
def _read_cached(latex: str):
    try:
        return to_sympy(latex), None
    except LatexError as exc:
        return None, exc
    except RecursionError:
        return None, LatexError('too_deep')


def read_expression(latex: str, reference: bool = False) -> sympy.Expr:
    """A reference value's expression; raises :class:`ReferenceUnreadable` (malformed) or
    :class:`LatexError` (meaningful but unsupported)."""
    expr, error = _read_cached(latex)
    if expr is not None:
        return expr
    if error.unsupported:
        raise error
    raise ReferenceUnreadable(('too_large: ' if error.too_large else '') + str(error))


def read_expression_safely(latex: str) -> Tuple[Optional[sympy.Expr], str]:
    expr, error = _read_cached(latex)
    return expr, '' if error is None else str(error)


def _compact(text: str) -> str:
    return re.sub(r'\s+|\\[,;:! ]|\\left|\\right|\\displaystyle', '', text)


def _written(value: Value) -> str:
    """A value as its text says it (a unit the dataset gives apart is not part of the text)."""
    return value.latex if value.unit is None or value.unit.apart else value.text


def compare_values(reference: Value, answer: Value, options: Options) -> Outcome:
    """Two values, each with an optional unit: units converted with pint, then :func:`expressions`."""
    if reference.tolerance is not None:
        options = replace(options, tolerance=reference.tolerance)
    try:
        ref_expr = read_expression(reference.latex, reference=True)
    except LatexError as exc:  # a meaningful reference we cannot represent: only the same text matches
        if _compact(_written(reference)) == _compact(_written(answer)):
            return _right('equivalent', 'identical text')
        return _wrong(UNDECIDED, exc.reason, eed=None)
    except ReferenceUnreadable:  # a term symbol {}^{3}P_{0}, a matrix: the same text is still the same answer
        if _compact(_written(reference)) == _compact(_written(answer)):
            return _right('equivalent', 'identical text')
        raise
    ans_expr, error = _read_cached(answer.latex)
    if ans_expr is not None and answer.unit is not None and answer.unit.plain and ref_expr.free_symbols:
        joined, _ = _read_cached(answer.text)  # "4 mg" against a symbolic reference: m times g
        if joined is not None:
            ans_expr, answer = joined, Value(answer.text)
    if reference.unit is not None and reference.unit.plain and ans_expr is not None and ans_expr.free_symbols:
        joined, _ = _read_cached(reference.text)
        if joined is not None:
            ref_expr, reference = joined, Value(reference.text)
    if ans_expr is None:
        if _compact(_written(reference)) == _compact(_written(answer)) and not error.too_large:
            return _right('equivalent', 'identical text')
        if error.too_large and error.reason not in ('nul_byte', 'not_text'):
            return _wrong('answer_too_large', str(error))
        if error.unsupported:
            return _wrong(UNDECIDED, error.reason, eed=0.0)
        return _wrong('undefined_value' if error.reason == 'undefined_value' else 'unparseable_answer',
                      str(error)[:120])
    if not _vectors_are_polynomial(ref_expr, ans_expr) and _compact(reference.latex) == _compact(answer.latex):
        return _right('equivalent', 'identical text')
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
    if unit_reason == 'extra_unit' and outcome.lenient and not ref_expr.free_symbols and not _dimensionless(answer.unit):
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
        if text and parse_unit(text) is None and _compact(ref_text) != _compact(ans_text):
            return _wrong('unknown_unit', f'unit {text!r} is not one the engine knows', eed=0.0)
    if ref_text and ans_text and _compact(ref_text) == _compact(ans_text):
        return 1.0, 0.0, 'same_unit', None
    comparison = compare_units(ans_text, ref_text)
    if comparison.reason == 'missing_unit' and apart:
        return 1.0, 0.0, 'no_units', None  # the unit is the question's: a bare number is the expected form
    if comparison.factor is None:
        return _wrong('dimension_mismatch', f'{ans_text} is not {ref_text}', eed=0.0)
    return comparison.factor, comparison.offset, comparison.reason, comparison.alternative


def _special_symbols(expr: sympy.Expr) -> frozenset:
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


def _vectors_are_polynomial(*exprs: sympy.Expr) -> bool:
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
        ref_special, ans_special = _special_symbols(reference), _special_symbols(answer)
        if ref_special != ans_special and outcome.reason != UNDECIDED:
            kinds = sorted({s.name.split(':')[0] for s in ref_special ^ ans_special})
            outcome = replace(outcome, strict=False, lenient=False, reason=UNDECIDED,
                              detail='different values the engine cannot look inside: ' + ', '.join(kinds))
    if options.eed and outcome.eed is None:
        outcome = replace(outcome, eed=100.0 if outcome.strict else _eed(reference, answer, options))
    return outcome


def _expressions(reference: sympy.Expr, answer: sympy.Expr, options: Options) -> Outcome:
    rtol = options.rtol
    if not _vectors_are_polynomial(reference, answer):  # SymPy's products commute: (a.b)c would equal a(b.c)
        return _wrong(UNDECIDED, 'vectors outside sums and dot products', eed=None)
    if reference == answer:
        return _right('equivalent')
    if not reference.free_symbols and not answer.free_symbols:
        a, b = numeric.exact_value(reference), numeric.exact_value(answer)
        if a is None or b is None:
            return _wrong('not_equivalent', 'a value that cannot be evaluated', eed=None)
        error = numeric.relative_error(a, b)
        if error <= STRICT_RTOL:
            exact = reference.is_Rational and answer.is_Rational
            return _right('equivalent' if exact else 'numeric_match', error=error)
        if error <= rtol:
            return Outcome(False, True, 'within_tolerance', None, '', error)
        return Outcome(False, False, 'not_equivalent', None, '', error)
    sampled = numeric.sample(reference, answer, rtol)
    if sampled is None:
        if _expand_proof(reference, answer) or _simplify_proof(reference, answer):
            return _right('equivalent')
        return _wrong(UNDECIDED, 'no sample point is defined on both sides', eed=None)
    if sampled.worst <= numeric.EQUAL_RTOL:
        proven = _expand_proof(reference, answer)
        return _right('equivalent' if proven else 'equivalent_numerically', error=sampled.worst)
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


# --------------------------------------------------------------------------- EED

@lru_cache(maxsize=4096)
def _eed_form(expr: sympy.Expr) -> sympy.Expr:
    """The tree EED compares: ``together`` (one fraction), not the official full ``simplify``.

    The official scorer runs ``simplify`` (0.1-100 s per answer); ``together`` gives the official
    trees on most answers at a fraction of the cost (see the README's EED trade-off figures).
    """
    try:
        if sympy.count_ops(expr) > EED_SIMPLIFY_MAX_OPS:
            return expr
        return sympy.together(expr)
    except Exception:
        return expr


def _eed(reference: sympy.Expr, answer: sympy.Expr, options: Options) -> Optional[float]:
    if not options.eed:
        return None
    from .eed import eed_score
    from .tree import expression_tree
    ref, ans = _eed_form(reference), _eed_form(answer)
    if expression_tree(ref).size() > EED_MAX_NODES or expression_tree(ans).size() > EED_MAX_NODES:
        return 0.0
    return float(eed_score(ref, ans).score)
