"""LaTeX -> SymPy, without ever evaluating text as Python.

:func:`to_sympy` takes the answer's LaTeX through :func:`.normalize.normalize_latex` (a canonical
string in which every physics symbol is one opaque ``\\variable{name}`` token), then a fallback
chain of parsers: our canonical-subset parser, the ANTLR grammar of ``latex2sympy2_extended`` on
the canonical string, the grammar again with short symbol aliases. A failure is a
:class:`LatexError` with a machine-readable reason.

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

import re

import sympy

from .canonical_parser import Unsupported, parse_canonical, symbol
from .normalize import LatexError, normalize_latex

__all__ = ['LatexError', 'clean_expression', 'normalize_latex', 'to_sympy']

_GRAMMAR_CONFIG = None


def _configs():
    global _GRAMMAR_CONFIG
    if _GRAMMAR_CONFIG is None:
        from latex2sympy2_extended.latex2sympy2 import ConversionConfig, NormalizationConfig
        _GRAMMAR_CONFIG = (
            NormalizationConfig(basic_latex=False, units=False, malformed_operators=False,
                                nits=False, boxed='none', equations=False),
            ConversionConfig(interpret_as_mixed_fractions=False,
                             interpret_simple_eq_as_assignment=False,
                             interpret_contains_as_eq=True, lowercase_symbols=False),
        )
    return _GRAMMAR_CONFIG


def _grammar(text: str) -> sympy.Basic:
    from latex2sympy2_extended import latex2sympy
    normalization, conversion = _configs()
    return latex2sympy(text, normalization_config=normalization, conversion_config=conversion)


def _strip_relations(text: str) -> str:
    """Right-hand side of the last top-level relation (``a = b = c`` -> ``c``)."""
    from .extract import right_hand_side
    return right_hand_side(text)


def to_sympy(text: str) -> sympy.Basic:
    """SymPy expression for one answer's LaTeX; raises :class:`LatexError` with a reason.

    Fallback chain: our canonical-subset parser (fast, :mod:`.canonical_parser`); the
    ``latex2sympy2_extended`` grammar on the canonical string; the grammar again with symbol names
    replaced by short aliases (a name it rejects must not sink the whole answer).
    """
    if not text or not text.strip():
        raise LatexError('empty')
    canonical = normalize_latex(_strip_relations(text))
    if not canonical:
        raise LatexError('empty')
    try:
        return clean_expression(parse_canonical(canonical))
    except Unsupported:
        pass
    errors = []
    for candidate in (canonical, _alias_names(canonical)):
        try:
            return clean_expression(_grammar(candidate))
        except LatexError:
            raise
        except RecursionError:
            raise LatexError('too_deep')
        except Exception as exc:  # the grammar raises bare Exception on syntax errors
            errors.append(str(exc).splitlines()[0][:80] if str(exc) else type(exc).__name__)
    raise LatexError('latex_parse_failure', errors[0] if errors else '')


_ALIAS_RE = re.compile(r'\\variable\{([^{}]*)\}')


def _alias_names(text: str) -> str:
    names = {}

    def alias(match: 're.Match[str]') -> str:
        name = match.group(1)
        names.setdefault(name, 'v%dx' % len(names))
        return r'\variable{%s}' % names[name]
    return _ALIAS_RE.sub(alias, text)


def clean_expression(expr) -> sympy.Basic:
    """Bring a grammar result into the form the rest of the engine expects.

    Relations keep their right-hand side, matrices and sets become an undefined function of their
    entries (so trees and comparisons treat them as ordered tuples), ``log(x, E)`` is ``log(x)``.
    """
    if isinstance(expr, sympy.core.relational.Relational):
        expr = expr.rhs
    if isinstance(expr, (list, tuple)):
        expr = sympy.Tuple(*expr)
    if isinstance(expr, sympy.MatrixBase):
        rows, cols = expr.shape
        return sympy.Function('Matrix%dx%d' % (rows, cols))(*[clean_expression(x) for x in expr])
    if isinstance(expr, (sympy.Tuple, sympy.FiniteSet)):
        return sympy.Function('Tuple')(*[clean_expression(x) for x in expr.args])
    if not isinstance(expr, sympy.Basic):
        raise LatexError('unsupported_expression', type(expr).__name__)
    if isinstance(expr, sympy.logic.boolalg.Boolean) and not isinstance(expr, sympy.Expr):
        raise LatexError('unsupported_expression', type(expr).__name__)
    replacements = {}
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Symbol) and not node.is_positive:
            replacements[node] = symbol(node.name)
        if isinstance(node, sympy.log) and len(node.args) == 2 and node.args[1] == sympy.E:
            replacements[node] = sympy.log(node.args[0])
        elif node is sympy.EulerGamma:
            replacements[node] = symbol('gamma')
        elif node is sympy.I:
            replacements[node] = symbol('I')
    if replacements:
        expr = expr.xreplace(replacements)
    if not isinstance(expr, sympy.Expr):
        raise LatexError('unsupported_expression', type(expr).__name__)
    return expr
