"""A formula against a number: the formula evaluated with the values the problem gives and known constants.

Why: the question gives ``r = 4`` Å and asks for an energy; a model that answers ``\\frac{9\\hbar^2}{2mr^2}``
where the reference is ``2.14\\,\\text{eV}`` (or the reverse) may be right, and only the problem's values
can tell. The formula is evaluated with pint quantities (units included), so a value in the wrong
dimension is never a match. The rules:

* only the question's values (:class:`~.definitions.Givens` ``values``) and a short table of constants
  (:data:`CONSTANTS`) are used, never a number the model writes;
* a symbol with no value (or one the question gives twice) leaves the pair ``undecided``, as does a
  formula whose value has other dimensions than the number (another unit system: the judge decides);
* ``h`` and ``G`` are Planck's and Newton's constants only when the question never writes them itself.

The evaluator walks the SymPy tree of the engine's own parser (sums, products, powers, elementary
functions of dimensionless arguments); nothing is ever evaluated as code.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Dict, FrozenSet, Optional, Tuple

import sympy

from ..read.definitions import Givens

CONSTANTS = {'c': 'speed_of_light', 'hbar': 'hbar', 'k_B': 'boltzmann_constant', 'epsilon_0': 'vacuum_permittivity',
             'mu_0': 'vacuum_permeability', 'm_e': 'electron_mass', 'N_A': 'avogadro_constant',
             'h': 'planck_constant', 'G': 'gravitational_constant'}
"""SymPy name -> pint constant used when the question gives the symbol no value."""
LETTERS_THE_QUESTION_MAY_USE = frozenset({'h', 'G'})
"""Constants whose letter is also a height or a conductance: used only when the question never writes it."""
_ELECTRONS_RE = re.compile(r'\belectrons?\b', re.IGNORECASE)
_OTHER_MASSES_RE = re.compile(
    r'\bmass|\bprotons?\b|\bneutrons?\b|\bnucle|\bmuons?\b|\bmesons?\b|\bpions?\b|\bions?\b|\bhadrons?\b'
    r'|\bquarks?\b|\bdeuter|\balpha\b|(?<![-\w])particles?\b|\bball|\bbead|\bblock|\bbod(?:y|ies)\b|\bplanet'
    r'|\bsatellite|\bpendulum|\bspring|\bpositron|\bexciton|\bhole', re.IGNORECASE)
MAX_OPS = 200
"""Formulas larger than this are not evaluated (cost)."""

_FUNCTIONS = {sympy.sin: math.sin, sympy.cos: math.cos, sympy.tan: math.tan, sympy.exp: math.exp,
              sympy.log: math.log, sympy.sinh: math.sinh, sympy.cosh: math.cosh, sympy.tanh: math.tanh,
              sympy.asin: math.asin, sympy.acos: math.acos, sympy.atan: math.atan}


class _NoValue(Exception):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@lru_cache(maxsize=256)
def quantities(givens: Givens) -> Tuple[Dict[str, object], FrozenSet]:
    """Name -> pint quantity for the question's values and the usable constants; names given twice.
    Cached per worker: do not mutate the mapping."""
    from ..read.latex import LatexError, to_sympy
    from .units import parse_unit, registry
    ureg = registry()
    out: Dict[str, object] = {}
    for name, latex, unit in givens.values:
        try:
            number = float(to_sympy(latex))
        except (LatexError, TypeError, ValueError, RecursionError):
            continue
        parsed = parse_unit(unit) if unit else None
        if unit and parsed is None:
            continue  # a unit we cannot read: no value rather than a wrong one
        out[name] = ureg.Quantity(number, parsed) if parsed is not None else ureg.Quantity(number)
    for name, constant in CONSTANTS.items():
        if name in out or name in givens.conflicting or any(n == name for n, _ in givens.definitions):
            continue
        if name in LETTERS_THE_QUESTION_MAY_USE and givens.mentions(name):
            continue
        out[name] = ureg.Quantity(1.0, constant)
    if 'm' not in out and _only_electrons(givens):
        out['m'] = ureg.Quantity(1.0, 'electron_mass')
    return out, givens.conflicting


def _only_electrons(givens: Givens) -> bool:
    """Whether a bare ``m`` can only be the electron's mass: the question names electrons, never writes
    ``m`` nor defines it, and names no mass nor any other body (a proton, an ion, a particle, a ball...;
    "one-particle" states are the electrons')."""
    text = givens.question_text
    return bool(_ELECTRONS_RE.search(text)) and not _OTHER_MASSES_RE.search(text) and 'm' not in givens.conflicting \
        and not givens.mentions('m') and not any(n == 'm' for n, _ in givens.definitions)


def evaluate(expr: sympy.Expr, values: Dict[str, object]):
    """The pint quantity of ``expr`` with ``values``; raises :class:`_NoValue` saying why not."""
    if expr.is_Symbol:
        if expr.name not in values:
            raise _NoValue(f'no value for {expr.name}')
        return values[expr.name]
    if expr.is_Number or expr in (sympy.pi, sympy.E):
        value = float(expr)
        if math.isnan(value) or math.isinf(value):
            raise _NoValue('not a finite number')
        return value
    if expr.is_Add:
        total = None
        for arg in expr.args:
            term = evaluate(arg, values)
            total = term if total is None else _add(total, term)
        return total
    if expr.is_Mul:
        product = 1.0
        for arg in expr.args:
            product = product * evaluate(arg, values)
        return product
    if expr.is_Pow:
        base = evaluate(expr.base, values)
        return base ** _plain(evaluate(expr.exp, values))
    function = _FUNCTIONS.get(expr.func)
    if function is not None and len(expr.args) == 1:
        return function(_plain(evaluate(expr.args[0], values)))
    raise _NoValue(f'{expr.func.__name__} is not evaluated')


def _add(a, b):
    try:
        return a + b
    except Exception:
        raise _NoValue('a sum of different dimensions') from None


def _plain(value) -> float:
    """A dimensionless value as a float (an exponent, a sine's argument)."""
    magnitude = getattr(value, 'magnitude', None)
    if magnitude is None:
        return float(value)
    try:
        return float(value.to('dimensionless').magnitude)
    except Exception:
        raise _NoValue('a dimensional exponent or function argument') from None


def missing_values(expr: sympy.Expr, givens: Givens, values: Optional[Dict[str, object]] = None) -> Tuple[str, ...]:
    """The symbols of ``expr`` the problem gives no value (sorted)."""
    if values is None:
        values, _ = quantities(givens)
    return tuple(sorted(s.name for s in expr.free_symbols if s.name not in values))


def value_in(expr: sympy.Expr, givens: Givens, unit) -> Tuple[Optional[float], str]:
    """``expr`` evaluated with the problem's values, as a number in ``unit`` (a pint unit, or None for a
    pure number), and '' -- or (None, why not)."""
    if sympy.count_ops(expr) > MAX_OPS:
        return None, 'too large to evaluate'
    values, _ = quantities(givens)
    missing = missing_values(expr, givens, values)
    if missing:
        return None, 'no value in the problem for ' + ', '.join(missing)
    try:
        quantity = evaluate(expr, values)
    except _NoValue as exc:
        return None, exc.why
    except (ArithmeticError, ValueError, TypeError) as exc:
        return None, f'cannot evaluate: {type(exc).__name__}'
    try:
        if hasattr(quantity, 'to'):
            magnitude = quantity.to(unit).magnitude if unit is not None else quantity.to('dimensionless').magnitude
        elif unit is None:
            magnitude = quantity
        else:
            from .units import registry
            magnitude = registry().Quantity(quantity).to(unit).magnitude
    except Exception:
        return None, 'the formula has other dimensions than the number (another unit system?)'
    magnitude = complex(magnitude)
    if abs(magnitude.imag) > 1e-12 * max(1.0, abs(magnitude.real)) or not math.isfinite(magnitude.real):
        return None, 'not a real number'
    return magnitude.real, ''
