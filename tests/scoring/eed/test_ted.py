"""The fast tree edit distance equals the pre-numpy implementation (the oracle) bit for bit.

Both of :mod:`evalscope_phys.scoring.eed.ted`'s engines (cell by cell and the numpy anti-diagonal one)
must return the very same float as ``eed_oracle.oracle_distance`` on random trees and on every tree
pair the engine builds from the dev pairs and the golden cases.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import List, Tuple

import pytest

from evalscope_phys.scoring.eed import eed, ted
from evalscope_phys.scoring.eed.eed import cluster_cost, tree_edit_distance
from evalscope_phys.scoring.engine import clear_cache, score_answer
from evalscope_phys.scoring.eed.tree import OPERATOR, SYMBOL, ExprNode
from tests.scoring.eed.eed_oracle import oracle_distance

GOLDEN = json.loads((Path(__file__).parents[1] / 'golden_cases.json').read_text(encoding='utf-8'))


def _random_tree(rng: random.Random, depth: int, width: int) -> ExprNode:
    if depth == 0 or rng.random() < 0.25:
        return ExprNode(SYMBOL, rng.choice('abcd'))
    kids = tuple(_random_tree(rng, depth - 1, width) for _ in range(rng.randint(1, width)))
    return ExprNode(OPERATOR, rng.choice('XYZ'), kids)


def _both_engines(a: ExprNode, b: ExprNode, discount: bool) -> Tuple[float, float]:
    tables = ted.oriented(a, b, cluster_cost if discount else float)
    return ted._python_distance(*tables), ted._numpy_distance(*tables)


@pytest.mark.parametrize('seed', range(6))
def test_both_engines_equal_the_oracle_on_random_trees(seed):
    rng = random.Random(seed)
    for _ in range(60):
        a = _random_tree(rng, rng.randint(1, 6), rng.randint(1, 4))
        b = _random_tree(rng, rng.randint(1, 6), rng.randint(1, 4))
        for discount in (True, False):
            expected = oracle_distance(a, b, discount)
            python, vectorised = _both_engines(a, b, discount)
            assert python == expected and vectorised == expected, (a, b, discount)
        assert tree_edit_distance(a, b) == oracle_distance(a, b)


def test_large_random_trees_take_the_numpy_engine_and_equal_the_oracle(monkeypatch):
    rng = random.Random(99)
    calls: List[int] = []
    real = ted._numpy_distance
    monkeypatch.setattr(ted, '_numpy_distance', lambda *args: calls.append(1) or real(*args))
    for _ in range(12):
        a, b = _random_tree(rng, 6, 4), _random_tree(rng, 6, 4)
        if a.size() < 30 or b.size() < 30:
            continue
        assert tree_edit_distance(a, b) == oracle_distance(a, b)
    assert calls, 'no pair was large enough for the numpy engine'


def _engine_tree_pairs(monkeypatch, pairs) -> List[Tuple[ExprNode, ExprNode, float]]:
    """Score ``pairs`` with the engine in-process, recording every tree pair EED compares."""
    seen: List[Tuple[ExprNode, ExprNode, float]] = []
    real = eed.tree_distance

    def recording(a, b, whole_cost):
        distance = real(a, b, whole_cost)
        seen.append((a, b, distance))
        return distance

    monkeypatch.setattr(eed, 'tree_distance', recording)
    clear_cache()
    for reference, answer in pairs:
        score_answer(reference, answer, timeout=None)
    clear_cache()
    return seen


def test_engine_distances_equal_the_oracle_on_every_golden_pair(monkeypatch):
    seen = _engine_tree_pairs(monkeypatch, [(c['reference'], c['answer']) for c in GOLDEN])
    assert len(seen) >= 10
    for a, b, distance in seen:
        assert distance == oracle_distance(a, b), (a.render(), b.render())


@pytest.mark.integration
def test_engine_distances_and_scores_equal_the_oracle_on_every_dev_pair(monkeypatch, shared_data):
    rows = [json.loads(line) for line in (shared_data / 'eed' / 'eed_dev_pairs.jsonl').open(encoding='utf-8')]
    seen = _engine_tree_pairs(monkeypatch, [(r['gt'], r['gen']) for r in rows])
    assert len(seen) >= 250
    assert max(a.size() * b.size() for a, b, _ in seen) > 10_000  # the numpy engine is exercised
    for a, b, distance in seen:
        expected = oracle_distance(a, b)
        assert distance == expected, (a.render(), b.render())
        # the EED score the engine reports (b is the reference tree)
        assert eed.eed_from_distance(distance, b.size()) == eed.eed_from_distance(expected, b.size())
        # and both engines on the same tables, whichever the size picks
        tables = ted.oriented(a, b, cluster_cost)
        if tables[0].work * tables[1].work < ted.NUMPY_MAX_CELLS:
            assert ted._python_distance(*tables) == ted._numpy_distance(*tables) == expected


def test_the_table_cache_is_bounded_in_entries_as_well_as_nodes(monkeypatch):
    # 3-node answers, each seen once: the node bound alone would keep ~65k of them
    monkeypatch.setattr(ted, 'INDEX_CACHE_ENTRIES', 50)
    rng = random.Random(7)
    for _ in range(200):
        a, b = _random_tree(rng, 2, 2), _random_tree(rng, 2, 2)
        assert tree_edit_distance(a, b) == oracle_distance(a, b)
    assert len(ted._index_cache) <= 50


def test_the_numpy_engine_array_cache_is_bounded_in_entries(monkeypatch):
    monkeypatch.setattr(ted, 'SIDE_CACHE_ENTRIES', 500)
    monkeypatch.setattr(ted, '_side_cache', ted.OrderedDict())
    monkeypatch.setattr(ted, '_side_entries', 0)
    rng = random.Random(11)
    for _ in range(40):
        a, b = _random_tree(rng, 4, 3), _random_tree(rng, 4, 3)
        tables = ted.oriented(a, b, cluster_cost)
        assert ted._numpy_distance(*tables) == oracle_distance(a, b)
        assert ted._side_entries <= 500
        assert ted._side_entries == sum(side.size for _, side in ted._side_cache.values())
    assert ted._side_cache
