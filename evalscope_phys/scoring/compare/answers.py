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

This module dispatches on the kinds of the two answers and compares lists, alternatives, ordered
objects, words and definitions; relations and intervals are :mod:`.compare_relations`', values
:mod:`.compare_values`'; the shared vocabulary (:class:`Options`, :class:`Outcome`) is :mod:`.outcome`'s.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Dict, List, Optional, Tuple

import sympy

from . import relations as compare_relations
from .chains import compare_chains
from .choices import listed_options, named_option
from .index_ranges import compare_ranges, renamed, same_index
from .aliases import base_symbol, canonical_symbol
from .quantity_names import (differential_cross_sections, name_key, problem_tie, same_quantity_name,
                             sole_tie)
from .question_spelling import names_a_given
from ..answer import (Alternatives, Answer, Choice, Collection, Definition, Empty, Interval, Relation, Text, Truth,
                     Unreadable, Value, describe)
from .values import compact, compare_values, expressions, read_expression, read_expression_safely, special_symbols
from ..read.latex import LatexError
from .matching import assignments, unmatched_rows
from .memo import remembered
from .pending_eed import mean, settled
from ..read.index_range import is_range
from ..read.piecewise import branches, open_boundary
from .outcome import (LENIENT_RTOL, STRICT_RTOL, UNDECIDED, UNSUPPORTED_STRUCTURES, Options, Outcome,
                      ReferenceUnreadable, accepted, rejected, strict_if_readable)
from ..read.reading import read_answer
from ..read.labels import is_label
from .several import (at_a_point, broken_link, general_definition, general_formula, holds_at_point, indexed_values,
                      named_branches, otherwise_branch, specialises, stray_name)
from ..read.trailing_units import is_numeric
from ..read.words import NUMBER_WORDS, word_relation

__all__ = ['LENIENT_RTOL', 'STRICT_RTOL', 'Options', 'Outcome', 'ReferenceUnreadable', 'compare', 'match_items', 'name_of']

def compare(reference: Answer, answer: Answer, options: Options = Options()) -> Outcome:
    """Strict and lenient verdicts for ``answer`` against ``reference`` (see the module docstring)."""
    return settled(compared(reference, answer, options), options.eed)


def compared(reference: Answer, answer: Answer, options: Options) -> Outcome:
    """:func:`compare` with its distances left pending (:mod:`.pending_eed`): what a comparison made
    inside another one returns, so that the outer one's outcome is the same whether or not EED is asked."""
    if isinstance(reference, Unreadable) and reference.why in UNSUPPORTED_STRUCTURES:
        if isinstance(answer, Unreadable) and compact(answer.raw) == compact(reference.raw):
            return accepted('equivalent', 'identical text')
        if reference.why == 'piecewise' and isinstance(answer, Unreadable) and answer.why == 'piecewise':
            by_branch = _piecewise(reference.raw, answer.raw, options)
            if by_branch is not None:
                return by_branch
        if reference.why == 'relation_chain' and isinstance(answer, Unreadable) and answer.why == 'relation_chain':
            by_member = compare_chains(reference.raw, answer.raw, options)
            if by_member is not None:
                return by_member
        return rejected(UNDECIDED, f'the reference is a {reference.why.replace("_", " ")}', eed=None)
    if isinstance(reference, (Empty, Unreadable)):
        raise ReferenceUnreadable(getattr(reference, 'why', 'empty reference'))
    if isinstance(answer, Empty):
        return rejected('no_answer')
    if isinstance(answer, Value) and is_label(answer.latex) and not _is_letter(reference):
        # \textbf{(c)} is the part's label left standing, not the speed of light (1 in natural units)
        return rejected('no_answer', 'a part label, no value')
    if isinstance(answer, Unreadable) and answer.why in UNSUPPORTED_STRUCTURES:
        return rejected(UNDECIDED, f'the answer is a {answer.why.replace("_", " ")}', eed=0.0)
    if isinstance(answer, Unreadable):
        return rejected('answer_too_large' if answer.why in ('answer_too_large', 'too_many_parts', 'too_deep')
                      else 'unparseable_answer', answer.why)
    return dispatch(reference, answer, options)


def _is_letter(reference: Answer) -> bool:
    """A reference that is one letter (``c``, ``\\text{(C)}``): an option, which a label may answer."""
    return bool(_letter(reference))


def _letter(reference: Answer) -> str:
    """The letter of a one-letter reference, in lower case; '' for any other reference."""
    if not isinstance(reference, Value):
        return ''
    letter = re.sub(r'\\(?:text|textbf|textrm|mathrm|mbox)(?![A-Za-z])|[{}()\s]', '', reference.latex)
    return letter.lower() if re.fullmatch(r'[A-Za-z]', letter) else ''


def _option_named(reference: Value, answer: Text, options: Options) -> Outcome:
    """A word answer to an option-letter reference, read as the option it names (:func:`~.choices.named_option`)
    when the problem asks this one question; undecided when it names none (the judge reads the words)."""
    givens = options.givens
    letter = _letter(reference)
    named, why = (None, 'the question lists no options') if givens is None or len(givens.references) > 1 \
        else named_option(givens.question_text, answer)
    if named is None or letter not in listed_options(givens.question_text):
        return rejected(UNDECIDED, f'the answer is words, the reference is an option: {why or "not one listed"}',
                        eed=0.0)
    if named == letter:
        return accepted('equivalent', f'the words name option ({named})')
    return rejected('not_equivalent', f'the words name option ({named}), not ({letter})')


_OTHERWISE_RE = re.compile(r'^(?:\\(?:text|mbox|textrm)\s*\{\s*)?(?:otherwise|elsewhere|else)\s*\}?$', re.I)


def _piecewise(reference: str, answer: str, options: Options) -> Optional[Outcome]:
    """Two ``cases`` blocks branch by branch: accepted when every branch has the same value under the
    same condition (in the same order, or paired by condition); None (undecided) otherwise."""
    ref, ans = branches(reference), branches(answer)
    if ref is None or ans is None or len(ref[1]) != len(ans[1]):
        return None
    if not same_quantity_name(ref[0], ans[0]):
        return None  # E(r) = ... against V(r) = ...: the names differ (a judge decides)
    try:
        same = [[_same(rv, av, options) and _same_condition(rc, ac, options) for av, ac in ans[1]]
                for rv, rc in ref[1]]
    except ReferenceUnreadable:
        return None
    if all(same[i][i] for i in range(len(same))) or \
            all(sum(row) == 1 for row in same) and all(sum(col) == 1 for col in zip(*same)):
        return accepted('equivalent', 'the same value on every branch')
    return None


def _same(reference: str, answer: str, options: Options) -> bool:
    return compared(read_answer(reference), read_answer(answer), options).strict


def _same_condition(reference: str, answer: str, options: Options) -> bool:
    ref, ans = ('' if _OTHERWISE_RE.match(c) else open_boundary(c) for c in (reference, answer))
    if not ref or not ans:
        return not ref and not ans
    return compact(ref) == compact(ans) or _same(ref, ans, options)


def dispatch(reference: Answer, answer: Answer, options: Options) -> Outcome:
    """The comparison for the kinds of the two answers; each distinct one once per job (:mod:`.memo`),
    whether or not EED is asked (its distances are pending, :mod:`.pending_eed`)."""
    if options.eed:
        options = replace(options, eed=False)
    return remembered(_dispatch, reference, answer, options)


def _dispatch(reference: Answer, answer: Answer, options: Options) -> Outcome:
    if isinstance(answer, Collection) and answer.kind == 'list':
        branches = named_branches(reference)
        by_branch = _by_branch(branches, answer, options) if branches is not None else None
        if by_branch is not None:
            return by_branch
    several = _items(reference)
    if several is not None:
        return _several(reference, several, answer, options)
    if isinstance(reference, Alternatives):
        return _alternatives(reference, answer, options)
    # one reference answer from here on
    if isinstance(answer, Collection) and answer.kind == 'boxes':
        return dispatch(reference, answer.items[-1], options)  # the last box is the final answer
    if isinstance(answer, Alternatives):
        outcomes = [dispatch(reference, option, options) for option in answer.options]
        if all(o.strict for o in outcomes):
            return outcomes[-1]
        return rejected('hedged', f'{len(answer.options)} alternatives offered for one answer')
    if isinstance(answer, Collection) and answer.kind == 'list' and not is_range(reference) \
            and any(is_range(i) for i in answer.items):
        return _beside_a_range(reference, answer, options)
    if is_range(reference) or is_range(answer):
        return compare_ranges(reference, answer)
    if isinstance(answer, Collection) and answer.kind == 'list':
        chosen = _one_of_list(reference, answer, options)
        if chosen is None:
            return _undecided_among(reference, answer, options) or \
                rejected('count_mismatch', f'{len(answer.items)} answers for one')
        return dispatch(reference, chosen, options)
    if isinstance(reference, Truth):
        return _truth(reference, answer)
    if isinstance(reference, Choice):
        return _choice(reference, answer)
    if isinstance(reference, Text):
        if reference.words in NUMBER_WORDS and not isinstance(answer, Text):  # "zero" for 0
            return dispatch(read_answer(NUMBER_WORDS[reference.words]), answer, options)
        return _text_reference(reference, answer)
    if isinstance(answer, Text):
        if answer.words in NUMBER_WORDS:  # "zero" for 0: the value the word names
            return dispatch(reference, read_answer(NUMBER_WORDS[answer.words]), options)
        if _is_letter(reference):
            return _option_named(reference, answer, options)
        return rejected(UNDECIDED, 'the answer is words, the reference is not', eed=0.0)
    if isinstance(reference, Definition):
        return _definition(reference, answer, options)
    if isinstance(answer, Definition) and not isinstance(reference, Relation):
        return with_steps(reference, answer, options)
    if isinstance(reference, Relation):
        defined = defined_value(reference)
        if defined is not None and isinstance(answer, (Value, Definition)):
            if isinstance(answer, Definition) and _another_opaque_side(reference.left, answer.name) and \
                    not (isinstance(reference.left, Value)
                         and differential_cross_sections(reference.left.latex, answer.name, options.givens)):
                return rejected(UNDECIDED, f'{answer.name} for {reference.left.latex}: another quantity named',
                                eed=None)
            return with_steps(defined, answer, options) if isinstance(answer, Definition) \
                else dispatch(defined, answer, options)
        return compare_relations.compare_relation(reference, answer, options)
    if isinstance(answer, Relation):
        if answer.kind in ('=', 'approx'):  # "a + b = 5" for a value: the value it states
            return dispatch(reference, answer.right, options)
        if answer.kind == 'to' and strict_if_readable(lambda: dispatch(reference, answer.right, options)):
            return rejected(UNDECIDED, 'the value as a limit (to): right if the question asks for one', eed=None)
        return rejected('not_equivalent', 'a relation for a value')
    if isinstance(reference, Interval):
        return compare_relations.compare_intervals(reference, answer, options)
    if isinstance(reference, Collection):
        return _ordered_object(reference, answer, options)
    if isinstance(reference, Value):
        if isinstance(answer, Value):
            return compare_values(reference, answer, options)
        return rejected('not_equivalent', f'{type(answer).__name__.lower()} for a value')
    return rejected('not_equivalent')


def _by_branch(branches: Collection, answer: Collection, options: Options) -> Optional[Outcome]:
    """``n_+ = \\ldots,\\ n_- = \\ldots`` for ``n_\\pm = \\ldots`` (:func:`~.several.named_branches`): each
    branch's value under exactly its own name (``n_+`` and ``n_-`` are two names here, never aliases),
    the other items conditions or definitions of other quantities; None when the answer is not
    written so (it is then compared as one answer)."""
    formulas = [i for i in answer.items if not isinstance(i, Text)]
    keys = [name_key(name_of(i)) for i in formulas]
    chosen = []
    for branch in branches.items:
        same = [j for j, key in enumerate(keys) if key == name_key(branch.name)]
        if len(same) != 1:
            return None
        chosen.append(same[0])
    asked = base_symbol(branches.items[0].name).lower()
    for j, item in enumerate(formulas):
        if j in chosen or (isinstance(item, Relation) and item.kind in CONDITIONS):
            continue
        if not name_of(item) or base_symbol(name_of(item)).lower() == asked:
            return None  # a bare value, or a third value for the quantity asked
    outcomes = [dispatch(branch, formulas[j], options) for branch, j in zip(branches.items, chosen)]
    if all(o.strict for o in outcomes):
        return accepted(next((o.reason for o in outcomes if o.reason != 'equivalent'), 'equivalent'),
                        'each branch under its own name')
    return next(o for o in outcomes if not o.strict)


def _beside_a_range(reference: Answer, answer: Collection, options: Options) -> Outcome:
    """An answer that states an index range (``E_n = \\ldots,\\ n = 1, 2, \\ldots``) the reference does not:
    right at best, but the range is a claim the reference cannot check (``n = 0, 1, \\ldots`` for a box
    would be wrong), so an answer right without it is ``undecided``, never accepted by dropping it."""
    rest = tuple(i for i in answer.items if not is_range(i))
    if not rest:
        return rejected('not_equivalent', 'an index range for a value')
    outcome = dispatch(reference, rest[0] if len(rest) == 1 else Collection('list', rest), options)
    if outcome.strict:
        return rejected(UNDECIDED, 'the answer states an index range the reference does not', eed=outcome.eed)
    return outcome


def _items(answer: Answer) -> Optional[Tuple[Answer, ...]]:
    """The items of a reference that lists several answers (a list, several boxes, a set)."""
    if isinstance(answer, Collection) and answer.kind in ('list', 'boxes', 'set'):
        return answer.items
    return None


def _one_of_list(reference: Answer, answer: Collection, options: Options) -> Optional[Answer]:
    """The item of an answer list that answers a single reference, or None (several candidates).

    Words beside one formula are commentary; a definition of the reference's quantity is the one.
    """
    formulas = [i for i in answer.items if not isinstance(i, Text)]
    if len(formulas) == 1:
        return formulas[0]
    if isinstance(reference, Definition) and reference.name:
        named = [i for i in formulas if isinstance(i, Definition) and i.name
                 and same_quantity_name(i.name, reference.name) and not general_formula(reference, None, i)]
        if len(named) == 1 and not any(_second_value(reference, i, options) or specialises(reference, i, options)
                                       or _contradicts(named[0], i, options) for i in formulas):
            return named[0]
    return _the_answer_among(reference, formulas, options)


def _contradicts(chosen: Answer, item: Answer, options: Options) -> bool:
    """``x'(0) = 2A\\omega`` beside ``x(t) = A\\sin\\omega t``: the answer at a point, stated otherwise than
    the answer gives it there, checkably (:func:`~.several.holds_at_point`; unchecked, as before, it passes)."""
    return holds_at_point(chosen, item, options) is False


def _undecided_among(reference: Answer, answer: Collection, options: Options) -> Optional[Outcome]:
    """The ``undecided`` verdict of the one item that could answer, when no item is strictly the answer
    and the others are what :func:`_the_answer_among` allows beside one (``T = \\ldots`` for ``\\tau =
    \\ldots`` beside a definition of another quantity): routing for the judge, never an acceptance."""
    formulas = [i for i in answer.items if not isinstance(i, Text)]
    chosen = _the_answer_among(reference, formulas, options, undecided=True)
    if chosen is None:
        return None
    outcome = dispatch(reference, chosen, options)
    return outcome if outcome.reason == UNDECIDED and not outcome.strict and not outcome.lenient else None


def _second_value(reference: Definition, item: Answer, options: Options) -> bool:
    """A readable bare value beside a named answer that is not the reference's value ("E = 5, 7":
    the 7); a link stating the same value (``C = \\ldots;\\ \\frac{4\\pi\\epsilon_0 ad}{d-a}``) is not."""
    if not isinstance(item, Value) or read_expression_safely(item.latex)[0] is None:
        return False
    try:
        return not dispatch(reference.value, item, options).lenient
    except ReferenceUnreadable:
        return False


CONDITIONS = frozenset({'<', '<=', '>', '>=', 'll', 'gg'})
"""Relation kinds that state a condition (``|x| < 1``, ``r > R``) when written beside an answer."""


def _the_answer_among(reference: Answer, formulas: List[Answer], options: Options,
                      undecided: bool = False) -> Optional[Answer]:
    """The one item of a part that carries the reference's quantity, when every other item is a
    condition, a definition of another quantity or an earlier link of the chain that ends in it.

    Why: models write ``P = \\ldots;\\ \\omega_{21} = \\ldots`` or ``y = \\ldots,\\ |x| < 1``; the extra
    items are not competing answers. Two items for one quantity (``\\theta_1 = 30^\\circ,\\ \\theta_2 =
    60^\\circ``), a bare second value, or a definition the answer never uses beside a bare reference
    stay several answers (``count_mismatch``). With ``undecided``, when no item is strictly the answer, the
    one ``undecided`` item is chosen instead (:func:`_undecided_among`: routing only).
    """
    if not 1 < len(formulas) <= MAX_CHAIN_ITEMS or isinstance(reference, (Collection, Alternatives)):
        return None
    try:
        outcomes = [dispatch(reference, item, options) for item in formulas]
    except ReferenceUnreadable:  # a side of the reference the engine cannot read: as before, several answers
        return None
    matching = [i for i, o in enumerate(outcomes) if o.strict]
    if undecided and not matching:  # the one item the engine cannot decide (with undecided=True)
        matching = [i for i, o in enumerate(outcomes) if o.reason == UNDECIDED]
        matching = [i for i in matching if not any(_subordinate(reference, formulas[j], formulas[i], options)
                                                   for j in matching if j != i)]  # omega_0 beside omega_p = f(omega_0)
        if len(matching) > 1:  # several names the engine cannot tie: the one whose value is the reference's
            matching = [i for i in matching if _same_value(reference, formulas[i], options)]
    if len(matching) != 1:
        return None
    chosen = formulas[matching[0]]
    if name_of(reference) and name_of(chosen) and _is_number(reference) and \
            canonical_symbol(name_of(reference)) != canonical_symbol(name_of(chosen)):
        return None  # "beta = 0" met by another quantity that is 0: a match by luck, not by meaning
    names = {base_symbol(n).lower() for n in (name_of(reference), name_of(chosen)) if n}  # l' and L' alike
    conditioned = any(isinstance(item, Relation) and item.kind in CONDITIONS for item in formulas)
    for i, item in enumerate(formulas):
        if i == matching[0] or outcomes[i].lenient:
            continue  # the answer itself, or a link that states the same value
        if isinstance(item, Relation) and item.kind in CONDITIONS:
            continue
        if conditioned and otherwise_branch(item, name_of(chosen)):
            continue  # p(x) = ..., |x| <= a, p(x) = 0 otherwise: the answer on its domain
        if specialises(reference, item, options):
            return None  # x = 0 beside y = 1/(1-x)^2: the formula at one point, not the formula
        if general_definition(item):
            continue  # F = U - TS before F = -kT ln Z: the potential's definition, not a second value
        if stray_name(reference, chosen, item) and defined_value(reference) is None:
            continue  # a/b + c/d = 0 and a: a name the equation writes, split off a sentence
        if _subordinate(reference, chosen, item, options):
            continue  # omega_0 = ... beside omega_p = 3A/(2m omega_0); x'(0) = A omega beside x(t) = A sin(omega t)
        if general_formula(reference, chosen, item):
            continue  # v(theta) = ... beside v_c = ...: the formula whose value at one point is asked
        name = name_of(item)
        if not name or base_symbol(name).lower() in names:
            return None  # a bare value or a second candidate for the quantity asked
        if not name_of(reference) and not _uses(chosen, name):
            return None  # beside a bare reference, only a definition the answer itself uses is one
    return chosen


def _subordinate(reference: Answer, chosen: Answer, item: Answer, options: Options) -> bool:
    """An item that serves the chosen answer, though it bears the letter of the quantity asked: a definition
    of a symbol the answer uses, or the answer at a point where it holds (an initial condition)."""
    return _defines_a_symbol_of(reference, chosen, item) or at_a_point(chosen, item, options)


def _defines_a_symbol_of(reference: Answer, chosen: Answer, item: Answer) -> bool:
    """Whether ``item`` defines a symbol the chosen answer's value is written in, under a name neither it
    nor the reference bears (``\\omega_0 = \\ldots`` beside ``\\omega_{\\text{prec}} = \\frac{3A}{2m\\omega_0}``): an
    input of the answer, not a second value of the quantity asked, though its letter is the same."""
    name = name_of(item)
    if not isinstance(item, Definition) or not name or not name_of(chosen):
        return False
    if canonical_symbol(name) in {canonical_symbol(n) for n in (name_of(chosen), name_of(reference)) if n}:
        return False
    value = chosen.value if isinstance(chosen, Definition) else chosen.right if isinstance(chosen, Relation) else None
    return value is not None and _uses(value, name)


def _same_value(reference: Answer, item: Answer, options: Options) -> bool:
    """Whether two definitions give strictly the same value, whatever their names."""
    if not (isinstance(reference, Definition) and isinstance(item, Definition)):
        return False
    try:
        return dispatch(reference.value, item.value, options).strict
    except ReferenceUnreadable:
        return False


def _is_number(reference: Answer) -> bool:
    value = reference.value if isinstance(reference, Definition) else \
        reference.right if isinstance(reference, Relation) else reference
    return isinstance(value, Value) and is_numeric(value.latex)


MAX_CHAIN_ITEMS = 6
"""Items of one part beyond this are a list of candidates, not an answer with its definitions."""
MAX_EXTRA_PAIRS = 16
"""Several references against more items are paired among the extras only up to this many comparisons (cost)."""


def name_of(answer: Answer) -> str:
    if isinstance(answer, Definition):
        return answer.name
    if isinstance(answer, Relation) and answer.kind in ('=', 'approx') and isinstance(answer.left, Value):
        return answer.left.latex
    return ''


def _uses(answer: Answer, name: str) -> bool:
    """Whether the written answer mentions the symbol ``name`` (``\\omega_{21}`` in ``\\Gamma^2 + \\omega_{21}^2``)."""
    wanted = canonical_symbol(name)
    text = describe(answer)
    return any(canonical_symbol(m.group(0)) == wanted
               for m in re.finditer(r'\\?[A-Za-z]+(?:_\{[^{}]*\}|_\\?[A-Za-z0-9]+)?', text))


def _several(reference: Answer, items: Tuple[Answer, ...], answer: Answer, options: Options) -> Outcome:
    if any(is_range(i) for i in items) and not any(is_range(i) for i in offered_answers(answer)):
        return _range_unstated(reference, items, answer, options)
    if any(_is_condition(i) for i in items) and not all(_is_condition(i) for i in items) \
            and not any(_is_condition(i) for i in offered_answers(answer)):  # phi = ..., r > R against phi = ...
        return _range_unstated(reference, items, answer, options, _is_condition, 'a condition')
    outcome = _several_items(reference, items, answer, options)
    if outcome.strict:
        return outcome
    indexed = indexed_values(items, answer)  # lambda = 1, 2 for lambda_1 = 1, lambda_2 = 2
    if indexed is not None:
        by_index = _several_items(reference, items, indexed, options)
        if by_index.strict:
            return by_index  # otherwise the verdict as written stands (another quantity named: the judge's)
    respelt = _index_respelt(items, answer)
    if respelt is not None and _several_items(reference, items, respelt, options).strict:
        return rejected(UNDECIDED, 'right with the index named as the reference names it', eed=outcome.eed)
    return outcome


def _index_respelt(items: Tuple[Answer, ...], answer: Answer) -> Optional[Answer]:
    """The answer with its index letter spelt as the reference's (``m = 0, \\pm 1, \\ldots`` beside
    ``d\\sin\\theta = m\\lambda`` for ``k = \\ldots``), when both state one range over the same set under
    different letters; else None."""
    ours = [i for i in items if is_range(i)]
    theirs = [i for i in offered_answers(answer) if is_range(i)]
    if len(ours) != 1 or len(theirs) != 1 or ours[0].right != theirs[0].right or same_index(ours[0], theirs[0]):
        return None
    return renamed(answer, theirs[0].left.latex, ours[0].left.latex)


def _range_unstated(reference: Answer, items: Tuple[Answer, ...], answer: Answer, options: Options,
                    stated: Callable[[Answer], bool] = is_range, what: str = 'an index range') -> Outcome:
    """A reference that states its index range (``E_n = \\ldots,\\ n = 1, 2, \\ldots``), or the condition its
    value holds under (``\\phi = \\ldots,\\ r > R``), against an answer that states none: right at best
    without it, which the judge weighs (``undecided``); never ``count_mismatch``, as if the condition were
    a second answer asked."""
    rest = tuple(i for i in items if not stated(i))
    if not rest:
        return rejected('not_equivalent', f'a value for {what}')
    outcome = dispatch(rest[0] if len(rest) == 1 else replace(reference, items=rest), answer, options)
    if outcome.strict:
        return rejected(UNDECIDED, f'the reference states {what} the answer does not', eed=outcome.eed)
    return outcome


def _is_condition(item: Answer) -> bool:
    return isinstance(item, Relation) and item.kind in CONDITIONS


def _several_items(reference: Answer, items: Tuple[Answer, ...], answer: Answer, options: Options) -> Outcome:
    ordered = options.ordered and not (isinstance(reference, Collection) and reference.kind == 'set')
    given = offered_answers(answer, len(items))
    if isinstance(answer, Collection) and answer.kind == 'boxes' and len(given) > len(items):
        given = given[-len(items):]  # boxed intermediate results first, the final answers last
    if len(items) < len(given) and len(items) * len(given) <= MAX_EXTRA_PAIRS:
        given = _answers_among(items, given, options, ordered) or given
    return match_items(items, given, options, ordered)


def _answers_among(references: Tuple[Answer, ...], given: Tuple[Answer, ...], options: Options,
                   ordered: bool) -> Optional[Tuple[Answer, ...]]:
    """The items that answer several references one to one (in order when ordered), when every other
    item is a condition, words or a definition of a quantity no reference names; else None."""
    try:
        table = {(i, j): dispatch(r, a, options) for i, r in enumerate(references) for j, a in enumerate(given)}
    except ReferenceUnreadable:
        return None
    chosen, strict, _ = assignments(table, len(references), len(given), lambda o: o.strict, lambda o: o.lenient,
                                    lambda o: o.error, ordered=False)
    if len(chosen) != len(references) or not all(table[p].strict for p in chosen):
        return None
    columns = [j for _, j in sorted(chosen)]
    if ordered and columns != sorted(columns):
        return None
    names = {base_symbol(n).lower() for n in [name_of(r) for r in references] + [name_of(given[j]) for j in columns]
             if n}
    for j, item in enumerate(given):
        if j in columns or isinstance(item, Text):
            continue
        if isinstance(item, Relation) and item.kind in CONDITIONS:
            continue
        name = name_of(item)
        if not name or base_symbol(name).lower() in names:
            return None  # a bare value, or a second candidate for a quantity asked
    return tuple(given[j] for j in columns)


def offered_answers(answer: Answer, wanted: int = 0) -> Tuple[Answer, ...]:
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
    table: Dict[Tuple[int, int], Outcome] = {(i, j): compared(references[i], answers[j], options) for i, j in pairs}
    chosen, strict, lenient = assignments(table, len(references), len(answers), lambda o: o.strict,
                                          lambda o: o.lenient, lambda o: o.error, ordered)
    parts: List[Optional[Outcome]] = [None] * len(references)
    for i, j in chosen:
        parts[i] = replace(table[(i, j)], answer=describe(answers[j]))
    for i in unmatched_rows(chosen, len(references)):
        parts[i] = rejected('no_answer', 'no answer for this part')
    done = [p for p in parts if p is not None]
    eeds = [p.eed for p in done if p.eed is not None]
    eed = mean(eeds, len(references)) if eeds else None
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
    given = offered_answers(answer, len(reference.options))
    if len(given) == 1:
        return rejected('count_mismatch', f'one value for {len(reference.options)} alternatives')
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
        return rejected('not_equivalent', f'not a {reference.kind}')
    if len(answer.items) != len(reference.items):
        return rejected('count_mismatch', f'{len(answer.items)} entries for {len(reference.items)}')
    return match_items(reference.items, answer.items, options, ordered=True)


def _ratio(reference: Collection, answer: Answer, options: Options) -> Outcome:
    """``1 : 4`` against ``2 : 8``: the entries divided by one the ratio does not make zero (``0 : 2 : 1``
    is ``0 : \\frac49 : \\frac29``) compare as values; a two-term ratio ``2 : 1`` against one number
    is that number's ratio to 1 (the value ``2``, never ``\\frac12``)."""
    if len(reference.items) == 2 and isinstance(answer, Value) and _plain_value(answer) is not None:
        answer = Collection('ratio', (answer, Value('1')))
    if not (isinstance(answer, Collection) and answer.kind in ('ratio', 'tuple', 'list')) \
            or len(answer.items) != len(reference.items):
        return rejected('not_equivalent', 'not a ratio of as many terms')
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
            return rejected('unparseable_answer', error)
        answers.append(expr)
    pivot = next((i for i, r in enumerate(refs) if r != 0), None)
    if pivot is None or answers[pivot] == 0:
        return match_items(reference.items, answer.items, options, ordered=True)
    outcomes = [expressions(r / refs[pivot], a / answers[pivot], options)
                for i, (r, a) in enumerate(zip(refs, answers)) if i != pivot]
    if all(o.strict for o in outcomes):
        return accepted('equivalent', 'same ratio')
    if all(o.lenient for o in outcomes):
        return Outcome(False, True, 'within_tolerance', 0.0, 'same ratio within tolerance')
    return rejected('not_equivalent', 'a different ratio')


def _plain_value(answer: Answer) -> Optional[str]:
    return answer.latex if isinstance(answer, Value) and answer.unit is None else None


#: an answer that opens with a truth value and ends that sentence there: ``False. The production of single K^-
#: mesons is not evidence ...`` (never ``True, but only if ...``: a comma may bring a condition)
_LEADING_TRUTH_RE = re.compile(r'\s*(?:\\text(?:bf)?\s*\{\s*)?(true|false)\s*[.;:!]', re.I)


def _text_reference(reference: Text, answer: Answer) -> Outcome:
    """Words compared as words (:func:`~.words.word_relation`), never as symbols. A reference that is one
    truth value (``\\text{False}``) is answered by the truth value an explanation opens with."""
    if isinstance(answer, Text) and reference.words in ('true', 'false'):
        leading = _LEADING_TRUTH_RE.match(answer.raw)
        if leading:
            if leading.group(1).lower() == reference.words:
                return accepted('equivalent', 'the truth value the explanation opens with')
            return rejected('not_equivalent', 'the other truth value', eed=0.0)
    if isinstance(answer, Text):
        relation = word_relation(reference.words, answer.words)
        if relation == 'equivalent':
            return accepted('equivalent', 'same words')
        if relation == UNDECIDED:
            return rejected(UNDECIDED, 'text answer: other words, maybe the same meaning', eed=0.0)
        return rejected(relation, 'text answer: different words', eed=0.0)
    if isinstance(answer, Value) and re.sub(r'[^a-z]', '', answer.latex.lower()) == reference.words.replace(' ', ''):
        return accepted('equivalent', 'same word')
    return rejected(UNDECIDED, 'text answer: the answer is not words', eed=0.0)


def _truth(reference: Truth, answer: Answer) -> Outcome:
    read = answer if isinstance(answer, Truth) else read_answer(describe(answer), 'TF')
    if not isinstance(read, Truth):
        return rejected('unparseable_answer', 'not yes/no')
    return accepted('equivalent') if read.value == reference.value else rejected('not_equivalent')


def _choice(reference: Choice, answer: Answer) -> Outcome:
    read = answer if isinstance(answer, Choice) else read_answer(describe(answer), 'MC')
    if not isinstance(read, Choice):
        return rejected('unparseable_answer', 'no option letter')
    return accepted('equivalent') if read.letters == reference.letters else rejected('not_equivalent')


def _definition(reference: Definition, answer: Answer, options: Options) -> Outcome:
    """``T = 2mg``: the value is compared; an equation answer (``2T = 4mg``) as an equation."""
    if isinstance(answer, Relation) and answer.kind in ('=', 'approx') and reference.name:
        as_equation = Relation('=', Value(reference.name), reference.value)
        return compare_relations.compare_relation(as_equation, answer, options)
    if isinstance(answer, Definition):
        if reference.name and answer.name and not answer.steps and \
                compare_relations.as_equation_may_decide(reference, answer, options):
            # "b = a" for "a = b": the same equation written the other way round
            equation = Relation('=', Value(reference.name), reference.value)
            try:
                as_equation = compare_relations.compare_relation(equation, answer, options)
            except ReferenceUnreadable:  # a name that is no expression (P(+)): the names decide below
                as_equation = None
            if as_equation is not None and as_equation.strict:
                if names_a_given(reference.name, answer.name, options.givens):
                    return rejected(UNDECIDED, f'{answer.name} for {reference.name}: the question\'s {answer.name} is '
                                    'another quantity', eed=None)
                return as_equation  # its distance is pending: the same whether or not EED is asked
        if not same_quantity_name(reference.name, answer.name) and \
                not differential_cross_sections(reference.name, answer.name, options.givens):
            routed = rejected(UNDECIDED, f'{answer.name} for {reference.name}: another quantity named', eed=None)
            values = (describe(reference.value), describe(answer.value))
            tie = problem_tie(reference.name, answer.name, values, options.givens) \
                or sole_tie(reference.name, answer.name, values, options.givens,
                            formulas=is_symbolic(reference.value) and is_symbolic(answer.value))
            if not tie:
                return routed
            outcome = with_steps(reference.value, answer, options)
            if outcome.strict:
                return replace(outcome, detail=f'{answer.name} for {reference.name}: {tie}')
            # tied names, a value that fails: still the judge's (a tie is no proof), but the detail says
            # the value is what failed, not the name
            return replace(routed, detail=f'{answer.name} for {reference.name}: {tie}, but the value is {outcome.reason}')
        return with_steps(reference.value, answer, options)
    return dispatch(reference.value, answer, options)


def with_steps(reference: Answer, answer: Definition, options: Options) -> Outcome:
    """A chain ``v = \\sqrt{2gh} = 4.4\\,\\text{m/s}`` is judged by its final value; an earlier member
    counts only when the final one is a bare number and the reference is symbolic."""
    outcome = dispatch(reference, answer.value, options)
    if outcome.strict and answer.steps:
        broken = broken_link(answer.steps + (answer.value,), answer.approximate, options)
        if broken:  # v = 2 + 3 = 4: the last value is no consequence of the chain written
            return rejected(UNDECIDED, f'a link of the chain does not hold: {broken}', eed=outcome.eed)
    if outcome.strict or not answer.steps or not is_symbolic(reference):
        return outcome
    if is_symbolic(answer.value):
        return _substituted_last(reference, answer, options, outcome) or outcome
    for step in reversed(answer.steps):
        candidate = dispatch(reference, step, options)
        if candidate.strict:
            return candidate
    return outcome


def _substituted_last(reference: Answer, answer: Definition, options: Options, outcome: Outcome) -> Optional[Outcome]:
    """Undecided when an earlier link states the reference and the last one writes that link with a
    symbol replaced by others (``B = \\frac{10^{-4}kT}{\\mu_p} = \\frac{10^{-4}kT\\,2m_p}{e\\hbar}`` for
    ``B = 10^{-4}kT/\\mu_p``), None otherwise.

    Why: such a link substitutes a definition the engine cannot check (:func:`.several.broken_link`
    allows it), so the last value failing proves nothing against the link that holds. A last link in
    the same symbols, or one that only drops or only adds a symbol (``\\sqrt{2gh} = \\sqrt{2g}``), is a
    step the engine reads, and its verdict stands."""
    if outcome.reason != 'not_equivalent' or not isinstance(answer.value, Value) or answer.value.unit:
        return None
    last, _ = read_expression_safely(answer.value.latex)
    if last is None or not isinstance(last, sympy.Expr):
        return None
    for step in reversed(answer.steps):
        if not isinstance(step, Value) or step.unit or not dispatch(reference, step, options).strict:
            continue
        stated, _ = read_expression_safely(step.latex)
        if stated is None or not isinstance(stated, sympy.Expr):
            return None
        if stated.free_symbols - last.free_symbols and last.free_symbols - stated.free_symbols:
            return rejected(UNDECIDED, f'the link {step.latex} states the reference; the last one writes it in other '
                            'symbols, which the engine cannot check', eed=outcome.eed)
        return None
    return None


def defined_value(relation: Relation) -> Optional[Value]:
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


def _another_opaque_side(left: Value, name: str) -> bool:
    """``\\frac{dx}{dt} = -kx`` for ``\\frac{d^2x}{dt^2} = -kx``: the left sides hold different derivatives
    (or function values), so the same right side states another result. Why here: a defined value is
    compared without its left side, which is right for ``S_D - S_A = f`` against ``\\Delta S = f`` but
    not when both left sides are opaque values the engine reads and they differ. (One opaque side,
    ``U_B`` for ``dW_m/dz``, is left as it was: the names are another question.)"""
    if not name:
        return False
    ref_left, _ = read_expression_safely(left.latex)
    ans_left, _ = read_expression_safely(name)
    if ref_left is None or ans_left is None:
        return False
    ref_opaque, ans_opaque = special_symbols(ref_left), special_symbols(ans_left)
    return bool(ref_opaque) and bool(ans_opaque) and ref_opaque != ans_opaque


def is_symbolic(answer: Answer) -> bool:
    return isinstance(answer, Value) and not is_numeric(answer.latex) and bool(re.search(r'[A-Za-z]', answer.latex))
