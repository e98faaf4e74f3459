"""Specification of EED: the extended Zhang–Shasha distance, the cluster discount and the score scale.

Distances in the golden tables are derived by hand; each row says which edits achieve it.
"""
from __future__ import annotations

import json
import random
from typing import List, Tuple

import pytest
import sympy as sp
import zss

from evalscope_phys.scoring.eed.eed import (
    EedResult, cluster_cost, eed_from_distance, eed_score, tree_edit_distance,
)
from evalscope_phys.scoring.eed.tree import OPERATOR, SYMBOL, ExprNode


def tree(text: str) -> ExprNode:
    """Test notation: ``f(a,g(b,c))``; leaves are symbols, inner nodes operators."""
    pos = 0

    def parse() -> ExprNode:
        nonlocal pos
        start = pos
        while pos < len(text) and text[pos] not in '(),':
            pos += 1
        name = text[start:pos].strip()
        if pos < len(text) and text[pos] == '(':
            pos += 1
            kids: List[ExprNode] = []
            while True:
                kids.append(parse())
                if text[pos] == ',':
                    pos += 1
                    continue
                assert text[pos] == ')'
                pos += 1
                return ExprNode(OPERATOR, name, tuple(kids))
        return ExprNode(SYMBOL, name)

    result = parse()
    assert pos == len(text), text
    return result


# (answer tree, reference tree, distance, how)
DISTANCES: List[Tuple[str, str, float, str]] = [
    ('f(a,b)', 'f(a,b)', 0, 'identical'),
    ('f(a,c)', 'f(a,b)', 1, 'relabel leaf c -> b'),
    ('g(a,b)', 'f(a,b)', 1, 'relabel the root'),
    ('f(a)', 'f(a,b)', 1, 'insert leaf b'),
    ('f(a,b,c)', 'f(a,b)', 1, 'delete leaf c'),
    ('f(g(a,b))', 'f(a,b)', 1, 'delete inner node g; its children move up'),
    ('f(b,a)', 'f(a,b)', 2, 'order matters: two relabels'),
    ('f(d(a,c(b)),e)', 'f(c(d(a,b)),e)', 2, 'Zhang-Shasha paper example: delete c, insert c'),
    ('f(a)', 'f(a,g(b,c,d,e))', 5, 'insert a 5-node subtree: no discount up to 5 nodes'),
    ('f(a)', 'f(a,g(b,c,d,e,h))', 5.6, 'insert a 6-node subtree whole: 0.6*(6-5)+5'),
    ('f(a,g(b,c,d,e,h))', 'f(a)', 5.6, 'delete a 6-node subtree whole: same price'),
    ('f(a)', 'f(a,g(b,c,d,e,h,i,j,k,n))', 8, 'insert a 10-node subtree: 0.6*5+5'),
    ('f(a)', 'f(a,g(b,c,d,e,h),k(b,c,d,e,h))', 11.2, 'two 6-node subtrees, each discounted'),
    ('f(a)', 'f(a,g(b,c,d,e,h,k(b,c,d,e,h)))', 9.2, 'one nested 12-node subtree: 0.6*7+5'),
    ('f(a,g(b,c,d,e,z))', 'f(a,g(b,c,d,e,h))', 1, 'a relabel beats delete+insert of the cluster'),
    ('a', 'f(a,g(b,c,d,e,h))', 6.6, 'insert root f (1) and the 6-node cluster g (5.6)'),
    ('x', 'f(a,g(b,c,d,e,h))', 7.6, 'relabel x -> a, insert f and the cluster'),
]


@pytest.mark.parametrize('answer, reference, distance, how', DISTANCES, ids=[r[3] for r in DISTANCES])
def test_golden_distances(answer, reference, distance, how):
    got = tree_edit_distance(tree(answer), tree(reference))
    assert got == pytest.approx(distance), how
    # Costs are symmetric, so the distance is too.
    assert tree_edit_distance(tree(reference), tree(answer)) == pytest.approx(distance)


@pytest.mark.parametrize('size, cost', [(1, 1), (4, 4), (5, 5), (6, 5.6), (10, 8), (15, 11), (100, 62)])
def test_cluster_cost_is_full_price_to_five_then_point_six(size, cost):
    assert cluster_cost(size) == pytest.approx(cost)


# (distance, reference size, score): 100 at 0; 60 - 100 r while r < 0.6; else 0.
SCORES = [
    (0, 10, 100.0),
    (0.5, 100, 59.5),
    (1, 10, 50.0),
    (2, 15, 60 - 200 / 15),
    (5.9, 10, 1.0),
    (6, 10, 0.0),
    (7, 10, 0.0),
    (1, 1, 0.0),
]


@pytest.mark.parametrize('distance, size, score', SCORES)
def test_score_scale(distance, size, score):
    assert eed_from_distance(distance, size) == pytest.approx(score)


@pytest.mark.parametrize('distance, size', [(1, 0), (-1, 5)])
def test_score_scale_rejects_impossible_inputs(distance, size):
    with pytest.raises(ValueError):
        eed_from_distance(distance, size)


m, g, l, v0, x, y, z, w, a, b, c, d, e = sp.symbols('m g l v_0 x y z w a b c d e')

# (reference, answer, distance, reference size, why) on SymPy expressions as simplify returns them.
EXPRESSIONS = [
    (sp.simplify(2 * m * g + 4 * m * v0 ** 2 / l), sp.simplify(2 * m * g + 2 * m * v0 ** 2 / l), 2, 15,
     'PHYBench README: 2m(gl+2v0^2)/l vs 2m(gl+v0^2)/l -- delete Mul and its 2; 60-100*2/15 = 46.7'),
    (sp.simplify(2 * m * g + 4 * m * v0 ** 2 / l), sp.simplify(2 * m * g + 4 * m * v0 ** 2 / l), 0, 15,
     'identical answer scores 100'),
    (2 * x, 3 * x, 1, 3, 'coefficient error: one number relabelled'),
    (x ** 2, x ** 3, 1, 3, 'exponent error'),
    (y + sp.sin(x), y + sp.cos(x), 1, 4, 'wrong function'),
    (w * x * y * z + a * b * c * d * e, w * x * y * z, 6.6, 12,
     'missing term: delete Add (1) + the 6-node product as a cluster (5.6)'),
    (x, y, 1, 1, 'a single wrong symbol is r = 1: score 0'),
    (sp.EulerGamma * x, x, 2, 3, 'constants the official builder could not handle still score'),
]


@pytest.mark.parametrize('reference, answer, distance, size, why', EXPRESSIONS, ids=[r[4][:40] for r in EXPRESSIONS])
def test_eed_score_on_expressions(reference, answer, distance, size, why):
    result = eed_score(reference, answer)
    assert isinstance(result, EedResult)
    assert result.distance == pytest.approx(distance), why
    assert result.reference_size == size
    assert result.score == pytest.approx(eed_from_distance(distance, size))


def test_readme_example_scores_47():
    reference = sp.simplify(2 * m * g + 4 * m * v0 ** 2 / l)
    answer = sp.simplify(2 * m * g + 2 * m * v0 ** 2 / l)
    assert round(eed_score(reference, answer).score) == 47


def test_readme_example_from_latex():
    latex2sympy = pytest.importorskip('latex2sympy2_extended').latex2sympy
    reference = sp.simplify(latex2sympy(r'2 m g + 4\frac{m v_0^2}{l}'))
    answer = sp.simplify(latex2sympy(r'2 m g+2\frac{m v_0^2}{l}'))
    assert round(eed_score(reference, answer).score) == 47


def _random_tree(rng: random.Random, depth: int) -> ExprNode:
    if depth == 0 or rng.random() < 0.3:
        return ExprNode(SYMBOL, rng.choice('abc'))
    kids = tuple(_random_tree(rng, depth - 1) for _ in range(rng.randint(1, 3)))
    return ExprNode(OPERATOR, rng.choice('XY'), kids)


def _mirror(node: ExprNode) -> ExprNode:
    return ExprNode(node.kind, node.name, tuple(_mirror(c) for c in reversed(node.children)))


def _zss_tree(node: ExprNode) -> zss.Node:
    out = zss.Node(node.label)
    for child in node.children:
        out.addkid(_zss_tree(child))
    return out


def test_without_discount_it_is_the_classic_zhang_shasha_distance():
    rng = random.Random(7)
    for _ in range(300):
        a, b = _random_tree(rng, 4), _random_tree(rng, 4)
        expected = zss.distance(_zss_tree(a), _zss_tree(b), zss.Node.get_children,
                                insert_cost=lambda n: 1, remove_cost=lambda n: 1,
                                update_cost=lambda p, q: 0 if p.label == q.label else 1)
        assert tree_edit_distance(a, b, cluster_discount=False) == expected


def test_discounted_distance_is_symmetric_mirror_invariant_and_never_larger():
    rng = random.Random(11)
    for _ in range(300):
        a, b = _random_tree(rng, 5), _random_tree(rng, 5)
        distance = tree_edit_distance(a, b)
        assert tree_edit_distance(b, a) == pytest.approx(distance)
        assert tree_edit_distance(_mirror(a), _mirror(b)) == pytest.approx(distance)
        assert distance <= tree_edit_distance(a, b, cluster_discount=False)
        assert (distance == 0) == (a == b)


def test_deep_trees_pick_the_cheaper_orientation():
    # A chain hanging off the right: costly for left-path Zhang-Shasha, cheap mirrored.
    expr_a, expr_b = x, y
    for _ in range(150):
        expr_a = sp.Add(expr_a, 1, evaluate=False)
        expr_b = sp.Add(expr_b, 1, evaluate=False)
    mirrored_a = sp.Add(1, expr_a, evaluate=False)
    result = eed_score(expr_a, expr_b)
    assert result.distance == 1 and result.reference_size == 301
    assert eed_score(mirrored_a, sp.Add(1, expr_b, evaluate=False)).distance == 1


@pytest.mark.integration
def test_agrees_with_official_distances_on_fair_dev_pairs(shared_data):
    """Where the official scorer is a fair reference, our distances equal its distances."""
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig

    config = ConversionConfig(lowercase_symbols=False)
    rows = [json.loads(line) for line in open(shared_data / 'eed' / 'eed_dev_pairs.jsonl', encoding='utf-8')]
    fair = [r for r in rows if not r['official_defects'] and not r['zero_reason']
            and 0 < r['official_score'] < 100 and r['kind'] in ('coef_error', 'sign_error', 'exponent_error')]
    assert len(fair) >= 30
    fair = fair[:50]  # simplify dominates the time; 50 pairs are plenty to catch a wrong DP

    def parse(text: str):
        text = text.strip().replace(r'\[', '').replace(r'\]', '').replace('$', '')
        text = text.split('=')[-1].replace(r'\left', '').replace(r'\right', '')
        expr, replacements = sp.posify(latex2sympy(text, conversion_config=config))
        return sp.simplify(expr).subs(replacements)

    same = compared = 0
    for row in fair:
        try:  # this test's naive preprocessing is not the engine's; skip what it cannot parse
            reference, answer = parse(row['gt']), parse(row['gen'])
        except Exception:
            continue
        compared += 1
        same += abs(eed_score(reference, answer).distance - row['official_distance']) < 1e-9
    assert compared >= 30
    assert same / compared >= 0.9, f'{same}/{compared} distances equal the official ones'
