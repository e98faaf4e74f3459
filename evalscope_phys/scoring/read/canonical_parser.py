"""A small recursive-descent parser for the canonical LaTeX that :func:`.normalize.normalize_latex` emits.

The canonical form is a tiny language (``\\variable{name}``, numbers, ``+ - \\cdot \\times / ^ !``,
brackets, ``|..|``, ``\\frac``, ``\\sqrt``, ``\\binom``, elementary functions, ``\\sp`` for an explicit
space, postfix ``\\degree`` and ``\\percent``), so we parse it directly in well under a millisecond; nothing else is ever handed to a
grammar, and no text is evaluated: the result is built with SymPy constructors only.

Precedence: juxtaposition binds tighter than ``/`` (``a/bc`` is ``a/(bc)``). A function without
parentheses takes the implicit product that follows (``\\sin 2\\theta`` is ``sin(2 theta)``,
``\\cos\\omega t`` is ``cos(omega t)``) and stops at an explicit space, ``\\cdot``, ``\\times``, another
function or a later ``\\frac`` (``mg\\sin\\theta\\,\\frac{a}{b}`` is ``mg sin(theta) a/b``).

Symbols are positive reals (the official scorer posifies), except vectors (``vec:``) and opaque
values (``fn:``, ``d:``, ``avg:``...), which carry no assumption. ``\\times`` between two vector
expressions is a cross product: one opaque value that keeps the order of its operands.
``|\\vec{E}|`` is the magnitude ``E``; the norm of a vector expression is opaque.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional

import sympy

from .normalize import VECTOR, is_opaque_name, is_vector_name

MAX_DEPTH = 200
"""Nesting deeper than this is refused (the limits pre-check stops real inputs long before)."""
MAX_GROWING_ARGUMENT = 1e4
"""``exp``/``cosh``/``sinh`` of a number larger than this (a value beyond 10^4000) is refused: SymPy's
assumptions would evaluate it at unpredictable moments (an OverflowError deep in mpmath), making the
verdict depend on what the worker computed before."""

_TOKEN_RE = re.compile(r'\\variable\{([^{}]*)\}|\\([A-Za-z]+)|(\d+\.?\d*|\.\d+)|(\S)')
_FUNCTIONS = {
    'sin': sympy.sin, 'cos': sympy.cos, 'tan': sympy.tan, 'csc': sympy.csc, 'sec': sympy.sec,
    'cot': sympy.cot, 'arcsin': sympy.asin, 'arccos': sympy.acos, 'arctan': sympy.atan,
    'arccsc': sympy.acsc, 'arcsec': sympy.asec, 'arccot': sympy.acot, 'sinh': sympy.sinh,
    'cosh': sympy.cosh, 'tanh': sympy.tanh, 'arsinh': sympy.asinh, 'arcosh': sympy.acosh,
    'artanh': sympy.atanh, 'arcsinh': sympy.asinh, 'arccosh': sympy.acosh, 'arctanh': sympy.atanh,
    'exp': sympy.exp, 'ln': sympy.log,
}
MAX_FACTORIAL_ARGUMENT = 10000
"""n! for a number n above this (and binomials needing such factorials) is refused: computing the
exact integer would outlast any deadline; no physics answer needs one."""
_GROWING = frozenset({'exp', 'cosh', 'sinh'})
_MULTI_ARGUMENT = {'max': sympy.Max, 'min': sympy.Min}
_INVERSES = {'sin': 'arcsin', 'cos': 'arccos', 'tan': 'arctan', 'cot': 'arccot', 'sec': 'arcsec',
             'csc': 'arccsc', 'sinh': 'arsinh', 'cosh': 'arcosh', 'tanh': 'artanh'}
_OPEN = {'(': ')', '[': ']', '{': '}'}
_SPACE = ('cmd', 'sp')


class Unsupported(ValueError):
    """The text is outside the canonical subset; ``command`` names an unknown command, if that was it;
    ``too_large`` marks a value too large to build."""

    def __init__(self, message: str, command: str = '', too_large: bool = False) -> None:
        super().__init__(message)
        self.command = command
        self.too_large = too_large


def symbol(name: str) -> sympy.Symbol:
    """A symbol: positive real for physics quantities, no assumption for vectors and opaque values."""
    if is_vector_name(name) or is_opaque_name(name):
        return sympy.Symbol(name)
    return sympy.Symbol(name, positive=True)


def has_vector(expr: sympy.Basic) -> bool:
    return any(is_vector_name(s.name) for s in expr.free_symbols)


def _opaque(kind: str, *parts: sympy.Basic) -> sympy.Symbol:
    return sympy.Symbol('%s:%s' % (kind, ','.join(sympy.srepr(p) for p in parts)))


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens: List[tuple] = []
        for m in _TOKEN_RE.finditer(text):
            if m.group(1) is not None:
                self.tokens.append(('var', m.group(1)))
            elif m.group(2) is not None:
                self.tokens.append(('cmd', m.group(2)))
            elif m.group(3) is not None:
                self.tokens.append(('num', m.group(3)))
            else:
                self.tokens.append(('chr', m.group(4)))
        self.i = 0
        self.depth = 0
        self.in_abs = 0

    def peek(self, raw: bool = False) -> Optional[tuple]:
        """The next token; explicit spaces are skipped unless ``raw``."""
        i = self.i
        while not raw and i < len(self.tokens) and self.tokens[i] == _SPACE:
            i += 1
        return self.tokens[i] if i < len(self.tokens) else None

    def next(self) -> tuple:
        while self.i < len(self.tokens) and self.tokens[self.i] == _SPACE:
            self.i += 1
        if self.i >= len(self.tokens):
            raise Unsupported('unexpected end')
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, tok: tuple) -> None:
        if self.next() != tok:
            raise Unsupported('expected %r' % (tok,))

    # expression := ['+'|'-'] term (('+'|'-') term)*
    def expression(self) -> sympy.Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unsupported('too deep')
        sign = 1
        tok = self.peek()
        if tok in (('chr', '+'), ('chr', '-')):
            self.next()
            sign = -1 if tok[1] == '-' else 1
        terms = [sign * self.division()]
        while self.peek() in (('chr', '+'), ('chr', '-')):
            sign = -1 if self.next()[1] == '-' else 1
            terms.append(sign * self.division())
        self.depth -= 1
        return sympy.Add(*terms)

    # division := product ('/' product)*   -- juxtaposition binds tighter than '/'
    def division(self, argument: bool = False) -> sympy.Expr:
        value = self.product(argument)
        while self.peek(raw=argument) == ('chr', '/'):
            self.next()
            value = value / self.product(argument)
        return value

    def _starts_factor(self, tok: Optional[tuple], argument: bool, first: bool) -> bool:
        if tok is None:
            return False
        kind, value = tok
        if kind in ('var', 'num'):
            return True
        if kind == 'cmd':
            if value in _FUNCTIONS or value in _MULTI_ARGUMENT or value in ('log', 'sqrt'):
                return not argument
            if value == 'frac':
                return not argument or first
            return value in ('pi', 'infty', 'binom')
        return value in _OPEN or (value == '|' and not self.in_abs)

    # product := power ((\cdot | \times)? power)*
    def product(self, argument: bool = False) -> sympy.Expr:
        factors = [self.power()]
        while True:
            tok = self.peek(raw=argument)
            if tok == _SPACE:
                break  # only seen in a function argument: an explicit space ends it
            if tok in (('cmd', 'cdot'), ('cmd', 'times')):
                if argument:
                    break
                self.next()
                right = self.power()
                if tok == ('cmd', 'times'):
                    left = sympy.Mul(*factors)
                    if has_vector(left) and has_vector(right):
                        factors = [_opaque('cross', left, right)]
                        continue
                factors.append(right)
                continue
            if self._starts_factor(tok, argument, first=False):
                factors.append(self.power())
                continue
            break
        return sympy.Mul(*factors)

    # power := atom ('^' group)* '!'*
    def power(self) -> sympy.Expr:
        base = self.atom()
        while True:
            tok = self.peek(raw=True)
            if tok == ('chr', '^'):
                self.next()
                base = sympy.Pow(base, self.group())
            elif tok == ('chr', '!'):
                self.next()
                if base.is_number and _magnitude(base) > MAX_FACTORIAL_ARGUMENT:
                    raise Unsupported('number too large', too_large=True)
                base = sympy.factorial(base)
            elif tok == ('cmd', 'degree'):  # 30^\circ: a postfix unit of angle, bound to its number
                self.next()
                base = base * sympy.pi / 180
            elif tok == ('cmd', 'percent'):
                self.next()
                base = base / 100
            elif tok == ('chr', "'"):
                raise Unsupported('prime')
            else:
                return base

    def group(self) -> sympy.Expr:
        tok = self.next()
        if tok == ('chr', '{'):
            value = self.expression()
            self.expect(('chr', '}'))
            return value
        if tok[0] == 'num':
            return _number(tok[1])
        if tok[0] == 'var':
            return symbol(tok[1])
        raise Unsupported('bad group')

    def atom(self) -> sympy.Expr:
        kind, value = self.next()
        if kind == 'num':
            return _number(value)
        if kind == 'var':
            if not value:
                raise Unsupported('empty name')
            return symbol(value)
        if kind == 'chr':
            if value in _OPEN:
                inner = self.expression()
                self.expect(('chr', _OPEN[value]))
                return inner
            if value == '|' and not self.in_abs:
                self.in_abs += 1
                inner = self.expression()
                self.in_abs -= 1
                self.expect(('chr', '|'))
                return magnitude(inner)
            if value == '-':  # "a \cdot -b"
                return -self.power()
            raise Unsupported('unexpected %r' % value)
        if value == 'frac':
            numerator = self.group()
            return numerator / self.group()
        if value == 'binom':
            top, bottom = self.group(), self.group()
            if top.is_number and bottom.is_number and _magnitude(top) > MAX_FACTORIAL_ARGUMENT \
                    and min(_magnitude(bottom), _magnitude(top - bottom)) > 100:
                raise Unsupported('number too large', too_large=True)  # \binom{10^9}{5 \cdot 10^8}
            return sympy.binomial(top, bottom)
        if value == 'sqrt':
            if self.peek() == ('chr', '['):
                self.next()
                index = self.expression()
                self.expect(('chr', ']'))
                return sympy.root(self.group(), index)
            return sympy.sqrt(self.group())
        if value == 'pi':
            return sympy.pi
        if value == 'infty':
            return sympy.oo
        if value in _FUNCTIONS or value == 'log':
            return self.function(value)
        if value in _MULTI_ARGUMENT:
            return self.extremum(value)
        raise Unsupported('command \\%s' % value, value)

    def function(self, name: str) -> sympy.Expr:
        base = None
        if name == 'log':
            if self.peek() != ('chr', '_'):
                raise Unsupported('log without base')
            self.next()
            base = self.group()
        exponent = None
        if self.peek(raw=True) == ('chr', '^'):
            self.next()
            exponent = self.group()
        tok = self.peek()
        if tok in (('chr', '('), ('chr', '{'), ('chr', '[')):
            opener = self.next()[1]
            argument = self.expression()
            self.expect(('chr', _OPEN[opener]))
        else:
            argument = self.division(argument=True)
        if name in _GROWING and argument.is_number and _magnitude(argument) > MAX_GROWING_ARGUMENT:
            raise Unsupported('number too large', too_large=True)  # e^{10^5}: refused before SymPy evaluates it
        if exponent == -1 and name in _INVERSES:  # \tan^{-1} x is arctan x
            return _FUNCTIONS[_INVERSES[name]](argument)
        value = sympy.log(argument, base) if base is not None else _FUNCTIONS[name](argument)
        if exponent is not None:
            value = sympy.Pow(value, exponent)
        return value

    def extremum(self, name: str) -> sympy.Expr:
        opener = self.next()
        if opener[1] not in _OPEN:
            raise Unsupported('max/min without brackets')
        args = [self.expression()]
        while self.peek() == ('chr', ','):
            self.next()
            args.append(self.expression())
        self.expect(('chr', _OPEN[opener[1]]))
        return _MULTI_ARGUMENT[name](*args)


BARS = 'abs'
"""Kind of the opaque value ``|x|`` of a symbolic scalar (:func:`magnitude`)."""
MAX_BARRED = 100_000
"""Insides of barred values remembered per process (a bound on memory, not on meaning)."""
_BARRED: Dict[str, sympy.Expr] = {}


def barred_inside(name: str) -> Optional[sympy.Expr]:
    """What ``abs:..`` holds (``x`` for ``|x|``), or None when it is not a barred value or was forgotten."""
    return _BARRED.get(name)


def magnitude(inner: sympy.Expr) -> sympy.Expr:
    """``|X|``: ``|\\vec{E}_0|`` is the magnitude ``E_0``, ``|c\\,\\vec{v}|`` is ``|c| v``; the norm
    of any other vector expression is one opaque value; a scalar's absolute value is ``Abs``.

    Symbols are positive, so SymPy would drop the bars of ``|x|`` and make it ``x``; but a coordinate,
    a charge or a work can be negative, and whoever writes the bars says the sign matters. Such a
    value is the opaque ``abs:x`` (its number factor outside: ``|-2x|`` is ``2 abs:x``): equal to
    itself, never silently to ``x``. A number's bars still go (``|-2|`` is 2)."""
    if not has_vector(inner):
        value = sympy.Abs(inner)
        if isinstance(value, sympy.Abs) or not value.free_symbols:
            return value
        factor, rest = value.as_coeff_Mul()
        bars = _opaque(BARS, rest)
        if len(_BARRED) >= MAX_BARRED:
            _BARRED.clear()  # a forgotten inside only leaves |x| against x undecided
        _BARRED[bars.name] = rest
        return factor * bars
    vectors = [f for f in sympy.Mul.make_args(inner) if has_vector(f)]
    if len(vectors) == 1 and vectors[0].is_Symbol:
        scale = sympy.Mul(*[f for f in sympy.Mul.make_args(inner) if not has_vector(f)])
        return sympy.Abs(scale) * symbol(vectors[0].name[len(VECTOR):])
    return _opaque('norm', inner)


def _magnitude(value: sympy.Expr) -> float:
    """|value| as a float; inf when it overflows or cannot be evaluated (errors count as huge)."""
    try:
        return abs(complex(value))
    except (OverflowError, TypeError, ValueError, ArithmeticError):
        return float('inf')


def _number(text: str) -> sympy.Expr:
    if '.' in text:
        return sympy.Float(text)
    return sympy.Integer(text)


def parse_canonical(text: str) -> sympy.Expr:
    """SymPy expression of canonical LaTeX; raises :class:`Unsupported` outside the subset."""
    parser = _Parser(text)
    if not parser.tokens:
        raise Unsupported('empty')
    try:
        value = parser.expression()
    except (RecursionError, ZeroDivisionError, TypeError, ValueError, ArithmeticError) as exc:
        if isinstance(exc, Unsupported):
            raise
        raise Unsupported(type(exc).__name__, too_large=isinstance(exc, (OverflowError, RecursionError)))
    if parser.peek() is not None:
        raise Unsupported('trailing %r' % (parser.peek(),))
    return value
