"""Specification of the EED expression tree: node kinds, labels, children, and robustness."""
from __future__ import annotations

import pytest
import sympy as sp

from evalscope_phys.scoring.eed.tree import (
    FUNCTION, NUMBER, OPERATOR, SYMBOL, ExprNode, expression_tree, node_kind_and_name,
)

x, y, m, g, l, v0 = sp.symbols('x y m g l v_0')
f = sp.Function('f')

# (SymPy object, expected kind, expected name) -- one row per kind of thing SymPy can hand us.
NODE_KINDS = [
    (sp.Integer(2), NUMBER, '2'),
    (sp.Integer(-1), NUMBER, '-1'),
    (sp.Rational(1, 2), NUMBER, '1/2'),
    (sp.Float('2.5'), NUMBER, str(sp.Float('2.5'))),
    (sp.pi, NUMBER, 'pi'),
    (sp.E, NUMBER, 'E'),
    (sp.oo, NUMBER, 'oo'),
    (-sp.oo, NUMBER, '-oo'),
    (sp.zoo, NUMBER, 'zoo'),
    (sp.nan, NUMBER, 'nan'),
    (sp.I, NUMBER, 'I'),
    (sp.EulerGamma, NUMBER, 'EulerGamma'),   # what latex2sympy makes of \gamma; the official builder crashed
    (sp.GoldenRatio, NUMBER, 'GoldenRatio'),
    (sp.true, NUMBER, 'True'),
    (x, SYMBOL, 'x'),
    (v0, SYMBOL, 'v_0'),
    (sp.Dummy('d'), SYMBOL, None),           # its printed name carries a counter
    (x + y, OPERATOR, 'Add'),
    (x * y, OPERATOR, 'Mul'),
    (x ** 2, OPERATOR, 'Pow'),
    (sp.sin(x), FUNCTION, 'sin'),
    (sp.log(x), FUNCTION, 'log'),
    (sp.exp(x), FUNCTION, 'exp'),
    (sp.Abs(x), FUNCTION, 'Abs'),
    (sp.factorial(x), FUNCTION, 'factorial'),
    (f(x), FUNCTION, 'f'),                    # undefined function
    (sp.Piecewise((x, x > 0), (0, True)), FUNCTION, 'Piecewise'),
    (sp.Eq(x, 1), OPERATOR, 'Equality'),
    (sp.Ge(x, 1), OPERATOR, 'GreaterThan'),
    (sp.Tuple(1, x), OPERATOR, 'Tuple'),
    (sp.Integral(x, (x, 0, 1)), OPERATOR, 'Integral'),
    (sp.Derivative(f(x), x), OPERATOR, 'Derivative'),
    (sp.ImmutableMatrix([[1, x]]), OPERATOR, 'ImmutableDenseMatrix'),
    (sp.FiniteSet(1, 2), OPERATOR, 'FiniteSet'),
    (sp.And(x > 0, y > 0), OPERATOR, 'And'),
]


@pytest.mark.parametrize('expr, kind, name', NODE_KINDS, ids=[str(row[0]) for row in NODE_KINDS])
def test_node_kind_and_name(expr, kind, name):
    got_kind, got_name = node_kind_and_name(expr)
    assert got_kind == kind
    if name is not None:
        assert got_name == name


@pytest.mark.parametrize('expr', [row[0] for row in NODE_KINDS], ids=[str(row[0]) for row in NODE_KINDS])
def test_every_kind_builds_a_tree_whose_size_counts_all_args(expr):
    tree = expression_tree(expr)
    assert tree.kind in (NUMBER, SYMBOL, OPERATOR, FUNCTION)
    assert tree.size() == 1 + sum(expression_tree(arg).size() for arg in getattr(expr, 'args', ()))


def test_children_are_the_args_in_sympy_order():
    expr = sp.Mul(2, m, sp.Pow(l, -1), evaluate=False)
    tree = expression_tree(expr)
    assert tree.label == 'operator_Mul'
    assert [child.label for child in tree.children] == ['number_2', 'symbol_m', 'operator_Pow']
    assert [c.label for c in tree.children[2].children] == ['symbol_l', 'number_-1']


def test_readme_reference_tree_after_simplify_has_15_nodes():
    # 2 m g + 4 m v0^2 / l simplifies to 2 m (g l + 2 v0^2) / l.
    reference = sp.simplify(2 * m * g + 4 * m * v0 ** 2 / l)
    tree = expression_tree(reference)
    assert tree.render() == 'Mul(2, m, Pow(l, -1), Add(Mul(2, Pow(v_0, 2)), Mul(g, l)))'
    assert tree.size() == 15


def test_postorder_lists_children_before_parents_left_to_right():
    tree = expression_tree(sp.sin(x) + y ** 2)
    assert [n.name for n in tree.postorder()] == ['y', '2', 'Pow', 'x', 'sin', 'Add']


def test_plain_python_containers_and_values_do_not_crash():
    tree = expression_tree((x, 3, 'label'))
    assert tree.label == 'operator_Tuple'
    assert [c.label for c in tree.children] == ['symbol_x', 'number_3', 'symbol_label']


def test_very_deep_expression_does_not_hit_the_recursion_limit():
    expr = x
    for _ in range(3000):
        expr = sp.sin(expr, evaluate=False)
    tree = expression_tree(expr)
    assert tree.size() == 3001
    assert sum(1 for _ in tree.postorder()) == 3001


def test_nodes_are_immutable_and_comparable():
    a = expression_tree(x + 1)
    b = expression_tree(x + 1)
    assert a == b and hash(a) == hash(b)
    with pytest.raises(Exception):
        a.kind = SYMBOL  # type: ignore[misc]
    assert ExprNode(NUMBER, '2') != ExprNode(SYMBOL, '2')
