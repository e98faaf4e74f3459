"""Thermal notation physicists read as one: ``\\beta = 1/kT`` and Kittel's ``\\tau = kT``.

Why: ``e^{-\\beta\\varepsilon}`` against ``e^{-\\varepsilon/\\tau}`` (Kittel's fundamental temperature) is one
value, but ``\\beta`` is also ``v/c`` and ``\\tau`` a lifetime or a torque, so the convention applies only

* when exactly one side writes the symbol and the other writes the temperature it stands for
  (``\\tau``, or ``T`` with ``k``/``k_B``) and none of the symbol itself, while the side with the symbol
  writes no ``T`` (nor ``\\tau`` for ``\\beta``): one notation against the other, never a mixture;
* ``\\tau`` is a temperature only when the question writes ``\\tau`` itself (else a lifetime, a torque);
* never for a symbol the question defines or gives a value (its definition is :mod:`.definitions`').

The Lorentz factor is the third: ``\\gamma_1`` beside ``\\beta_1`` is ``1/\\sqrt{1-\\beta_1^2}`` (:func:`lorentz`);
the wave number the fourth: ``k`` where the other side writes ``\\lambda`` is ``2\\pi/\\lambda`` (:func:`wave_number`).
"""
from __future__ import annotations

from typing import Optional, Set, Tuple

import sympy

from ..read.definitions import Givens

BOLTZMANN = ('k', 'k_B')


def problem_names(givens: Optional[Givens]) -> Set[str]:
    """Names the problem defines, gives a value or gives two meanings: a convention never rewrites them."""
    if givens is None:
        return set()
    return {n for n, _ in givens.definitions} | {n for n, _, _ in givens.values} | set(givens.conflicting)


def thermal(reference: sympy.Expr, answer: sympy.Expr, givens: Optional[Givens]) -> Optional[Tuple]:
    """``(reference, answer, names)`` with one side rewritten in the other's thermal notation, or None."""
    defined = problem_names(givens)
    sides = [reference, answer]
    names = [{s.name: s for s in side.free_symbols} for side in sides]
    for i in (0, 1):
        mine, other = names[i], names[1 - i]
        k = next((other[n] for n in BOLTZMANN if n in other), None)
        if 'beta' in mine and 'beta' not in other and 'beta' not in defined and 'T' not in mine and 'tau' not in mine:
            if 'tau' in other and 'T' not in other and givens is not None and givens.mentions('tau'):
                value = 1 / other['tau']
            elif 'T' in other and k is not None:
                value = 1 / (k * other['T'])
            else:
                continue
            sides[i] = sides[i].xreplace({mine['beta']: value})
            return sides[0], sides[1], ('beta',)
        if 'tau' in mine and 'tau' not in other and 'tau' not in defined and 'T' not in mine and 'T' in other \
                and k is not None and givens is not None and givens.mentions('tau'):
            sides[i] = sides[i].xreplace({mine['tau']: k * other['T']})
            return sides[0], sides[1], ('tau',)
    return None


def lorentz(reference: sympy.Expr, answer: sympy.Expr, givens: Optional[Givens]) -> Optional[Tuple]:
    """``(reference, answer, names)`` with a Lorentz factor written out on the side that uses it, or None.

    Why: ``\\gamma_1 m_1\\beta_1/(\\gamma_1 m_1 + m_2)`` against ``m_1\\beta_1/(m_1 + m_2\\sqrt{1-\\beta_1^2})``.
    ``\\gamma`` is also an adiabatic index or a damping rate, so ``\\gamma_s`` is read as ``1/\\sqrt{1-\\beta_s^2}``
    only when the other side writes ``\\beta_s`` (the same subscript, or none) and no ``\\gamma_s``, this side or
    the question writes ``\\beta_s`` too, and the problem does not define or give ``\\gamma_s`` (a speed it
    gives, ``\\beta_1 = 0.8``, is still a speed).
    """
    defined = problem_names(givens)
    sides = [reference, answer]
    names = [{s.name: s for s in side.free_symbols} for side in sides]
    for i in (0, 1):
        mine, other = names[i], names[1 - i]
        table, used = {}, []
        for name, symbol in mine.items():
            if name != 'gamma' and not name.startswith('gamma_'):
                continue
            beta = 'beta' + name[len('gamma'):]
            speed_here = beta in mine or (givens is not None and givens.mentions(beta))
            if name in other or name in defined or not speed_here or beta not in other:
                continue
            table[symbol] = 1 / sympy.sqrt(1 - other[beta] ** 2)
            used.append(name)
        if table:
            sides[i] = sides[i].xreplace(table)
            return sides[0], sides[1], tuple(used)
    return None


_WAVE_WORDS = ('wavelength', 'wave', 'light', 'optic', 'diffraction', 'interference', 'photon')


def wave_number(reference: sympy.Expr, answer: sympy.Expr, givens: Optional[Givens]) -> Optional[Tuple]:
    """``(reference, answer, names)`` with a wave number ``k`` written ``2\\pi/\\lambda``, or None.

    Why: ``kb\\sin\\theta/2 = (2n+1)\\pi/2`` against ``\\sin\\theta = (2n+1)\\lambda/(2b)``. ``k`` is also
    Boltzmann's constant or a spring constant, so only when one side writes ``k`` and no ``\\lambda``, the
    other ``\\lambda`` and no ``k``, neither side writes a temperature ``T``, and the question is about
    waves (it writes ``\\lambda`` or speaks of waves, light, optics, diffraction or interference) and
    writes no ``k`` of its own.
    """
    if givens is None or not givens.question:
        return None
    text = givens.question_text.lower()
    if not (givens.mentions('lambda') or any(w in text for w in _WAVE_WORDS)):
        return None
    defined = problem_names(givens)
    if 'k' in defined or givens.mentions('k'):
        return None
    sides = [reference, answer]
    names = [{s.name: s for s in side.free_symbols} for side in sides]
    if 'T' in names[0] or 'T' in names[1]:
        return None
    for i in (0, 1):
        mine, other = names[i], names[1 - i]
        if 'k' in mine and 'lambda' not in mine and 'lambda' in other and 'k' not in other:
            sides[i] = sides[i].xreplace({mine['k']: 2 * sympy.pi / other['lambda']})
            return sides[0], sides[1], ('k',)
    return None
