"""Natural units: ``0.95\\,c`` for ``0.955`` "in units of c", ``\\frac{2}{3}\\hbar`` for ``\\frac{2}{3}``.

Why a narrow rule: setting ``c = \\hbar = 1`` makes ``p = mvc`` equal ``p = mv`` and ``m`` equal ``mc^2``, the
classic forgotten factor. So the constants are set to 1 only

* between a bare number (no unit) and that number times ``c`` or ``\\hbar`` (or ``\\hbar^2``; never both,
  never another symbol): the number is then the quantity in units of that constant; or
* when the question itself declares natural units (``\\hbar = c = 1``, "natural units", "in units of
  c"), and one side has no ``c``/``\\hbar`` at all while the other does.
"""
from __future__ import annotations

import re
from typing import Optional

import sympy

from ..read.definitions import Givens

CONSTANTS = ('c', 'hbar')
MAX_POWER = {'c': 1, 'hbar': 2}
"""Highest power read as "in units of": ``\\hbar^2`` (an ``L^2``), but ``c`` only once (``0.5c^2`` is no speed)."""

_DECLARED_RE = re.compile(r'natural units|in units of\s*\$?\s*\\?(?:hbar|c)\b|units (?:where|in which|with)\s*\$?\s*'
                          r'(?:\\hbar|c)\s*=\s*1|\$\s*(?:\\hbar\s*=\s*c|c\s*=\s*\\hbar|\\hbar|c)\s*=\s*1\s*\$', re.I)


def declares_natural_units(givens: Optional[Givens]) -> bool:
    """Whether the question says its quantities are in natural units (or in units of c or hbar)."""
    return givens is not None and bool(_DECLARED_RE.search(givens.question_text))


def _constants(expr: sympy.Expr) -> set:
    return {s for s in expr.free_symbols if s.name in CONSTANTS}


def _one_constant_times_number(expr: sympy.Expr) -> bool:
    """``0.95 c``, ``\\frac{2}{3}\\hbar``, ``2\\hbar^2``: a number times one constant (:data:`MAX_POWER`)."""
    symbols = expr.free_symbols
    if len(symbols) != 1 or next(iter(symbols)).name not in CONSTANTS:
        return False
    symbol = next(iter(symbols))
    coefficient, rest = expr.as_coeff_Mul()
    if rest == symbol:
        return True
    return rest.is_Pow and rest.base == symbol and rest.exp.is_Integer and 1 <= int(rest.exp) <= MAX_POWER[symbol.name] \
        and not coefficient.free_symbols


def in_natural_units(reference: sympy.Expr, answer: sympy.Expr, has_units: bool,
                     givens: Optional[Givens]) -> Optional[tuple]:
    """Both sides with ``c = \\hbar = 1`` where the module's rules allow it, else None."""
    ref_c, ans_c = _constants(reference), _constants(answer)
    if bool(ref_c) == bool(ans_c):
        return None  # both or neither write c/hbar: nothing to set to 1
    with_c, without = (reference, answer) if ref_c else (answer, reference)
    numbers = not has_units and not without.free_symbols and _one_constant_times_number(with_c)
    if not numbers and not declares_natural_units(givens):
        return None
    ones = {s: sympy.Integer(1) for s in ref_c | ans_c}
    return reference.xreplace(ones), answer.xreplace(ones)
