"""A small recursive-descent parser for the canonical LaTeX that ``latex.normalize_latex`` emits.

The ANTLR grammar of ``latex2sympy2_extended`` costs 20-300 ms per answer in pure Python; the
canonical form is a tiny language (``\\variable{name}``, numbers, ``+ - \\cdot / ^ !``, brackets,
``|..|``, ``\\frac``, ``\\sqrt``, elementary functions), so we parse it directly in well under a
millisecond and fall back to the grammar for anything else (:class:`Unsupported`). The precedence
rules copy the grammar's so both routes read an answer the same way: juxtaposition binds tighter
than ``/`` (``a/bc`` is ``a/(bc)``), and a function without parentheses takes the following product
(``\\sin 2\\theta`` is ``sin(2 theta)``, ``\\sin x \\cos x`` is ``sin(x) cos(x)``).
Building the result uses SymPy constructors only; no text is ever evaluated.
"""
from __future__ import annotations

import re
from typing import List, Optional

import sympy

MAX_DEPTH = 200
"""Nesting deeper than this is left to the limits pre-check and the fallback (which refuses it)."""

_TOKEN_RE = re.compile(r'\\variable\{([^{}]*)\}|\\([A-Za-z]+)|(\d+\.?\d*|\.\d+)|(\S)')
_FUNCTIONS = {
    'sin': sympy.sin, 'cos': sympy.cos, 'tan': sympy.tan, 'csc': sympy.csc, 'sec': sympy.sec,
    'cot': sympy.cot, 'arcsin': sympy.asin, 'arccos': sympy.acos, 'arctan': sympy.atan,
    'arccsc': sympy.acsc, 'arcsec': sympy.asec, 'arccot': sympy.acot, 'sinh': sympy.sinh,
    'cosh': sympy.cosh, 'tanh': sympy.tanh, 'arsinh': sympy.asinh, 'arcosh': sympy.acosh,
    'artanh': sympy.atanh, 'arcsinh': sympy.asinh, 'arccosh': sympy.acosh, 'arctanh': sympy.atanh,
    'exp': sympy.exp, 'ln': sympy.log,
}
_INVERSES = {'sin': 'arcsin', 'cos': 'arccos', 'tan': 'arctan', 'cot': 'arccot', 'sec': 'arcsec',
             'csc': 'arccsc', 'sinh': 'arsinh', 'cosh': 'arcosh', 'tanh': 'artanh'}
_OPEN = {'(': ')', '[': ']', '{': '}'}


class Unsupported(ValueError):
    """The text is outside the canonical subset (the caller falls back to the grammar)."""


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

    def peek(self) -> Optional[tuple]:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def next(self) -> tuple:
        tok = self.peek()
        if tok is None:
            raise Unsupported('unexpected end')
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
        terms = []
        sign = 1
        tok = self.peek()
        if tok in (('chr', '+'), ('chr', '-')):
            self.next()
            sign = -1 if tok[1] == '-' else 1
        terms.append(sign * self.division())
        while self.peek() in (('chr', '+'), ('chr', '-')):
            sign = -1 if self.next()[1] == '-' else 1
            terms.append(sign * self.division())
        self.depth -= 1
        return sympy.Add(*terms)

    # division := product ('/' product)*   -- juxtaposition binds tighter than '/'
    def division(self, stop_at_function: bool = False) -> sympy.Expr:
        value = self.product(stop_at_function)
        while self.peek() == ('chr', '/'):
            self.next()
            value = value / self.product(stop_at_function)
        return value

    def _starts_factor(self, tok: Optional[tuple], stop_at_function: bool) -> bool:
        if tok is None:
            return False
        kind, value = tok
        if kind in ('var', 'num'):
            return True
        if kind == 'cmd':
            if value in _FUNCTIONS or value in ('log', 'sqrt'):
                return not stop_at_function
            return value in ('frac', 'pi', 'infty', 'cdot', 'sqrt')
        return value in _OPEN or value == '|' and not self._in_abs

    _in_abs = False

    # product := power ((\cdot)? power)*
    def product(self, stop_at_function: bool = False) -> sympy.Expr:
        factors = [self.power()]
        while True:
            tok = self.peek()
            if tok == ('cmd', 'cdot'):
                self.next()
                factors.append(self.power())
                continue
            if tok is not None and tok[0] == 'cmd' and (tok[1] in _FUNCTIONS or tok[1] in ('log', 'sqrt')) \
                    and stop_at_function:
                break
            if self._starts_factor(tok, stop_at_function) and tok != ('cmd', 'cdot'):
                factors.append(self.power())
                continue
            break
        return sympy.Mul(*factors)

    # power := atom ('^' group)* '!'*
    def power(self) -> sympy.Expr:
        base = self.atom()
        while True:
            tok = self.peek()
            if tok == ('chr', '^'):
                self.next()
                base = sympy.Pow(base, self.group())
            elif tok == ('chr', '!'):
                self.next()
                base = sympy.factorial(base)
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
        tok = self.next()
        kind, value = tok
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
            if value == '|' and not self._in_abs:
                self._in_abs = True
                inner = self.expression()
                self._in_abs = False
                self.expect(('chr', '|'))
                return sympy.Abs(inner)
            if value == '-':  # "a \cdot -b"
                return -self.power()
            raise Unsupported('unexpected %r' % value)
        if value == 'frac':
            numerator = self.group()
            return numerator / self.group()
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
        raise Unsupported('command \\%s' % value)

    def function(self, name: str) -> sympy.Expr:
        base = None
        if name == 'log':
            if self.peek() != ('chr', '_'):
                raise Unsupported('log without base')
            self.next()
            base = self.group()
        exponent = None
        if self.peek() == ('chr', '^'):
            self.next()
            exponent = self.group()
        tok = self.peek()
        if tok in (('chr', '('), ('chr', '{'), ('chr', '[')):
            argument = self.power_of_group()
        else:
            argument = self.division(stop_at_function=True)
        if exponent == -1 and name in _INVERSES:  # \tan^{-1} x is arctan x
            return _FUNCTIONS[_INVERSES[name]](argument)
        value = sympy.log(argument, base) if base is not None else _FUNCTIONS[name](argument)
        if exponent is not None:
            value = sympy.Pow(value, exponent)
        return value

    def power_of_group(self) -> sympy.Expr:
        """A parenthesised argument; a power right after it belongs to the argument's result."""
        opener = self.next()[1]
        inner = self.expression()
        self.expect(('chr', _OPEN[opener]))
        return inner


def symbol(name: str) -> sympy.Symbol:
    """Every physics symbol is a positive real (the official scorer posifies before simplifying)."""
    return sympy.Symbol(name, positive=True)


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
    except (RecursionError, ZeroDivisionError, TypeError, ValueError) as exc:
        if isinstance(exc, Unsupported):
            raise
        raise Unsupported(type(exc).__name__)
    if parser.peek() is not None:
        raise Unsupported('trailing %r' % (parser.peek(),))
    return value
