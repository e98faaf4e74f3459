"""One value's LaTeX -> SymPy, without ever evaluating text as Python.

:func:`to_sympy` runs :func:`.normalize.normalize_latex` (a canonical string in which every physics
symbol is one opaque ``\\variable{name}`` token) and :func:`.canonical_parser.parse_canonical`. There is
no fallback grammar: what the canonical parser cannot read is refused with a :class:`LatexError`
saying whether the text is malformed (the model's failure) or meaningful but unsupported (undecided).

**The rule for ``e``.** Physics answers use ``e`` for the elementary charge far more often than for
Euler's number, so:

* ``\\exp``, an upright e (``\\mathrm{e}``, ``\\text{e}``, ``\\rm e``, ``\\operatorname{e}``) and
  a bare ``e`` raised to anything other than a plain positive integer (``e^{-t/\\tau}``,
  ``e^{i\\omega t}``, ``e^{-1}``, ``e^x``) are Euler's number;
* every other ``e`` (``e``, ``2e``, ``e^2``, ``\\frac{e^3}{m}``, ``m_e``) is the symbol ``e``;
* ``1.5e-3`` (a digit, ``e``, a signed integer, no spaces) is scientific notation.

``\\gamma``/``\\Gamma`` and ``I`` are plain symbols (never Euler–Mascheroni or the imaginary unit),
``\\log`` without a base is the natural logarithm, and symbol case is kept (``R`` is not ``r``).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional, Tuple

import sympy

from .canonical_parser import Unsupported, parse_canonical
from .notation import to_latex
from ..run.limits import check_expr_limits, check_text_limits
from .normalize import LatexError, normalize_latex

__all__ = ['LatexError', 'normalize_latex', 'read_latex', 'to_sympy']


def to_sympy(text: str) -> sympy.Expr:
    """SymPy expression for one value's LaTeX; raises :class:`LatexError` with a reason.

    An undefined value (``\\frac{2}{0}``, ``0/0``) is refused: it would otherwise equal every other
    undefined value.
    """
    if not text or not text.strip():
        raise LatexError('empty')
    limit = check_text_limits(text)
    if limit:
        raise LatexError(limit, too_large=True)
    canonical = normalize_latex(to_latex(text))
    if not canonical:
        raise LatexError('empty')
    try:
        expr = parse_canonical(canonical)
    except Unsupported as exc:
        raise LatexError('latex_parse_failure', str(exc)[:80], unsupported=bool(exc.command),
                         too_large=exc.too_large) from None
    except RecursionError:
        raise LatexError('too_deep', too_large=True) from None
    limit = check_expr_limits(expr)
    if limit:
        raise LatexError(limit, too_large=True)
    if not isinstance(expr, sympy.Expr):
        raise LatexError('unsupported_expression', type(expr).__name__, unsupported=True)
    if expr.has(sympy.zoo, sympy.nan):
        raise LatexError('undefined_value', canonical[:80])
    return expr


@lru_cache(maxsize=8192)
def read_latex(text: str) -> Tuple[Optional[sympy.Expr], Optional[LatexError]]:
    """:func:`to_sympy` once per text in a process: ``(expression, None)`` or ``(None, why)``. Why: the
    definitions a text states and the values compared are read from the same strings, many times."""
    try:
        return to_sympy(text), None
    except LatexError as exc:
        return None, exc
    except RecursionError:
        return None, LatexError('too_deep')
