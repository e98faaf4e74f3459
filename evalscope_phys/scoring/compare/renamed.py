"""The reference's formula written in other letters: a refusal (``undecided``), never an accept.

Why: ``H = \\frac{L^2}{2I} - dE\\cos\\theta`` for ``H = \\frac{J^2}{2I} - dE\\cos\\theta``, or
``\\eta = 1 - T_C/T_H`` for ``\\eta = 1 - T_2/T_1``: when the question names neither letter, the answer
may well be the reference in the model's own notation, and only a reader of the problem can tell
whether ``L`` is the reference's ``J``. Rejecting it as ``not_equivalent`` was a wrong promise; accepting
it would be one too (``L`` may be a length). So the engine says it cannot tell.

Renamed are at most :data:`MAX_RENAMED` symbols, one to one, and never

* a constant of nature (:data:`CONSTANTS`: ``E = mc^2`` is not ``E = mg^2`` in other letters), except ``k``
  where no temperature is written (:data:`THERMAL`): then it is the problem's own constant;
* two letters the question writes both (``m_1`` and ``m_2`` are the problem's two masses);
* a vector, a unit vector or a value the engine cannot look inside;
* a lone letter (``(b)`` for the choice ``(a)`` is another answer, not another notation).

The sides must then be strictly equal; anything else keeps the first verdict.
"""
from __future__ import annotations

from itertools import permutations

import sympy

from ..read.definitions import question_symbols
from ..read.normalize import is_opaque_name, is_vector_name
from .outcome import Options, Outcome, UNDECIDED, rejected

MAX_RENAMED = 2
"""More letters than this apart, the sides are different formulas, not one in another notation (and
each extra letter multiplies the orderings tried: cost)."""

CONSTANTS = frozenset({
    'c', 'g', 'G', 'h', 'hbar', 'k', 'k_B', 'e', 'i', 'R', 'N_A', 'm_e', 'm_p', 'm_n', 'alpha',
    'epsilon_0', 'varepsilon_0', 'mu_0', 'sigma_SB', 'a_0', 'pi',
})
"""Symbol names read as constants of nature (or the imaginary unit, Euler's number, the fine-structure
constant): one of them for another letter is another formula."""


THERMAL = frozenset({'T', 'tau', 'beta'})
"""Beside one of these, ``k`` is Boltzmann's constant; elsewhere it is the problem's own constant (``K(r) = k
r^{-2}``, a spring's ``k``), which the answer may call ``C``."""


def _renameable(name: str, thermal: bool) -> bool:
    if name == 'k' and not thermal:
        return not is_opaque_name(name) and not is_vector_name(name)
    return name not in CONSTANTS and not is_opaque_name(name) and not is_vector_name(name)


def renamed(reference: sympy.Expr, answer: sympy.Expr, options: Options, outcome: Outcome) -> Outcome:
    """``outcome`` turned ``undecided`` when the answer is the reference with its few own letters
    renamed (see the module docstring); ``outcome`` itself otherwise."""
    givens = options.givens
    if outcome.strict or outcome.reason in (UNDECIDED, 'dimension_mismatch') or givens is None or not givens.question:
        return outcome
    if reference.is_Symbol or answer.is_Symbol:
        return outcome  # a lone letter ("(b)" for the choice "(a)"): no formula to read in other letters
    mine, theirs = reference.free_symbols - answer.free_symbols, answer.free_symbols - reference.free_symbols
    if not mine or len(mine) != len(theirs) or len(mine) > MAX_RENAMED:
        return outcome
    thermal = any(s.name in THERMAL for s in reference.free_symbols | answer.free_symbols)
    if not all(_renameable(s.name, thermal) for s in mine | theirs):
        return outcome
    written = question_symbols(givens.question_text)
    from .values import _expressions
    ours = sorted(mine, key=lambda s: s.name)
    for order in permutations(sorted(theirs, key=lambda s: s.name)):
        if any(r.name in written and a.name in written for r, a in zip(ours, order)):
            continue  # two letters of the question: two of its quantities
        again = _expressions(reference, answer.xreplace(dict(zip(order, ours))), options)
        if again.strict:
            pairs = ', '.join(f'{a.name} for {r.name}' for r, a in zip(ours, order))
            return rejected(UNDECIDED, f'the same formula with {pairs}: whether they name one quantity is for '
                                       'the judge', eed=outcome.eed)
    return outcome
