"""SymPy expression -> labelled ordered tree, the input of the EED edit distance.

Node kinds follow the PHYBench definition (see ``docs/eed-notes.md``): ``number`` (integers,
rationals, floats, pi, E, infinities and the other numeric constants), ``symbol``, ``operator``
(``Add``, ``Mul``, ``Pow``) and ``function`` (``sin``, ``log``, ``exp``, ... and undefined functions).
Children are the expression's ``args`` in SymPy's order. Anything else SymPy can hand us
(relationals, ``Tuple``, sets, matrices, ``Integral``, logic) becomes an ``operator`` node named after
its class, so no input makes the builder fail; the official builder raised on these and scored 0.

The builder is iterative, so a deeply nested expression cannot hit Python's recursion limit.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, List, Tuple

import sympy
from sympy.core.function import AppliedUndef
from sympy.logic.boolalg import BooleanAtom

NUMBER = 'number'
SYMBOL = 'symbol'
OPERATOR = 'operator'
FUNCTION = 'function'
KINDS = (NUMBER, SYMBOL, OPERATOR, FUNCTION)


@dataclass(frozen=True)
class ExprNode:
    """One node: ``kind`` is one of ``KINDS``; two nodes match when (kind, name) are equal."""

    kind: str
    name: str
    children: Tuple['ExprNode', ...] = ()

    @property
    def label(self) -> str:
        """The official scorer's label form, e.g. ``operator_Mul`` or ``number_1/2``."""
        return f'{self.kind}_{self.name}'

    def postorder(self) -> Iterator['ExprNode']:
        """Nodes children-first, left to right (iterative: deep trees are fine)."""
        stack: List[Tuple[ExprNode, bool]] = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded or not node.children:
                yield node
                continue
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.children))

    def size(self) -> int:
        """Number of nodes (every node's insert cost is 1, so this is also the tree's weight)."""
        cached = self.__dict__.get('_size')
        if cached is None:  # not a field: equality and hashing ignore it
            cached = sum(1 for _ in self.postorder())
            object.__setattr__(self, '_size', cached)
        return cached

    def render(self) -> str:
        """A compact one-line form for test messages and debugging: ``Mul(2, m, Pow(l, -1))``."""
        parts: List[str] = []
        stack: List[object] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
                continue
            assert isinstance(item, ExprNode)
            parts.append(item.name)
            if item.children:
                parts.append('(')
                stack.append(')')
                for index, child in enumerate(reversed(item.children)):
                    stack.append(child)
                    if index < len(item.children) - 1:
                        stack.append(', ')
        return ''.join(parts)


def node_kind_and_name(expr: object) -> Tuple[str, str]:
    """Classify one SymPy object (not its children)."""
    if not isinstance(expr, sympy.Basic):
        # Plain Python values occasionally appear inside args (e.g. matrix shapes).
        if isinstance(expr, (int, float, complex)) and not isinstance(expr, bool):
            return NUMBER, str(expr)
        return SYMBOL, str(expr)
    if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Pow)):
        return OPERATOR, type(expr).__name__
    if isinstance(expr, AppliedUndef):
        return FUNCTION, str(expr.func)
    if isinstance(expr, sympy.Function):
        return FUNCTION, expr.func.__name__
    # Number covers Integer, Rational, Float, oo, -oo, nan; NumberSymbol covers pi, E, EulerGamma,
    # Catalan, GoldenRatio; zoo and I are atomic constants too.
    if isinstance(expr, (sympy.Number, sympy.NumberSymbol, BooleanAtom)):
        try:
            return NUMBER, str(expr)
        except ValueError:  # an integer beyond Python's str() digit limit: label it by value hash
            return NUMBER, f'<{type(expr).__name__} #{hash(expr):x}>'
    if expr is sympy.zoo or expr is sympy.I:
        return NUMBER, str(expr)
    if not expr.args:
        return SYMBOL, str(expr)
    return OPERATOR, type(expr).__name__


def _children_of(expr: object) -> tuple:
    if isinstance(expr, sympy.Basic):
        return expr.args
    if isinstance(expr, (tuple, list)):
        return tuple(expr)
    return ()


TREE_CACHE_SIZE = 1024
"""Trees kept per process: a reference's tree is built once for all the answers scored against it."""


def expression_tree(expr: object) -> ExprNode:
    """The EED tree of ``expr`` (a SymPy object; plain tuples/lists become ``Tuple`` nodes), cached.

    SymPy's ``==`` is structural (``Float(0.5) != Rational(1, 2)`` since SymPy 1.13), so equal keys
    have equal trees.
    """
    if isinstance(expr, sympy.Basic):
        try:
            return _cached_tree(expr)
        except RecursionError:  # hashing a very deep expression: build it uncached
            pass
    return _build_tree(expr)


@lru_cache(maxsize=TREE_CACHE_SIZE)
def _cached_tree(expr: sympy.Basic) -> ExprNode:
    return _build_tree(expr)


def _build_tree(expr: object) -> ExprNode:
    # Post-order construction with an explicit stack: (object, children already built?).
    stack: List[Tuple[object, bool]] = [(expr, False)]
    built: List[ExprNode] = []
    while stack:
        obj, ready = stack.pop()
        children = _children_of(obj)
        if ready:
            count = len(children)
            kids = tuple(built[len(built) - count:]) if count else ()
            if count:
                del built[len(built) - count:]
            if isinstance(obj, (tuple, list)):
                kind, name = OPERATOR, 'Tuple'
            else:
                kind, name = node_kind_and_name(obj)
            built.append(ExprNode(kind, name, kids))
            continue
        stack.append((obj, True))
        stack.extend((child, False) for child in reversed(children))
    assert len(built) == 1
    return built[0]
